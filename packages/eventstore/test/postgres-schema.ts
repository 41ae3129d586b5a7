import { randomUUID } from 'node:crypto';
import { withClient } from '@croupier/testkit';
import { usePostgresSchema } from '@croupier/testkit/vitest';
import { afterAll } from 'vitest';
import { createEventStore, type EventStore } from '../src/index.js';
import type { SqlSubscriptionTuning } from '../src/sql/sql-subscription.js';

/** Quick retries and polls, so that takeovers and restarts show within a test's time. */
const QUICK: Partial<SqlSubscriptionTuning> = {
  lockRetryMs: 200,
  pollIntervalMs: 100,
  maxBackoffMs: 500,
};

/**
 * A file's own PostgreSQL schema for the store's behaviour tests: stores opened on it (closed
 * after the file, before the schema is dropped) and SQL run on it from outside the store, as an
 * operator (or an attacker) would.
 */
export function postgresSchema(prefix: string) {
  const database = usePostgresSchema(prefix);
  const stores: EventStore[] = [];
  afterAll(async () => {
    await Promise.allSettled(stores.map((opened) => opened.close()));
  });
  return {
    database,
    /** Opens a store on the schema, named `applicationName` in pg_stat_activity. */
    openStore: async (
      applicationName = `croupier-test-${randomUUID().slice(0, 8)}`,
      subscriptions: Partial<SqlSubscriptionTuning> = QUICK,
    ): Promise<EventStore> => {
      const store = await createEventStore({
        kind: 'postgres',
        connectionString: database.get().connectionString,
        schema: database.get().schema,
        applicationName,
        subscriptions,
      });
      stores.push(store);
      return store;
    },
    sql: <T = Record<string, unknown>>(text: string, params: unknown[] = []): Promise<T[]> =>
      withClient(database.get().connectionString, async (client) => {
        await client.query(`SET search_path TO "${database.get().schema}"`);
        return (await client.query(text, params)).rows as T[];
      }),
  };
}
