/**
 * Rebuild benchmark (issue 27): every read model the gateway runs, built from the whole log by
 * the projection runner in this process, with where the time goes. It measures what a first
 * start on an existing log, `POST /v1/admin/rebuild` or a new model costs, without the gateway's
 * own start. Reads the log of REBUILD_DATABASE (a database `bench:catchup` generated, e.g.
 * `CATCHUP_DATABASE=catchup_1m CATCHUP_EVENTS=1000000`), empties its projection tables, and for
 * each of RUNS (default 1) builds the models from nothing; one JSON line per run:
 * `{"bench":"rebuild","events":…,"ms":…,"eventsPerSecond":…,"phases":{…}}`. `phases` is the
 * time spent awaiting the log's pages (`readMs`), the documents' loads (`loadMs`) and the
 * commits (`commitMs`), and in each model's `keysOf` and `apply`; with pipelining, an await
 * counts only what the runner waited for, not what ran meanwhile. Server CPU of the run's
 * backends (`serverCpuS`) and this process's (`clientCpuS`) say which side is the limit.
 */
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { ParkedMessages, ProjectionRunner, type DurableProjection } from '@croupier/application';
import {
  createEventStore,
  openProjectionStorage,
  type EventStore,
  type ProjectionStorage,
} from '@croupier/eventstore';
import { DealingWatch, PendingDebits, TableBoard } from '@croupier/round';
import { GameFigures } from '@croupier/runtime';
import { CommissionLedger, OperatorCallLedger } from '@croupier/wallet';
import { ActiveSessions } from '../src/floor/active-sessions.js';
import { FloorFigures } from '../src/floor/floor-figures.js';
import { PlayerHistory } from '../src/player-history.js';
import { SignificantEventIndex } from '../src/significant-event-index.js';
import { findPostgres, withClient } from '@croupier/testkit';

const NAME = process.env.REBUILD_DATABASE;
if (NAME === undefined) throw new Error('REBUILD_DATABASE names the database to rebuild from');
const RUNS = Number(process.env.RUNS ?? 1);
/** PHASES=0: no timing wrappers (they cost CPU of their own): events/s and CPU only. */
const PHASES = process.env.PHASES !== '0';
const SCHEMA = 'croupier';
const APPLICATION = `croupier-rebuild-bench-${process.pid}`;

const server = await findPostgres();
const url = new URL(server.connectionString);
url.pathname = `/${NAME}`;
url.searchParams.set('application_name', APPLICATION);
const connectionString = url.toString();

/** CPU seconds of the run's own backends, found by application_name (utime + stime). */
async function serverCpuSeconds(): Promise<number> {
  const pids = await withClient(server.connectionString, async (client) => {
    const { rows } = await client.query<{ pid: number }>(
      'SELECT pid FROM pg_stat_activity WHERE application_name = $1',
      [APPLICATION],
    );
    return rows.map((row) => row.pid);
  });
  let ticks = 0;
  for (const pid of pids) {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // gone
    }
  }
  return ticks / 100;
}

interface Phases {
  readMs: number;
  reads: number;
  loadMs: number;
  loadedKeys: number;
  commitMs: number;
  writes: number;
  keysOfMs: Record<string, number>;
  applyMs: Record<string, number>;
}

function timedStore(store: EventStore, phases: Phases): EventStore {
  return new Proxy(store, {
    get(target, property, receiver) {
      if (property === 'readAll')
        return async (options: Parameters<EventStore['readAll']>[0]) => {
          const t0 = performance.now();
          const page = await target.readAll(options);
          phases.readMs += performance.now() - t0;
          phases.reads += 1;
          return page;
        };
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? (value as () => unknown).bind(target) : value;
    },
  });
}

function timedStorage(storage: ProjectionStorage, phases: Phases): ProjectionStorage {
  return new Proxy(storage, {
    get(target, property, receiver) {
      if (property === 'load')
        return async (requests: Parameters<ProjectionStorage['load']>[0]) => {
          const t0 = performance.now();
          const loaded = await target.load(requests);
          phases.loadMs += performance.now() - t0;
          for (const request of requests) phases.loadedKeys += request.keys.length;
          return loaded;
        };
      if (property === 'commit')
        return async (commits: Parameters<ProjectionStorage['commit']>[0]) => {
          const t0 = performance.now();
          await target.commit(commits);
          phases.commitMs += performance.now() - t0;
          for (const commit of commits) phases.writes += commit.writes.length;
        };
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? (value as () => unknown).bind(target) : value;
    },
  });
}

function timedModel<P extends DurableProjection<unknown, string>>(model: P, phases: Phases): P {
  const { name } = model;
  phases.keysOfMs[name] = 0;
  phases.applyMs[name] = 0;
  return new Proxy(model, {
    get(target, property, receiver) {
      if (property === 'keysOf')
        return (event: Parameters<P['keysOf']>[0]) => {
          const t0 = performance.now();
          try {
            return target.keysOf(event);
          } finally {
            phases.keysOfMs[name]! += performance.now() - t0;
          }
        };
      if (property === 'apply')
        return (event: Parameters<P['apply']>[0], docs: Parameters<P['apply']>[1]) => {
          const t0 = performance.now();
          try {
            target.apply(event, docs);
          } finally {
            phases.applyMs[name]! += performance.now() - t0;
          }
        };
      return Reflect.get(target, property, receiver) as unknown;
    },
  });
}

const round = (value: number) => Math.round(value);

const store = await createEventStore({
  kind: 'postgres',
  connectionString,
  schema: SCHEMA,
  maxConnections: 8,
});
try {
  const storage = await openProjectionStorage(store);
  const events = await withClient(connectionString, async (client) => {
    const { rows } = await client.query<{ n: string }>(
      `SELECT count(*)::text AS n FROM "${SCHEMA}".events`,
    );
    return Number(rows[0]!.n);
  });
  for (let run = 0; run < RUNS; run++) {
    await withClient(connectionString, (client) =>
      client.query(`TRUNCATE "${SCHEMA}".projection_documents, "${SCHEMA}".projection_checkpoints`),
    );
    const phases: Phases = {
      readMs: 0,
      reads: 0,
      loadMs: 0,
      loadedKeys: 0,
      commitMs: 0,
      writes: 0,
      keysOfMs: {},
      applyMs: {},
    };
    const runner = new ProjectionRunner(
      PHASES ? timedStore(store, phases) : store,
      PHASES ? timedStorage(storage, phases) : storage,
      { pollIntervalMs: 60_000 },
    );
    // The models the gateway runs in transfer mode (system.ts, the wallet's adapters).
    const models = [
      new TableBoard(storage),
      new PlayerHistory(storage),
      new SignificantEventIndex(storage),
      new CommissionLedger(storage),
      new PendingDebits(storage),
      new DealingWatch(storage),
      new GameFigures(storage),
      new ParkedMessages(storage),
      new ActiveSessions(storage),
      new FloorFigures(storage),
      new OperatorCallLedger(storage),
    ] as DurableProjection<unknown, string>[];
    for (const model of models) runner.register(PHASES ? timedModel(model, phases) : model);
    const serverBefore = await serverCpuSeconds();
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    await runner.start();
    const ms = performance.now() - started;
    const cpu = process.cpuUsage(cpuBefore);
    const serverCpuS = (await serverCpuSeconds()) - serverBefore;
    await runner.stop();
    const sum = (record: Record<string, number>) =>
      Object.values(record).reduce((total, value) => total + value, 0);
    process.stdout.write(
      `${JSON.stringify({
        at: new Date().toISOString(),
        bench: 'rebuild',
        events,
        ms: round(ms),
        eventsPerSecond: round(events / (ms / 1000)),
        clientCpuS: Number(((cpu.user + cpu.system) / 1e6).toFixed(1)),
        serverCpuS: Number(serverCpuS.toFixed(1)),
        phases: !PHASES
          ? null
          : {
              readMs: round(phases.readMs),
              reads: phases.reads,
              loadMs: round(phases.loadMs),
              loadedKeys: phases.loadedKeys,
              commitMs: round(phases.commitMs),
              writes: phases.writes,
              keysOfMs: round(sum(phases.keysOfMs)),
              applyMs: round(sum(phases.applyMs)),
              byModel: Object.fromEntries(
                Object.keys(phases.applyMs).map((name) => [
                  name,
                  {
                    keysOfMs: round(phases.keysOfMs[name]!),
                    applyMs: round(phases.applyMs[name]!),
                  },
                ]),
              ),
            },
        cores: cpus().length,
        loadAverage1m: Number((loadavg()[0] ?? 0).toFixed(2)),
      })}\n`,
    );
  }
  await storage.close();
} finally {
  await store.close();
}
