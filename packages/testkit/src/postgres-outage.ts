import { randomBytes } from 'node:crypto';
import { findPostgres, withClient, type PostgresServer } from './postgres.js';

/**
 * A database of one test's own, which the test may take offline: what a PostgreSQL outage
 * looks like to the processes using it, without disturbing any other test on the server.
 */
export interface IsolatedDatabase {
  /** The server's connection string with the database swapped for this one. */
  readonly connectionString: string;
  readonly database: string;
  readonly server: PostgresServer;
  /**
   * An outage for the connections whose application_name starts with `applicationPrefix`: the
   * database refuses new connections, and every such connection is terminated, again and again
   * until `ms` have passed (one that was half-way through its start-up is caught the next time);
   * then connections are allowed again. Returns the backends terminated.
   */
  outage(applicationPrefix: string, ms: number): Promise<PostgresOutage>;
  /** Drops the database, whoever is still connected. */
  drop(): Promise<void>;
}

export interface PostgresOutage {
  /** Distinct backends terminated. */
  readonly terminated: number;
  /** The same, per application_name. */
  readonly byApplication: Readonly<Record<string, number>>;
}

/**
 * Creates a database for one test (from template0, so no other session on template1 blocks it).
 * Needs CREATEDB, and for `outage` the right to alter the database and signal its backends (the
 * test servers' `postgres` user has both).
 */
export async function isolatedDatabase(prefix = 't'): Promise<IsolatedDatabase> {
  const server = await findPostgres();
  const database = `${prefix}_${randomBytes(6).toString('hex')}`;
  const admin = <T>(work: Parameters<typeof withClient<T>>[1]) =>
    withClient(server.connectionString, work);
  await admin((client) => client.query(`CREATE DATABASE "${database}" TEMPLATE template0`));
  const url = new URL(server.connectionString);
  url.pathname = `/${database}`;
  return {
    connectionString: url.toString(),
    database,
    server,
    outage: (applicationPrefix, ms) =>
      admin(async (client) => {
        const terminated = new Map<number, string>();
        await client.query(`ALTER DATABASE "${database}" ALLOW_CONNECTIONS false`);
        try {
          const until = Date.now() + ms;
          do {
            const { rows } = await client.query<{ pid: number; application_name: string }>(
              // Materialized first, so no backend outside the selection is ever signalled.
              `WITH victims AS MATERIALIZED (
                 SELECT pid, application_name FROM pg_stat_activity
                  WHERE datname = $1 AND starts_with(application_name, $2)
                    AND pid <> pg_backend_pid())
               SELECT pid, application_name FROM victims WHERE pg_terminate_backend(pid)`,
              [database, applicationPrefix],
            );
            for (const row of rows) terminated.set(row.pid, row.application_name);
            await new Promise((resolve) => setTimeout(resolve, 100));
          } while (Date.now() < until);
        } finally {
          await client.query(`ALTER DATABASE "${database}" ALLOW_CONNECTIONS true`);
        }
        const byApplication: Record<string, number> = {};
        for (const name of terminated.values())
          byApplication[name] = (byApplication[name] ?? 0) + 1;
        return { terminated: terminated.size, byApplication };
      }),
    drop: () =>
      admin((client) => client.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`)).then(
        () => undefined,
      ),
  };
}
