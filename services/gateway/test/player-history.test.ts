import { createHash, randomUUID } from 'node:crypto';
import type { Card } from '@croupier/baccarat';
import { presetConfig, type RoundEvent, type WalletEvent } from '@croupier/contracts';
import type { RecordedEvent } from '@croupier/eventstore';
import { describe, expect, it } from 'vitest';
import { PlayerHistory } from '../src/player-history.js';

/**
 * The recall's bookkeeping on events written by hand: which rounds it keeps, and wallet
 * movements that reach it in another order than the round's (the bus may deliver so).
 */
const PIA = 'pia';
const config = presetConfig('generic');
const rules = {
  bets: config.bets,
  playerBankerDifferenceLimit: config.playerBankerDifferenceLimit,
  bankerModes: config.bankerModes,
  commission: config.commission,
  tieOdds: config.tieOdds,
  seats: config.seats,
};
const SHIFT = randomUUID();
const hand = (cards: Card[], total: number) => ({
  cards,
  total,
  natural: false,
  pair: false,
  perfectPair: false,
});
const place = (roundId: string) => ({
  roundId,
  tableId: 'rng',
  shoeId: 'rng.1',
  currency: 'EUR',
  shiftId: SHIFT,
});

class Log {
  private position = 0n;
  readonly history = new PlayerHistory();

  round(event: RoundEvent): void {
    this.apply(`round-${event.data.roundId}`, event);
  }

  wallet(event: WalletEvent): void {
    this.apply(`wallet-${event.data.playerId}`, event);
  }

  private apply(stream: string, event: RoundEvent | WalletEvent): void {
    this.position++;
    const recorded: RecordedEvent = {
      id: randomUUID(),
      stream,
      type: event.type,
      data: event.data,
      metadata: { occurredAt: new Date(Number(this.position) * 1_000).toISOString() },
      revision: 0n,
      position: this.position,
      recordedAt: new Date(),
    };
    this.history.apply(recorded);
  }

  /** Round n of shoe rng.1: pia bets 1000 on Player, which wins and is paid 2000. */
  play(n: number): { roundId: string; betId: string } {
    const roundId = `rng.1.${n}`;
    const betId = randomUUID();
    this.round({
      type: 'RoundOpened',
      data: {
        roundId,
        tableId: 'rng',
        shoeId: 'rng.1',
        number: n,
        cardSource: 'rng',
        currency: 'EUR',
        rules,
        paytableId: createHash('sha256').update('rules').digest('hex'),
        dealer: { dealerId: null, shiftId: SHIFT },
      },
    });
    this.wallet({ type: 'StakeDebited', data: { playerId: PIA, betId, roundId, amount: 1_000 } });
    this.round({
      type: 'BetPlaced',
      data: {
        roundId,
        betId,
        playerId: PIA,
        type: 'player',
        amount: 1_000,
        bankerMode: null,
        seat: null,
        rebetOf: null,
      },
    });
    this.round({
      type: 'RoundCompleted',
      data: {
        roundId,
        player: hand(['9C', 'KH'], 9),
        banker: hand(['2D', '3S'], 5),
        winner: 'player',
      },
    });
    this.round({
      type: 'RoundSettled',
      data: {
        ...place(roundId),
        settlementId: randomUUID(),
        lines: [
          {
            betId,
            playerId: PIA,
            type: 'player',
            bankerMode: null,
            seat: null,
            stake: 1_000,
            result: 'win',
            payout: 2_000,
            commission: 0,
            commissionMode: 'deducted',
          },
        ],
        totals: { staked: 1_000, paidOut: 2_000, commission: 0 },
      },
    });
    return { roundId, betId };
  }

  credit(roundId: string, betId: string): void {
    this.wallet({
      type: 'PayoutCredited',
      data: {
        playerId: PIA,
        betId,
        roundId,
        settlementId: randomUUID(),
        amount: 2_000,
        result: 'win',
      },
    });
  }

  /** The round voided after settlement, resettled, and pia's winnings taken back. */
  voidSettled(roundId: string, betId: string, options: { adjustWallet: boolean }): void {
    const resettlementId = randomUUID();
    this.round({ type: 'RoundVoided', data: { roundId, reason: 'misdeal' } });
    this.round({
      type: 'RoundResettled',
      data: {
        ...place(roundId),
        resettlementId,
        kind: 'void',
        reason: 'misdeal',
        adjustments: [
          {
            betId,
            playerId: PIA,
            stake: 1_000,
            previousPayout: 2_000,
            payout: 1_000,
            delta: -1_000,
            result: 'refund',
            previousCommission: 0,
            commission: 0,
            commissionMode: 'deducted',
            seat: null,
          },
        ],
      },
    });
    if (!options.adjustWallet) return;
    this.wallet({
      type: 'PayoutAdjusted',
      data: {
        playerId: PIA,
        betId,
        roundId,
        resettlementId,
        delta: -1_000,
        commissionDelta: 0,
        tableId: 'rng',
        shiftId: SHIFT,
        reason: 'void',
      },
    });
  }
}

describe('PlayerHistory', () => {
  it('keeps the last 100 rounds, and a kept round still takes a void long after settlement', () => {
    const log = new Log();
    log.wallet({
      type: 'FundsDeposited',
      data: { playerId: PIA, amount: 1_000_000, currency: 'EUR', reference: 'r' },
    });
    const played = Array.from({ length: 102 }, (_, i) => {
      const round = log.play(i + 1);
      log.credit(round.roundId, round.betId);
      return round;
    });
    const records = log.history.history(PIA, 100);
    expect(records).toHaveLength(100);
    expect(records.at(-1)?.roundId).toBe('rng.1.3');
    // Round 1 fell out of the recall: its void changes nothing kept, and breaks nothing.
    log.voidSettled(played[0]!.roundId, played[0]!.betId, { adjustWallet: true });
    log.voidSettled(played[4]!.roundId, played[4]!.betId, { adjustWallet: true });
    const after = log.history.history(PIA, 100);
    expect(after.filter((r) => r.status === 'voided').map((r) => r.roundId)).toEqual(['rng.1.5']);
    const fifth = after.find((r) => r.roundId === 'rng.1.5')!;
    expect(fifth).toMatchObject({ payout: 1_000, adjusted: true, original: { payout: 2_000 } });
    expect(fifth.bets[0]).toMatchObject({ result: 'refunded', payout: 1_000 });
    // Both adjustments moved the wallet, the one of a round no longer shown too.
    expect(log.history.balanceOf(PIA)).toBe(1_000_000 + 102 * 1_000 - 2 * 1_000);
    expect(fifth.balanceAfter).toBe(log.history.balanceOf(PIA));
  });

  it('adds up a payout adjusted before the payout itself reached the wallet', () => {
    const log = new Log();
    log.wallet({
      type: 'FundsDeposited',
      data: { playerId: PIA, amount: 10_000, currency: 'EUR', reference: 'r' },
    });
    const { roundId, betId } = log.play(1);
    log.voidSettled(roundId, betId, { adjustWallet: true });
    const [pending] = log.history.history(PIA);
    expect(pending).toMatchObject({ status: 'voided', payout: -1_000, finishedAt: null });
    log.credit(roundId, betId);
    const [record] = log.history.history(PIA);
    expect(record).toMatchObject({
      status: 'voided',
      stakes: 1_000,
      payout: 1_000,
      balanceBefore: 10_000,
      balanceAfter: 10_000,
      original: { payout: 2_000 },
    });
    expect(record!.bets[0]).toMatchObject({
      result: 'refunded',
      payout: 1_000,
      original: { result: 'win', payout: 2_000, commission: 0 },
    });
  });

  it('shows a resettlement the wallet has not applied yet as pending', () => {
    const log = new Log();
    log.wallet({
      type: 'FundsDeposited',
      data: { playerId: PIA, amount: 10_000, currency: 'EUR', reference: 'r' },
    });
    const { roundId, betId } = log.play(1);
    log.credit(roundId, betId);
    log.voidSettled(roundId, betId, { adjustWallet: false });
    const [record] = log.history.history(PIA);
    expect(record).toMatchObject({ status: 'voided', payout: 2_000, balanceAfter: 11_000 });
    expect(record!.adjustments).toEqual([
      expect.objectContaining({ kind: 'void', at: null, delta: 0, balanceAfter: null }),
    ]);
  });
});
