import { DomainError, type WalletPort } from '@croupier/contracts';
import { RoundService } from '@croupier/round';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemContext } from '@croupier/application';
import { DEPLOYMENT, startHarness, type Harness } from '../support/harness.js';
import { allEvents, checkMoney, settledEverywhere } from '../support/invariants.js';
import { balanceOf, expectStatus, fund, openRound, openTable, placeBets } from '../support/play.js';

describe.skipIf(DEPLOYMENT === 'distributed')(
  'money under concurrency and failure, on PostgreSQL',
  () => {
    let harness: Harness;
    beforeAll(async () => {
      harness = await startHarness({ store: 'postgres' });
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

    it('refunds a stake debited by a process that died before recording the bet, after a restart', async () => {
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
      const doomed = new RoundService(harness.store, harness.system.shoes, dying);
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
    });

    it('refunds at once a debit whose bet the round refused meanwhile', async () => {
      const { api } = harness;
      await fund(api, ['xan'], 5_000);
      const round = await openRound(api, 'money-e2e');
      // Betting closes between the validation and the bet being recorded.
      const closing: WalletPort = {
        debitStakes: async (input, context) => {
          await harness.system.wallets.debitStakes(input, context);
          await harness.system.rounds.closeBetting(round.roundId, systemContext('test'));
        },
        refundStake: (input, context) => harness.system.wallets.refundStake(input, context),
      };
      const racing = new RoundService(harness.store, harness.system.shoes, closing);
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
    });
  },
);
