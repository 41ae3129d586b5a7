import { createHash, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  presetConfig,
  SETTLEMENT_MESSAGE_SCHEMA,
  type CommandContext,
  type Role,
  type SettlementMessage,
} from '@croupier/contracts';
import { buildApp, loadConfig, System, type SystemOptions } from '@croupier/gateway';
import { BullMqSettlementBus } from '@croupier/messaging';
import { isolatedPostgres, type IsolatedPostgres } from '@croupier/testkit';
import { useRedisPrefix } from '@croupier/testkit/vitest';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Books } from '../src/books.js';
import { startConsumer } from '../src/consumer.js';
import { loadValidator } from '../src/message.js';
import { reconcile } from '../src/reconcile.js';

const redis = useRedisPrefix('example');
/** BullMQ prefix as Croupier's REDIS_PREFIX would be (no trailing ':'). */
const prefixOf = (name: string) => `${redis.get().prefix}${name}`;
let postgres: IsolatedPostgres;
beforeAll(async () => {
  postgres = await isolatedPostgres('example');
});
afterAll(async () => {
  await postgres.drop();
});

function message(overrides: Partial<SettlementMessage> = {}): SettlementMessage {
  const eventId = randomUUID();
  return {
    schema: SETTLEMENT_MESSAGE_SCHEMA,
    messageId: randomUUID(),
    kind: 'settlement',
    roundId: 'live.1.1',
    tableId: 'live',
    shoeId: 'live.1',
    playerId: 'ana',
    betId: randomUUID(),
    betType: 'banker',
    bankerMode: 'commission',
    seat: null,
    stake: 1_000,
    payout: 1_950,
    result: 'win',
    commission: 50,
    commissionMode: 'deducted',
    currency: 'EUR',
    adjustment: null,
    reason: null,
    settlementId: randomUUID(),
    shiftId: randomUUID(),
    eventId,
    position: '340282366920938463463374607431768211455',
    verificationHash: createHash('sha256').update(eventId).digest('hex'),
    occurredAt: new Date().toISOString(),
    ...overrides,
  };
}

// Whole systems on a shared CI machine: allow for a slow minute.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

describe('the example wallet consumer', () => {
  it('applies every valid message from the queue once, and fails invalid ones', async () => {
    const books = new Books({
      connectionString: postgres.connectionString,
      schema: postgres.schema,
    });
    await books.migrate();
    const bus = new BullMqSettlementBus({ redisUrl: redis.get().url, prefix: prefixOf('queue') });
    const consumer = startConsumer({
      redisUrl: redis.get().url,
      prefix: prefixOf('queue'),
      books,
      validate: loadValidator(),
    });
    try {
      const messages = [
        message({ playerId: 'ana', payout: 1_950 }),
        message({ playerId: 'ana', payout: 0, result: 'lose', commission: 0 }),
        message({
          playerId: 'ben',
          kind: 'refund',
          result: 'refund',
          betType: null,
          bankerMode: null,
          commissionMode: null,
          commission: 0,
          payout: 1_000,
          reason: 'voided',
        }),
        // A round found misdealt after it was paid: the win is taken back by an adjustment.
        message({ playerId: 'cy', payout: 2_000, result: 'win', betType: 'player' }),
        message({
          playerId: 'cy',
          kind: 'adjustment',
          result: 'lose',
          betType: 'player',
          payout: 0,
          adjustment: { previousPayout: 2_000, delta: -2_000, commissionDelta: 0 },
          reason: 'corrected',
        }),
        message({
          playerId: 'ben',
          seat: 3,
          payout: 2_000,
          commission: 50,
          commissionMode: 'accrued',
        }),
      ];
      await bus.publish(messages);
      await bus.publish(messages.slice(0, 2)); // a re-send: no new jobs
      // Not a settlement message: the consumer must not apply it.
      const connection = new Redis(redis.get().url, { maxRetriesPerRequest: null });
      const raw = new Queue('settlement-events', { connection, prefix: prefixOf('queue') });
      await raw.add(
        'settlement',
        { ...message({ playerId: 'eve' }), payout: -100 },
        { jobId: 'forged' },
      );

      await eventually(async () => {
        expect((await books.appliedIds()).size).toBe(6);
        expect(await raw.getFailedCount()).toBe(1);
      });
      await raw.close();
      connection.disconnect();
      const balances = await books.balances();
      expect(balances.get('ana')).toEqual({ credited: 1_950, commissionOwed: 0 });
      expect(balances.get('ben')).toEqual({ credited: 3_000, commissionOwed: 50 });
      expect(balances.get('cy')).toEqual({ credited: 0, commissionOwed: 0 });
      expect(balances.has('eve')).toBe(false);

      // Idempotent whatever delivers it again.
      expect(await books.apply(messages[0]!, 'queue')).toBe(false);
      expect((await books.balances()).get('ana')?.credited).toBe(1_950);
    } finally {
      await consumer.close();
      await bus.close();
      await books.close();
    }
  });

  it('reconciles against a running Croupier: fills what the queue has not delivered, credits nothing twice', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'croupier-example-'));
    const schema = `${postgres.schema}_rec`;
    const books = new Books({ connectionString: postgres.connectionString, schema });
    await books.migrate();
    const croupierBus = new BullMqSettlementBus({
      redisUrl: redis.get().url,
      prefix: prefixOf('croupier'),
    });
    // Croupier's own wallet leaves the queue to this wallet system (WALLET_CONSUMER_CONCURRENCY=0).
    const config = loadConfig({
      EVENTSTORE: 'pglite',
      DATA_DIR: dataDir,
      REDIS_URL: redis.get().url,
      WALLET_CONSUMER_CONCURRENCY: '0',
      JWT_SECRET: 'example-test-jwt-secret-0123456789abcdef',
      SHOE_SEED_KEY: 'example-test-seed-key-0123456789abcdef0',
      AUTO_TABLES: '',
    });
    const system = await System.create({
      config,
      logger: silent,
      bus: croupierBus,
      autoDeal: false,
    });
    await system.start();
    const app = await buildApp(system);
    const apiUrl = await app.listen({ host: '127.0.0.1', port: 0 });
    const token = await system.tokens.issue({ id: 'wallet-recon', role: 'regulator' });
    const consume = () =>
      startConsumer({
        redisUrl: redis.get().url,
        prefix: prefixOf('croupier'),
        books,
        validate: loadValidator(),
      });
    let consumer = consume();
    try {
      await system.rounds.openTable(
        {
          tableId: 'ex',
          config: presetConfig('generic'),
          dealing: { mode: 'manual', bettingWindowMs: 0 },
        },
        as('operator'),
      );
      for (const player of ['ana', 'ben'])
        await system.wallets.deposit(
          { playerId: player, amount: 100_000, currency: 'EUR', reference: player },
          as('operator'),
        );
      await playRound(system, { ana: 'player', ben: 'banker' });
      await eventually(async () => {
        expect((await books.appliedIds()).size).toBe(2);
      });

      // The consumer is down while a round settles: its messages wait in the queue.
      await consumer.close();
      await playRound(system, { ana: 'tie', ben: 'player' });
      await eventually(async () => {
        expect((await croupierBus.jobCounts()).waiting).toBe(2);
      });
      const report = await reconcile({ apiUrl, token, books, validate: loadValidator(), limit: 1 });
      expect(report.checked).toBe(4);
      expect(report.filled).toHaveLength(2); // exactly the second round's two bets
      expect(BigInt(report.cursor)).toBeGreaterThan(0n);

      // The queue delivers them after all: already applied, nothing credited twice.
      const before = await books.balances();
      consumer = consume();
      await eventually(async () => {
        const counts = await croupierBus.jobCounts();
        expect(counts.waiting + counts.active).toBe(0);
        expect(counts.completed).toBe(4);
      });
      expect(await books.balances()).toEqual(before);
      const again = await reconcile({ apiUrl, token, books, validate: loadValidator() });
      expect(again).toMatchObject({ checked: 0, filled: [], cursor: report.cursor });

      // The books agree with Croupier's own ledger: every message's payout, credited once.
      const listed = await fetch(new URL('/v1/settlements?from=0&limit=1000', apiUrl), {
        headers: { authorization: `Bearer ${token}` },
      });
      const page = (await listed.json()) as { messages: SettlementMessage[] };
      const credited = new Map<string, number>();
      for (const m of page.messages)
        credited.set(m.playerId, (credited.get(m.playerId) ?? 0) + m.payout);
      const balances = await books.balances();
      for (const [player, amount] of credited) expect(balances.get(player)?.credited).toBe(amount);
    } finally {
      await consumer.close();
      await app.close();
      await system.stop();
      await books.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

const noop = () => undefined;
const silent = {
  level: 'silent',
  fatal: noop,
  error: noop,
  warn: noop,
  info: noop,
  debug: noop,
  trace: noop,
  silent: noop,
  child: () => silent,
} as unknown as SystemOptions['logger'];

function as(role: Role, id: string = role): CommandContext {
  return {
    actor: { id, role },
    correlationId: randomUUID(),
    causationId: null,
    now: () => new Date(),
  };
}

async function playRound(system: System, bets: Record<string, string>): Promise<void> {
  const round = await system.rounds.openRound('ex', as('dealer'));
  for (const [player, type] of Object.entries(bets)) {
    const bet = { type, amount: 1_000, ...(type === 'banker' ? { bankerMode: 'commission' } : {}) };
    await system.rounds.placeBets(round.roundId, player, [bet], as('player', player));
  }
  await system.rounds.closeBetting(round.roundId, as('dealer'));
  await system.rounds.deal(round.roundId, as('dealer'));
}

/** `vi.waitFor` with room for a loaded CI machine: 20 s unless a test says otherwise. */
function eventually<T>(
  check: () => T | Promise<T>,
  options: { timeout?: number; interval?: number } = {},
): Promise<T> {
  return vi.waitFor(check, { timeout: 20_000, interval: 50, ...options });
}
