/**
 * Event store benchmark (issue 3). JSON lines on stdout, progress on stderr.
 *
 *   pnpm bench:eventstore                         # 10 s per workload, postgres and pglite
 *   pnpm bench:eventstore -- --duration=2         # a quick run
 *   pnpm bench:eventstore -- --record             # also write bench/RESULTS.md's section
 *   BENCH_KINDS=postgres BENCH_DURATION_S=5 pnpm bench:eventstore
 *
 * Canonical workload: 16 concurrent writers, each appending to its own 50 streams with the exact
 * expected version, batch size 1 and 10. Baselines, same run and database: 16 connections doing
 * single-row INSERT transactions into a plain table (uuid, text, jsonb), and Emmett's PostgreSQL
 * event store (@event-driven-io/emmett-postgresql, a devDependency of this benchmark only) on the
 * same workload. Croupier runs twice: as configured (group commit on) and with group commit off
 * (`postgres-ungrouped`: each append its own transaction). Also readAll throughput and the
 * subscription's end-to-end lag (append -> handler).
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import {
  getPostgreSQLEventStore,
  type PostgresEventStore,
} from '@event-driven-io/emmett-postgresql';
import { findPostgres, uniqueSchemaName, withClient } from '@croupier/testkit';
import { createEventStore, type EventStore, type EventStoreConfig } from '../src/index.js';

const argument = (name: string): string | undefined =>
  process.argv.find((arg) => arg.startsWith(`--${name}=`))?.split('=')[1];
const DURATION_S = Number(argument('duration') ?? process.env['BENCH_DURATION_S'] ?? 10);
const WRITERS = Number(argument('writers') ?? process.env['BENCH_WRITERS'] ?? 16);
const STREAMS_PER_WRITER = 50;
const KINDS = (argument('kinds') ?? process.env['BENCH_KINDS'] ?? 'postgres,pglite').split(',');
const RECORD = process.argv.includes('--record');
const LAG_DURATION_S = Math.min(DURATION_S, 5);

type Result = Record<string, string | number | boolean>;
const results: Result[] = [];

function emit(result: Result): void {
  results.push(result);
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

function log(message: string): void {
  process.stderr.write(`[bench] ${message}\n`);
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return round(sorted[index]!);
}

function round(value: number, digits = 2): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

/** A payload the size of a typical bet event. */
function payload(writer: number, index: number): Record<string, unknown> {
  return {
    betId: randomUUID(),
    playerId: `player-${writer}`,
    side: index % 2 === 0 ? 'banker' : 'player',
    amount: { currency: 'EUR', minor: 2500 + index },
    placedAt: '2026-11-29T12:00:00.000Z',
  };
}

/** One writer's append to one of its streams, keeping that stream's expected version itself. */
type WriterAppend = (stream: string, slot: number, events: BenchEvent[]) => Promise<void>;

interface BenchEvent {
  readonly id: string;
  readonly type: string;
  readonly data: Record<string, unknown>;
  readonly metadata: Record<string, unknown>;
}

/**
 * The append workload, the same for every store measured: WRITERS writers, each cycling through
 * its own STREAMS_PER_WRITER streams, batches of `batchSize` bet-sized events, for DURATION_S.
 * `appendFor(writer)` is how that writer appends with the exact expected version.
 */
async function appendRace(
  kind: string,
  batchSize: number,
  appendFor: (writer: number) => WriterAppend,
): Promise<Result> {
  const run = randomUUID().slice(0, 8);
  const deadline = performance.now() + DURATION_S * 1000;
  const latencies: number[] = [];
  let appends = 0;
  await Promise.all(
    Array.from({ length: WRITERS }, async (_, writer) => {
      const append = appendFor(writer);
      for (let index = 0; performance.now() < deadline; index += 1) {
        const slot = index % STREAMS_PER_WRITER;
        const events = Array.from({ length: batchSize }, (_, n) => ({
          id: randomUUID(),
          type: 'BetPlaced',
          data: payload(writer, index * batchSize + n),
          metadata: { correlationId: run, actor: `writer-${writer}` },
        }));
        const started = performance.now();
        await append(`bench-${run}-w${writer}-s${slot}`, slot, events);
        latencies.push(performance.now() - started);
        appends += 1;
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  return {
    store: kind,
    workload: 'append',
    batchSize,
    writers: WRITERS,
    streams: WRITERS * STREAMS_PER_WRITER,
    durationS: DURATION_S,
    appends,
    events: appends * batchSize,
    appendsPerSec: round(appends / DURATION_S, 1),
    eventsPerSec: round((appends * batchSize) / DURATION_S, 1),
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
  };
}

function appendWorkload(store: EventStore, kind: string, batchSize: number): Promise<Result> {
  return appendRace(kind, batchSize, () => {
    const versions = new Array<bigint | 'no-stream'>(STREAMS_PER_WRITER).fill('no-stream');
    return async (stream, slot, events) => {
      const result = await store.append(stream, events, { expectedVersion: versions[slot]! });
      versions[slot] = result.revision;
    };
  });
}

/** The raw baseline: single-row INSERT transactions, WRITERS connections, same payload. */
async function insertBaseline(
  connectionString: string,
  schema: string,
  when: string,
): Promise<Result> {
  await withClient(connectionString, (client) =>
    client.query(
      `CREATE TABLE IF NOT EXISTS "${schema}".baseline (id uuid PRIMARY KEY, type text NOT NULL, data jsonb NOT NULL)`,
    ),
  );
  const clients = await Promise.all(
    Array.from({ length: WRITERS }, async () => {
      const client = new pg.Client({ connectionString });
      await client.connect();
      return client;
    }),
  );
  const deadline = performance.now() + DURATION_S * 1000;
  const latencies: number[] = [];
  const text = `INSERT INTO "${schema}".baseline (id, type, data) VALUES ($1, $2, $3)`;
  try {
    await Promise.all(
      clients.map(async (client, writer) => {
        for (let index = 0; performance.now() < deadline; index += 1) {
          const started = performance.now();
          // Prepared, like the store's statements: both sides get the same driver features.
          await client.query({
            name: 'baseline_insert',
            text,
            values: [randomUUID(), 'BetPlaced', JSON.stringify(payload(writer, index))],
          });
          latencies.push(performance.now() - started);
        }
      }),
    );
  } finally {
    await Promise.all(clients.map((client) => client.end()));
  }
  latencies.sort((a, b) => a - b);
  return {
    store: 'postgres',
    workload: 'baseline-insert',
    when,
    writers: WRITERS,
    durationS: DURATION_S,
    inserts: latencies.length,
    insertsPerSec: round(latencies.length / DURATION_S, 1),
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
  };
}

/**
 * Emmett's PostgreSQL event store on the same workload: the same writers, streams, payloads and
 * exact expected versions. Each writer has its own connection, as each baseline writer does and
 * as Croupier's pool of WRITERS connections gives each of its writers (Emmett's own pool is
 * pg's default of 10 connections, which would hold it back).
 */
async function emmettWorkload(
  connectionString: string,
  schema: string,
  batchSize: number,
): Promise<Result> {
  const scoped = withSearchPath(connectionString, schema);
  const clients = await Promise.all(
    Array.from({ length: WRITERS }, async () => {
      const client = new pg.Client({ connectionString: scoped });
      await client.connect();
      return client;
    }),
  );
  // The first store creates Emmett's schema; the others then skip the migration check.
  const stores: PostgresEventStore[] = clients.map((client, index) =>
    getPostgreSQLEventStore(scoped, {
      connectionOptions: { client },
      schema: { autoMigration: index === 0 ? 'CreateOrUpdate' : 'None' },
    }),
  );
  try {
    // Inside the try: a failed migration must still close the clients, or the process hangs.
    await stores[0]!.schema.migrate();
    return await appendRace('emmett-postgresql', batchSize, (writer) => {
      const store = stores[writer]!;
      const versions = new Array<bigint>(STREAMS_PER_WRITER).fill(0n);
      return async (stream, slot, events) => {
        const result = await store.appendToStream(
          stream,
          events.map(({ type, data, metadata }) => ({ type, data, metadata })),
          { expectedStreamVersion: versions[slot]! },
        );
        versions[slot] = result.nextExpectedStreamVersion;
      };
    });
  } finally {
    await Promise.all(stores.map((store) => store.close()));
    await Promise.all(clients.map((client) => client.end()));
  }
}

/** The connection string with `search_path` set, so Emmett's tables land in the bench's schema. */
function withSearchPath(connectionString: string, schema: string): string {
  const url = new URL(connectionString);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return url.toString();
}

async function readAllThroughput(store: EventStore, kind: string): Promise<Result> {
  const started = performance.now();
  let after = 0n;
  let events = 0;
  for (;;) {
    const page = await store.readAll({ after, limit: 1_000 });
    if (page.length === 0) break;
    events += page.length;
    after = page.at(-1)!.position;
  }
  const seconds = (performance.now() - started) / 1000;
  return {
    store: kind,
    workload: 'readAll',
    pageSize: 1_000,
    events,
    seconds: round(seconds, 3),
    eventsPerSec: round(events / seconds, 1),
  };
}

/** Lag from the append call to the subscriber's handler, with 4 writers appending meanwhile. */
async function subscriptionLag(store: EventStore, kind: string): Promise<Result> {
  const sentAt = new Map<string, number>();
  const lags: number[] = [];
  const subscription = store.subscribe({
    name: `bench-lag-${randomUUID().slice(0, 8)}`,
    from: 'end',
    handler: (event) => {
      const sent = sentAt.get(event.id);
      if (sent !== undefined) lags.push(performance.now() - sent);
      return Promise.resolve();
    },
  });
  await subscription.caughtUp();
  const run = randomUUID().slice(0, 8);
  const deadline = performance.now() + LAG_DURATION_S * 1000;
  await Promise.all(
    Array.from({ length: 4 }, async (_, writer) => {
      let version: bigint | 'no-stream' = 'no-stream';
      while (performance.now() < deadline) {
        const id = randomUUID();
        sentAt.set(id, performance.now());
        const result = await store.append(
          `lag-${run}-${writer}`,
          [{ id, type: 'BetPlaced', data: payload(writer, 0) }],
          { expectedVersion: version },
        );
        version = result.revision;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    }),
  );
  const waitUntil = performance.now() + 30_000;
  while (lags.length < sentAt.size && performance.now() < waitUntil) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  await subscription.stop();
  lags.sort((a, b) => a - b);
  return {
    store: kind,
    workload: 'subscription-lag',
    events: lags.length,
    sent: sentAt.size,
    p50Ms: percentile(lags, 50),
    p99Ms: percentile(lags, 99),
  };
}

async function benchStore(kind: string, config: EventStoreConfig): Promise<void> {
  log(`${kind}: opening`);
  const store = await createEventStore(config);
  try {
    for (const batchSize of [1, 10]) {
      log(`${kind}: append, batch ${batchSize}, ${WRITERS} writers, ${DURATION_S} s`);
      emit(await appendWorkload(store, kind, batchSize));
    }
    log(`${kind}: readAll`);
    emit(await readAllThroughput(store, kind));
    log(`${kind}: subscription lag, ${LAG_DURATION_S} s`);
    emit(await subscriptionLag(store, kind));
  } finally {
    await store.close();
  }
}

/** Croupier's append workloads with group commit off (`appends: { groupCommit: false }`). */
async function benchUngrouped(connectionString: string, schema: string): Promise<void> {
  const kind = 'postgres-ungrouped';
  const store = await createEventStore({
    kind: 'postgres',
    connectionString,
    schema,
    maxConnections: WRITERS,
    appends: { groupCommit: false },
  });
  try {
    for (const batchSize of [1, 10]) {
      log(`${kind}: append, batch ${batchSize}, ${WRITERS} writers, ${DURATION_S} s`);
      emit(await appendWorkload(store, kind, batchSize));
    }
  } finally {
    await store.close();
  }
}

/** Croupier against the raw INSERT and against Emmett, each measured in this run. */
function ratios(baselineInsertsPerSec: number): Result {
  const rate = (store: string, batchSize: number, field: string): number =>
    Number(
      results.find(
        (r) => r['store'] === store && r['workload'] === 'append' && r['batchSize'] === batchSize,
      )?.[field] ?? Number.NaN,
    );
  const single = rate('postgres', 1, 'appendsPerSec');
  const singleVsBaseline = single / baselineInsertsPerSec;
  const singleVsEmmett = single / rate('emmett-postgresql', 1, 'appendsPerSec');
  const batchVsEmmett =
    rate('postgres', 10, 'eventsPerSec') / rate('emmett-postgresql', 10, 'eventsPerSec');
  const ungrouped = rate('postgres-ungrouped', 1, 'appendsPerSec');
  const ungroupedBatch = rate('postgres-ungrouped', 10, 'eventsPerSec');
  return {
    store: 'postgres',
    workload: 'ratio',
    baselineInsertsPerSec: round(baselineInsertsPerSec, 1),
    singleAppendVsBaseline: round(singleVsBaseline, 3),
    singleAppendVsEmmett: round(singleVsEmmett, 3),
    batch10VsEmmett: round(batchVsEmmett, 3),
    ungroupedSingleVsBaseline: round(ungrouped / baselineInsertsPerSec, 3),
    ungroupedSingleVsEmmett: round(ungrouped / rate('emmett-postgresql', 1, 'appendsPerSec'), 3),
    ungroupedBatch10VsEmmett: round(
      ungroupedBatch / rate('emmett-postgresql', 10, 'eventsPerSec'),
      3,
    ),
    // Issue 14's floor against the INSERT, issue 27's against Emmett.
    targets: 'single >= 0.6 of INSERT and >= 3x Emmett; batch 10 >= 2x Emmett',
    meetsTargets: singleVsBaseline >= 0.6 && singleVsEmmett >= 3 && batchVsEmmett >= 2,
  };
}

async function environment(connectionString: string | null): Promise<Result> {
  const cpuModel = cpus()[0]?.model ?? 'unknown';
  const postgresVersion = connectionString
    ? await withClient(connectionString, async (client) => {
        const { rows } = await client.query<{ server_version: string }>('SHOW server_version');
        return rows[0]?.server_version ?? 'unknown';
      })
    : 'n/a';
  return {
    workload: 'environment',
    date: new Date().toISOString(),
    cpu: cpuModel,
    cores: cpus().length,
    postgres: postgresVersion,
    node: process.version,
    loadAverage1m: round(loadavg()[0] ?? 0, 2),
    durationS: DURATION_S,
    writers: WRITERS,
  };
}

async function main(): Promise<void> {
  const wantsPostgres = KINDS.includes('postgres');
  const server = wantsPostgres ? await findPostgres() : null;
  emit(await environment(server?.connectionString ?? null));
  if (server) {
    const schema = uniqueSchemaName('bench');
    try {
      // The baseline runs before and after the store's workloads and the ratio uses their mean,
      // so drift in background load during the run does not favour either side.
      await withClient(server.connectionString, (client) =>
        client.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`),
      );
      log(`postgres: baseline INSERT (before), ${WRITERS} connections, ${DURATION_S} s`);
      const before = await insertBaseline(server.connectionString, schema, 'before');
      emit(before);
      await benchStore('postgres', {
        kind: 'postgres',
        connectionString: server.connectionString,
        schema,
        maxConnections: WRITERS,
      });
      // The same workload with group commit off: each append its own transaction, as before
      // issue 14, so the reader sees what grouping adds and what the rest of the change does.
      await benchUngrouped(server.connectionString, schema);
      const emmettSchema = `${schema}_emmett`;
      await withClient(server.connectionString, (client) =>
        client.query(`CREATE SCHEMA IF NOT EXISTS "${emmettSchema}"`),
      );
      for (const batchSize of [1, 10]) {
        log(`emmett-postgresql: append, batch ${batchSize}, ${WRITERS} writers, ${DURATION_S} s`);
        emit(await emmettWorkload(server.connectionString, emmettSchema, batchSize));
      }
      log(`postgres: baseline INSERT (after), ${WRITERS} connections, ${DURATION_S} s`);
      const after = await insertBaseline(server.connectionString, schema, 'after');
      emit(after);
      emit(ratios((Number(before['insertsPerSec']) + Number(after['insertsPerSec'])) / 2));
    } finally {
      await withClient(server.connectionString, (client) =>
        client.query(
          `DROP SCHEMA IF EXISTS "${schema}" CASCADE; DROP SCHEMA IF EXISTS "${schema}_emmett" CASCADE`,
        ),
      );
    }
  }
  if (KINDS.includes('pglite')) {
    const directory = await mkdtemp(join(tmpdir(), 'croupier-bench-pglite-'));
    try {
      await benchStore('pglite', { kind: 'pglite', dataDir: directory });
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  }
  emit({ workload: 'done', loadAverage1m: round(loadavg()[0] ?? 0, 2) });
  if (RECORD) await recordResults();
}

/** What limits the figures; kept with them so a reader of RESULTS.md sees it. */
const NOTES = [
  'What limits a single-event append against the baseline: per append the server updates the',
  "stream's head row (lock, version check, hash) and inserts an event row into three indexes",
  '(global order, unique id, stream + revision), parsing two jsonb values, where the baseline',
  'inserts one row into one index. Measured with pgbench on the same server, the append function',
  'costs about what `BEGIN; UPDATE head; INSERT event; COMMIT` costs (its plpgsql overhead is',
  "small), and 1.3-2.5x a bare INSERT. The client's CPU per append is about 1.8x the baseline's",
  '(process.cpuUsage: 0.33 vs 0.19 ms), nearly all in the driver (eight parameters, a four-column',
  'result); validation and canonical JSON take about 0.03 ms. Client and server share the same',
  'two cores here, so both costs add up. The "after" baseline also pays for the checkpoint and',
  "autovacuum triggered by the store's workloads. NOTIFY inside the append's transaction was the",
  'largest cost (3x: it serializes commits on a cluster-wide lock) and was moved after commit;',
  'see docs/adr/0002. Since ADR 0021 concurrent appends share a transaction (group commit: one',
  'round trip and one WAL flush per group; `postgres-ungrouped` is the same store without it) and',
  'the chain is hashed once, on the client where it knows the head. The costs described above',
  'are those of an append alone; "Cost per settled round (issue 14)" has the grouped ones.',
].join('\n');

/** Replaces (or adds) the "## Event store (issue 3)" section of bench/RESULTS.md. */
async function recordResults(): Promise<void> {
  const path = join(dirname(fileURLToPath(import.meta.url)), '../../../bench/RESULTS.md');
  let existing = '# Benchmark results\n';
  try {
    existing = await readFile(path, 'utf8');
  } catch {
    // first benchmark to record
  }
  const env = results.find((r) => r['workload'] === 'environment')!;
  const done = results.find((r) => r['workload'] === 'done');
  const rows = results.filter((r) => r['workload'] !== 'environment' && r['workload'] !== 'done');
  const line = (r: Result): string => {
    switch (r['workload']) {
      case 'append':
        return `| ${r['store']} | append, batch ${r['batchSize']} | ${r['appendsPerSec']} appends/s | ${r['eventsPerSec']} events/s | ${r['p50Ms']} | ${r['p99Ms']} |`;
      case 'baseline-insert':
        return `| ${r['store']} | baseline: single-row INSERT (${r['when']}) | ${r['insertsPerSec']} inserts/s | ${r['insertsPerSec']} rows/s | ${r['p50Ms']} | ${r['p99Ms']} |`;
      case 'readAll':
        return `| ${r['store']} | readAll, pages of ${r['pageSize']} | | ${r['eventsPerSec']} events/s | | |`;
      case 'subscription-lag':
        return `| ${r['store']} | subscription lag (append -> handler), 4 writers | | ${r['events']} events | ${r['p50Ms']} | ${r['p99Ms']} |`;
      case 'ratio':
        return [
          `| ${r['store']} | single append / mean baseline (${r['baselineInsertsPerSec']} inserts/s) | **${r['singleAppendVsBaseline']}** (target 0.6) | | | |`,
          `| ${r['store']} | single append / Emmett's single append | **${r['singleAppendVsEmmett']}** (target 2) | | | |`,
          `| ${r['store']} | batch-10 events / Emmett's batch-10 events | **${r['batch10VsEmmett']}** (target 1.5) | | | |`,
        ].join('\n');
      default:
        return '';
    }
  };
  const section = [
    '## Event store (issue 3)',
    '',
    `Measured ${String(env['date'])} on ${String(env['cpu'])} (${String(env['cores'])} cores), PostgreSQL ${String(env['postgres'])}, Node ${String(env['node'])}; ` +
      `${String(env['writers'])} concurrent writers, ${String(env['durationS'])} s per workload, each writer on its own ${STREAMS_PER_WRITER} streams with the exact expected version. ` +
      'Run: `pnpm bench:eventstore` (JSON lines). PGlite is file-backed in a temporary directory. ' +
      `Load average (1 min) at start ${String(env['loadAverage1m'])}, at end ${String(done?.['loadAverage1m'] ?? '?')}: ` +
      'client, server and any other work share the same 2 cores, so figures move by ±20 % between runs.',
    '',
    '| store | workload | rate | events | p50 ms | p99 ms |',
    '| --- | --- | --- | --- | --- | --- |',
    ...rows.map(line).filter(Boolean),
    '',
    NOTES,
    '',
  ].join('\n');
  const pattern = /## Event store \(issue 3\)\n[\s\S]*?(?=\n## |$)/;
  const updated = pattern.test(existing)
    ? existing.replace(pattern, section.trimEnd() + '\n')
    : `${existing.trimEnd()}\n\n${section}`;
  await writeFile(path, updated.endsWith('\n') ? updated : `${updated}\n`);
  log(`recorded in ${path}`);
}

main().catch((error: unknown) => {
  process.stderr.write(
    `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exitCode = 1;
});
