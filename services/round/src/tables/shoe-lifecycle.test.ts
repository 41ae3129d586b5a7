import { DomainError, presetConfig, type ShoeSummary } from '@croupier/contracts';
import { describe, expect, it } from 'vitest';
import { initialRoundState, type RoundState } from '../domain/round.decider.js';
import type { TableState } from '../domain/table.decider.js';
import {
  closeReasonOf,
  nextRoundOf,
  nextShoeOf,
  requireBurnt,
  shoeToCloseOf,
  type TableShoe,
} from './shoe-lifecycle.js';

const config = presetConfig('live');
const TABLE: TableState = {
  status: 'open',
  tableId: 't1',
  config,
  dealing: null,
  dealerId: 'dan',
  shiftId: '00000000-0000-4000-8000-000000000001',
  session: null,
  seats: new Map(),
};
const shoe = (overrides: Partial<ShoeSummary> = {}): ShoeSummary => ({
  shoeId: 't1.1',
  tableId: 't1',
  number: 1,
  status: 'dealing',
  decks: 8,
  cardSource: 'rng',
  shufflePolicy: 'shoe',
  position: 10,
  cardsLeft: 400,
  roundsDrawn: 1,
  lastRoundNumber: null,
  cutCard: { position: 400, cardsFromEnd: 16, reached: false, reachedInRound: null },
  commitment: 'c'.repeat(64),
  ...overrides,
});
const round = (overrides: Partial<RoundState>): RoundState => ({
  ...initialRoundState(),
  roundId: 't1.1.3',
  number: 3,
  ...overrides,
});
const settled = round({ status: 'completed', settlementId: 's1' });
const facts = (overrides: Partial<TableShoe> = {}): TableShoe => ({
  table: TABLE,
  shoe: shoe(),
  lastNumber: 3,
  lastRound: settled,
  ...overrides,
});
const refusal = (check: () => unknown): { code: string; details: unknown } | 'none' => {
  try {
    check();
  } catch (error) {
    if (error instanceof DomainError) return { code: error.code, details: error.details };
    throw error;
  }
  return 'none';
};

describe('nextRoundOf', () => {
  it('opens the next round of a shoe that still deals', () => {
    expect(nextRoundOf(facts())).toMatchObject({ step: 'open-round', number: 4 });
  });

  it('starts shoe 1 at a new table, and the next shoe after a closed one', () => {
    expect(nextRoundOf(facts({ shoe: null, lastNumber: 0, lastRound: null }))).toMatchObject({
      step: 'new-shoe',
      close: null,
      shoeNumber: 1,
    });
    expect(nextRoundOf(facts({ shoe: shoe({ status: 'closed' }) }))).toMatchObject({
      step: 'new-shoe',
      close: null,
      shoeNumber: 2,
    });
  });

  it('closes a shoe past its cut card once its last round is settled, then starts the next', () => {
    const cut = shoe({ lastRoundNumber: 3 });
    expect(nextRoundOf(facts({ shoe: cut }))).toMatchObject({
      step: 'new-shoe',
      close: cut,
      shoeNumber: 2,
    });
  });

  it('refuses while the last round is played, or settled when the shoe is done', () => {
    const playing = round({ status: 'dealing' });
    expect(refusal(() => nextRoundOf(facts({ lastRound: playing })))).toMatchObject({
      code: 'ROUND_IN_PROGRESS',
    });
    const unpaid = round({ status: 'completed' });
    expect(nextRoundOf(facts({ lastRound: unpaid }))).toMatchObject({ step: 'open-round' });
    expect(
      refusal(() => nextRoundOf(facts({ shoe: shoe({ lastRoundNumber: 3 }), lastRound: unpaid }))),
    ).toMatchObject({ code: 'ROUND_IN_PROGRESS' });
  });

  it('closes the shoe after a last round voided once paid, when every bet is back at its stake', () => {
    // ADR 0009: a paid round that is voided gives its stakes back by a resettlement, not refunds.
    const cut = shoe({ lastRoundNumber: 3 });
    const line = {
      betId: 'b1',
      playerId: 'p1',
      type: 'player',
      stake: 100,
      payout: 200,
      commission: 0,
      commissionMode: 'deducted',
    } as unknown as RoundState['settledLines'][number];
    const voidedAfterPaying = round({
      status: 'voided',
      settlementId: 's1',
      settledLines: [line],
    });
    expect(
      refusal(() => nextRoundOf(facts({ shoe: cut, lastRound: voidedAfterPaying }))),
    ).toMatchObject({ code: 'ROUND_IN_PROGRESS' });
    const resettled = round({
      ...voidedAfterPaying,
      adjustments: [
        { ...line, previousPayout: 200, delta: -100, payout: 100, previousCommission: 0 },
      ],
    });
    expect(nextRoundOf(facts({ shoe: cut, lastRound: resettled }))).toMatchObject({
      step: 'new-shoe',
      shoeNumber: 2,
    });
    const pushed = round({ ...voidedAfterPaying, settledLines: [{ ...line, payout: 100 }] });
    expect(nextRoundOf(facts({ shoe: cut, lastRound: pushed }))).toMatchObject({
      step: 'new-shoe',
    });
  });

  it('refuses a closed table, and names burning as the next step of an unburnt shoe', () => {
    expect(
      refusal(() => nextRoundOf(facts({ table: { ...TABLE, status: 'closed' } }))),
    ).toMatchObject({ code: 'TABLE_CLOSED' });
    const unburnt = shoe({ status: 'awaiting-burn', cardSource: 'scanner' });
    expect(
      refusal(() => nextRoundOf(facts({ shoe: unburnt, lastNumber: 0, lastRound: null }))),
    ).toEqual({ code: 'INVALID_DEAL', details: { shoeId: 't1.1', next: 'burn-shoe' } });
    expect(
      refusal(() => {
        requireBurnt(unburnt);
      }),
    ).toMatchObject({ code: 'INVALID_DEAL' });
    expect(
      refusal(() => {
        requireBurnt(shoe());
      }),
    ).toBe('none');
  });
});

describe('nextShoeOf', () => {
  it('closes the finished shoe and numbers the next', () => {
    const done = shoe({ lastRoundNumber: 3 });
    expect(nextShoeOf(facts({ shoe: done }))).toMatchObject({ close: done, shoeNumber: 2 });
    expect(nextShoeOf(facts({ shoe: null, lastRound: null, lastNumber: 0 }))).toMatchObject({
      close: null,
      shoeNumber: 1,
    });
  });

  it('refuses a shoe still in play, naming its closing as the next step', () => {
    expect(refusal(() => nextShoeOf(facts()))).toEqual({
      code: 'SHOE_NOT_FINISHED',
      details: { shoeId: 't1.1', next: 'close-shoe' },
    });
    expect(refusal(() => nextShoeOf(facts({ lastNumber: 0, lastRound: null })))).toMatchObject({
      code: 'SHOE_NOT_FINISHED',
    });
  });

  it('refuses while the last round of a finished shoe is not settled', () => {
    const done = shoe({ lastRoundNumber: 3 });
    const unpaid = round({ status: 'completed' });
    expect(refusal(() => nextShoeOf(facts({ shoe: done, lastRound: unpaid })))).toMatchObject({
      code: 'ROUND_IN_PROGRESS',
    });
  });
});

describe('shoeToCloseOf', () => {
  it('closes the current shoe once its last round is over', () => {
    expect(shoeToCloseOf(facts())).toMatchObject({ shoeId: 't1.1' });
    expect(refusal(() => shoeToCloseOf(facts({ shoe: null })))).toMatchObject({
      code: 'SHOE_NOT_FOUND',
    });
    expect(
      refusal(() => shoeToCloseOf(facts({ lastRound: round({ status: 'betting' }) }))),
    ).toMatchObject({ code: 'ROUND_IN_PROGRESS' });
  });
});

describe('a scanner shoe out of cards before its cut card was reported', () => {
  const empty = shoe({ cardSource: 'scanner', cardsLeft: 0, position: 416 });
  it('deals no more rounds: the next comes from a new shoe, once the last is settled', () => {
    const voided = round({ status: 'voided' });
    expect(refusal(() => nextRoundOf(facts({ shoe: empty, lastRound: voided })))).toEqual('none');
    expect(nextRoundOf(facts({ shoe: empty, lastRound: voided }))).toMatchObject({
      step: 'new-shoe',
      close: { shoeId: 't1.1' },
      shoeNumber: 2,
    });
    expect(
      refusal(() => nextRoundOf(facts({ shoe: empty, lastRound: round({ status: 'dealing' }) }))),
    ).toMatchObject({ code: 'ROUND_IN_PROGRESS' });
  });

  it('is closed as exhausted, and a shoe past its cut card as completed', () => {
    expect(closeReasonOf(empty)).toBe('exhausted');
    expect(closeReasonOf(shoe({ lastRoundNumber: 40 }))).toBe('completed');
    expect(closeReasonOf(shoe({ cardsLeft: 0, lastRoundNumber: 40 }))).toBe('completed');
  });
});
