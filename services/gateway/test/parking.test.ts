import { randomUUID } from 'node:crypto';
import type { ParkedMessageView } from '@croupier/application';
import { PLAY_MONEY_CURRENCY, presetConfig } from '@croupier/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, ConfigError, loadConfig } from '../src/index.js';
import { as, startCasino, TEST_SECRETS, waitForWallets, type Casino } from './support/casino.js';
import { playUntilFunWin, until } from './support/fun-win.js';

/**
 * Issue 24, defect 6: a payout its wallet refuses for good (a fun win past what a balance can
 * hold, BALANCE_LIMIT) was published again and again by the settlement outbox, and every other
 * player's payout waited behind it. Now the wallet parks it (ADR 0035) and the others go on; an
 * operator sees it (list, metric, significant event) and retries it once it can be applied.
 */

describe('a payout that cannot be applied is parked, and the others go on', () => {
  let casino: Casino;
  const sessionId = `s-fun-${randomUUID().slice(0, 8)}`;
  const fay = as('fay', 'player');

  async function parked(): Promise<ParkedMessageView[]> {
    await casino.system.sync();
    return casino.system.parkedMessages.list({ status: 'all' });
  }

  beforeAll(async () => {
    casino = await startCasino();
    const { system } = casino;
    await system.rounds.openSession(
      {
        sessionId,
        config: presetConfig('touch', { currency: PLAY_MONEY_CURRENCY }),
        session: { ownerId: 'fay', idleTimeoutMs: 3_600_000, fun: true },
      },
      fay,
    );
    await system.rounds.openTable(
      {
        tableId: 'real',
        config: presetConfig('live'),
        dealing: { mode: 'manual', bettingWindowMs: 0 },
      },
      as('olga', 'operator'),
    );
    await system.wallets.deposit(
      { playerId: 'rita', amount: 1_000_000, currency: 'EUR', reference: 'rita-1' },
      as('olga', 'operator'),
    );
  });
  afterAll(async () => {
    await casino.close();
  });

  it("another player's real payout is delivered after a fun win refused BALANCE_LIMIT, which is parked", async () => {
    const { system } = casino;
    const won = await playUntilFunWin(system, sessionId, fay, 1_000);
    // The refused credit: parked by Croupier's wallet, not retried.
    const [refused] = await until(parked, (list) => list.length > 0);
    expect(refused).toMatchObject({
      consumer: 'wallet-ledger',
      status: 'parked',
      code: 'BALANCE_LIMIT',
      playerId: 'fay',
      attempts: 1,
    });
    expect(refused?.message).toMatchObject({ roundId: won.roundId, playerId: 'fay' });

    // Rita's round comes after in the log: the outbox reaches it, her stakes are paid or lost.
    const dealer = as('dan', 'dealer');
    const round = await system.rounds.openRound('real', dealer);
    await system.rounds.placeBets(
      round.roundId,
      'rita',
      [
        { type: 'player', amount: 1_000 },
        { type: 'banker', amount: 1_000, bankerMode: 'commission' },
      ],
      as('rita', 'player'),
    );
    await system.rounds.closeBetting(round.roundId, dealer);
    await system.rounds.deal(round.roundId, dealer);
    await waitForWallets(system, ['rita']);
    expect((await system.wallets.getWallet('rita')).openStakes).toBe(0);
    // Fay's winning stake is still open: her payout is owed, parked, not lost.
    expect((await system.wallets.getWallet('fay', 'fun')).openStakes).toBe(1);
  });

  it('operators see it: listed, counted by the metric, a significant event', async () => {
    const app = await buildApp(casino.system);
    try {
      const token = await casino.system.tokens.issue({ id: 'olga', role: 'operator' }, '5m');
      const headers = { authorization: `Bearer ${token}` };
      const list = await app.inject({ url: '/v1/admin/parked-messages', headers });
      expect(list.statusCode).toBe(200);
      const { messages } = list.json<{ messages: ParkedMessageView[] }>();
      expect(messages.map((message) => [message.consumer, message.code])).toEqual([
        ['wallet-ledger', 'BALANCE_LIMIT'],
      ]);
      const metrics = await app.inject({ url: '/metrics', headers });
      expect(metrics.body).toContain('croupier_parked_messages{consumer="wallet-ledger"} 1');
      const significant = await app.inject({ url: '/v1/significant-events', headers });
      const events = significant.json<{ events: { category: string; playerId: string }[] }>();
      expect(events.events).toContainEqual(
        expect.objectContaining({ category: 'parked-message', playerId: 'fay' }),
      );
      // A player may not list them.
      const player = await casino.system.tokens.issue({ id: 'fay', role: 'player' }, '5m');
      const refused = await app.inject({
        url: '/v1/admin/parked-messages',
        headers: { authorization: `Bearer ${player}` },
      });
      expect(refused.statusCode).toBe(403);
    } finally {
      await app.close();
    }
  });

  it('a retry before the fix parks it again; after the fix it is applied and resolved', async () => {
    const { system } = casino;
    const app = await buildApp(system);
    try {
      const token = await system.tokens.issue({ id: 'olga', role: 'operator' }, '5m');
      const headers = { authorization: `Bearer ${token}` };
      const [refused] = await parked();
      const retry = () =>
        app.inject({
          method: 'POST',
          url: `/v1/admin/parked-messages/${refused!.id}/retry`,
          headers,
        });

      expect((await retry()).statusCode).toBe(202);
      const again = await until(parked, ([view]) => view?.timesParked === 2);
      expect(again[0]).toMatchObject({ status: 'parked', code: 'BALANCE_LIMIT', attempts: 2 });

      // The fix: fay's fun wallet has room again (she stakes play money on her next round).
      const { round } = await system.rounds.sessionRound(sessionId, fay);
      await system.rounds.placeBets(
        round.roundId,
        'fay',
        [{ type: 'banker', amount: 40_000, bankerMode: 'commission' }],
        fay,
      );
      expect((await retry()).statusCode).toBe(202);
      const resolved = await until(parked, ([view]) => view?.status === 'resolved');
      expect(resolved[0]?.resolvedAt).not.toBeNull();
      // Her winning stake is paid at last: only the new bet is open.
      expect((await system.wallets.getWallet('fay', 'fun')).openStakes).toBe(1);

      // Nothing left to retry: refused with a stable code, and an unknown id too.
      const done = await retry();
      expect(done.statusCode).toBe(409);
      expect(done.json()).toMatchObject({ code: 'NOT_PARKED' });
      const unknown = await app.inject({
        method: 'POST',
        url: `/v1/admin/parked-messages/wallet-ledger.${randomUUID()}/retry`,
        headers,
      });
      expect(unknown.statusCode).toBe(404);
      expect(unknown.json()).toMatchObject({ code: 'PARKED_MESSAGE_NOT_FOUND' });
      const malformed = await app.inject({
        method: 'POST',
        url: '/v1/admin/parked-messages/nobody.x/retry',
        headers,
      });
      expect(malformed.statusCode).toBe(400);
    } finally {
      await app.close();
    }
  });
});

describe('FUN_BALANCE is bounded as real balances are', () => {
  const problemsOf = (funBalance: string): readonly string[] => {
    try {
      loadConfig({
        EVENTSTORE: 'pglite',
        ...TEST_SECRETS,
        AUTO_TABLES: '',
        FUN_BALANCE: funBalance,
      });
      return [];
    } catch (error) {
      if (error instanceof ConfigError) return error.issues;
      throw error;
    }
  };

  it('refuses to start with a fun balance past 10^15 minor units, naming the setting and the bound', () => {
    const problems = problemsOf('9007199254740991');
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^FUN_BALANCE: .*at most 1000000000000000 minor units/);
    expect(problemsOf('1000000000000001')).toHaveLength(1);
    expect(problemsOf('1000000000000000')).toEqual([]);
  });
});
