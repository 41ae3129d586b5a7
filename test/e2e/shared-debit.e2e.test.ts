import { randomUUID } from 'node:crypto';
import {
  operatorWalletEventSchema,
  streams,
  walletEventSchema,
  type OperatorWalletEvent,
} from '@croupier/contracts';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ApiClient } from '../support/api.js';
import { startHarness, type Harness } from '../support/harness.js';
import {
  balanceOf,
  expectStatus,
  fund,
  openRound,
  openTable,
  placeBets,
  settled,
  type RoundView,
} from '../support/play.js';
import {
  OPERATOR_SECRET,
  startOperatorWallet,
  type OperatorWalletFixture,
} from '../support/seamless-wallet.js';

/**
 * Issue 24, defect 5: two requests of one player share a bet's debit. Request A places X (banker
 * 600) and Y (player 600); request B, a moment later, places X alone; the balance is 1,000. A is
 * refused (Y finds 400), B places X. The stake of X must stay taken while X stands on the round:
 * A's refusal gives back only what the round releases, and the round keeps a stake it holds as
 * a bet. Then the round is played: a win pays X, a loss then a void gives its stake back once.
 */
const BALANCE = 1_000;
/** Banker 9 (natural) against Player 5: X wins, paid 600 + 570 (commission 5%). */
const BANKER_WINS = ['2D', '9C', '3S', 'KH'];
const AFTER_WIN = BALANCE - 600 + 1_170;
/** Player 9 (natural) against Banker 5: X loses. */
const BANKER_LOSES = ['9C', '2D', 'KH', '3S'];

const betsOf = () => ({
  x: { betId: randomUUID(), type: 'banker', amount: 600, bankerMode: 'commission' },
  y: { betId: randomUUID(), type: 'player', amount: 600 },
});

async function deal(api: ApiClient, roundId: string, cards: readonly string[]): Promise<RoundView> {
  expectStatus(await api.as('dealer').post(`/v1/rounds/${roundId}/close-betting`), 200);
  for (const card of cards)
    expectStatus(await api.as('dealer').post(`/v1/rounds/${roundId}/cards`, { card }), 200);
  expectStatus(await api.as('dealer').post(`/v1/rounds/${roundId}/confirm`), 200);
  return settled(api, roundId);
}

async function voidAfterSettlement(harness: Harness, roundId: string): Promise<void> {
  expectStatus(
    await harness.api
      .as('supervisor')
      .post(`/v1/rounds/${roundId}/void`, { reason: 'dispute upheld' }),
    200,
  );
  await vi.waitFor(
    async () => {
      const types = (await harness.store.readStream(streams.round(roundId))).map((e) => e.type);
      if (!types.includes('RoundResettled')) throw new Error(`${roundId} not resettled yet`);
    },
    { timeout: 20_000 },
  );
}

/** The round audit and the player's wallet audit find nothing. */
async function expectAuditsPass(api: ApiClient, roundId: string, playerId: string): Promise<void> {
  const round = expectStatus(
    await api
      .as('regulator')
      .get<{ verdict: { ok: boolean; findings: unknown[] } }>(`/v1/audit/rounds/${roundId}`),
    200,
  );
  expect(round.verdict.findings, roundId).toEqual([]);
  expect(round.verdict.ok).toBe(true);
  const wallet = expectStatus(
    await api
      .as('regulator')
      .get<{ verdict: { ok: boolean; findings: unknown[] } }>(`/v1/audit/wallets/${playerId}`),
    200,
  );
  expect(wallet.verdict.findings, playerId).toEqual([]);
  expect(wallet.verdict.ok).toBe(true);
}

describe('seamless mode: a debit shared by two requests for one bet (issue 24, defect 5)', () => {
  let wallet: OperatorWalletFixture;
  let harness: Harness;
  beforeAll(async () => {
    wallet = await startOperatorWallet();
    harness = await startHarness({
      store: 'postgres',
      gateway: true,
      env: {
        WALLET_MODE: 'seamless',
        OPERATOR_WALLET_URL: wallet.url,
        OPERATOR_WALLET_SECRET: OPERATOR_SECRET,
        // The race is ordered by holding the wallet's debits, never by a call timing out.
        OPERATOR_WALLET_TIMEOUT_MS: '30000',
        OPERATOR_WALLET_RETRIES: '0',
        OPERATOR_WALLET_OUTBOX_INTERVAL_MS: '100',
      },
    });
  });
  afterAll(async () => {
    await harness.close();
    await wallet.close();
  });

  async function operatorEvents(playerId: string): Promise<OperatorWalletEvent[]> {
    const recorded = await harness.store.readStream(streams.operatorWallet(playerId));
    return recorded.map((e) => operatorWalletEventSchema.parse({ type: e.type, data: e.data }));
  }

  /**
   * Every stake the wallet confirmed is closed by a credit or rollback request (its round is
   * settled or voided), and every such call has been delivered and applied.
   */
  async function drained(playerId: string): Promise<void> {
    await vi.waitFor(
      async () => {
        const events = await operatorEvents(playerId);
        const open = new Set<string>();
        for (const e of events) {
          if (e.type === 'OperatorDebitConfirmed') open.add(e.data.betId);
          if (e.type === 'OperatorRollbackRequested' && e.data.reason !== 'debit-unresolved')
            open.delete(e.data.betId);
          if (e.type === 'OperatorCreditRequested' && e.data.kind === 'settlement')
            open.delete(e.data.betId);
        }
        if (open.size > 0) throw new Error(`${playerId}: ${open.size} stakes still open`);
        const delivered = new Set(
          events.flatMap((e) => (e.type === 'OperatorCallDelivered' ? [e.data.key] : [])),
        );
        for (const e of events) {
          if (e.type !== 'OperatorCreditRequested' && e.type !== 'OperatorRollbackRequested')
            continue;
          if (!delivered.has(e.data.key)) throw new Error(`${e.type} ${e.data.key} owed`);
          const status = await wallet.books.status(e.data.key);
          if (status.state !== 'applied')
            throw new Error(`${e.type} ${e.data.key} is ${status.state} at the wallet`);
        }
      },
      { timeout: 20_000, interval: 50 },
    );
  }

  /**
   * The race, its steps ordered by holding the wallet's debits (as a wallet answering in
   * 500 ms would let them happen): A asks for X and Y; B asks for X under the same key; the
   * wallet applies X and answers both, B places X; only then does the wallet see Y, with 400 left.
   */
  async function race(tableId: string) {
    const { api } = harness;
    await openTable(api, tableId, 'generic', { cardSource: 'scanner', burn: false });
    const playerId = `race-${randomUUID().slice(0, 8)}`;
    await wallet.open(playerId, BALANCE);
    const round = await openRound(api, tableId);
    const { x, y } = betsOf();
    const debits = wallet.hold('debit');
    try {
      const a = placeBets(api, round.roundId, playerId, [x, y]);
      await debits.arrived(2);
      const b = placeBets(api, round.roundId, playerId, [x]);
      await debits.arrived(3);
      const heldFor = (betId: string) =>
        [0, 1, 2].filter((index) => debits.bodyOf(index)['betId'] === betId);
      const xCalls = heldFor(x.betId);
      const [yCall] = heldFor(y.betId);
      expect(xCalls).toHaveLength(2);
      expect(debits.bodyOf(xCalls[0]!)['key']).toBe(debits.bodyOf(xCalls[1]!)['key']);
      for (const index of xCalls) await debits.release(index);
      expectStatus(await b, 201);
      await debits.release(yCall!);
      const refused = await a;
      expect(refused.status, JSON.stringify(refused.body)).toBe(422);
      expect(refused.body).toMatchObject({ code: 'INSUFFICIENT_FUNDS' });
    } finally {
      debits.stop();
    }
    const view = expectStatus(
      await api.as('regulator').get<RoundView>(`/v1/rounds/${round.roundId}`),
      200,
    );
    expect(view.bets.map((bet) => bet.betId)).toEqual([x.betId]);
    return { playerId, roundId: round.roundId, x };
  }

  it('a win pays the bet whose stake was taken once: no rollback of it, the payout credited', async () => {
    const { playerId, roundId, x } = await race('shared-debit-win');
    const done = await deal(harness.api, roundId, BANKER_WINS);
    expect(done.settlement?.lines).toEqual([
      expect.objectContaining({ betId: x.betId, result: 'win', payout: 1_170 }),
    ]);
    await drained(playerId);
    expect(await wallet.balance(playerId)).toBe(AFTER_WIN);
    expect((await wallet.callsOf(x.betId)).map((c) => c.call).sort()).toEqual(['credit', 'debit']);
    const rollbacks = (await operatorEvents(playerId)).filter(
      (e) => e.type === 'OperatorRollbackRequested',
    );
    expect(rollbacks).toEqual([]);
    await expectAuditsPass(harness.api, roundId, playerId);
  });

  it('a loss then a void gives the stake back once: 1,000, not 1,600', async () => {
    const { playerId, roundId, x } = await race('shared-debit-void');
    const done = await deal(harness.api, roundId, BANKER_LOSES);
    expect(done.settlement?.lines).toEqual([
      expect.objectContaining({ betId: x.betId, result: 'lose', payout: 0 }),
    ]);
    await drained(playerId);
    expect(await wallet.balance(playerId)).toBe(BALANCE - 600);
    await voidAfterSettlement(harness, roundId);
    // The void's resettlement gives X's stake back: one adjustment, asked once it is fed.
    await vi.waitFor(
      async () => {
        const adjustments = (await operatorEvents(playerId)).flatMap((e) =>
          e.type === 'OperatorCreditRequested' && e.data.kind === 'adjustment'
            ? [[e.data.betId, e.data.amount]]
            : [],
        );
        expect(adjustments).toEqual([[x.betId, 600]]);
      },
      { timeout: 20_000 },
    );
    await drained(playerId);
    expect(await wallet.balance(playerId)).toBe(BALANCE);
    await expectAuditsPass(harness.api, roundId, playerId);
  });
});

describe('transfer mode: a debit shared by two requests for one bet (issue 24, defect 5)', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startHarness({ store: 'memory', gateway: true });
  });
  afterAll(async () => {
    await harness.close();
  });

  /** The player's wallet once it has recorded `count` movements of the bet. */
  async function movementsOf(playerId: string, betId: string, count: number): Promise<string[]> {
    return vi.waitFor(
      async () => {
        const types = (await harness.store.readStream(streams.wallet(playerId)))
          .map((e) => walletEventSchema.parse({ type: e.type, data: e.data }))
          .filter((e) => 'betId' in e.data && e.data.betId === betId)
          .map((e) => e.type);
        if (types.length < count) throw new Error(`${betId}: ${types.join(', ')}`);
        return types;
      },
      { timeout: 20_000 },
    );
  }

  /**
   * The same two requests at once. Croupier's wallet debits a request's stakes all or none, so
   * whichever debit comes first, A is refused with nothing debited and X stands on B's stake:
   * refused for the funds when the two debits met, or as a double submit of X when B's bet stood
   * before A was decided (which of the two is the race's, not the rules').
   */
  async function race(tableId: string) {
    const { api } = harness;
    await openTable(api, tableId, 'generic', { cardSource: 'scanner', burn: false });
    const playerId = `race-${randomUUID().slice(0, 8)}`;
    await fund(api, [playerId], BALANCE);
    const round = await openRound(api, tableId);
    const { x, y } = betsOf();
    const [a, b] = await Promise.all([
      placeBets(api, round.roundId, playerId, [x, y]),
      placeBets(api, round.roundId, playerId, [x]),
    ]);
    expect([422, 409], JSON.stringify(a.body)).toContain(a.status);
    expect(a.body).toMatchObject({
      code: a.status === 422 ? 'INSUFFICIENT_FUNDS' : 'DUPLICATE_BET',
    });
    expectStatus(b, 201);
    expect(await balanceOf(api, playerId)).toBe(BALANCE - 600);
    return { playerId, roundId: round.roundId, x };
  }

  it('a win pays the bet whose stake was taken once', async () => {
    const { playerId, roundId, x } = await race('transfer-shared-debit-win');
    await deal(harness.api, roundId, BANKER_WINS);
    expect(await movementsOf(playerId, x.betId, 2)).toEqual(['StakeDebited', 'PayoutCredited']);
    expect(await balanceOf(harness.api, playerId)).toBe(AFTER_WIN);
    await expectAuditsPass(harness.api, roundId, playerId);
  });

  it('a loss then a void gives the stake back once', async () => {
    const { playerId, roundId, x } = await race('transfer-shared-debit-void');
    await deal(harness.api, roundId, BANKER_LOSES);
    await voidAfterSettlement(harness, roundId);
    expect(await movementsOf(playerId, x.betId, 3)).toEqual([
      'StakeDebited',
      'PayoutCredited',
      'PayoutAdjusted',
    ]);
    expect(await balanceOf(harness.api, playerId)).toBe(BALANCE);
    await expectAuditsPass(harness.api, roundId, playerId);
  });
});
