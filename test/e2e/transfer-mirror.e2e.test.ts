import { randomUUID } from 'node:crypto';
import { systemContext } from '@croupier/application';
import {
  DomainError,
  STREAM_PREFIXES,
  type CommandContext,
  type Role,
  type WalletPort,
} from '@croupier/contracts';
import { Books, loadValidator, reconcile, startConsumer } from '@croupier/example-wallet-consumer';
import { BullMqWalletMessageBus } from '@croupier/messaging';
import { RoundService } from '@croupier/round';
import type { WalletView } from '@croupier/wallet';
import {
  isolatedPostgres,
  isolatedRedisPrefix,
  type IsolatedPostgres,
  type IsolatedRedisPrefix,
} from '@croupier/testkit';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DEPLOYMENT, startHarness, type Harness } from '../support/harness.js';
import { allEvents, checkMoney, settledEverywhere } from '../support/invariants.js';
import { expectStatus, fund, settled, testRandom } from '../support/play.js';

interface Audit {
  verdict: { ok: boolean; findings: { check: string; code: string; message: string }[] };
}

const PLAYERS = ['mia', 'noa', 'oli'] as const;
const DEPOSIT = 500_000;

const as = (role: Role, id: string = role): CommandContext => ({
  actor: { id, role },
  correlationId: randomUUID(),
  causationId: null,
  now: () => new Date(),
});

/**
 * Transfer mode with an outside system reading the public queue at the same time as Croupier's
 * wallet applies its own (issue 12): a whole shoe with clears, a void, a dispute (a settled round
 * voided), a bet refused after its debit and an orphaned debit swept back. The example consumer
 * (examples/wallet-consumer, written from docs/settlement-messages.md) mirrors the balances; at
 * the end every round audit passes and the mirror equals Croupier's wallets to the cent.
 */
describe.skipIf(DEPLOYMENT === 'distributed')(
  "an outside mirror of the public settlement queue equals Croupier's balances (single-process run: the refused-after-debit and orphaned debits come from wallet ports injected into the round service)",
  () => {
    let harness: Harness;
    let redis: IsolatedRedisPrefix;
    let mirrorDb: IsolatedPostgres;
    let books: Books;
    let prefix: string;

    beforeAll(async () => {
      redis = await isolatedRedisPrefix('mirror');
      prefix = redis.prefix.replace(/:+$/, '');
      mirrorDb = await isolatedPostgres('mirror');
      books = new Books({ connectionString: mirrorDb.connectionString, schema: mirrorDb.schema });
      await books.migrate();
      harness = await startHarness({
        store: 'postgres',
        env: { REDIS_URL: redis.url, REDIS_PREFIX: prefix },
      });
    });
    afterAll(async () => {
      await harness.close();
      await books.close();
      await mirrorDb.drop();
      await redis.cleanup();
    });

    it('plays a shoe with voids, a dispute, a refused-after-debit bet and an orphan sweep; the mirror equals the wallets to the cent', async () => {
      const { api, system } = harness;
      const random = testRandom(12);
      const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
      const tableId = 'mirror-live';
      expectStatus(
        await api.as('operator').post('/v1/tables', {
          tableId,
          preset: 'live',
          config: {},
        }),
        201,
      );
      await fund(api, [...PLAYERS], DEPOSIT);

      // The outside system is not reading yet: Croupier's wallet credits all the same.
      const publicQueue = new BullMqWalletMessageBus({ redisUrl: redis.url, prefix });
      expect(publicQueue.queueName).toBe('settlement-events');
      const dealer = as('dealer');
      const first = await system.rounds.openRound(tableId, dealer);
      for (const player of PLAYERS)
        await system.rounds.placeBets(
          first.roundId,
          player,
          [{ type: 'banker', amount: 1_000, bankerMode: 'commission' }],
          as('player', player),
        );
      await system.rounds.closeBetting(first.roundId, dealer);
      await system.rounds.deal(first.roundId, dealer);
      await settled(api, first.roundId);
      await settledEverywhere(harness.store);
      for (const player of PLAYERS)
        expect((await system.wallets.getWallet(player)).openStakes).toBe(0);
      await vi.waitFor(
        async () => {
          // 3 deposits, 3 debits, 3 payouts: waiting for a reader, taking nothing from the ledger.
          expect((await publicQueue.jobCounts()).waiting).toBe(9);
        },
        { timeout: 20_000, interval: 100 },
      );

      const consumer = startConsumer({
        redisUrl: redis.url,
        prefix,
        books,
        validate: loadValidator(),
        concurrency: 4,
      });
      const roundIds = [first.roundId];
      try {
        let shoeId = first.shoeId;
        let disputed = false;
        for (;;) {
          const round = await openRoundWhenFree(system.rounds, tableId);
          roundIds.push(round.roundId);
          if (round.shoeId !== shoeId) {
            // The shoe ended with the previous round: this one opened the next. Leave it empty.
            await system.rounds.closeBetting(round.roundId, dealer);
            await system.rounds.void(round.roundId, 'end of test', as('supervisor'));
            break;
          }
          shoeId = round.shoeId;
          for (const player of PLAYERS) {
            const main = pick(['player', 'banker', 'tie'] as const);
            await system.rounds.placeBets(
              round.roundId,
              player,
              [
                {
                  type: main,
                  amount: 100 * (1 + Math.floor(random() * 20)),
                  ...(main === 'banker'
                    ? { bankerMode: pick(['commission', 'no_commission']) }
                    : {}),
                },
                ...(round.number <= 60 && random() < 0.2
                  ? [{ type: 'player_pair', amount: 200 }]
                  : []),
              ],
              as('player', player),
            );
            if (random() < 0.1) {
              // Cleared bets are refunded; the player bets again.
              await system.rounds.clearBets(round.roundId, player, as('player', player));
              await system.rounds.placeBets(
                round.roundId,
                player,
                [{ type: 'player', amount: 500 }],
                as('player', player),
              );
            }
          }
          if (round.number === 2) {
            // Betting closes between mia's debit and her bet: refused, and refunded at once.
            await refusedAfterDebit(harness, round.roundId, 'mia');
          }
          if (round.number === 3) {
            // noa's bet is debited and the process dies before the round records it.
            await orphanedDebit(harness, round.roundId, 'noa');
          }
          // Round 2's betting was closed by the race above.
          if (round.number !== 2) await system.rounds.closeBetting(round.roundId, dealer);
          if (round.number === 3) {
            // The sweep's read model may not have seen the debit yet: sweep until it has, once.
            let swept = 0;
            await vi.waitFor(
              async () => {
                swept += await system.sweep();
                expect(swept).toBe(1);
              },
              { timeout: 20_000, interval: 100 },
            );
            expect(await system.sweep()).toBe(0);
          }
          if (round.number === 4) {
            await system.rounds.void(round.roundId, 'dealer misdeal', as('supervisor'));
          } else {
            await system.rounds.deal(round.roundId, dealer);
          }
          if (round.number >= 5 && !disputed) {
            // A dispute: the settled round is voided afterwards, every bet adjusted back (from
            // the first round that paid someone other than their stake: pushes adjust nothing).
            const view = await settled(api, round.roundId);
            if (view.settlement?.lines.some((line) => line.result !== 'push') === true) {
              await settledEverywhere(harness.store);
              await system.rounds.void(round.roundId, 'card exposed early', as('supervisor'));
              disputed = true;
            }
          }
        }
        expect(disputed).toBe(true);
        for (const player of PLAYERS)
          expectStatus(
            await api.as('operator').post(`/v1/wallets/${player}/withdrawals`, {
              amount: 1_234,
              reference: `cash-out-${player}`,
            }),
            201,
          );

        const events = await settledEverywhere(harness.store);
        const walletEvents = events.filter((e) => e.stream.startsWith(STREAM_PREFIXES.wallet));
        const reasons = walletEvents
          .filter((e) => e.type === 'StakeRefunded')
          .map((e) => (e.data as { reason: string }).reason);
        expect(new Set(reasons)).toEqual(
          new Set([
            'voided',
            'bet-rejected',
            'orphaned-debit',
            ...(reasons.includes('cleared') ? ['cleared'] : []),
          ]),
        );
        expect(walletEvents.some((e) => e.type === 'PayoutAdjusted')).toBe(true);

        // Every movement reaches the mirror; Croupier's own wallet never read the public queue.
        // The wallets' versions count them: the log's global read may hold back the newest
        // events while another transaction is in flight, a wallet's own stream does not.
        const views = new Map<string, WalletView>();
        for (const player of PLAYERS) views.set(player, await system.wallets.getWallet(player));
        const movements = [...views.values()].reduce((sum, v) => sum + Number(v.version) + 1, 0);
        expect(movements).toBeGreaterThanOrEqual(walletEvents.length);
        await vi.waitFor(
          async () => {
            expect((await books.appliedIds()).size).toBe(movements);
          },
          { timeout: 60_000, interval: 200 },
        );
        const mirrored = await books.wallets();
        for (const [player, wallet] of views) {
          expect(wallet.openStakes, player).toBe(0);
          expect(mirrored.get(player), player).toMatchObject({
            currency: 'EUR',
            balance: wallet.balance,
            commissionOwed: wallet.commissionOwed,
            lastSequence: Number(wallet.version) + 1,
          });
        }
        expect(await books.problems()).toEqual([]);
        expect(await publicQueue.jobCounts()).toMatchObject({ waiting: 0, active: 0, failed: 0 });

        // Catching up from the API finds nothing the queue did not deliver.
        const token = await harness.tokens.issue({ id: 'mirror', role: 'regulator' });
        const report = await reconcile({
          apiUrl: await harness.origin('/v1/settlements'),
          token,
          books,
          validate: loadValidator(),
          limit: 7,
          graceMs: 0,
        });
        expect(report.filled).toEqual([]);
        expect(report.checked).toBe(movements);

        for (const roundId of roundIds) {
          const audit = expectStatus(
            await api.as('regulator').get<Audit>(`/v1/audit/rounds/${roundId}`),
            200,
          );
          expect(audit.verdict.findings, roundId).toEqual([]);
          expect(audit.verdict.ok, roundId).toBe(true);
        }
        expect(checkMoney(await allEvents(harness.store)).discrepancies).toEqual([]);
      } finally {
        await consumer.close();
        await publicQueue.close();
      }
    });
  },
);

/** The table's next round; the previous one must be settled first, so wait for it. */
async function openRoundWhenFree(rounds: RoundService, tableId: string) {
  for (let attempt = 0; ; attempt++) {
    try {
      return await rounds.openRound(tableId, as('dealer'));
    } catch (error) {
      if (!(error instanceof DomainError && error.code === 'ROUND_IN_PROGRESS') || attempt > 400)
        throw error;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }
}

/** A bet whose round closes betting between the debit and the bet: BETTING_CLOSED, refunded. */
async function refusedAfterDebit(harness: Harness, roundId: string, player: string) {
  const { system } = harness;
  const closing: WalletPort = {
    debitStakes: async (input, context) => {
      const debited = await system.wallets.debitStakes(input, context);
      await system.rounds.closeBetting(roundId, systemContext('test'));
      return debited;
    },
    refundStake: (input, context) => system.wallets.refundStake(input, context),
  };
  const racing = new RoundService(system.commands, system.shoes, closing);
  await expect(
    racing.placeBets(roundId, player, [{ type: 'player', amount: 700 }], as('player', player)),
  ).rejects.toSatisfy((error) => error instanceof DomainError && error.code === 'BETTING_CLOSED');
}

/** A debit whose process dies before the round records the bet: the sweep refunds it later. */
async function orphanedDebit(harness: Harness, roundId: string, player: string) {
  const { system } = harness;
  class ProcessKilled extends Error {}
  const dying: WalletPort = {
    debitStakes: async (input, context) => {
      await system.wallets.debitStakes(input, context);
      throw new ProcessKilled('killed between StakeDebited and BetPlaced');
    },
    refundStake: (input, context) => system.wallets.refundStake(input, context),
  };
  const doomed = new RoundService(system.commands, system.shoes, dying);
  await expect(
    doomed.placeBets(roundId, player, [{ type: 'banker', amount: 900 }], as('player', player)),
  ).rejects.toBeInstanceOf(ProcessKilled);
}
