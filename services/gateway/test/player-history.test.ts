import { createHash, randomUUID } from 'node:crypto';
import type { Card } from '@croupier/baccarat';
import { ProjectionRunner } from '@croupier/application';
import { presetConfig, type RoundEvent, type WalletEvent } from '@croupier/contracts';
import { MemoryEventStore } from '@croupier/eventstore';
import { afterEach, describe, expect, it } from 'vitest';
import { PlayerHistory } from '../src/player-history.js';

/**
 * The recall's bookkeeping on events written by hand, appended to an in-memory log and projected
 * by the runner: which rounds it lists, and wallet movements that reach it in another order than
 * the round's (the bus may deliver so).
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

const logs: Log[] = [];
afterEach(async () => {
  await Promise.all(logs.splice(0).map((log) => log.close()));
});

class Log {
  private readonly store = new MemoryEventStore();
  private readonly model: Promise<{ runner: ProjectionRunner; history: PlayerHistory }>;
  private position = 0;

  constructor() {
    logs.push(this);
    this.model = this.store.openProjectionStorage().then(async (storage) => {
      const runner = new ProjectionRunner(this.store, storage, { pollIntervalMs: 10_000 });
      const history = runner.register(new PlayerHistory(storage));
      await runner.start();
      return { runner, history };
    });
  }

  /** Resolves once every event appended so far is projected. */
  private async synced(): Promise<PlayerHistory> {
    const { runner, history } = await this.model;
    await runner.syncToHead();
    return history;
  }

  async history(playerId: string, limit?: number) {
    return (await this.synced()).history(playerId, limit);
  }

  async balanceOf(playerId: string) {
    return (await this.synced()).balanceOf(playerId);
  }

  async close(): Promise<void> {
    await (await this.model).runner.stop();
    await this.store.close();
  }

  round(event: RoundEvent): Promise<void> {
    return this.apply(`round-${event.data.roundId}`, event);
  }

  wallet(event: WalletEvent): Promise<void> {
    return this.apply(`wallet-${event.data.playerId}`, event);
  }

  private async apply(stream: string, event: RoundEvent | WalletEvent): Promise<void> {
    this.position++;
    await this.store.append(
      stream,
      [
        {
          id: randomUUID(),
          type: event.type,
          data: event.data,
          metadata: { occurredAt: new Date(this.position * 1_000).toISOString() },
        },
      ],
      { expectedVersion: 'any' },
    );
  }

  /** Round n of shoe rng.1: pia bets 1000 on Player, which wins and is paid 2000. */
  async play(n: number): Promise<{ roundId: string; betId: string }> {
    const roundId = `rng.1.${n}`;
    const betId = randomUUID();
    await this.round({
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
    await this.wallet({
      type: 'StakeDebited',
      data: { playerId: PIA, betId, roundId, amount: 1_000 },
    });
    await this.round({
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
    await this.round({
      type: 'RoundCompleted',
      data: {
        roundId,
        player: hand(['9C', 'KH'], 9),
        banker: hand(['2D', '3S'], 5),
        winner: 'player',
      },
    });
    await this.round({
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

  async credit(roundId: string, betId: string): Promise<void> {
    await this.wallet({
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
  async voidSettled(
    roundId: string,
    betId: string,
    options: { adjustWallet: boolean },
  ): Promise<void> {
    const resettlementId = randomUUID();
    await this.round({ type: 'RoundVoided', data: { roundId, reason: 'misdeal' } });
    await this.round({
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
    await this.wallet({
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
  it('lists the last 100 rounds, and a listed round still takes a void long after settlement', async () => {
    const log = new Log();
    await log.wallet({
      type: 'FundsDeposited',
      data: { playerId: PIA, amount: 1_000_000, currency: 'EUR', reference: 'r' },
    });
    const played: { roundId: string; betId: string }[] = [];
    for (let i = 0; i < 102; i++) {
      const round = await log.play(i + 1);
      await log.credit(round.roundId, round.betId);
      played.push(round);
    }
    const records = await log.history(PIA, 100);
    expect(records).toHaveLength(100);
    expect(records.at(-1)?.roundId).toBe('rng.1.3');
    // Round 1 fell out of the last 100: its void changes nothing listed, and breaks nothing.
    await log.voidSettled(played[0]!.roundId, played[0]!.betId, { adjustWallet: true });
    await log.voidSettled(played[4]!.roundId, played[4]!.betId, { adjustWallet: true });
    const after = await log.history(PIA, 100);
    expect(after.filter((r) => r.status === 'voided').map((r) => r.roundId)).toEqual(['rng.1.5']);
    const fifth = after.find((r) => r.roundId === 'rng.1.5')!;
    expect(fifth).toMatchObject({ payout: 1_000, adjusted: true, original: { payout: 2_000 } });
    expect(fifth.bets[0]).toMatchObject({ result: 'refunded', payout: 1_000 });
    // Both adjustments moved the wallet, the one of a round no longer shown too.
    expect(await log.balanceOf(PIA)).toBe(1_000_000 + 102 * 1_000 - 2 * 1_000);
    expect(fifth.balanceAfter).toBe(await log.balanceOf(PIA));
  });

  it('adds up a payout adjusted before the payout itself reached the wallet', async () => {
    const log = new Log();
    await log.wallet({
      type: 'FundsDeposited',
      data: { playerId: PIA, amount: 10_000, currency: 'EUR', reference: 'r' },
    });
    const { roundId, betId } = await log.play(1);
    await log.voidSettled(roundId, betId, { adjustWallet: true });
    const [pending] = await log.history(PIA);
    expect(pending).toMatchObject({ status: 'voided', payout: -1_000, finishedAt: null });
    await log.credit(roundId, betId);
    const [record] = await log.history(PIA);
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

  it('shows a resettlement the wallet has not applied yet as pending', async () => {
    const log = new Log();
    await log.wallet({
      type: 'FundsDeposited',
      data: { playerId: PIA, amount: 10_000, currency: 'EUR', reference: 'r' },
    });
    const { roundId, betId } = await log.play(1);
    await log.credit(roundId, betId);
    await log.voidSettled(roundId, betId, { adjustWallet: false });
    const [record] = await log.history(PIA);
    expect(record).toMatchObject({ status: 'voided', payout: 2_000, balanceAfter: 11_000 });
    expect(record!.adjustments).toEqual([
      expect.objectContaining({ kind: 'void', at: null, delta: 0, balanceAfter: null }),
    ]);
  });
});
