import { randomUUID } from 'node:crypto';
import { operatorWalletEventSchema, streams, type OperatorWalletEvent } from '@croupier/contracts';
import type { RecordedEvent } from '@croupier/eventstore';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startHarness, type Harness } from '../support/harness.js';
import { expectStatus, openRound, openTable, placeBets, settled } from '../support/play.js';
import {
  OPERATOR_SECRET,
  startOperatorWallet,
  type HeldCalls,
  type OperatorWalletFixture,
} from '../support/seamless-wallet.js';

const START = 100_000;
const TIMEOUT_MS = 1_000;
const RETRIES = 2;
/** The auto-dealt table's betting window: long enough to place a bet early and one late. */
const WINDOW_MS = 5_000;
/** How long before the close the late bets are placed: less than the calls' own budget. */
const LATE_MS = 1_500;

/**
 * The timing of seamless mode (docs/wallet-integration.md#timing, ADR 0044), against the HTTP
 * adapter and the example operator wallet behind a relay that holds the calls the test says:
 * a bet's debit and its status end by its round's betting close, and the outbox serves players
 * side by side, each player's calls in order.
 */
describe('seamless mode: the debit budget ends at the betting close; credits across players', () => {
  let wallet: OperatorWalletFixture;
  let harness: Harness;
  beforeAll(async () => {
    wallet = await startOperatorWallet();
    harness = await startHarness({
      store: 'memory',
      // Windows of a few hundred milliseconds: in the distributed run, no file beside it.
      alone: true,
      env: {
        WALLET_MODE: 'seamless',
        OPERATOR_WALLET_URL: wallet.url,
        OPERATOR_WALLET_SECRET: OPERATOR_SECRET,
        OPERATOR_WALLET_TIMEOUT_MS: String(TIMEOUT_MS),
        OPERATOR_WALLET_RETRIES: String(RETRIES),
        OPERATOR_WALLET_OUTBOX_INTERVAL_MS: '100',
      },
    });
    expectStatus(
      await harness.api.as('operator').post('/v1/tables', {
        tableId: 'timed',
        preset: 'generic',
        dealing: { mode: 'auto', bettingWindowMs: WINDOW_MS },
      }),
      201,
    );
    await openTable(harness.api, 'by-hand', 'generic');
  });
  afterEach(() => {
    wallet.fault('pass');
  });
  afterAll(async () => {
    await harness.close();
    await wallet.close();
  });

  async function player(name: string): Promise<string> {
    const id = `${name}-${randomUUID().slice(0, 8)}`;
    await wallet.open(id, START);
    return id;
  }

  async function operatorEvents(playerId: string): Promise<OperatorWalletEvent[]> {
    const recorded = await harness.store.readStream(streams.operatorWallet(playerId));
    return recorded.map((e) => operatorWalletEventSchema.parse({ type: e.type, data: e.data }));
  }

  async function recorded(stream: string, type: string): Promise<RecordedEvent> {
    const found = (await harness.store.readStream(stream)).find((e) => e.type === type);
    if (found === undefined) throw new Error(`no ${type} in ${stream}`);
    return found;
  }

  /**
   * A round of the auto-dealt table just opened (at least `WINDOW_MS - 1 s` of betting left),
   * and when it closes betting, as it recorded it.
   */
  async function freshRound(): Promise<{ roundId: string; closesAt: number }> {
    return vi.waitFor(
      async () => {
        const table = expectStatus(
          await harness.api
            .as('regulator')
            .get<{ currentRound: { roundId: string; status: string } | null }>('/v1/tables/timed'),
          200,
        );
        const round = table.currentRound;
        if (round === null || round.status !== 'betting') throw new Error('no round betting');
        const opened = await recorded(streams.round(round.roundId), 'RoundOpened');
        const closesAt = Date.parse((opened.data as { bettingClosesAt: string }).bettingClosesAt);
        if (closesAt - Date.now() < WINDOW_MS - 1_000) throw new Error('too late in the window');
        return { roundId: round.roundId, closesAt };
      },
      { timeout: 3 * WINDOW_MS, interval: 20 },
    );
  }

  const sleepUntil = (at: number) =>
    new Promise((resolve) => setTimeout(resolve, Math.max(0, at - Date.now())));

  /** Every credit and rollback requested is delivered, and the wallet holds `balance`. */
  async function delivered(playerId: string, balance: number): Promise<void> {
    await vi.waitFor(
      async () => {
        const events = await operatorEvents(playerId);
        const done = new Set(
          events.flatMap((e) => (e.type === 'OperatorCallDelivered' ? [e.data.key] : [])),
        );
        for (const e of events)
          if (e.type === 'OperatorCreditRequested' || e.type === 'OperatorRollbackRequested')
            expect(done.has(e.data.key), `${e.type} ${e.data.key}`).toBe(true);
        expect(await wallet.balance(playerId)).toBe(balance);
      },
      { timeout: 20_000, interval: 50 },
    );
  }

  it('the round records when its auto-dealer closes betting, and the dealer closes it then', async () => {
    const { roundId, closesAt } = await freshRound();
    await vi.waitFor(() => recorded(streams.round(roundId), 'BettingClosed'), {
      timeout: 2 * WINDOW_MS,
      interval: 20,
    });
    const closed = await recorded(streams.round(roundId), 'BettingClosed');
    expect(closed.recordedAt.getTime()).toBeGreaterThanOrEqual(closesAt);
    // A round dealt by hand has no close time: its debits keep the calls' own budget.
    const byHand = await openRound(harness.api, 'by-hand');
    const opened = await recorded(streams.round(byHand.roundId), 'RoundOpened');
    expect(opened.data).not.toHaveProperty('bettingClosesAt');
    expectStatus(
      await harness.api.as('dealer').post(`/v1/rounds/${byHand.roundId}/close-betting`),
      200,
    );
    expectStatus(await harness.api.as('dealer').post(`/v1/rounds/${byHand.roundId}/deal`), 200);
  });

  it('a bet placed early keeps its retries: a debit lost once is placed on the next attempt', async () => {
    const ann = await player('ann');
    const held = wallet.hold('debit');
    try {
      const { roundId } = await freshRound();
      const placing = placeBets(harness.api, roundId, ann, [{ type: 'player', amount: 1_000 }]);
      // The first attempt gets no answer; the second, within the budget, goes through.
      await held.arrived(2);
      await held.release(1);
      expectStatus(await placing, 201);
      const [confirmed] = (await operatorEvents(ann)).filter(
        (e) => e.type === 'OperatorDebitConfirmed',
      );
      expect(confirmed?.data).toMatchObject({ via: 'answer' });
    } finally {
      held.stop();
    }
    await delivered(ann, START - 1_000);
  });

  it('a bet placed late whose debit answer is slow: its status, asked before the close, places it', async () => {
    const bea = await player('bea');
    // The wallet applies the first attempt and its answer is lost; later attempts hang.
    wallet.fault('lose-answer', ['debit']);
    const held = wallet.hold('debit');
    let roundId!: string;
    try {
      const round = await freshRound();
      roundId = round.roundId;
      await sleepUntil(round.closesAt - LATE_MS);
      const placing = placeBets(harness.api, roundId, bea, [{ type: 'player', amount: 1_000 }]);
      await held.arrived(1);
      await held.release(0);
      // With the calls' own budget (3 attempts of 1 s, then the status) the status would come
      // after the close, and the round would refuse the bet its stake paid for.
      expectStatus(await placing, 201);
    } finally {
      held.stop();
    }
    const events = await operatorEvents(bea);
    const confirmed = events.find((e) => e.type === 'OperatorDebitConfirmed');
    expect(confirmed?.data).toMatchObject({ via: 'status' });
    const placed = await recorded(streams.round(roundId), 'BetPlaced');
    await vi.waitFor(() => recorded(streams.round(roundId), 'BettingClosed'), {
      timeout: 2 * WINDOW_MS,
    });
    const closed = await recorded(streams.round(roundId), 'BettingClosed');
    expect(placed.position < closed.position).toBe(true);
    await settled(harness.api, roundId);
    // One debit at the wallet, closed by its settlement credit once the outbox delivers it.
    await vi.waitFor(
      async () => {
        expect((await wallet.callsOf(confirmed!.data.betId)).map((c) => c.call).sort()).toEqual([
          'credit',
          'debit',
        ]);
      },
      { timeout: 10_000, interval: 50 },
    );
  });

  it('a bet placed late whose debit is never answered: given up and rolled back before the close, as ADR 0041 says', async () => {
    const cal = await player('cal');
    const held = wallet.hold('debit');
    let roundId!: string;
    let response!: Awaited<ReturnType<typeof placeBets>>;
    const statusBefore = wallet.seen.get('status') ?? 0;
    try {
      const round = await freshRound();
      roundId = round.roundId;
      await sleepUntil(round.closesAt - LATE_MS);
      response = await placeBets(harness.api, roundId, cal, [{ type: 'player', amount: 2_000 }]);
    } finally {
      // The debits held reach the wallet after their rollback: it refuses them (ROLLED_BACK).
      held.stop();
    }
    expect(response.status).toBe(503);
    expect((response.body as unknown as { code: string }).code).toBe('UNAVAILABLE');
    // Its status was asked, could not tell (the wallet never saw it), and it was given up and
    // rolled back: all before the round closed betting.
    expect((wallet.seen.get('status') ?? 0) - statusBefore).toBeGreaterThanOrEqual(1);
    const failed = (await harness.store.readStream(streams.operatorWallet(cal))).find(
      (e) => e.type === 'OperatorDebitFailed',
    );
    expect(failed?.data).toMatchObject({ outcome: 'unresolved' });
    const events = await operatorEvents(cal);
    expect(
      events.filter((e) => e.type === 'OperatorRollbackRequested').map((e) => e.data),
    ).toMatchObject([{ reason: 'debit-unresolved', amount: 2_000 }]);
    await vi.waitFor(() => recorded(streams.round(roundId), 'BettingClosed'), {
      timeout: 2 * WINDOW_MS,
    });
    const closed = await recorded(streams.round(roundId), 'BettingClosed');
    expect(failed!.position < closed.position).toBe(true);
    // Never money lost: the rollback is delivered and the wallet holds what it held.
    await delivered(cal, START);
  });

  describe('the outbox', () => {
    /** The index of the first held request (from `from`) whose body passes `test`. */
    async function heldWhere(
      held: HeldCalls,
      test: (body: Record<string, unknown>) => boolean,
      from = 0,
    ): Promise<number> {
      for (let index = from; ; index++) {
        await held.arrived(index + 1);
        if (test(held.bodyOf(index))) return index;
      }
    }

    it("one player's slow credit does not hold another's, and each player's credits go in order", async () => {
      const dan = await player('dan');
      const eve = await player('eve');
      const round = await openRound(harness.api, 'by-hand');
      expectStatus(
        await placeBets(harness.api, round.roundId, dan, [
          { type: 'player', amount: 1_000 },
          { type: 'banker', amount: 1_000, bankerMode: 'commission' },
        ]),
        201,
      );
      expectStatus(
        await placeBets(harness.api, round.roundId, eve, [{ type: 'player', amount: 500 }]),
        201,
      );
      const held = wallet.hold('credit');
      let danFirst!: string;
      try {
        expectStatus(
          await harness.api.as('dealer').post(`/v1/rounds/${round.roundId}/close-betting`),
          200,
        );
        expectStatus(await harness.api.as('dealer').post(`/v1/rounds/${round.roundId}/deal`), 200);
        await settled(harness.api, round.roundId);
        // Dan's first credit is held at the relay, unanswered: eve's is sent all the same.
        const danAt = await heldWhere(held, (body) => body['playerId'] === dan);
        danFirst = held.bodyOf(danAt)['key'] as string;
        const eveAt = await heldWhere(held, (body) => body['playerId'] === eve);
        await held.release(eveAt);
        await vi.waitFor(
          async () => {
            const events = await operatorEvents(eve);
            expect(events.some((e) => e.type === 'OperatorCallDelivered')).toBe(true);
          },
          { timeout: 10_000, interval: 20 },
        );
        // Both of dan's credits are owed, and while the first has no answer the second is never
        // sent: every request of his the relay held is his first credit, tried again.
        const danCredits = (await operatorEvents(dan)).filter(
          (e) => e.type === 'OperatorCreditRequested',
        );
        expect(danCredits).toHaveLength(2);
        expect(danCredits[0]!.data.key).toBe(danFirst);
        for (let index = 0; index < held.count(); index++) {
          const body = held.bodyOf(index);
          if (body['playerId'] === dan) expect(body['key']).toBe(danFirst);
        }
      } finally {
        held.stop();
      }
      const paid = await settled(harness.api, round.roundId);
      const payoutOf = (playerId: string) =>
        paid.settlement!.lines.reduce(
          (sum, line) =>
            paid.bets.find((bet) => bet.betId === line.betId)?.playerId === playerId
              ? sum + line.payout
              : sum,
          0,
        );
      await delivered(dan, START - 2_000 + payoutOf(dan));
      await delivered(eve, START - 500 + payoutOf(eve));
      // Dan's credits were confirmed in the order they were recorded.
      const danDelivered = (await operatorEvents(dan)).flatMap((e) =>
        e.type === 'OperatorCallDelivered' ? [e.data.key] : [],
      );
      expect(danDelivered[0]).toBe(danFirst);
    });
  });
});
