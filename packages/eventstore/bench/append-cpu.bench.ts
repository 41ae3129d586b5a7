/**
 * CPU per append on both sides (issue 14, ADR 0021). JSON lines on stdout.
 *
 *   node --conditions=@croupier/source --import tsx bench/append-cpu.bench.ts [--duration=5]
 *
 * The workload of bench:eventstore at batch size 1 (16 writers, own streams, exact expected
 * version), run for: a raw single-row INSERT, Croupier with group commit, Croupier without, and
 * Emmett 0.42.0. For each: appends/s, the client's CPU per append (process.cpuUsage) and the
 * server's CPU per append, summed over this run's own backends only (found by application_name,
 * read from /proc/<pid>/stat: Linux, server on this machine; null otherwise). Throughput moves
 * with the machine's load; CPU per append moves much less and is what the comparison rests on.
 */
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { getPostgreSQLEventStore } from '@event-driven-io/emmett-postgresql';
import { findPostgres, uniqueSchemaName, withClient } from '@croupier/testkit';
import { createEventStore, type ExpectedVersion } from '../src/index.js';

const argument = (name: string): string | undefined =>
  process.argv.find((arg) => arg.startsWith(`--${name}=`))?.split('=')[1];
const DURATION_S = Number(argument('duration') ?? process.env['BENCH_DURATION_S'] ?? 5);
const WRITERS = 16;
const STREAMS_PER_WRITER = 50;
const TICK_MS = 10; // USER_HZ = 100 on Linux

function payload(writer: number, index: number): Record<string, unknown> {
  return {
    betId: randomUUID(),
    playerId: `player-${writer}`,
    side: index % 2 === 0 ? 'banker' : 'player',
    amount: { currency: 'EUR', minor: 2500 + index },
    placedAt: '2026-11-29T12:00:00.000Z',
  };
}

/** CPU time (ms) of the server processes serving connections named `application`, or null. */
async function serverCpuMs(connectionString: string, application: string): Promise<number | null> {
  const pids = await withClient(connectionString, async (client) => {
    const { rows } = await client.query<{ pid: number }>(
      'SELECT pid FROM pg_stat_activity WHERE application_name = $1',
      [application],
    );
    return rows.map((row) => row.pid);
  });
  let ticks = 0;
  for (const pid of pids) {
    try {
      const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]); // utime, stime
    } catch {
      return null;
    }
  }
  return ticks * TICK_MS;
}

type Append = (writer: number, stream: string, slot: number) => Promise<void>;

/** Runs the workload with `append` and measures it; `application` names the server backends. */
async function measure(
  name: string,
  connectionString: string,
  application: string,
  append: Append,
): Promise<Record<string, unknown>> {
  const run = randomUUID().slice(0, 8);
  const serverBefore = await serverCpuMs(connectionString, application);
  const clientBefore = process.cpuUsage();
  const deadline = performance.now() + DURATION_S * 1000;
  let appends = 0;
  await Promise.all(
    Array.from({ length: WRITERS }, async (_, writer) => {
      for (let index = 0; performance.now() < deadline; index += 1) {
        const slot = index % STREAMS_PER_WRITER;
        await append(writer, `cpu-${run}-w${writer}-s${slot}`, slot);
        appends += 1;
      }
    }),
  );
  const client = process.cpuUsage(clientBefore);
  const serverAfter = await serverCpuMs(connectionString, application);
  const server = serverBefore === null || serverAfter === null ? null : serverAfter - serverBefore;
  const perAppend = (ms: number | null): number | null =>
    ms === null ? null : Math.round((ms / appends) * 1000) / 1000;
  return {
    workload: 'append-cpu',
    store: name,
    durationS: DURATION_S,
    appendsPerSec: Math.round((appends / DURATION_S) * 10) / 10,
    clientCpuMsPerAppend: perAppend((client.user + client.system) / 1000),
    serverCpuMsPerAppend: perAppend(server),
  };
}

function event(writer: number, slot: number) {
  return {
    id: randomUUID(),
    type: 'BetPlaced',
    data: payload(writer, slot),
    metadata: { actor: `writer-${writer}` },
  };
}

async function insertBaseline(connectionString: string, schema: string) {
  const application = `cpu-insert-${randomUUID().slice(0, 6)}`;
  await withClient(connectionString, (client) =>
    client.query(
      `CREATE TABLE "${schema}".baseline (id uuid PRIMARY KEY, type text NOT NULL, data jsonb NOT NULL)`,
    ),
  );
  const clients = await Promise.all(
    Array.from({ length: WRITERS }, async () => {
      const client = new pg.Client({ connectionString, application_name: application });
      await client.connect();
      return client;
    }),
  );
  try {
    const text = `INSERT INTO "${schema}".baseline (id, type, data) VALUES ($1, $2, $3)`;
    return await measure(
      'baseline-insert',
      connectionString,
      application,
      async (writer, _, slot) => {
        await clients[writer]!.query({
          name: 'baseline_insert',
          text,
          values: [randomUUID(), 'BetPlaced', JSON.stringify(payload(writer, slot))],
        });
      },
    );
  } finally {
    await Promise.all(clients.map((client) => client.end()));
  }
}

async function croupier(connectionString: string, schema: string, groupCommit: boolean) {
  const application = `cpu-croupier-${randomUUID().slice(0, 6)}`;
  const store = await createEventStore({
    kind: 'postgres',
    connectionString,
    schema,
    maxConnections: WRITERS,
    applicationName: application,
    appends: { groupCommit },
  });
  try {
    // Open every pooled connection first, so all of them are counted from the start.
    await Promise.all(Array.from({ length: WRITERS }, () => store.readStream('warm-up')));
    const versions = Array.from({ length: WRITERS }, () =>
      new Array<ExpectedVersion>(STREAMS_PER_WRITER).fill('no-stream'),
    );
    return await measure(
      groupCommit ? 'postgres' : 'postgres-ungrouped',
      connectionString,
      application,
      async (writer, stream, slot) => {
        const result = await store.append(stream, [event(writer, slot)], {
          expectedVersion: versions[writer]![slot]!,
        });
        versions[writer]![slot] = result.revision;
      },
    );
  } finally {
    await store.close();
  }
}

async function emmett(connectionString: string, schema: string) {
  const application = `cpu-emmett-${randomUUID().slice(0, 6)}`;
  const url = new URL(connectionString);
  url.searchParams.set('options', `-c search_path=${schema}`);
  const scoped = url.toString();
  const clients = await Promise.all(
    Array.from({ length: WRITERS }, async () => {
      const client = new pg.Client({ connectionString: scoped, application_name: application });
      await client.connect();
      return client;
    }),
  );
  const stores = clients.map((client, index) =>
    getPostgreSQLEventStore(scoped, {
      connectionOptions: { client },
      schema: { autoMigration: index === 0 ? 'CreateOrUpdate' : 'None' },
    }),
  );
  try {
    await stores[0]!.schema.migrate();
    const versions = Array.from({ length: WRITERS }, () =>
      new Array<bigint>(STREAMS_PER_WRITER).fill(0n),
    );
    return await measure(
      'emmett-postgresql',
      connectionString,
      application,
      async (writer, stream, slot) => {
        const { type, data, metadata } = event(writer, slot);
        const result = await stores[writer]!.appendToStream(stream, [{ type, data, metadata }], {
          expectedStreamVersion: versions[writer]![slot]!,
        });
        versions[writer]![slot] = result.nextExpectedStreamVersion;
      },
    );
  } finally {
    await Promise.all(stores.map((store) => store.close()));
    await Promise.all(clients.map((client) => client.end()));
  }
}

async function main(): Promise<void> {
  const { connectionString } = await findPostgres();
  const schema = uniqueSchemaName('cpu');
  const emmettSchema = `${schema}_emmett`;
  await withClient(connectionString, (client) =>
    client.query(`CREATE SCHEMA "${schema}"; CREATE SCHEMA "${emmettSchema}"`),
  );
  try {
    const emit = (result: Record<string, unknown>): void => {
      process.stdout.write(`${JSON.stringify(result)}\n`);
    };
    emit(await insertBaseline(connectionString, schema));
    emit(await croupier(connectionString, schema, true));
    emit(await croupier(connectionString, schema, false));
    emit(await emmett(connectionString, emmettSchema));
  } finally {
    await withClient(connectionString, (client) =>
      client.query(`DROP SCHEMA "${schema}" CASCADE; DROP SCHEMA "${emmettSchema}" CASCADE`),
    );
  }
}

main().catch((error: unknown) => {
  process.stderr.write(
    `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exitCode = 1;
});
