/**
 * History benchmark (issue 13): what starting, reading and deciding cost once the log is long.
 * For each size in HISTORY_EVENTS (default "100000,1000000"; 10M works, given an hour and ~15 GB
 * of disk) it generates a history of that many events in a database of its own
 * (history-generator.ts: a real shoe cloned over many tables and shared players, plus a whale
 * whose wallet stream holds WHALE_EVENTS movements, default 100,000), then runs the real gateway
 * process on it (PostgreSQL) and measures, in one JSON line per size:
 * - `readyMs`: from spawning the gateway to /ready answering 200, `rssMb` its RSS then. Measured
 *   on the second start: the first one builds the durable read models from the generated log
 *   (a live system's are caught up), its time is `firstStartMs`;
 * - p50/p99 of GET table board, roads, player history and wallet balance;
 * - `coldBetP50Ms`/`coldBetP99Ms`: placing a bet for the whale while the gateway does not hold its
 *   wallet (STATE_CACHE_SIZE=1: a filler player's bet in between evicts it). `firstColdBetMs` is
 *   the whale's first bet after generation, before any snapshot of its stream existed.
 * `warmBetP50Ms` is the filler's bets in between (its wallet held): the bet path's own cost on
 * this machine. `coldLoadFromSnapshotMs`/`fullLoadMs`: the whale's wallet loaded in the bench
 * process by a handler holding nothing, from its snapshot and read whole: the decision alone.
 * The subscriptions' checkpoints are set to the end of the generated log (a live system's
 * reactors are caught up too), and the notary is off (CHECKPOINT_INTERVAL_MS=0).
 * Env: HISTORY_EVENTS, WHALE_EVENTS, SAMPLES (default 200 GETs, 60 cold bets), DATABASE_URL.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { hkdfSync } from 'node:crypto';
import { CommandHandler } from '@croupier/application';
import { createEventStore, openSnapshotStorage } from '@croupier/eventstore';
import { walletAggregate } from '@croupier/wallet';
import { freePort, nodeEntryArgs } from '@croupier/testkit';
import { CLUSTER_SECRETS, ServiceProcess } from '../support/cluster.js';
import { Remote } from '../support/remote.js';
import { ownDatabase } from './cost.js';
import {
  caughtUpSubscriptions,
  playTemplate,
  writeClones,
  writeWhale,
} from './history-generator.js';

const SIZES = (process.env.HISTORY_EVENTS ?? '100000,1000000').split(',').map(Number);
const WHALE_EVENTS = Number(process.env.WHALE_EVENTS ?? 100_000);
const SAMPLES = Number(process.env.SAMPLES ?? 200);
const COLD_BETS = Math.max(10, Math.round(SAMPLES * 0.3));
/** Writers in parallel: enough appends in flight for the store to group them (ADR 0021). */
const WORKERS = Number(process.env.HISTORY_WRITERS ?? 64);
const SCHEMA = 'croupier';
const WHALE = 'whale';

const percentile = (values: readonly number[], p: number) => {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return Number(
    sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!.toFixed(2),
  );
};
const emit = (record: Record<string, unknown>) =>
  process.stdout.write(`${JSON.stringify({ at: new Date().toISOString(), ...record })}\n`);
const note = (message: string) =>
  process.stderr.write(`${new Date().toISOString()} bench:history ${message}\n`);

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return Number((kb / 1024).toFixed(1));
}

note('playing the template shoe');
const template = await playTemplate(CLUSTER_SECRETS);
note(`template: ${template.length} events`);

for (const size of SIZES) {
  const database = await ownDatabase('history');
  // A failed run leaves no database of a million events behind.
  try {
    const store = await createEventStore({
      kind: 'postgres',
      connectionString: database.connectionString,
      schema: SCHEMA,
      maxConnections: 8,
    });
    // Generate: clones until the history holds `size` events, workers in parallel.
    const generationStarted = performance.now();
    const { written, clones } = await writeClones(store, template, size, WORKERS);
    const roundIds = Array.from({ length: clones }, (_, c) => `h${c}.1.1`);
    await writeWhale(store, WHALE, WHALE_EVENTS, roundIds);
    const generationSeconds = (performance.now() - generationStarted) / 1000;
    const total = written + WHALE_EVENTS;
    note(`${size}: ${total} events in ${generationSeconds.toFixed(0)} s (${clones} tables)`);
    await caughtUpSubscriptions(database.connectionString, SCHEMA);
    await store.close();

    const logFile = join(mkdtempSync(join(tmpdir(), 'croupier-history-')), 'gateway.log');
    const env = {
      EVENTSTORE: 'postgres',
      DATABASE_URL: database.connectionString,
      DATABASE_SCHEMA: SCHEMA,
      ...CLUSTER_SECRETS,
      AUTO_TABLES: '',
      LOG_LEVEL: 'warn',
      RATE_LIMIT_PER_MINUTE: '0',
      CHECKPOINT_INTERVAL_MS: '0',
      STATE_CACHE_SIZE: '1',
      METRICS_PUBLIC: 'true',
    };
    const remote = new Remote(CLUSTER_SECRETS.JWT_SECRET);
    const operator = { role: 'operator', sub: 'op' } as const;
    const dealer = { role: 'dealer', sub: 'dealer' } as const;

    // First start: the read models are built from the generated log.
    const port = await freePort();
    let gateway = new ServiceProcess('gateway', 'gateway', port, env, logFile);
    // The gateway is bundled once per bench process (as production runs compiled JavaScript): not timed.
    await nodeEntryArgs(
      fileURLToPath(new URL('../../services/gateway/src/main.ts', import.meta.url)),
    );
    let started = performance.now();
    await gateway.start(3_600_000);
    const firstStartMs = Math.round(performance.now() - started);
    const call = async (
      as: { role: 'operator' | 'dealer' | 'player'; sub: string },
      method: 'GET' | 'POST',
      path: string,
      body?: unknown,
    ) => {
      // A bet on a wallet read whole (no snapshot yet) takes seconds on a loaded machine.
      const response = await remote.call(gateway.url, method, path, as, body, 600_000);
      if (response.status >= 400)
        throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(response.body)}`);
      return response.body;
    };
    // The bench's own table and a filler player, then the whale's first bet: no snapshot yet.
    await call(operator, 'POST', '/v1/tables', { tableId: 'bench', preset: 'generic' });
    await call(operator, 'POST', '/v1/wallets/filler/deposits', {
      amount: 1_000_000_000,
      currency: 'EUR',
      reference: 'filler',
    });
    let roundId = await openRound(call, dealer);
    const bet = (player: string) =>
      call({ role: 'player', sub: player }, 'POST', `/v1/rounds/${roundId}/bets`, {
        bets: [{ type: 'banker', amount: 100, betId: randomUUID() }],
      });
    started = performance.now();
    await bet(WHALE);
    const firstColdBetMs = Number((performance.now() - started).toFixed(1));
    await call(dealer, 'POST', `/v1/rounds/${roundId}/close-betting`);
    await call(dealer, 'POST', `/v1/rounds/${roundId}/deal`);
    await gateway.stop();

    // The measured start.
    gateway = new ServiceProcess('gateway', 'gateway', port, env, logFile);
    started = performance.now();
    await gateway.start(3_600_000);
    const readyMs = Math.round(performance.now() - started);
    const rss = rssMb(gateway.pid!);

    const timed = async (path: (i: number) => string) => {
      const latencies: number[] = [];
      for (let i = 0; i < SAMPLES; i++) {
        const t0 = performance.now();
        await call(operator, 'GET', path(i));
        latencies.push(performance.now() - t0);
      }
      return { p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
    };
    const tables = Math.min(clones, 50);
    const players = Math.min(WORKERS * 7, 50);
    const board = await timed((i) => `/v1/tables/h${i % tables}`);
    const roads = await timed((i) => `/v1/tables/h${i % tables}/roads`);
    const history = await timed((i) => `/v1/players/pl${i % players}/history`);
    const balance = await timed((i) => `/v1/wallets/pl${i % players}`);

    // Cold bets: the filler's bet evicts the whale's wallet (STATE_CACHE_SIZE=1) before each.
    roundId = await openRound(call, dealer);
    const coldBets: number[] = [];
    const warmBets: number[] = [];
    for (let i = 0; i < COLD_BETS; i++) {
      if (i > 0 && i % 20 === 0) {
        await call(dealer, 'POST', `/v1/rounds/${roundId}/close-betting`);
        await call(dealer, 'POST', `/v1/rounds/${roundId}/deal`);
        roundId = await openRound(call, dealer);
      }
      const w0 = performance.now();
      await bet('filler'); // held: the whale's bet before it was the last wallet decided
      warmBets.push(performance.now() - w0);
      const t0 = performance.now();
      await bet(WHALE);
      coldBets.push(performance.now() - t0);
    }
    const metrics = await fetch(`${gateway.url}/metrics`).then((response) => response.text());
    await gateway.stop();
    const loads = await walletLoads(database.connectionString);
    emit({
      bench: 'history',
      events: size,
      totalEvents: total,
      whaleEvents: WHALE_EVENTS,
      tables: clones,
      generationSeconds: Number(generationSeconds.toFixed(1)),
      eventsPerSecondGenerated: Math.round(total / generationSeconds),
      firstStartMs,
      readyMs,
      rssMb: rss,
      boardMs: board,
      roadsMs: roads,
      playerHistoryMs: history,
      walletBalanceMs: balance,
      firstColdBetMs,
      coldBetP50Ms: percentile(coldBets, 50),
      coldBetP99Ms: percentile(coldBets, 99),
      coldBets: coldBets.length,
      warmBetP50Ms: percentile(warmBets, 50),
      ...loads,
      snapshotsUsed: metricValue(metrics, 'croupier_snapshots_used_total'),
      stateCacheEvictions: metricValue(metrics, 'croupier_state_cache_evictions_total'),
      store: 'postgres',
      cpu: cpus()[0]?.model,
      cores: cpus().length,
      memoryGb: Number((totalmem() / 2 ** 30).toFixed(1)),
      loadAverage1m: Number((loadavg()[0] ?? 0).toFixed(2)),
    });
  } finally {
    await database.drop();
  }
}

/**
 * The decision's own cost, without HTTP and the rest of the bet: the whale's wallet loaded by a
 * handler that holds nothing, from its snapshot (as the gateway left it) and read whole.
 */
async function walletLoads(connectionString: string) {
  const store = await createEventStore({ kind: 'postgres', connectionString, schema: SCHEMA });
  try {
    const storage = await openSnapshotStorage(store);
    // The gateway's key: @croupier/runtime's snapshotKey() of JWT_SECRET.
    const key = Buffer.from(
      hkdfSync('sha256', CLUSTER_SECRETS.JWT_SECRET, 'croupier', 'snapshot-digest/v1', 32),
    );
    const refused: string[] = [];
    const fromSnapshot = new CommandHandler(store, {
      cacheSize: 0,
      snapshots: { storage, every: 100, key, onRefused: (r) => refused.push(r.reason) },
    });
    const stream = `wallet-${WHALE}`;
    const cold: number[] = [];
    for (let i = 0; i < 30; i++) {
      const t0 = performance.now();
      await fromSnapshot.load(walletAggregate, stream);
      cold.push(performance.now() - t0);
    }
    const whole = new CommandHandler(store, { cacheSize: 0 });
    const full: number[] = [];
    for (let i = 0; i < 3; i++) {
      const t0 = performance.now();
      await whole.load(walletAggregate, stream);
      full.push(performance.now() - t0);
    }
    return {
      coldLoadFromSnapshotMs: { p50: percentile(cold, 50), p99: percentile(cold, 99) },
      fullLoadMs: percentile(full, 50),
      snapshotsRefusedInBench: refused.length,
    };
  } finally {
    await store.close();
  }
}

/** Opens the bench table's next round, waiting while the previous one settles. */
async function openRound(
  call: (
    as: { role: 'dealer'; sub: string },
    method: 'POST',
    path: string,
  ) => Promise<Record<string, unknown>>,
  dealer: { role: 'dealer'; sub: string },
): Promise<string> {
  for (let attempt = 0; ; attempt++) {
    try {
      const round = await call(dealer, 'POST', '/v1/tables/bench/rounds');
      return round['roundId'] as string;
    } catch (error) {
      if (!String(error).includes('ROUND_IN_PROGRESS') || attempt > 1_000) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

function metricValue(text: string, name: string): number | null {
  const match = new RegExp(`^${name} (\\S+)$`, 'm').exec(text);
  return match === null ? null : Number(match[1]);
}
