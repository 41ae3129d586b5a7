import { randomUUID } from 'node:crypto';
/**
 * End-to-end benchmark (issues 4 and 14): the gateway (every service in one process) on
 * PostgreSQL, TABLES tables dealing continuously, 7 bots each betting through the HTTP API (real
 * sockets). The gateway runs as its own process, so what it costs is measured apart from this
 * driver. One JSON line: settled rounds/s, bet latency p50/p99, settlement lag (RoundCompleted ->
 * PayoutCredited) p50/p99, events/s, and what each settled round cost (bench/cost.ts):
 * PostgreSQL transactions and statements, store appends and reads, HTTP requests, CPU ms of the
 * gateway and of PostgreSQL.
 * Two ways to deal (issue 27). Saturated, the default: each table's dealer opens, closes and deals
 * as fast as it can and its bots bet at once, so bet latency is mostly queueing. Paced, with
 * BENCH_ROUNDS_PER_TABLE_PER_MINUTE=N: each table opens a round every 60/N s, keeps its betting
 * window open (BENCH_BETTING_WINDOW_S, default 60 % of the period, at most 15 s), and each bot
 * bets once at a random moment inside it, as players do; the dealer closes at the window's end
 * and deals. The JSON line then also says whether the paced targets are met.
 * BENCH_IDLE_S=N: no dealing measured; once the tables are open (and WARMUP_S dealt, if given) and
 * BENCH_IDLE_SETTLE_S (default 15) have passed, the CPU of the gateway and of PostgreSQL over N
 * idle seconds (bench/idle.ts).
 * Env: TABLES (default 4), DURATION_S (default 30), PAIR_BETS (default 0), DATABASE_URL,
 * WARMUP_S (default 0: the tables deal this long before anything is measured, so that a young
 * process's compiling of its hot code, a fifth of its CPU in the first minute, is left out),
 * CPU_PROF_DIR (the gateway writes a V8 CPU profile of the whole run there when it stops),
 * GATEWAY_NODE_OPTIONS (more Node options for the gateway, e.g. `--perf-basic-prof` for `perf`:
 * on a loaded machine the V8 profile counts wall time, a preempted write included, while
 * `perf record -e cpu-clock` counts only the CPU the gateway used).
 */
import { mkdtempSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createEventStore } from '@croupier/eventstore';
import { freePort } from '@croupier/testkit';
import { CLUSTER_SECRETS, ServiceProcess } from '../support/cluster.js';
import { Remote } from '../support/remote.js';
import { allEvents } from '../support/invariants.js';
import { cpuSeconds, ownDatabase, RoundCost } from './cost.js';
import { measureIdle } from './idle.js';

const TABLES = Number(process.env.TABLES ?? 4);
const DURATION_MS = Number(process.env.DURATION_S ?? 30) * 1000;
const BOTS = 7;
/** PAIR_BETS=1: every other bot adds a player-pair bet; by default each bot bets once a round. */
const PAIR_BETS = process.env.PAIR_BETS === '1';
const ROUNDS_PER_MINUTE = Number(process.env.BENCH_ROUNDS_PER_TABLE_PER_MINUTE ?? 0);
const PACED = ROUNDS_PER_MINUTE > 0;
const PERIOD_MS = PACED ? 60_000 / ROUNDS_PER_MINUTE : 0;
const BETTING_WINDOW_MS =
  process.env.BENCH_BETTING_WINDOW_S !== undefined
    ? Number(process.env.BENCH_BETTING_WINDOW_S) * 1000
    : Math.min(15_000, PERIOD_MS * 0.6);
if (PACED && !(BETTING_WINDOW_MS > 0 && BETTING_WINDOW_MS < PERIOD_MS))
  throw new Error(
    `BENCH_BETTING_WINDOW_S must be above 0 and shorter than a round's period (${PERIOD_MS} ms at ${ROUNDS_PER_MINUTE} rounds a minute)`,
  );
/** The paced targets of issue 27, at 8 tables x 7 bots x 6 rounds a minute. */
const PACED_TARGETS = { betP50Ms: 5, betP99Ms: 25, payoutP50Ms: 100, payoutP99Ms: 500 };
const IDLE_S = Number(process.env.BENCH_IDLE_S ?? 0);
/** How long the deployment rests before the idle window: a young process compiles and collects. */
const IDLE_SETTLE_MS = Number(process.env.BENCH_IDLE_SETTLE_S ?? 15) * 1000;

const percentile = (values: number[], p: number) => {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return Number(
    sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!.toFixed(2),
  );
};
const emit = (record: Record<string, unknown>) =>
  process.stdout.write(`${JSON.stringify({ at: new Date().toISOString(), ...record })}\n`);

const loadAtStart = Number((loadavg()[0] ?? 0).toFixed(2));
const database = await ownDatabase('bench');
const schema = 'croupier';
let gatewayProcess: ServiceProcess | null = null;
const cost = new RoundCost(database, () =>
  gatewayProcess === null ? [] : [{ id: 'gateway', pid: gatewayProcess.pid }],
);
gatewayProcess = new ServiceProcess(
  'gateway',
  'gateway',
  await freePort(),
  {
    EVENTSTORE: 'postgres',
    DATABASE_URL: database.connectionString,
    DATABASE_SCHEMA: schema,
    ...CLUSTER_SECRETS,
    AUTO_TABLES: '',
    LOG_LEVEL: 'warn',
    // As the container image runs it (infra/docker/Dockerfile): responses are not checked
    // against their schemas (ADR 0022); BENCH_NODE_ENV=development measures them checked.
    NODE_ENV: process.env.BENCH_NODE_ENV ?? 'production',
    RATE_LIMIT_PER_MINUTE: '0',
    ...cost.serviceEnv,
    ...(process.env.GATEWAY_NODE_OPTIONS
      ? {
          NODE_OPTIONS: `${cost.serviceEnv.NODE_OPTIONS ?? ''} ${process.env.GATEWAY_NODE_OPTIONS}`,
        }
      : {}),
    ...(process.env.CPU_PROF_DIR
      ? {
          NODE_OPTIONS: `${cost.serviceEnv.NODE_OPTIONS ?? ''} --import=${fileURLToPath(new URL('./cpu-profiler.js', import.meta.url))}`,
          CPU_PROF_DIR: process.env.CPU_PROF_DIR,
        }
      : {}),
  },
  join(mkdtempSync(join(tmpdir(), 'croupier-bench-')), 'gateway.log'),
);
await gatewayProcess.start();
const gateway = gatewayProcess.url;
const store = await createEventStore({
  kind: 'postgres',
  connectionString: database.connectionString,
  schema,
  maxConnections: 2,
});
const remote = new Remote(CLUSTER_SECRETS.JWT_SECRET);
const operator = { role: 'operator', sub: 'op' } as const;
const dealer = { role: 'dealer', sub: 'dealer' } as const;
let httpRequests = 0;
async function call(
  as: { role: 'operator' | 'dealer' | 'player'; sub: string },
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
) {
  httpRequests++;
  const response = await remote.call(gateway, method, path, as, body);
  if (response.status >= 400)
    throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
}

const betLatencies: number[] = [];
let errors = 0;
const tables = Array.from({ length: TABLES }, (_, i) => `bench-${i + 1}`);
for (const tableId of tables) {
  await call(operator, 'POST', '/v1/tables', { tableId, preset: 'live' });
  for (let b = 0; b < BOTS; b++) {
    await call(operator, 'POST', `/v1/wallets/${tableId}-bot${b}/deposits`, {
      amount: 1_000_000_000,
      currency: 'EUR',
      reference: 'bench',
    });
  }
}
const bots = tables.flatMap((tableId) =>
  Array.from({ length: BOTS }, (_, b) => ({
    tableId,
    as: { role: 'player', sub: `${tableId}-bot${b}` } as const,
  })),
);

const WARMUP_MS = Number(process.env.WARMUP_S ?? 0) * 1000;
/** Bet latencies and errors count once the warm-up is over. */
let measuring = WARMUP_MS === 0;
async function placeBet(
  bot: (typeof bots)[number],
  roundId: string,
  index: number,
  pairs: boolean,
) {
  const t0 = performance.now();
  await call(bot.as, 'POST', `/v1/rounds/${roundId}/bets`, {
    bets: [
      { type: index % 3 === 0 ? 'player' : 'banker', amount: 1_000, betId: randomUUID() },
      ...(PAIR_BETS && index % 2 === 0 && pairs
        ? [{ type: 'player_pair', amount: 100, betId: randomUUID() }]
        : []),
    ],
  });
  if (measuring) betLatencies.push(performance.now() - t0);
}
function counted(error: unknown) {
  // ROUND_IN_PROGRESS while the previous round settles, before a new shoe: try again.
  if (String(error).includes('ROUND_IN_PROGRESS')) return;
  if (measuring) errors++;
  if (errors < 5) process.stderr.write(`${String(error)}\n`);
}
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
async function openRound(tableId: string) {
  const round = (await call(dealer, 'POST', `/v1/tables/${tableId}/rounds`)) as {
    roundId: string;
    number: number;
  };
  // Pair bets are offered up to round 60 of a shoe (rules.md section 4).
  return { ...round, pairOffered: round.number <= 60 };
}
async function dealSaturated(tableId: string, playing: () => boolean) {
  while (playing()) {
    try {
      const round = await openRound(tableId);
      await Promise.all(
        bots
          .filter((bot) => bot.tableId === tableId)
          .map((bot, index) => placeBet(bot, round.roundId, index, round.pairOffered)),
      );
      await call(dealer, 'POST', `/v1/rounds/${round.roundId}/close-betting`);
      await call(dealer, 'POST', `/v1/rounds/${round.roundId}/deal`);
    } catch (error) {
      counted(error);
      await sleep(5);
    }
  }
}
/** How late each paced round opened after its time (ms): the system not keeping the pace. */
const openDelays: number[] = [];
/**
 * A table at a casino's pace: a round every PERIOD_MS (tables staggered over the period), its
 * bots betting once each at a random moment of the betting window, the dealer closing at its end
 * and dealing at once. A round that cannot open yet (the last one still settling) is tried again
 * until the window would be half gone, then skipped.
 */
async function dealPaced(tableId: string, playing: () => boolean) {
  const offset = (tables.indexOf(tableId) / tables.length) * PERIOD_MS;
  let due = Math.ceil((performance.now() - offset) / PERIOD_MS) * PERIOD_MS + offset;
  while (playing()) {
    await sleep(due - performance.now());
    const scheduled = due;
    due += PERIOD_MS;
    if (!playing()) break;
    let round: Awaited<ReturnType<typeof openRound>> | null = null;
    while (round === null && performance.now() - scheduled < BETTING_WINDOW_MS / 2) {
      try {
        round = await openRound(tableId);
      } catch (error) {
        counted(error);
        await sleep(20);
      }
    }
    if (round === null) continue;
    const { roundId, pairOffered } = round;
    const opened = performance.now();
    if (measuring) openDelays.push(opened - scheduled);
    // Each bot bets in the first 90 % of the window, so the dealer never closes on a bet in flight.
    const betting = bots
      .filter((bot) => bot.tableId === tableId)
      .map(async (bot, index) => {
        await sleep(Math.random() * BETTING_WINDOW_MS * 0.9);
        await placeBet(bot, roundId, index, pairOffered).catch(counted);
      });
    await sleep(opened + BETTING_WINDOW_MS - performance.now());
    await Promise.all(betting);
    try {
      await call(dealer, 'POST', `/v1/rounds/${roundId}/close-betting`);
      await call(dealer, 'POST', `/v1/rounds/${roundId}/deal`);
    } catch (error) {
      counted(error);
    }
  }
}
const dealTable = PACED ? dealPaced : dealSaturated;
if (WARMUP_MS > 0) {
  const warmupEnds = Date.now() + WARMUP_MS;
  await Promise.all(tables.map((tableId) => dealTable(tableId, () => Date.now() < warmupEnds)));
  measuring = true;
}
if (IDLE_S > 0) {
  // Dealing stopped (the warm-up's last rounds settle and their readers catch up), then nothing.
  await sleep(IDLE_SETTLE_MS);
  emit({
    bench: 'e2e-idle',
    store: 'postgres',
    deployment: 'single process (gateway) on PostgreSQL',
    tables: TABLES,
    warmupSeconds: WARMUP_MS / 1000,
    ...(await measureIdle(cost, IDLE_S)),
    cpu: cpus()[0]?.model,
    cores: cpus().length,
    loadAverage1m: Number((loadavg()[0] ?? 0).toFixed(2)),
    loadAverageAtStart1m: loadAtStart,
  });
  await store.close();
  await gatewayProcess.stop();
  cost.cleanup();
  await database.drop();
  process.exit(0);
}
// What the gateway burns with nothing to do (timers, polls, metrics), over the wait before the
// first sample: at a few rounds a second it is a share of every round's CPU.
const idleFrom = { at: performance.now(), cpu: cpuSeconds(gatewayProcess.pid) };
const costBefore = await cost.sample();
const idleCpuMsPerSecond =
  ((costBefore.cpuSeconds['gateway']! - idleFrom.cpu) * 1000) /
  ((performance.now() - idleFrom.at) / 1000);
const requestsBefore = httpRequests;
const started = Date.now();
const startPosition = (await store.readAll({ limit: 1_000_000 })).at(-1)?.position;
await Promise.all(
  tables.map((tableId) => dealTable(tableId, () => Date.now() - started < DURATION_MS)),
);
const elapsed = (Date.now() - started) / 1000;

// Let settlement finish, then measure from the events.
await new Promise((resolve) => setTimeout(resolve, 3_000));
const requests = httpRequests - requestsBefore;
const events = (await allEvents(store)).filter(
  (e) => startPosition === undefined || e.position > startPosition,
);
await store.close();
const costAfter = await cost.sample({ stop: () => gatewayProcess.stop() });
const completedAt = new Map<string, number>();
const settledAt = new Map<string, number>();
const lastCreditAt = new Map<string, number>();
// When each record was decided (its metadata's occurredAt, taken as the command decides, after
// its reads), beside when the store recorded it (the start of its transaction): the gap is the
// append's wait behind the group commit.
const settledDecidedAt = new Map<string, number>();
const lastCreditDecidedAt = new Map<string, number>();
const decidedAt = (metadata: unknown) =>
  Date.parse(String((metadata as { occurredAt?: unknown }).occurredAt));
let settledRounds = 0;
for (const event of events) {
  const data = event.data as { roundId?: string };
  if (event.type === 'RoundCompleted' && data.roundId)
    completedAt.set(data.roundId, event.recordedAt.getTime());
  if (event.type === 'RoundSettled') {
    settledRounds++;
    if (data.roundId) {
      settledAt.set(data.roundId, event.recordedAt.getTime());
      settledDecidedAt.set(data.roundId, decidedAt(event.metadata));
    }
  }
  if (event.type === 'PayoutCredited' && data.roundId) {
    if (event.recordedAt.getTime() >= (lastCreditAt.get(data.roundId) ?? 0))
      lastCreditDecidedAt.set(data.roundId, decidedAt(event.metadata));
    lastCreditAt.set(
      data.roundId,
      Math.max(lastCreditAt.get(data.roundId) ?? 0, event.recordedAt.getTime()),
    );
  }
}
const lags = [...lastCreditAt]
  .filter(([roundId]) => completedAt.has(roundId))
  .map(([roundId, at]) => at - completedAt.get(roundId)!);
// The lag by stage: the settlement reactor (RoundCompleted to RoundSettled), then the outbox, the
// bus and the wallet (RoundSettled to the round's last PayoutCredited).
const toSettled = [...settledAt]
  .filter(([roundId]) => completedAt.has(roundId))
  .map(([roundId, at]) => at - completedAt.get(roundId)!);
const toCredited = [...lastCreditAt]
  .filter(([roundId]) => settledAt.has(roundId))
  .map(([roundId, at]) => at - settledAt.get(roundId)!);
/** For every round with both, `to - from` in ms. */
const gaps = (from: Map<string, number>, to: Map<string, number>) =>
  [...to]
    .filter(([roundId]) => from.has(roundId))
    .map(([roundId, at]) => at - from.get(roundId)!)
    .filter(Number.isFinite);
const stage = (values: number[]) => ({ p50: percentile(values, 50), p99: percentile(values, 99) });
const betP50 = percentile(betLatencies, 50);
const betP99 = percentile(betLatencies, 99);
const lagP50 = percentile(lags, 50);
const lagP99 = percentile(lags, 99);
emit({
  bench: 'e2e',
  store: 'postgres',
  deployment: 'single process (gateway) on PostgreSQL, over HTTP',
  mode: PACED ? 'paced' : 'saturated',
  ...(PACED
    ? {
        roundsPerTablePerMinute: ROUNDS_PER_MINUTE,
        bettingWindowMs: BETTING_WINDOW_MS,
        // Rounds opened after their time: above a few ms, the system is not keeping the pace.
        roundOpenDelayMs: { p50: percentile(openDelays, 50), p99: percentile(openDelays, 99) },
        // The bet from the bot's request to its answer; the payout from RoundCompleted to the
        // round's last PayoutCredited (the settlement lag below).
        pacedTargets: PACED_TARGETS,
        meetsPacedTargets:
          betP50 !== null &&
          betP99 !== null &&
          lagP50 !== null &&
          lagP99 !== null &&
          betP50 <= PACED_TARGETS.betP50Ms &&
          betP99 <= PACED_TARGETS.betP99Ms &&
          lagP50 <= PACED_TARGETS.payoutP50Ms &&
          lagP99 <= PACED_TARGETS.payoutP99Ms,
      }
    : {}),
  tables: TABLES,
  warmupSeconds: WARMUP_MS / 1000,
  botsPerTable: BOTS,
  betsPerBot: PAIR_BETS ? '1-2' : 1,
  seconds: Number(elapsed.toFixed(1)),
  settledRounds,
  settledRoundsPerSecond: Number((settledRounds / elapsed).toFixed(2)),
  bets: betLatencies.length,
  betsPerSecond: Number((betLatencies.length / elapsed).toFixed(1)),
  betLatencyMs: { p50: betP50, p99: betP99 },
  settlementLagMs: { p50: lagP50, p99: lagP99 },
  settlementLagByStageMs: {
    completedToSettled: stage(toSettled),
    // of which: until the reactor decided (woken, its page read, the round read), then the append
    completedToSettlementDecided: stage(gaps(completedAt, settledDecidedAt)),
    settlementDecidedToRecorded: stage(gaps(settledDecidedAt, settledAt)),
    settledToLastCredit: stage(toCredited),
    // of which: until the wallet decided the last credit (outbox woken, bus), then its append
    settledToLastCreditDecided: stage(gaps(settledAt, lastCreditDecidedAt)),
    lastCreditDecidedToRecorded: stage(gaps(lastCreditDecidedAt, lastCreditAt)),
  },
  events: events.length,
  eventsPerSecond: Number((events.length / elapsed).toFixed(1)),
  eventsPerRound: settledRounds === 0 ? null : Number((events.length / settledRounds).toFixed(1)),
  ...RoundCost.perRound(costBefore, costAfter, settledRounds, requests),
  gatewayIdleCpuMsPerSecond: Number(idleCpuMsPerSecond.toFixed(1)),
  errors,
  cpu: cpus()[0]?.model,
  cores: cpus().length,
  loadAverage1m: Number((loadavg()[0] ?? 0).toFixed(2)),
  loadAverageAtStart1m: loadAtStart,
});
cost.cleanup();
await database.drop();
