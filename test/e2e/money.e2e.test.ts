import { randomUUID } from 'node:crypto';
import { DomainError, type WalletPort } from '@croupier/contracts';
import { RoundService } from '@croupier/round';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { systemContext } from '@croupier/application';
import { DEPLOYMENT, startHarness, type Harness } from '../support/harness.js';
import { allEvents, checkMoney, settledEverywhere } from '../support/invariants.js';
import { balanceOf, expectStatus, fund, openRound, openTable, placeBets } from '../support/play.js';
import { deliver } from '../support/surface.js';

/** The round process sweeps orphaned debits this often (services/round/src/main.ts). */
const SWEEP_INTERVAL_MS = 5_000;

describe('money under concurrency and failure, on PostgreSQL', () => {
  let harness: Harness;
  beforeAll(async () => {
    // Distributed, a test kills and restarts the round process: processes of the file's own.
    harness = await startHarness({ store: 'postgres', ownCluster: true });
    await openTable(harness.api, 'money-e2e', 'generic');
  });
  afterAll(async () => {
    await harness.close();
  });

  it('takes exactly 10 of 100 concurrent bets on a wallet funded for 10', async () => {
    const { api } = harness;
    await fund(api, ['vic'], 1_000);
    const round = await openRound(api, 'money-e2e');
    const responses = await Promise.all(
      Array.from({ length: 100 }, () =>
        placeBets(api, round.roundId, 'vic', [{ type: 'player', amount: 100 }]),
      ),
    );
    const accepted = responses.filter((r) => r.status === 201);
    const refused = responses.filter((r) => r.status !== 201);
    expect(accepted).toHaveLength(10);
    expect(new Set(refused.map((r) => (r.body as unknown as { code: string }).code))).toEqual(
      new Set(['INSUFFICIENT_FUNDS']),
    );
    expect(await balanceOf(api, 'vic')).toBe(0);
    const view = expectStatus(
      await api.as('regulator').get<{ bets: unknown[] }>(`/v1/rounds/${round.roundId}`),
      200,
    );
    expect(view.bets).toHaveLength(10);
    for (const step of ['close-betting', 'deal'])
      expectStatus(await api.as('dealer').post(`/v1/rounds/${round.roundId}/${step}`), 200);
    expect(checkMoney(await settledEverywhere(harness.store)).discrepancies).toEqual([]);
  });

  it('refuses a deposit past the maximum balance with 422 BALANCE_LIMIT, and the wallet stays readable', async () => {
    const { api } = harness;
    const deposit = (amount: number, reference: string) =>
      api.as('operator').post('/v1/wallets/rich/deposits', { amount, currency: 'EUR', reference });
    // Where a balance of 2^53 - 1 minor units once answered 500: refused, nothing recorded.
    expect((await deposit(9_007_199_254_740_986, 'huge')).body).toMatchObject({
      status: 422,
      code: 'BALANCE_LIMIT',
    });
    expectStatus(await deposit(1_000_000_000_000_000, 'at-limit'), 201);
    expect((await deposit(10, 'one-more')).body).toMatchObject({ code: 'BALANCE_LIMIT' });
    expect(await balanceOf(api, 'rich')).toBe(1_000_000_000_000_000);
  });

  it.runIf(DEPLOYMENT === 'single')(
    'refunds a stake debited by a process that died before recording the bet, after a restart (single-process run: a wallet port that dies after the debit; the distributed run kills the round process instead)',
    async () => {
      const { api } = harness;
      await fund(api, ['wes'], 5_000);
      const round = await openRound(api, 'money-e2e');

      // The process dies right after the debit: the wallet port debits, then the handler stops.
      class ProcessKilled extends Error {}
      const dying: WalletPort = {
        debitStakes: async (input, context) => {
          await harness.system.wallets.debitStakes(input, context);
          throw new ProcessKilled('killed between StakeDebited and BetPlaced');
        },
        refundStake: (input, context) => harness.system.wallets.refundStake(input, context),
      };
      const doomed = new RoundService(harness.system.commands, harness.system.shoes, dying);
      await expect(
        doomed.placeBets(
          round.roundId,
          'wes',
          [{ type: 'banker', amount: 2_000 }],
          systemContext('test'),
        ),
      ).rejects.toBeInstanceOf(ProcessKilled);
      expect(await balanceOf(api, 'wes')).toBe(3_000); // debited, and no bet on the round
      const view = expectStatus(
        await api.as('regulator').get<{ bets: unknown[] }>(`/v1/rounds/${round.roundId}`),
        200,
      );
      expect(view.bets).toHaveLength(0);

      await harness.restart();
      // While betting is open the bet might still land: the sweep leaves it alone.
      expect(await harness.system.sweep()).toBe(0);
      expectStatus(await api.as('dealer').post(`/v1/rounds/${round.roundId}/close-betting`), 200);
      expect(await harness.system.sweep()).toBe(1);
      expect(await harness.system.sweep()).toBe(0); // once
      expect(await balanceOf(api, 'wes')).toBe(5_000);
      expectStatus(await api.as('dealer').post(`/v1/rounds/${round.roundId}/deal`), 200);
      const report = checkMoney(await settledEverywhere(harness.store));
      expect(report.discrepancies).toEqual([]);
      const refund = (await allEvents(harness.store)).find(
        (e) => e.type === 'StakeRefunded' && (e.data as { playerId: string }).playerId === 'wes',
      );
      expect(refund?.data).toMatchObject({ reason: 'orphaned-debit', amount: 2_000 });
    },
  );

  it.runIf(DEPLOYMENT === 'distributed')(
    'refunds a stake debited for a round process killed before it recorded the bet, once it is back (distributed run: kill -9)',
    async () => {
      const { api } = harness;
      const cluster = harness.cluster!;
      await fund(api, ['wes'], 5_000);
      const round = await openRound(api, 'money-e2e');
      // A bet's first step, as the round process takes it: the wallet service debits the
      // stake. Then the round process dies, before BetPlaced.
      const betId = randomUUID();
      const debit = await deliver(cluster.url('wallet'), {
        method: 'POST',
        url: '/internal/v1/wallets/wes/stakes',
        headers: {
          authorization: `Bearer ${await harness.tokens.issue({ id: 'round-service', role: 'system' })}`,
          'x-croupier-actor': JSON.stringify({ id: 'wes', role: 'player' }),
        },
        payload: { roundId: round.roundId, currency: 'EUR', stakes: [{ betId, amount: 2_000 }] },
      });
      expect(debit.statusCode, debit.body).toBe(200);
      await cluster.get('round').kill();
      expect(await balanceOf(api, 'wes')).toBe(3_000); // debited, and no bet on the round
      await cluster.get('round').start();
      const view = expectStatus(
        await api.as('regulator').get<{ bets: unknown[] }>(`/v1/rounds/${round.roundId}`),
        200,
      );
      expect(view.bets).toHaveLength(0);
      const refunds = async () =>
        (await allEvents(harness.store)).filter(
          (e) => e.type === 'StakeRefunded' && (e.data as { betId: string }).betId === betId,
        );

      // While betting is open the bet might still land: the restarted process's sweeps leave
      // it alone.
      await new Promise((resolve) => setTimeout(resolve, SWEEP_INTERVAL_MS + 1_000));
      expect(await refunds()).toEqual([]);
      expectStatus(await api.as('dealer').post(`/v1/rounds/${round.roundId}/close-betting`), 200);
      await vi.waitFor(
        async () => {
          expect(await balanceOf(api, 'wes')).toBe(5_000);
        },
        { timeout: 4 * SWEEP_INTERVAL_MS, interval: 200 },
      );
      // Once: the next sweeps find it refunded.
      await new Promise((resolve) => setTimeout(resolve, SWEEP_INTERVAL_MS + 1_000));
      const refunded = await refunds();
      expect(refunded).toHaveLength(1);
      expect(refunded[0]!.data).toMatchObject({ reason: 'orphaned-debit', amount: 2_000 });
      expect(await balanceOf(api, 'wes')).toBe(5_000);
      expectStatus(await api.as('dealer').post(`/v1/rounds/${round.roundId}/deal`), 200);
      expect(checkMoney(await settledEverywhere(harness.store)).discrepancies).toEqual([]);
    },
  );

  it.skipIf(DEPLOYMENT === 'distributed')(
    'refunds at once a debit whose bet the round refused meanwhile (single-process only: betting must close between the debit and BetPlaced, a moment only a wallet port injected into the round service can choose)',
    async () => {
      const { api } = harness;
      await fund(api, ['xan'], 5_000);
      const round = await openRound(api, 'money-e2e');
      // Betting closes between the validation and the bet being recorded.
      const closing: WalletPort = {
        debitStakes: async (input, context) => {
          const debited = await harness.system.wallets.debitStakes(input, context);
          await harness.system.rounds.closeBetting(round.roundId, systemContext('test'));
          return debited;
        },
        refundStake: (input, context) => harness.system.wallets.refundStake(input, context),
      };
      const racing = new RoundService(harness.system.commands, harness.system.shoes, closing);
      await expect(
        racing.placeBets(
          round.roundId,
          'xan',
          [{ type: 'player', amount: 1_000 }],
          systemContext('test'),
        ),
      ).rejects.toSatisfy(
        (error) => error instanceof DomainError && error.code === 'BETTING_CLOSED',
      );
      expect(await balanceOf(api, 'xan')).toBe(5_000);
      expectStatus(await api.as('dealer').post(`/v1/rounds/${round.roundId}/deal`), 200);
      expect(checkMoney(await settledEverywhere(harness.store)).discrepancies).toEqual([]);
    },
  );
});
