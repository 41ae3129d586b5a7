import { randomUUID } from 'node:crypto';
import {
  isolatedDatabase,
  startTcpRelay,
  throughRelay,
  withClient,
  type IsolatedDatabase,
  type TcpRelay,
} from '@croupier/testkit';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PostgresDriver } from '../src/postgres/postgres-driver.js';
import { eventually, rejection, sleep } from './support.js';

/**
 * Every kind of connection the PostgreSQL driver holds (pooled: idle, checked out for a
 * statement or a transaction, handed from one caller to the next; a subscription's, listening
 * and holding its lease) has its backend terminated, and the process must live on: a `pg` client
 * that emits 'error' with no listener throws it as an uncaughtException, which killed a service
 * in the chaos test's PostgreSQL outage. The outage is the test kit's (`isolatedDatabase`); the
 * relay holds the server's bytes where the error must arrive in the same read as the answer
 * before it, as on a loaded machine.
 */
let database: IsolatedDatabase;
let relay: TcpRelay;
beforeAll(async () => {
  database = await isolatedDatabase('es_conn');
  const server = new URL(database.connectionString);
  relay = await startTcpRelay({ host: server.hostname, port: Number(server.port || 5432) });
});
afterAll(async () => {
  await relay.close();
  await database.drop();
});

const crashes: unknown[] = [];
const onCrash = (error: unknown): void => {
  crashes.push(error);
};
let driver: PostgresDriver;
/** This test's connections' application_name: the outage terminates these alone. */
let application: string;

function openDriver(maxConnections = 2): PostgresDriver {
  return new PostgresDriver({
    connectionString: throughRelay(database.connectionString, relay),
    schema: 'public',
    applicationName: application,
    maxConnections,
  });
}

beforeEach(() => {
  crashes.length = 0;
  process.on('uncaughtException', onCrash);
  application = `conn-${randomUUID().slice(0, 8)}`;
  driver = openDriver();
});
afterEach(async () => {
  relay.holdReplies(false);
  await driver.close().catch(() => undefined);
  // An error left over from the test's connections surfaces within a few event-loop turns.
  await sleep(50);
  process.off('uncaughtException', onCrash);
  expect(crashes).toEqual([]);
});

interface Backend {
  readonly pid: number;
  readonly state: string | null;
  readonly query: string;
}

/** This test's backends, as PostgreSQL sees them. */
function backends(): Promise<Backend[]> {
  return withClient(database.server.connectionString, async (client) => {
    const { rows } = await client.query<Backend>(
      `SELECT pid, state, query FROM pg_stat_activity
        WHERE datname = $1 AND starts_with(application_name, $2)`,
      [database.database, application],
    );
    return rows;
  });
}

/** Waits for one of this test's backends to be in `state`, having last run `query` if given. */
async function backendIn(state: string, query?: string): Promise<void> {
  await eventually(
    backends,
    (rows) =>
      rows.some((row) => row.state === state && (query === undefined || row.query === query)),
    { what: `a backend ${state}${query === undefined ? '' : ` after ${query}`}` },
  );
}

/** The test kit's outage of this test's connections; at least one must have been cut. */
async function outage(ms = 300): Promise<void> {
  const { terminated } = await database.outage(application, ms);
  expect(terminated).toBeGreaterThan(0);
}

describe('postgres driver: PostgreSQL terminates its connections', () => {
  it('an idle pooled connection: the pool drops it and the next statement gets another', async () => {
    await driver.query('SELECT 1');
    await backendIn('idle');
    await outage();
    expect((await driver.query<{ n: number }>('SELECT 2 AS n')).rows).toEqual([{ n: 2 }]);
  });

  it('a connection checked out for a statement: the statement fails, the next one runs', async () => {
    const sleeping = rejection(driver.query('SELECT pg_sleep(30)'));
    await backendIn('active', 'SELECT pg_sleep(30)');
    await outage();
    expect(String(await sleeping)).toMatch(/terminat/);
    expect((await driver.query<{ n: number }>('SELECT 2 AS n')).rows).toEqual([{ n: 2 }]);
  });

  it('a connection a FATAL error ended is not handed to the next statement', async () => {
    await driver.close();
    driver = openDriver(1);
    const sleeping = rejection(driver.query('SELECT pg_sleep(30)'));
    await backendIn('active', 'SELECT pg_sleep(30)');
    const { pid } = (await backends())[0]!;
    await withClient(database.server.connectionString, (client) =>
      client.query('SELECT pg_terminate_backend($1)', [pid]),
    );
    expect(await sleeping).toMatchObject({ code: '57P01', severity: 'FATAL' });
    // At once, before the pool sees the socket close: the one connection it has is dead.
    expect((await driver.query<{ n: number }>('SELECT 2 AS n')).rows).toEqual([{ n: 2 }]);
  });

  it('a transaction between two statements: the transaction fails, the next one commits', async () => {
    const failed = rejection(
      driver.transaction(async (tx) => {
        await tx.query('SELECT 1');
        await backendIn('idle in transaction');
        await outage();
        await tx.query('SELECT 2');
      }),
    );
    expect(await failed).toBeInstanceOf(Error);
    expect(await driver.transaction((tx) => tx.query<{ n: number }>('SELECT 3 AS n'))).toEqual({
      rows: [{ n: 3 }],
      rowCount: 1,
    });
  });

  it('a subscription session listening with its lease: reported broken, the lease is free again', async () => {
    const broken: unknown[] = [];
    const session = await driver.openSubscriptionSession(
      'conn-lease',
      () => undefined,
      (error) => broken.push(error),
    );
    expect(await session.tryAcquire()).toBe(true);
    await backendIn('idle');
    await outage();
    await eventually(
      () => broken.length,
      (count) => count > 0,
      { what: 'the session reported broken' },
    );
    await session.close();
    const next = await driver.openSubscriptionSession(
      'conn-lease',
      () => undefined,
      () => undefined,
    );
    expect(await next.tryAcquire()).toBe(true);
    await next.close();
  });

  it('closing the driver while its connections are terminated', async () => {
    await driver.query('SELECT 1');
    const session = await driver.openSubscriptionSession(
      'conn-close',
      () => undefined,
      () => undefined,
    );
    expect(await session.tryAcquire()).toBe(true);
    const cut = outage(1_000);
    await eventually(backends, (rows) => rows.length === 0, { what: 'the backends terminated' });
    // While the outage refuses connections: the pool's idle connection and the session are dead.
    await driver.close();
    await cut;
  });
});

/**
 * The error in the same read as the answer before it: `pg` handles every message of a read
 * before the code awaiting a checkout runs again. The pool has by then handed the connection out
 * (and stopped listening to it), so only a listener attached in the same turn hears the error.
 */
describe('postgres driver: the FATAL error in the read that handed the connection out', () => {
  it.each([
    ['a statement', (d: PostgresDriver) => d.query('SELECT 1')],
    ['a transaction', (d: PostgresDriver) => d.transaction((tx) => tx.query('SELECT 1'))],
    [
      'a subscription session',
      (d: PostgresDriver) =>
        d.openSubscriptionSession(
          'conn-new',
          () => undefined,
          () => undefined,
        ),
    ],
  ])('a new connection for %s, terminated as it became ready', async (_, use) => {
    relay.holdReplies(true);
    const failed = rejection(use(driver));
    // Started up and waiting for its first statement, whose ReadyForQuery the relay holds.
    await backendIn('idle');
    await outage();
    expect(await failed).toBeInstanceOf(Error);
    relay.holdReplies(false);
    expect((await driver.query<{ n: number }>('SELECT 2 AS n')).rows).toEqual([{ n: 2 }]);
  });

  it('a connection one statement releases to the next caller waiting for it', async () => {
    await driver.close();
    driver = openDriver(1);
    await driver.query('SELECT 1');
    relay.holdReplies(true);
    // The driver's own pool statement (exec), answered; a statement queued behind it for the
    // pool's one connection is handed it while the answer is read.
    const answered = driver.exec('SELECT 42 AS handed_over');
    const waiting = rejection(driver.query('SELECT 2'));
    await backendIn('idle', 'SELECT 42 AS handed_over');
    await outage();
    await answered;
    expect(await waiting).toBeInstanceOf(Error);
    relay.holdReplies(false);
    expect((await driver.query<{ n: number }>('SELECT 3 AS n')).rows).toEqual([{ n: 3 }]);
  });
});
