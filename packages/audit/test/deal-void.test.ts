import { paytableIdOf, presetConfig, type RoundRules } from '@croupier/contracts';
import type { RecordedEvent } from '@croupier/eventstore';
import { describe, expect, it } from 'vitest';
import { auditRound, examineRound, VerdictBuilder, walkShoe, type Finding } from '../src/index.js';

/**
 * A void during the deal, from hand-made streams (ADR 0033): the round's dealt and discarded
 * cards against its shoe's seal, a draw after the seal, and a settlement after the void.
 */
const ROUND = 'scan.1.1';
const SHOE = 'scan.1';
const SHIFT = '00000000-0000-4000-8000-000000000002';
const BET = '00000000-0000-4000-8000-000000000001';
const config = presetConfig('generic', { cardSource: 'scanner', burn: false });
const rules: RoundRules = {
  bets: config.bets,
  playerBankerDifferenceLimit: config.playerBankerDifferenceLimit,
  bankerModes: config.bankerModes,
  commission: config.commission,
  tieOdds: config.tieOdds,
  seats: config.seats,
};
const drawn = [
  { position: 0, card: '4C', hand: 'player' },
  { position: 1, card: '7D', hand: 'banker' },
  { position: 2, card: '2H', hand: 'player' },
] as const;

let position = 0n;
function streamOf(stream: string) {
  const events: RecordedEvent[] = [];
  const add = (type: string, data: Record<string, unknown>) => {
    position += 1n;
    events.push({
      id: `00000000-0000-4000-9000-${String(position).padStart(12, '0')}`,
      stream,
      revision: BigInt(events.length),
      position,
      type,
      data,
      metadata: { actor: { id: 'dan', role: 'dealer' }, occurredAt: '2026-12-02T10:00:00.000Z' },
      recordedAt: new Date(0),
    });
  };
  return { events, add };
}

/** A scanner round with a bet, betting closed and its deal started, and two cards dealt. */
function roundUnderWay() {
  const round = streamOf(`round-${ROUND}`);
  const r = (type: string, data: Record<string, unknown> = {}) => {
    round.add(type, { roundId: ROUND, ...data });
  };
  r('RoundOpened', {
    tableId: 'scan',
    shoeId: SHOE,
    number: 1,
    cardSource: 'scanner',
    currency: 'EUR',
    rules,
    paytableId: paytableIdOf(rules),
    dealer: { dealerId: 'dan', shiftId: SHIFT },
  });
  r('BetPlaced', {
    betId: BET,
    playerId: 'pia',
    type: 'player',
    amount: 1_000,
    bankerMode: null,
    seat: null,
    rebetOf: null,
  });
  r('BettingClosed');
  r('DealStarted');
  for (const card of drawn.slice(0, 2))
    r('CardDealt', { hand: card.hand, card: card.card, shoePosition: card.position });
  return { round, r };
}

/** The shoe: three cards drawn for the round, then sealed (or not). */
function shoeOf(options: { sealed?: readonly (typeof drawn)[number][] | null } = {}) {
  const shoe = streamOf(`shoe-${SHOE}`);
  shoe.add('ShoeShuffled', {
    shoeId: SHOE,
    tableId: 'scan',
    number: 1,
    decks: 8,
    cardSource: 'scanner',
    shufflePolicy: 'shoe',
    burn: false,
    cutCardIndex: null,
    algorithm: null,
    commitment: null,
    sealedSeed: null,
  });
  for (const card of drawn)
    shoe.add('CardsDrawn', { shoeId: SHOE, roundId: ROUND, roundNumber: 1, cards: [card] });
  const sealed = options.sealed === undefined ? drawn : options.sealed;
  if (sealed !== null) shoe.add('RoundSealed', { shoeId: SHOE, roundId: ROUND, cards: sealed });
  return shoe;
}

const named = (findings: readonly Finding[], check: string) =>
  findings.filter((f) => f.check === check).map((f) => `${f.code}: ${f.message}`);

function audit(round: RecordedEvent[], shoe: RecordedEvent[]) {
  return auditRound({ roundId: ROUND, round, shoe }).verdict.findings;
}

describe('a void during the deal', () => {
  it('agrees with the shoe when the void records the sealed cards the round never dealt', () => {
    const { round, r } = roundUnderWay();
    r('RoundVoided', { reason: 'reader misfed', discarded: [drawn[2]] });
    const findings = audit(round.events, shoeOf().events);
    expect(named(findings, 'streams-agree')).toEqual([]);
    expect(named(findings, 'lifecycle')).toEqual([]);
  });

  it('names a card the shoe drew that the round neither dealt nor discarded', () => {
    const { round, r } = roundUnderWay();
    r('RoundVoided', { reason: 'reader misfed' });
    const findings = audit(round.events, shoeOf({ sealed: null }).events);
    expect(named(findings, 'streams-agree')).toEqual([
      'STREAMS_DISAGREE: the shoe handed the round a card (2H@2→player) the round never recorded',
    ]);
  });

  it("names a void whose discarded cards are not the shoe's seal, and a void discarding without a seal", () => {
    const { round, r } = roundUnderWay();
    r('RoundVoided', { reason: 'reader misfed', discarded: [drawn[2]] });
    const findings = audit(round.events, shoeOf({ sealed: drawn.slice(0, 2) }).events);
    expect(named(findings, 'streams-agree')).toEqual([
      'STREAMS_DISAGREE: the shoe sealed round scan.1.1 with [4C@0→player 7D@1→banker]; the round records [4C@0→player 7D@1→banker 2H@2→player] (dealt, then discarded by its void)',
    ]);
    const unsealed = audit(round.events, shoeOf({ sealed: null }).events);
    expect(named(unsealed, 'streams-agree')).toEqual([
      'STREAMS_DISAGREE: the void records cards from a seal the shoe never recorded',
    ]);
  });

  it('names a card drawn for a round after the shoe sealed it', () => {
    const shoe = shoeOf({ sealed: null });
    const third = shoe.events.pop()!;
    shoe.add('RoundSealed', { shoeId: SHOE, roundId: ROUND, cards: drawn.slice(0, 2) });
    shoe.add('CardsDrawn', third.data as Record<string, unknown>);
    const verdict = new VerdictBuilder();
    walkShoe(SHOE, shoe.events, verdict);
    expect(named(verdict.findings, 'streams-agree')).toEqual([
      'STREAMS_DISAGREE: round scan.1.1 drew cards after the shoe sealed it for its void (revision 3): the round cannot record them',
    ]);
  });

  it('names a settlement after the void, and a deal started twice or before betting closed', () => {
    const { round, r } = roundUnderWay();
    r('RoundVoided', { reason: 'reader misfed', discarded: [drawn[2]] });
    r('RoundSettled', {
      roundId: ROUND,
      tableId: 'scan',
      shoeId: SHOE,
      currency: 'EUR',
      shiftId: SHIFT,
      settlementId: '00000000-0000-4000-8000-000000000003',
      lines: [],
      totals: { staked: 0, paidOut: 0, commission: 0 },
    });
    const verdict = new VerdictBuilder();
    examineRound(ROUND, round.events, null, verdict);
    expect(named(verdict.findings, 'payouts')).toEqual([
      'PAYOUT_MISMATCH: the round is settled after it was voided (revision 6): a voided round is refunded, never paid',
    ]);

    const early = streamOf(`round-${ROUND}`);
    early.add('RoundOpened', round.events[0]!.data as Record<string, unknown>);
    early.add('DealStarted', { roundId: ROUND });
    early.add('BettingClosed', { roundId: ROUND });
    early.add('DealStarted', { roundId: ROUND });
    const lifecycle = new VerdictBuilder();
    examineRound(ROUND, early.events, null, lifecycle);
    expect(named(lifecycle.findings, 'lifecycle')).toEqual([
      'LIFECYCLE_VIOLATION: DealStarted was recorded in a betting round',
      'LIFECYCLE_VIOLATION: DealStarted starts the deal a second time',
    ]);
  });
});
