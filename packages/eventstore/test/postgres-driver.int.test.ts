import { randomUUID } from 'node:crypto';
import { usePostgresSchema } from '@croupier/testkit/vitest';
import { withClient } from '@croupier/testkit';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresDriver } from '../src/postgres/postgres-driver.js';
import { notifyChannel } from '../src/sql/schema-name.js';
import { eventually, rejection, sleep } from './support.js';

/** The pooled statement path (ADR 0021): corked writes, and which errors cost the connection. */
const database = usePostgresSchema('es_driver');
let driver: PostgresDriver;
beforeAll(() => {
  driver = new PostgresDriver({
    connectionString: database.get().connectionString,
    schema: database.get().schema,
    maxConnections: 1,
  });
});
afterAll(async () => {
  await driver.close();
});

const backend = async (): Promise<number> =>
  (await driver.query<{ pid: number }>('SELECT pg_backend_pid() AS pid', [])).rows[0]!.pid;

describe('postgres driver: pooled statements', () => {
  it('runs statements with and without parameters', async () => {
    expect((await driver.query<{ n: number }>('SELECT $1::int + 1 AS n', [41])).rows).toEqual([
      { n: 42 },
    ]);
    expect((await driver.query<{ n: number }>('SELECT 7 AS n')).rows).toEqual([{ n: 7 }]);
  });

  it('keeps the connection after an error the server answered', async () => {
    const before = await backend();
    const error = await rejection(driver.query('SELECT 1 / $1::int', [0]));
    expect(error).toMatchObject({ code: '22012' });
    expect(await backend()).toBe(before);
  });

  it('discards a connection that broke, and the next statement gets a new one', async () => {
    const before = await backend();
    await withClient(database.get().connectionString, (client) =>
      client.query('SELECT pg_terminate_backend($1)', [before]),
    );
    // The pool may notice the end while idle or on the next statement; either way it recovers.
    await driver.query('SELECT 1', []).catch(() => undefined);
    expect(await backend()).not.toBe(before);
  });
});

/**
 * Wake-ups across processes (issue 27): one LISTEN connection per driver for all its sessions,
 * and a NOTIFY only while another process listens. Each driver here is a process of its own.
 */
describe('postgres driver: one listener per process, NOTIFY only when someone else listens', () => {
  const drivers: PostgresDriver[] = [];
  const open = (applicationName: string) => {
    const opened = new PostgresDriver({
      connectionString: database.get().connectionString,
      schema: database.get().schema,
      applicationName,
      notifyIntervalMs: 0,
      listenerCheckMs: 100,
    });
    drivers.push(opened);
    return opened;
  };
  afterAll(async () => {
    await Promise.allSettled(drivers.map((opened) => opened.close()));
  });
  const connections = async (applicationName: string): Promise<number> =>
    withClient(database.get().connectionString, async (client) => {
      const { rows } = await client.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1',
        [applicationName],
      );
      return rows[0]!.n;
    });
  const name = (label: string) => `drv-${label}-${randomUUID().slice(0, 8)}`;

  it('listens on one connection for all of its sessions, and wakes each of them', async () => {
    const app = name('one');
    const listening = open(app);
    const woken = [0, 0, 0];
    const sessions = await Promise.all(
      woken.map((_, index) =>
        listening.openSubscriptionSession(
          `wake-${index}`,
          () => woken[index]!++,
          () => undefined,
        ),
      ),
    );
    expect(await connections(`${app}:subscription`)).toBe(3);
    expect(await connections(`${app}:listener`)).toBe(1);
    open(name('appender')).signalAppended(1n);
    await eventually(
      () => woken,
      (counts) => counts.every((n) => n > 0),
      { what: 'every session woken' },
    );
    await Promise.all(sessions.map((session) => session.close()));
    // The last session gone, so is the listener.
    await eventually(
      () => connections(`${app}:listener`),
      (n) => n === 0,
      { what: 'the listener closed' },
    );
  });

  it('sends no NOTIFY while no other process listens, and one once a process does', async () => {
    const spy = new pg.Client({
      connectionString: database.get().connectionString,
      application_name: name('spy'),
    });
    const heard: string[] = [];
    spy.on('notification', (message) => heard.push(message.payload ?? ''));
    await spy.connect();
    try {
      await spy.query(`LISTEN "${notifyChannel(database.get().schema)}"`);
      // Alone but for the spy, which is no subscriber's listener: nothing is sent.
      const appender = open(name('alone'));
      appender.signalAppended(1n);
      await sleep(400);
      appender.signalAppended(1n);
      await sleep(400);
      expect(heard).toEqual([]);
      // A process with a subscription starts listening: the next append is signalled to it.
      let woken = 0;
      const session = await open(name('other')).openSubscriptionSession(
        'other',
        () => woken++,
        () => undefined,
      );
      appender.signalAppended(1n);
      await eventually(
        () => woken,
        (n) => n > 0,
        { what: 'the other process woken' },
      );
      await eventually(
        () => heard.length,
        (n) => n > 0,
        { what: 'the NOTIFY heard' },
      );
      await session.close();
    } finally {
      await spy.end();
    }
  });

  it('a listener whose connection is lost listens again and wakes its sessions', async () => {
    const app = name('lost');
    const listening = open(app);
    let woken = 0;
    const session = await listening.openSubscriptionSession(
      'lost',
      () => woken++,
      () => undefined,
    );
    await withClient(database.get().connectionString, (client) =>
      client.query(
        'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1',
        [`${app}:listener`],
      ),
    );
    // Woken when it broke and again when it listens again (appends may have come between).
    await eventually(
      () => connections(`${app}:listener`),
      (n) => n === 1,
      { what: 'listening again' },
    );
    await eventually(
      () => woken,
      (n) => n >= 2,
      { what: 'woken after the break' },
    );
    const before = woken;
    open(name('appender')).signalAppended(1n);
    await eventually(
      () => woken,
      (n) => n > before,
      { what: 'woken by a NOTIFY after the reconnect' },
    );
    await session.close();
  });
});
