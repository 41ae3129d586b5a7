import { randomUUID } from 'node:crypto';
/**
 * Load benchmark (issue 7): the distributed deployment (shoe, wallet, round, two settlement
 * processes on PostgreSQL and Redis) under many tables dealt in parallel, 7 bots each, over
 * HTTP. Steps through table counts to find where it saturates. JSON lines on stdout: settled
 * rounds/s, bet p50/p99, settlement lag p50/p99 (and the rounds not credited in time), events/s,
 * CPU per process: each service, the driver, PostgreSQL, the bench's Redis, the whole machine.
 * Env: LEVELS (default "10,25,50" tables), STEP_S (default 20), DRAIN_MAX_S (default 60: how
 * long to wait after dealing stops for every completed round to be credited), DATABASE_URL.
 * BENCH_IDLE_S=N (issue 27): the deployment with a gateway as well, the first level's tables
 * opened and nobody playing; after BENCH_IDLE_SETTLE_S (default 15), one JSON line with the CPU of
 * each process over N idle seconds (bench/idle.ts), and no dealing.
 */
import { mkdtempSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEventStore } from '@croupier/eventstore';
import { startRedisServer } from '@croupier/testkit';
import { Cluster, CLUSTER_SECRETS } from '../support/cluster.js';
import { Remote } from '../support/remote.js';
import {
  cpuSeconds,
  groupCpu,
  groupCpuBetween,
  machineBusySeconds,
  ownDatabase,
  pgrep,
  postgresPids,
  RoundCost,
} from './cost.js';
import { measureIdle } from './idle.js';

const LEVELS = (process.env.LEVELS ?? '10,25,50').split(',').map(Number);
const STEP_MS = Number(process.env.STEP_S ?? 20) * 1000;
const DRAIN_MAX_MS = Number(process.env.DRAIN_MAX_S ?? 60) * 1000;
const BOTS = 7;
const IDLE_S = Number(process.env.BENCH_IDLE_S ?? 0);
/** How long the deployment rests before the idle window: a young process compiles and collects. */
const IDLE_SETTLE_MS = Number(process.env.BENCH_IDLE_SETTLE_S ?? 15) * 1000;

const percentile = (values: number[], p: number) => {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return Number(
    sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!.toFixed(1),
  );
};
/** Cores a group of processes used between two samples taken `seconds` apart. */
const groupCores = (before: Map<number, number>, after: Map<number, number>, seconds: number) =>
  Number((groupCpuBetween(before, after) / seconds).toFixed(2));
const emit = (record: Record<string, unknown>) =>
  process.stdout.write(`${JSON.stringify({ at: new Date().toISOString(), ...record })}\n`);

const database = await ownDatabase('load');
const schema = 'croupier';
const redis = await startRedisServer({ persistent: true });
let cluster: Cluster | null = null;
const cost = new RoundCost(database, () =>
  (cluster?.processes ?? []).map((p) => ({ id: p.id, pid: p.pid })),
);
cluster = await Cluster.create({
  databaseUrl: database.connectionString,
  schema,
  redisUrl: redis.url,
  redisPrefix: database.name,
  logDir: mkdtempSync(join(tmpdir(), 'croupier-load-')),
  env: { LOG_LEVEL: 'error', RATE_LIMIT_PER_MINUTE: '1000000', ...cost.serviceEnv },
  // The read side of a deployment is part of its idle cost; the load steps never call it.
  gateway: IDLE_S > 0,
});
const store = await createEventStore({
  kind: 'postgres',
  connectionString: database.connectionString,
  schema,
  maxConnections: 2,
});
const remote = new Remote(CLUSTER_SECRETS.JWT_SECRET);
let httpRequests = 0;
const call: Remote['call'] = (...args) => {
  httpRequests++;
  return remote.call(...args);
};
const operator = { role: 'operator', sub: 'load-operator' } as const;
const dealer = { role: 'dealer', sub: 'load-dealer' } as const;
const round = cluster.url('round');
const wallet = cluster.url('wallet');
// The bench's own redis-server: its command line names its port.
const redisPids = () => pgrep('-f', `^redis-server 127\\.0\\.0\\.1:${redis.port}( |$)`);
if (redisPids().length !== 1)
  throw new Error(`cannot find the bench's redis-server (${redis.url})`);

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

if (IDLE_S > 0) {
  await openTables(LEVELS[0] ?? 10);
  // The tables' events read by every subscriber and read model, then nothing.
  await new Promise((resolve) => setTimeout(resolve, IDLE_SETTLE_MS));
  emit({
    bench: 'load-idle',
    deployment: 'distributed (shoe, wallet, round, 2 x settlement, gateway) on PostgreSQL + Redis',
    tables: tablesOpened,
    ...(await measureIdle(cost, IDLE_S)),
    machine: { cpu: cpus()[0]?.model, cores: cpus().length, loadAverage1m: loadavg()[0] },
  });
}
for (const tables of IDLE_S > 0 ? [] : LEVELS) {
  await openTables(tables);
  const costBefore = await cost.sample();
  const requestsBefore = httpRequests;
  const betLatencies: number[] = [];
  let errors = 0;
  const cpuBefore = new Map(cluster.processes.map((p) => [p.id, cpuSeconds(p.pid)]));
  const postgresBefore = groupCpu(postgresPids());
  const redisBefore = groupCpu(redisPids());
  const machineBefore = machineBusySeconds();
  const driverCpuBefore = process.cpuUsage();
  const fromPosition = (await store.readAll({ limit: 1_000_000_000 })).at(-1)?.position;
  const started = Date.now();
  await Promise.all(
    Array.from({ length: tables }, async (_, t) => {
      const tableId = `load-${t + 1}`;
      while (Date.now() - started < STEP_MS) {
        const opened = await call<{ roundId?: string; code?: string }>(
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
            const placed = await call(
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
          const response = await call(round, 'POST', `/v1/rounds/${roundId}/${step}`, dealer);
          if (response.status !== 200) errors++;
        }
      }
    }),
  );
  const seconds = (Date.now() - started) / 1000;
  // CPU over the dealing step alone, before the drain below.
  const cpu = Object.fromEntries(
    cluster.processes.map((p) => [
      p.id,
      Number(((cpuSeconds(p.pid) - (cpuBefore.get(p.id) ?? 0)) / seconds).toFixed(2)),
    ]),
  );
  const postgresCores = groupCores(postgresBefore, groupCpu(postgresPids()), seconds);
  const redisCores = groupCores(redisBefore, groupCpu(redisPids()), seconds);
  const machineCores = Number(((machineBusySeconds() - machineBefore) / seconds).toFixed(2));
  const driver = process.cpuUsage(driverCpuBefore);

  // Settlement lag: RoundCompleted to the last PayoutCredited of the round, once every line of
  // its settlement is credited. Rounds still being settled when dealing stops are waited for
  // (up to DRAIN_MAX_S), so the slowest are not left out of the percentiles; those not credited
  // even then are counted and reported, never silently dropped.
  const completedAt = new Map<string, number>();
  const linesOf = new Map<string, number>();
  const credits = new Map<string, { count: number; last: number }>();
  let settled = 0;
  let eventCount = 0;
  let cursor = fromPosition;
  const uncredited = () =>
    [...completedAt.keys()].filter((id) => {
      const lines = linesOf.get(id);
      return lines === undefined || (credits.get(id)?.count ?? 0) < lines;
    });
  const drainStarted = Date.now();
  for (;;) {
    for (;;) {
      const page = await store.readAll({
        ...(cursor === undefined ? {} : { after: cursor }),
        limit: 10_000,
      });
      for (const event of page) {
        eventCount++;
        const data = event.data as { roundId?: string; lines?: unknown[] };
        const roundId = data.roundId;
        if (roundId === undefined) continue;
        if (event.type === 'RoundCompleted') completedAt.set(roundId, event.recordedAt.getTime());
        if (event.type === 'RoundSettled') {
          settled++;
          linesOf.set(roundId, data.lines?.length ?? 0);
        }
        if (event.type === 'PayoutCredited') {
          const seen = credits.get(roundId) ?? { count: 0, last: 0 };
          credits.set(roundId, {
            count: seen.count + 1,
            last: Math.max(seen.last, event.recordedAt.getTime()),
          });
        }
      }
      if (page.length > 0) cursor = page.at(-1)!.position;
      if (page.length < 10_000) break;
    }
    if (uncredited().length === 0 || Date.now() - drainStarted > DRAIN_MAX_MS) break;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  const drainSeconds = (Date.now() - drainStarted) / 1000;
  const requests = httpRequests - requestsBefore;
  const costAfter = await cost.sample();
  const notCredited = uncredited();
  const lags = [...completedAt]
    .filter(([id]) => !notCredited.includes(id) && (linesOf.get(id) ?? 0) > 0)
    .map(([id, at]) => credits.get(id)!.last - at);
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
    roundsCompleted: completedAt.size,
    roundsNotCreditedInTime: notCredited.length,
    drainSeconds: Number(drainSeconds.toFixed(1)),
    eventsPerSecond: Number((eventCount / seconds).toFixed(1)),
    // Between the two samples: the step, its drain, and the samples' own waits (idle polling).
    ...RoundCost.perRound(costBefore, costAfter, settled, requests),
    errors,
    cpuCoresPerProcess: {
      ...cpu,
      driver: Number(((driver.user + driver.system) / 1e6 / seconds).toFixed(2)),
      // Every PostgreSQL server process: the server is shared, so other work on it counts too.
      postgres: postgresCores,
      redis: redisCores,
    },
    machine: { cpu: cpus()[0]?.model, cores: cpus().length, busyCores: machineCores },
  });
}
await cluster.stop();
await store.close();
await redis.cleanup();
cost.cleanup();
await database.drop();
