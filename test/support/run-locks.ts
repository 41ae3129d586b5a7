import pg from 'pg';
import type { SharedClusterInfo } from './shared-cluster.js';

/**
 * How the distributed run's files share the machine and the shared deployment (two run at once,
 * vitest.distributed.config.js): PostgreSQL advisory locks on the shared deployment's database,
 * held on a session of the harness's own, so a worker that dies releases them with its session.
 *
 * - The run lock: every harness holds it shared; a file whose timings need the machine to
 *   itself (`alone`) holds it exclusively, and waits for the file beside it to end. PostgreSQL
 *   queues a later shared request behind a waiting exclusive one, so it is not starved.
 * - The deployment lock: a file on the shared deployment holds it exclusively, one file at a
 *   time; files with processes of their own do not take it.
 *
 * Always in this order, so no two harnesses wait for each other.
 */
export interface RunLocks {
  /** Ends the session: both locks are released. */
  release(): Promise<void>;
}

export async function takeRunLocks(
  shared: SharedClusterInfo,
  { alone, deployment }: { readonly alone: boolean; readonly deployment: boolean },
): Promise<RunLocks> {
  const session = new pg.Client({
    connectionString: shared.databaseUrl,
    application_name: 'e2e-run-locks',
  });
  await session.connect();
  try {
    const run = `${shared.schema}:run`;
    await session.query(
      alone
        ? 'SELECT pg_advisory_lock(hashtext($1))'
        : 'SELECT pg_advisory_lock_shared(hashtext($1))',
      [run],
    );
    if (deployment)
      await session.query('SELECT pg_advisory_lock(hashtext($1))', [`${shared.schema}:deployment`]);
  } catch (error) {
    await session.end();
    throw error;
  }
  return { release: () => session.end() };
}
