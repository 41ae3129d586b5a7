import { randomUUID } from 'node:crypto';
import { CommandHandler } from '@croupier/application';
import {
  DomainError,
  STREAM_PREFIXES,
  type CommandContext,
  type Role,
  type ShoePort,
  type WalletPort,
} from '@croupier/contracts';
import { Books, loadValidator, reconcile, startConsumer } from '@croupier/example-wallet-consumer';
import { ServiceClient, ServiceTokens } from '@croupier/http';
import { BullMqWalletMessageBus } from '@croupier/messaging';
import { HttpShoePort, HttpWalletPort, RoundService } from '@croupier/round';
import {
  isolatedPostgres,
  isolatedRedisPrefix,
  type IsolatedPostgres,
  type IsolatedRedisPrefix,
} from '@croupier/testkit';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startHarness, type Harness } from '../support/harness.js';
import { allEvents, checkMoney, settledEverywhere } from '../support/invariants.js';
import {
  expectStatus,
  fund,
  placeBets,
  settled,
  testRandom,
  type BetInput,
  type RoundView,
} from '../support/play.js';

interface Audit {
  verdict: { ok: boolean; findings: { check: string; code: string; message: string }[] };
}
interface WalletView {
  balance: number;
  commissionOwed: number;
  openStakes: number;
  version: string | null;
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
 *
 * The game is played through the API, so the same test runs in one process and in the
 * distributed deployment (processes of the file's own, on the file's Redis prefix, with the
 * gateway for the audit). The two faults come from a round service of the test's own whose
 * wallet port is replaced: in one process, beside the System's on its store and ports; in the
 * distributed deployment, a replica of the round service in the test process, on the
 * deployment's store, calling its shoe and wallet services as the round service does.
 */
describe("an outside mirror of the public settlement queue equals Croupier's balances", () => {
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
      env: {
        REDIS_URL: redis.url,
        REDIS_PREFIX: prefix,
        // A debit is an orphan once two seconds old: the bet refused after its debit is refunded
        // by its own request long before, so the distributed processes' own sweeps (every five
        // seconds) never take it for one.
        ORPHAN_GRACE_MS: '2000',
      },
      gateway: true,
    });
  });
  afterAll(async () => {
    await harness.close();
    await books.close();
    await mirrorDb.drop();
    await redis.cleanup();
  });

  it('plays a shoe with voids, a dispute, a refused-after-debit bet and an orphan sweep; the mirror equals the wallets to the cent', async () => {
    const { api } = harness;
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
    const bet = async (roundId: string, player: string, bets: BetInput[]) =>
      expectStatus(await placeBets(api, roundId, player, bets), 201);
    const dealerStep = async (roundId: string, step: 'close-betting' | 'deal') =>
      expectStatus(await api.as('dealer').post<RoundView>(`/v1/rounds/${roundId}/${step}`), 200);
    const voidRound = async (roundId: string, reason: string) =>
      expectStatus(
        await api.as('supervisor').post<RoundView>(`/v1/rounds/${roundId}/void`, { reason }),
        200,
      );
    const walletOf = async (player: string) =>
      expectStatus(await api.as('operator').get<WalletView>(`/v1/wallets/${player}`), 200);

    // The outside system is not reading yet: Croupier's wallet credits all the same.
    const publicQueue = new BullMqWalletMessageBus({ redisUrl: redis.url, prefix });
    expect(publicQueue.queueName).toBe('settlement-events');
    const first = expectStatus(
      await api.as('dealer').post<RoundView>(`/v1/tables/${tableId}/rounds`),
      201,
    );
    for (const player of PLAYERS)
      await bet(first.roundId, player, [
        { type: 'banker', amount: 1_000, bankerMode: 'commission' },
      ]);
    await dealerStep(first.roundId, 'close-betting');
    await dealerStep(first.roundId, 'deal');
    await settled(api, first.roundId);
    await settledEverywhere(harness.store);
    for (const player of PLAYERS) expect((await walletOf(player)).openStakes).toBe(0);
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
    const faults = faultyRoundServices(harness);
    try {
      let shoeId = first.shoeId;
      let disputed = false;
      for (;;) {
        const round = await openRoundWhenFree(harness, tableId);
        roundIds.push(round.roundId);
        if (round.shoeId !== shoeId) {
          // The shoe ended with the previous round: this one opened the next. Leave it empty.
          await dealerStep(round.roundId, 'close-betting');
          await voidRound(round.roundId, 'end of test');
          break;
        }
        shoeId = round.shoeId;
        for (const player of PLAYERS) {
          const main = pick(['player', 'banker', 'tie'] as const);
          await bet(round.roundId, player, [
            {
              type: main,
              amount: 100 * (1 + Math.floor(random() * 20)),
              ...(main === 'banker' ? { bankerMode: pick(['commission', 'no_commission']) } : {}),
            },
            ...(round.number <= 60 && random() < 0.2 ? [{ type: 'player_pair', amount: 200 }] : []),
          ]);
          if (random() < 0.1) {
            // Cleared bets are refunded; the player bets again.
            expectStatus(
              await api.as('player', player).delete(`/v1/rounds/${round.roundId}/bets`),
              200,
            );
            await bet(round.roundId, player, [{ type: 'player', amount: 500 }]);
          }
        }
        if (round.number === 2) {
          // Betting closes between mia's debit and her bet: refused, and refunded at once.
          await faults.refusedAfterDebit(round.roundId, 'mia');
        }
        let orphan: string | null = null;
        if (round.number === 3) {
          // noa's bet is debited and the process dies before the round records it.
          orphan = await faults.orphanedDebit(round.roundId, 'noa');
        }
        // Round 2's betting was closed by the race above.
        if (round.number !== 2) await dealerStep(round.roundId, 'close-betting');
        if (orphan !== null) {
          // Swept back once the round no longer takes bets and the debit is past its grace: by
          // the one process's sweep, called here until its read model has seen the debit, or by
          // the distributed round service's (and gateway's) own.
          let swept = 0;
          await vi.waitFor(
            async () => {
              if (harness.cluster === null) swept += await harness.system.sweep();
              const refunds = (await harness.store.readStream('wallet-noa')).filter(
                (e) => e.type === 'StakeRefunded' && (e.data as { betId: string }).betId === orphan,
              );
              expect(refunds.map((e) => (e.data as { reason: string }).reason)).toEqual([
                'orphaned-debit',
              ]);
            },
            { timeout: 30_000, interval: 100 },
          );
          if (harness.cluster === null) {
            expect(swept).toBe(1);
            expect(await harness.system.sweep()).toBe(0);
          }
        }
        if (round.number === 4) {
          await voidRound(round.roundId, 'dealer misdeal');
        } else {
          await dealerStep(round.roundId, 'deal');
        }
        if (round.number >= 5 && !disputed) {
          // A dispute: the settled round is voided afterwards, every bet adjusted back (from
          // the first round that paid someone other than their stake: pushes adjust nothing).
          const view = await settled(api, round.roundId);
          if (view.settlement?.lines.some((line) => line.result !== 'push') === true) {
            await settledEverywhere(harness.store);
            await voidRound(round.roundId, 'card exposed early');
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
      for (const player of PLAYERS) views.set(player, await walletOf(player));
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
});

/** The table's next round; the previous one must be settled first, so wait for it. */
async function openRoundWhenFree(harness: Harness, tableId: string): Promise<RoundView> {
  for (let attempt = 0; ; attempt++) {
    const opened = await harness.api.as('dealer').post<RoundView>(`/v1/tables/${tableId}/rounds`);
    if (opened.status === 201) return opened.body;
    const { code } = opened.body as { code?: string };
    if (code !== 'ROUND_IN_PROGRESS' || attempt > 400) return expectStatus(opened, 201);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * What a round service is made of, for one of the test's own whose wallet port a fault replaces:
 * the one process's command handler and ports, or (distributed) a replica in the test process on
 * the deployment's store, calling its shoe and wallet services with a service token as the
 * round service's processes do.
 */
function roundServiceParts(harness: Harness): {
  commands: CommandHandler;
  shoes: ShoePort;
  wallets: WalletPort;
} {
  if (harness.cluster === null) {
    const { system } = harness;
    return { commands: system.commands, shoes: system.shoes, wallets: system.wallets };
  }
  const credentials = new ServiceTokens(harness.tokens, 'round-service');
  const token = () => credentials.token();
  const { cluster } = harness;
  return {
    commands: new CommandHandler(harness.store),
    shoes: new HttpShoePort(new ServiceClient(cluster.url('shoe'), token)),
    wallets: new HttpWalletPort(new ServiceClient(cluster.url('wallet'), token)),
  };
}

/** The two faults of the bet workflow, each from a round service whose wallet port is replaced. */
function faultyRoundServices(harness: Harness) {
  const { commands, shoes, wallets } = roundServiceParts(harness);
  return {
    /** A bet whose round closes betting between the debit and the bet: BETTING_CLOSED, refunded. */
    async refusedAfterDebit(roundId: string, player: string): Promise<void> {
      const closing: WalletPort = {
        debitStakes: async (input, context) => {
          const debited = await wallets.debitStakes(input, context);
          expectStatus(
            await harness.api.as('dealer').post(`/v1/rounds/${roundId}/close-betting`),
            200,
          );
          return debited;
        },
        refundStake: (input, context) => wallets.refundStake(input, context),
      };
      const racing = new RoundService(commands, shoes, closing);
      await expect(
        racing.placeBets(roundId, player, [{ type: 'player', amount: 700 }], as('player', player)),
      ).rejects.toSatisfy(
        (error) => error instanceof DomainError && error.code === 'BETTING_CLOSED',
      );
    },
    /**
     * A debit whose process dies before the round records the bet: the sweep refunds it later.
     * Answers the bet's id.
     */
    async orphanedDebit(roundId: string, player: string): Promise<string> {
      class ProcessKilled extends Error {}
      const betId = randomUUID();
      const dying: WalletPort = {
        debitStakes: async (input, context) => {
          await wallets.debitStakes(input, context);
          throw new ProcessKilled('killed between StakeDebited and BetPlaced');
        },
        refundStake: (input, context) => wallets.refundStake(input, context),
      };
      const doomed = new RoundService(commands, shoes, dying);
      await expect(
        doomed.placeBets(
          roundId,
          player,
          [{ type: 'banker', amount: 900, betId }],
          as('player', player),
        ),
      ).rejects.toBeInstanceOf(ProcessKilled);
      return betId;
    },
  };
}
