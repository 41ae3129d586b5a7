/**
 * Read-model catch-up benchmark (issue 13): how fast the gateway builds its durable read models
 * from a long log, in events per second. It is what a first start on an existing log, `casino
 * rebuild` or a new model costs. Generates a history of CATCHUP_EVENTS (default 100,000) events
 * with history-generator.ts into a database of its own, kept for the next run when
 * CATCHUP_DATABASE names it (then generated only if it does not exist yet), and for each of RUNS
 * (default 1) starts the real gateway with its projection tables emptied, timing it to /ready.
 * One JSON line per run: `{"bench":"catchup","events":…,"readyMs":…,"eventsPerSecond":…}`.
 * GATEWAY_NODE_ARGS are the gateway's node options (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, openSync, readFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createEventStore } from '@croupier/eventstore';
import { findPostgres, freePort, nodeEntryArgs, withClient } from '@croupier/testkit';
import { CLUSTER_SECRETS } from '../support/cluster.js';
import { ownDatabase } from './cost.js';
import { caughtUpSubscriptions, playTemplate, writeClones } from './history-generator.js';

const SIZE = Number(process.env.CATCHUP_EVENTS ?? 100_000);
const RUNS = Number(process.env.RUNS ?? 1);
const WORKERS = 64;
/** Node options of the gateway, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`. */
const NODE_ARGS = (process.env.GATEWAY_NODE_ARGS ?? '').split(' ').filter(Boolean);
const SCHEMA = 'croupier';

const note = (message: string) =>
  process.stderr.write(`${new Date().toISOString()} bench:catchup ${message}\n`);

const named = process.env.CATCHUP_DATABASE;
const server = await findPostgres();
let connectionString: string;
let drop: (() => Promise<void>) | null = null;
if (named === undefined) {
  const database = await ownDatabase('catchup');
  connectionString = database.connectionString;
  drop = () => database.drop();
} else {
  const url = new URL(server.connectionString);
  url.pathname = `/${named}`;
  connectionString = url.toString();
}

try {
  const exists =
    named !== undefined &&
    (await withClient(server.connectionString, async (client) => {
      const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [
        named,
      ]);
      return rowCount === 1;
    }));
  if (!exists) {
    if (named !== undefined)
      await withClient(server.connectionString, (client) =>
        client.query(`CREATE DATABASE "${named}"`),
      );
    const template = await playTemplate(CLUSTER_SECRETS);
    const store = await createEventStore({
      kind: 'postgres',
      connectionString,
      schema: SCHEMA,
      maxConnections: 8,
    });
    const started = performance.now();
    const { written } = await writeClones(store, template, SIZE, WORKERS);
    await store.close();
    note(`generated ${written} events in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  }
  const events = await withClient(connectionString, async (client) => {
    const { rows } = await client.query<{ n: string }>(
      `SELECT count(*)::text AS n FROM "${SCHEMA}".events`,
    );
    return Number(rows[0]!.n);
  });

  for (let run = 0; run < RUNS; run++) {
    await emptyReadModels(connectionString);
    const logFile = join(mkdtempSync(join(tmpdir(), 'croupier-catchup-')), 'gateway.log');
    const port = await freePort();
    const entry = await nodeEntryArgs(
      fileURLToPath(new URL('../../services/gateway/src/main.ts', import.meta.url)),
    );
    const started = performance.now();
    const gateway = spawn(process.execPath, [...NODE_ARGS, ...entry], {
      cwd: fileURLToPath(new URL('../../services/gateway', import.meta.url)),
      env: {
        ...process.env,
        EVENTSTORE: 'postgres',
        DATABASE_URL: connectionString,
        DATABASE_SCHEMA: SCHEMA,
        ...CLUSTER_SECRETS,
        AUTO_TABLES: '',
        LOG_LEVEL: 'warn',
        CHECKPOINT_INTERVAL_MS: '0',
        PORT: String(port),
      },
      stdio: ['ignore', openSync(logFile, 'a'), openSync(logFile, 'a')],
    });
    const exited = new Promise((resolve) => gateway.once('exit', resolve));
    for (;;) {
      if (gateway.exitCode !== null) throw new Error(`the gateway exited; see ${logFile}`);
      const ready = await fetch(`http://127.0.0.1:${port}/ready`).then(
        (response) => response.status === 200,
        () => false,
      );
      if (ready) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const readyMs = Math.round(performance.now() - started);
    // The gateway's CPU to ready (utime + stime, ticks of 10 ms): what a loaded machine's wall
    // clock hides.
    const stat = readFileSync(`/proc/${gateway.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    const gatewayCpuS = Number(((Number(stat[11]) + Number(stat[12])) / 100).toFixed(1));
    gateway.kill('SIGTERM');
    await exited;
    process.stdout.write(
      `${JSON.stringify({
        at: new Date().toISOString(),
        bench: 'catchup',
        events,
        readyMs,
        eventsPerSecond: Math.round(events / (readyMs / 1000)),
        gatewayCpuS,
        cores: cpus().length,
        loadAverage1m: Number((loadavg()[0] ?? 0).toFixed(2)),
      })}\n`,
    );
  }
} finally {
  await drop?.();
}

/**
 * Every durable read model back to nothing, and the subscriptions (reactors, outboxes) at the
 * end of the log, as a live system's are: the start then measures the read models' build alone.
 */
async function emptyReadModels(connection: string): Promise<void> {
  await withClient(connection, async (client) => {
    const tables = await client.query(
      `SELECT 1 FROM information_schema.tables WHERE table_schema = $1 AND table_name = 'projection_checkpoints'`,
      [SCHEMA],
    );
    if (tables.rowCount === 1)
      await client.query(
        `TRUNCATE "${SCHEMA}".projection_documents, "${SCHEMA}".projection_checkpoints`,
      );
  });
  await caughtUpSubscriptions(connection, SCHEMA);
}
