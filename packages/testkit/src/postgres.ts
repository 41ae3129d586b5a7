import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { containerRuntimeAvailable, firstLine, withTimeout } from './container-runtime.js';

/** A reachable PostgreSQL server and how it was found. */
export interface PostgresServer {
  readonly connectionString: string;
  readonly source: 'env' | 'local' | 'container';
}

/** The local default: the developer machines' and CI's PostgreSQL. */
export const LOCAL_POSTGRES_URL = 'postgres://postgres@127.0.0.1:5432/test';

let found: Promise<PostgresServer> | undefined;

/**
 * Finds PostgreSQL, once per process: `DATABASE_URL`, then 127.0.0.1:5432 (db `test`, user
 * `postgres`), then a testcontainers PostgreSQL when a container runtime exists; otherwise throws
 * an error that says what to start.
 */
export function findPostgres(): Promise<PostgresServer> {
  found ??= discoverPostgres().catch((error: unknown) => {
    found = undefined;
    throw error;
  });
  return found;
}

/** Where discovery looks; the defaults are the process environment and the local server. */
export interface DiscoveryOptions {
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly localUrl?: string;
}

/** `findPostgres` without the per-process cache. */
export async function discoverPostgres(options: DiscoveryOptions = {}): Promise<PostgresServer> {
  const env = options.env ?? process.env;
  const localUrl = options.localUrl ?? LOCAL_POSTGRES_URL;
  const fromEnv = env['DATABASE_URL'];
  if (fromEnv) {
    const problem = await probePostgres(fromEnv, 5_000);
    if (problem) throw new Error(`DATABASE_URL is set but PostgreSQL does not answer: ${problem}`);
    return { connectionString: fromEnv, source: 'env' };
  }
  const localProblem = await probePostgres(localUrl, 1_500);
  if (!localProblem) return { connectionString: localUrl, source: 'local' };
  const runtime = await containerRuntimeAvailable();
  if (runtime.available) return startPostgresContainer();
  throw new Error(
    [
      'No PostgreSQL for the tests.',
      `  DATABASE_URL: not set`,
      `  ${localUrl}: ${localProblem}`,
      `  testcontainers: ${runtime.reason}`,
      'Start PostgreSQL: pg_ctlcluster --skip-systemctl-redirect 15 main start (database "test", user "postgres", trust auth), or set DATABASE_URL.',
    ].join('\n'),
  );
}

/** Null when a `SELECT 1` succeeds within `timeoutMs`, else why not. */
export async function probePostgres(
  connectionString: string,
  timeoutMs: number,
): Promise<string | null> {
  const client = new pg.Client({ connectionString, connectionTimeoutMillis: timeoutMs });
  client.on('error', () => undefined);
  try {
    await withTimeout(client.connect(), timeoutMs + 500, 'connect');
    await withTimeout(client.query('SELECT 1'), timeoutMs, 'SELECT 1');
    return null;
  } catch (error) {
    return firstLine(error);
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function startPostgresContainer(): Promise<PostgresServer> {
  // GenericContainer rather than @testcontainers/postgresql: that module's range would pull a newer
  // testcontainers than the 12.0.1 this workspace pins (12.0.2+ fails to import on Node 20).
  const { GenericContainer, Wait } = await import('testcontainers');
  const container = await new GenericContainer('postgres:16-alpine')
    .withEnvironment({ POSTGRES_HOST_AUTH_METHOD: 'trust', POSTGRES_DB: 'test' })
    .withExposedPorts(5432)
    .withWaitStrategy(Wait.forLogMessage(/database system is ready to accept connections/, 2))
    .start();
  const url = `postgres://postgres@${container.getHost()}:${container.getMappedPort(5432)}/test`;
  return { connectionString: url, source: 'container' };
}

/** A schema of its own for one test file. */
export interface IsolatedPostgres {
  readonly connectionString: string;
  readonly schema: string;
  readonly server: PostgresServer;
  /** Drops the schema and everything in it. */
  drop(): Promise<void>;
}

/** A fresh random schema name: `t_` + 12 hex characters. */
export function uniqueSchemaName(prefix = 't'): string {
  return `${prefix}_${randomBytes(6).toString('hex')}`;
}

/**
 * Creates a unique schema for one test file, so files run in parallel and reruns never see old
 * data. The caller (or `usePostgresSchema`) drops it afterwards.
 */
export async function isolatedPostgres(prefix = 't'): Promise<IsolatedPostgres> {
  const server = await findPostgres();
  const schema = uniqueSchemaName(prefix);
  await withClient(server.connectionString, (client) => client.query(`CREATE SCHEMA "${schema}"`));
  return {
    connectionString: server.connectionString,
    schema,
    server,
    drop: () =>
      withClient(server.connectionString, (client) =>
        client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`),
      ).then(() => undefined),
  };
}

/** Runs `work` on a short-lived client. */
export async function withClient<T>(
  connectionString: string,
  work: (client: pg.Client) => Promise<T>,
): Promise<T> {
  const client = new pg.Client({ connectionString });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
