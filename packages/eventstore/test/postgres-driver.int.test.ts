import { usePostgresSchema } from '@croupier/testkit/vitest';
import { withClient } from '@croupier/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresDriver } from '../src/postgres/postgres-driver.js';
import { rejection } from './support.js';

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
