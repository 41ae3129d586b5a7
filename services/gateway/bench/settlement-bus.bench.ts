/**
 * Settlement over the bus under load (issue 5): TABLES tables dealing continuously through the
 * System on PostgreSQL, 7 players each, with the BullMQ bus (BUS=bullmq, the default) or the
 * in-process one (BUS=in-process) for comparison. Prints JSON lines:
 * - messages/s acked by the wallet consumer, and the lag from RoundSettled (recorded) to the ack;
 * - end-to-end settlement lag, RoundCompleted recorded -> the wallet's PayoutCredited recorded,
 *   per round (its last credit) and per credit, p50/p99.
 * Env: TABLES (default 4), DURATION_S (30), BUS, WALLET_CONSUMER_CONCURRENCY (16), DATABASE_URL,
 * REDIS_URL.
 */
import { cpus, loadavg } from 'node:os';
import { systemContext } from '@croupier/application';
import { DomainError, PRESETS, presetConfig, type SettlementMessage } from '@croupier/contracts';
import { createEventStore } from '@croupier/eventstore';
import {
  BullMqSettlementBus,
  InProcessSettlementBus,
  type SettlementBus,
  type SettlementConsumer,
  type SettlementHandler,
} from '@croupier/messaging';
import { isolatedPostgres, isolatedRedisPrefix } from '@croupier/testkit';
import { pino } from 'pino';
import { loadConfig } from '../src/config.js';
import { System } from '../src/system.js';

const TABLES = Number(process.env['TABLES'] ?? 4);
const DURATION_MS = Number(process.env['DURATION_S'] ?? 30) * 1000;
const BUS = process.env['BUS'] ?? 'bullmq';
const CONCURRENCY = process.env['WALLET_CONSUMER_CONCURRENCY'] ?? '16';
const PLAYERS = 7;
/** Side bets close at a round of the shoe (docs/rules.md): bet on them only while offered. */
const PAIR_MAX_ROUND = PRESETS.live.bets.player_pair.maxRound ?? Number.POSITIVE_INFINITY;

const percentile = (values: number[], p: number) => {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return Number(
    sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!.toFixed(1),
  );
};
const emit = (record: Record<string, unknown>) => {
  process.stdout.write(`${JSON.stringify({ at: new Date().toISOString(), ...record })}\n`);
};

/** Notes when the wallet consumer acknowledged each message (its handler returned). */
class AckTimes implements SettlementBus {
  readonly acks: { message: SettlementMessage; at: number }[] = [];
  /** When publish resolved, per event: the outbox's side of the lag. */
  readonly published = new Map<string, number>();
  constructor(private readonly inner: SettlementBus) {}
  get kind() {
    return this.inner.kind;
  }
  async publish(messages: readonly SettlementMessage[]): Promise<void> {
    await this.inner.publish(messages);
    const eventId = messages[0]?.eventId;
    if (eventId !== undefined && !this.published.has(eventId))
      this.published.set(eventId, Date.now());
  }
  consume(
    handler: SettlementHandler,
    options?: { concurrency?: number },
  ): Promise<SettlementConsumer> {
    return this.inner.consume(async (message) => {
      await handler(message);
      this.acks.push({ message, at: Date.now() });
    }, options);
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

const postgres = await isolatedPostgres('benchbus');
const redis = await isolatedRedisPrefix('benchbus');
const store = await createEventStore({
  kind: 'postgres',
  connectionString: postgres.connectionString,
  schema: postgres.schema,
  maxConnections: 20,
  subscriptions: { pollIntervalMs: 20 },
});
const inner: SettlementBus =
  BUS === 'in-process'
    ? new InProcessSettlementBus()
    : new BullMqSettlementBus({ redisUrl: redis.url, prefix: redis.prefix, backoffMs: 100 });
const bus = new AckTimes(inner);
const config = loadConfig({
  EVENTSTORE: 'postgres',
  DATABASE_URL: postgres.connectionString,
  DATABASE_SCHEMA: postgres.schema,
  ...(BUS === 'in-process' ? {} : { REDIS_URL: redis.url }),
  WALLET_CONSUMER_CONCURRENCY: CONCURRENCY,
  JWT_SECRET: 'bench-secret-0123456789abcdef0123456789ab',
  SHOE_SEED_KEY: 'bench-seed-key-0123456789abcdef012345678',
  AUTO_TABLES: '',
  LOG_LEVEL: 'silent',
});
const system = await System.create({
  config,
  logger: pino({ level: 'silent' }),
  store,
  bus,
  autoDeal: false,
  sweepIntervalMs: 3_600_000,
});
await system.start();

const operator = systemContext('bench-operator');
const dealer = systemContext('bench-dealer');
const tables = Array.from({ length: TABLES }, (_, i) => `bench-${i + 1}`);
for (const tableId of tables) {
  await system.rounds.openTable(
    { tableId, config: presetConfig('live'), dealing: { mode: 'manual', bettingWindowMs: 0 } },
    operator,
  );
  for (let p = 0; p < PLAYERS; p++)
    await system.wallets.deposit(
      { playerId: `${tableId}-p${p}`, amount: 1_000_000_000, currency: 'EUR', reference: 'bench' },
      operator,
    );
}

const startPosition = (await store.readAll({ limit: 1_000_000 })).at(-1)?.position ?? 0n;
const started = Date.now();
let errors = 0;
async function dealTable(tableId: string): Promise<void> {
  while (Date.now() - started < DURATION_MS) {
    try {
      const round = await system.rounds.openRound(tableId, dealer);
      await Promise.all(
        Array.from({ length: PLAYERS }, (_, p) =>
          system.rounds.placeBets(
            round.roundId,
            `${tableId}-p${p}`,
            [
              { type: p % 3 === 0 ? 'player' : 'banker', amount: 1_000 },
              ...(p % 2 === 0 && round.number <= PAIR_MAX_ROUND
                ? [{ type: 'player_pair', amount: 100 }]
                : []),
            ],
            dealer,
          ),
        ),
      );
      await system.rounds.closeBetting(round.roundId, dealer);
      await system.rounds.deal(round.roundId, dealer);
    } catch (error) {
      // The shoe's last round is settling before the next shoe opens: try again.
      if (!(error instanceof DomainError && error.code === 'ROUND_IN_PROGRESS')) {
        errors++;
        if (errors < 5) process.stderr.write(`${String(error)}\n`);
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }
}
await Promise.all(tables.map(dealTable));
const dealtFor = (Date.now() - started) / 1000;
const ackedWhileDealing = bus.acks.length;

// Drain: wait until every settlement record's messages are acknowledged.
const settledEvents = async () =>
  (
    await store.readAll({
      after: startPosition,
      limit: 10_000_000,
      filter: { streamPrefix: 'round-', eventTypes: ['RoundSettled'] },
    })
  ).reduce((sum, event) => sum + (event.data as { lines: unknown[] }).lines.length, 0);
const drainStarted = Date.now();
while (Date.now() - drainStarted < 120_000) {
  const expected = await settledEvents();
  if (bus.acks.filter((ack) => ack.message.kind === 'settlement').length >= expected) break;
  await new Promise((resolve) => setTimeout(resolve, 100));
}
const drainSeconds = (Date.now() - drainStarted) / 1000;

const events = await store.readAll({ after: startPosition, limit: 10_000_000 });
const completedAt = new Map<string, number>();
const settledAt = new Map<string, number>();
const lastCreditAt = new Map<string, number>();
const creditLags: number[] = [];
for (const event of events) {
  const data = event.data as { roundId?: string };
  if (event.type === 'RoundCompleted' && data.roundId)
    completedAt.set(data.roundId, event.recordedAt.getTime());
  if (event.type === 'RoundSettled') settledAt.set(event.id, event.recordedAt.getTime());
}
for (const event of events) {
  const data = event.data as { roundId?: string };
  if (event.type !== 'PayoutCredited' || data.roundId === undefined) continue;
  const completed = completedAt.get(data.roundId);
  if (completed === undefined) continue;
  creditLags.push(event.recordedAt.getTime() - completed);
  lastCreditAt.set(
    data.roundId,
    Math.max(lastCreditAt.get(data.roundId) ?? 0, event.recordedAt.getTime()),
  );
}
const roundLags = [...lastCreditAt].map(([roundId, at]) => at - completedAt.get(roundId)!);
const ackLags = bus.acks
  .filter((ack) => settledAt.has(ack.message.eventId))
  .map((ack) => ack.at - settledAt.get(ack.message.eventId)!);
const publishLags = [...bus.published]
  .filter(([eventId]) => settledAt.has(eventId))
  .map(([eventId, at]) => at - settledAt.get(eventId)!);
const seconds = dealtFor + drainSeconds;
emit({
  bench: 'settlement-bus-system',
  bus: inner.kind,
  store: 'postgres',
  tables: TABLES,
  playersPerTable: PLAYERS,
  walletConsumerConcurrency: Number(CONCURRENCY),
  dealingSeconds: Number(dealtFor.toFixed(1)),
  drainSeconds: Number(drainSeconds.toFixed(1)),
  settledRounds: settledAt.size,
  settledRoundsPerSecond: Number((settledAt.size / dealtFor).toFixed(2)),
  messagesAcked: bus.acks.length,
  messagesAckedPerSecondWhileDealing: Number((ackedWhileDealing / dealtFor).toFixed(1)),
  messagesAckedPerSecondOverall: Number((bus.acks.length / seconds).toFixed(1)),
  roundSettledToPublishedMs: { p50: percentile(publishLags, 50), p99: percentile(publishLags, 99) },
  roundSettledToAckMs: { p50: percentile(ackLags, 50), p99: percentile(ackLags, 99) },
  settlementLagPerRoundMs: { p50: percentile(roundLags, 50), p99: percentile(roundLags, 99) },
  settlementLagPerCreditMs: { p50: percentile(creditLags, 50), p99: percentile(creditLags, 99) },
  errors,
  loadAverage1m: Number(loadavg()[0]!.toFixed(2)),
  cpu: cpus()[0]?.model,
  cores: cpus().length,
});
await system.stop();
await store.close();
await postgres.drop();
await redis.cleanup();
