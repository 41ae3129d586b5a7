import { randomUUID } from 'node:crypto';
/**
 * Load benchmark (issue 7): the distributed deployment (shoe, wallet, round, two settlement
 * processes on PostgreSQL and Redis) under many tables dealt in parallel, 7 bots each, over
 * HTTP. Steps through table counts to find where it saturates. JSON lines on stdout: settled
 * rounds/s, bet p50/p99, settlement lag p50/p99, events/s, CPU per process.
 * Env: LEVELS (default "10,25,50" tables), STEP_S (default 20), DATABASE_URL / REDIS_URL.
 */
import { readFileSync, mkdtempSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEventStore } from '@croupier/eventstore';
import { isolatedPostgres, startRedisServer } from '@croupier/testkit';
import { Cluster, CLUSTER_SECRETS } from '../support/cluster.js';
import { Remote } from '../support/remote.js';

const LEVELS = (process.env.LEVELS ?? '10,25,50').split(',').map(Number);
const STEP_MS = Number(process.env.STEP_S ?? 20) * 1000;
const BOTS = 7;
const CLOCK_TICKS = 100; // USER_HZ on Linux

const percentile = (values: number[], p: number) => {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return Number(
    sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!.toFixed(1),
  );
};
const cpuSeconds = (pid: number | null) => {
  if (pid === null) return 0;
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS; // utime + stime
};
const emit = (record: Record<string, unknown>) =>
  process.stdout.write(`${JSON.stringify({ at: new Date().toISOString(), ...record })}\n`);

const postgres = await isolatedPostgres('load');
const redis = await startRedisServer({ persistent: true });
const cluster = await Cluster.create({
  databaseUrl: postgres.connectionString,
  schema: postgres.schema,
  redisUrl: redis.url,
  redisPrefix: postgres.schema,
  logDir: mkdtempSync(join(tmpdir(), 'croupier-load-')),
  env: { LOG_LEVEL: 'error', RATE_LIMIT_PER_MINUTE: '1000000' },
});
const store = await createEventStore({
  kind: 'postgres',
  connectionString: postgres.connectionString,
  schema: postgres.schema,
});
const remote = new Remote(CLUSTER_SECRETS.JWT_SECRET);
const operator = { role: 'operator', sub: 'load-operator' } as const;
const dealer = { role: 'dealer', sub: 'load-dealer' } as const;
const round = cluster.url('round');
const wallet = cluster.url('wallet');

let tablesOpened = 0;
async function openTables(count: number) {
  for (; tablesOpened < count; tablesOpened++) {
    const tableId = `load-${tablesOpened + 1}`;
    await remote.call(round, 'POST', '/v1/tables', operator, { tableId, preset: 'generic' });
    for (let b = 0; b < BOTS; b++) {
      await remote.call(wallet, 'POST', `/v1/wallets/${tableId}-bot${b}/deposits`, operator, {
        amount: 1_000_000_000,
        currency: 'EUR',
        reference: 'load',
      });
    }
  }
}

for (const tables of LEVELS) {
  await openTables(tables);
  const betLatencies: number[] = [];
  let errors = 0;
  const cpuBefore = new Map(cluster.processes.map((p) => [p.id, cpuSeconds(p.pid)]));
  const driverCpuBefore = process.cpuUsage();
  const fromPosition = (await store.readAll({ limit: 1_000_000_000 })).at(-1)?.position;
  const started = Date.now();
  await Promise.all(
    Array.from({ length: tables }, async (_, t) => {
      const tableId = `load-${t + 1}`;
      while (Date.now() - started < STEP_MS) {
        const opened = await remote.call<{ roundId?: string; code?: string }>(
          round,
          'POST',
          `/v1/tables/${tableId}/rounds`,
          dealer,
        );
        if (opened.status !== 201) {
          if (opened.body.code !== 'ROUND_IN_PROGRESS') errors++;
          await new Promise((resolve) => setTimeout(resolve, 10));
          continue;
        }
        const roundId = opened.body.roundId!;
        await Promise.all(
          Array.from({ length: BOTS }, async (_, b) => {
            const t0 = performance.now();
            const placed = await remote.call(
              round,
              'POST',
              `/v1/rounds/${roundId}/bets`,
              { role: 'player', sub: `${tableId}-bot${b}` },
              {
                bets: [
                  { type: b % 3 === 0 ? 'player' : 'banker', amount: 1_000, betId: randomUUID() },
                ],
              },
            );
            if (placed.status === 201) betLatencies.push(performance.now() - t0);
            else errors++;
          }),
        );
        for (const step of ['close-betting', 'deal']) {
          const response = await remote.call(
            round,
            'POST',
            `/v1/rounds/${roundId}/${step}`,
            dealer,
          );
          if (response.status !== 200) errors++;
        }
      }
    }),
  );
  const seconds = (Date.now() - started) / 1000;
  await new Promise((resolve) => setTimeout(resolve, 3_000)); // let settlement drain
  const events = await store.readAll({
    ...(fromPosition === undefined ? {} : { after: fromPosition }),
    limit: 10_000_000,
  });
  const completedAt = new Map<string, number>();
  const creditedAt = new Map<string, number>();
  let settled = 0;
  for (const event of events) {
    const roundId = (event.data as { roundId?: string }).roundId;
    if (roundId === undefined) continue;
    if (event.type === 'RoundCompleted') completedAt.set(roundId, event.recordedAt.getTime());
    if (event.type === 'RoundSettled') settled++;
    if (event.type === 'PayoutCredited')
      creditedAt.set(roundId, Math.max(creditedAt.get(roundId) ?? 0, event.recordedAt.getTime()));
  }
  const lags = [...creditedAt]
    .filter(([id]) => completedAt.has(id))
    .map(([id, at]) => at - completedAt.get(id)!);
  const cpu = Object.fromEntries(
    cluster.processes.map((p) => [
      p.id,
      Number(((cpuSeconds(p.pid) - (cpuBefore.get(p.id) ?? 0)) / seconds).toFixed(2)),
    ]),
  );
  const driver = process.cpuUsage(driverCpuBefore);
  emit({
    bench: 'load',
    deployment:
      'distributed (shoe, wallet, round, 2 x settlement) on PostgreSQL + Redis, over HTTP',
    tables,
    botsPerTable: BOTS,
    seconds: Number(seconds.toFixed(1)),
    settledRounds: settled,
    settledRoundsPerSecond: Number((settled / seconds).toFixed(2)),
    betsPerSecond: Number((betLatencies.length / seconds).toFixed(1)),
    betLatencyMs: { p50: percentile(betLatencies, 50), p99: percentile(betLatencies, 99) },
    settlementLagMs: { p50: percentile(lags, 50), p99: percentile(lags, 99) },
    eventsPerSecond: Number((events.length / seconds).toFixed(1)),
    errors,
    cpuCoresPerProcess: {
      ...cpu,
      driver: Number(((driver.user + driver.system) / 1e6 / seconds).toFixed(2)),
    },
    machine: { cpu: cpus()[0]?.model, cores: cpus().length },
  });
}
await cluster.stop();
await store.close();
await redis.cleanup();
await postgres.drop();
