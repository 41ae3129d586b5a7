/**
 * The settlement bus alone (issue 5): how many messages per second go from `publish` to the
 * consumer's ack, published the way the outbox does (one settlement record of LINES messages at a
 * time, awaiting Redis' confirmation), consumed with CONCURRENCY workers and a handler that does
 * nothing. The ceiling the bus puts on settlement; the system-level figures are in
 * services/gateway/bench/settlement-bus.bench.ts. JSON lines on stdout.
 * Env: MESSAGES (default 20000), LINES (7), CONCURRENCY (4), REDIS_URL.
 */
import { cpus } from 'node:os';
import { performance } from 'node:perf_hooks';
import { isolatedRedisPrefix } from '@croupier/testkit';
import { BullMqSettlementBus, InProcessSettlementBus, type SettlementBus } from '../src/index.js';
import { settlementMessage } from '../test/support.js';

const MESSAGES = Number(process.env['MESSAGES'] ?? 20_000);
const LINES = Number(process.env['LINES'] ?? 7);
const CONCURRENCY = (process.env['CONCURRENCY'] ?? '1,4,16').split(',').map(Number);
/** Records per second in the paced run: the latency of a bus that is not saturated. */
const PACED_RECORDS_PER_SECOND = Number(process.env['PACED_RATE'] ?? 40);
const PACED_SECONDS = Number(process.env['PACED_SECONDS'] ?? 10);

const percentile = (values: number[], p: number) => {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return Number(
    sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!.toFixed(2),
  );
};
const emit = (record: Record<string, unknown>) => {
  process.stdout.write(`${JSON.stringify({ at: new Date().toISOString(), ...record })}\n`);
};

async function measure(
  kind: string,
  bus: SettlementBus,
  concurrency: number,
  pacedRate: number | null,
): Promise<void> {
  const count = pacedRate === null ? Math.ceil(MESSAGES / LINES) : pacedRate * PACED_SECONDS;
  const records = Array.from({ length: count }, () =>
    Array.from({ length: LINES }, () => settlementMessage()),
  );
  const total = records.length * LINES;
  const publishedAt = new Map<string, number>();
  const latencies: number[] = [];
  let acked = 0;
  let allAcked!: () => void;
  const done = new Promise<void>((resolve) => {
    allAcked = resolve;
  });
  const consumer = await bus.consume(
    (message) => {
      const sent = publishedAt.get(message.messageId);
      if (sent !== undefined) latencies.push(performance.now() - sent);
      if (++acked === total) allAcked();
      return Promise.resolve();
    },
    { concurrency },
  );
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (const [index, record] of records.entries()) {
    if (pacedRate !== null) {
      const due = started + (index * 1000) / pacedRate;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    }
    const now = performance.now();
    for (const message of record) publishedAt.set(message.messageId, now);
    await bus.publish(record);
  }
  const publishSeconds = (performance.now() - started) / 1000;
  await done;
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  emit({
    bench: 'settlement-bus',
    bus: kind,
    load: pacedRate === null ? 'as fast as possible' : `${pacedRate} records/s`,
    messages: total,
    linesPerRecord: LINES,
    concurrency,
    recordsPublishedPerSecond: Number((records.length / publishSeconds).toFixed(1)),
    messagesPerSecond: Number((total / seconds).toFixed(1)),
    publishToAckMs: { p50: percentile(latencies, 50), p99: percentile(latencies, 99) },
    nodeCpuMsPerMessage: Number(((used.user + used.system) / 1000 / total).toFixed(3)),
    cpu: cpus()[0]?.model,
    cores: cpus().length,
  });
  await consumer.close();
}

const redis = await isolatedRedisPrefix('bench');
const bullmq = new BullMqSettlementBus({ redisUrl: redis.url, prefix: redis.prefix });
const inProcess = new InProcessSettlementBus();
try {
  for (const concurrency of CONCURRENCY) await measure('bullmq', bullmq, concurrency, null);
  await measure('bullmq', bullmq, 4, PACED_RECORDS_PER_SECOND);
  await measure('in-process', inProcess, 1, null);
} finally {
  await Promise.all([bullmq.close(), inProcess.close()]);
  await redis.cleanup();
}
