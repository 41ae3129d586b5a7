import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isolatedPostgres, startRedisServer } from '@croupier/testkit';
import type { TestProject } from 'vitest/node';
import { Cluster, type ServiceName } from './cluster.js';

/**
 * The distributed run's shared deployment (vitest.distributed.config.js, globalSetup): one set of
 * service processes on PostgreSQL and a Redis of its own, started once per run, which every e2e
 * file asks for through startHarness unless it kills or restarts processes or needs settings of
 * its own (those start a cluster of their own, as before). Starting five or six processes per
 * file was most of the run's time.
 *
 * Files stay independent: each uses tables and players of its own, one file at a time has the
 * deployment (each waits for its lock, harness.ts; files with processes of their own run beside
 * it), and each file's harness sees only the streams created after it took the lock, so any
 * file or test still runs alone.
 */

/**
 * The shared processes' settings, beyond the cluster's own. One client (the test runner) makes
 * every file's requests, so the per-client request limit is lifted, and the failed-login limit
 * with it (the authorization file sends hundreds of bad tokens; the limiters have tests of their
 * own in packages/runtime). Failed logins reach the security log within a second, so a file's
 * log lines are written before the next file starts.
 */
export const SHARED_CLUSTER_ENV: Readonly<Record<string, string>> = {
  ORPHAN_GRACE_MS: '0',
  RATE_LIMIT_PER_MINUTE: '100000000',
  RATE_LIMIT_FAILED_LOGINS_PER_MINUTE: '0',
  FAILED_LOGIN_WINDOW_MS: '1000',
};

/** What the test files learn of the shared deployment (serializable: it crosses processes). */
export interface SharedClusterInfo {
  readonly databaseUrl: string;
  readonly schema: string;
  readonly env: Readonly<Record<string, string>>;
  readonly logDir: string;
  readonly processes: readonly {
    readonly id: string;
    readonly service: ServiceName;
    readonly port: number;
    readonly pid: number | null;
  }[];
}

declare module 'vitest' {
  export interface ProvidedContext {
    sharedCluster: SharedClusterInfo;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const postgres = await isolatedPostgres('dist_shared');
  const redis = await startRedisServer({ persistent: true });
  const logDir = mkdtempSync(join(tmpdir(), 'croupier-dist-shared-'));
  let cluster: Cluster;
  try {
    cluster = await Cluster.create({
      databaseUrl: postgres.connectionString,
      schema: postgres.schema,
      redisUrl: redis.url,
      redisPrefix: postgres.schema,
      logDir,
      env: SHARED_CLUSTER_ENV,
      gateway: true,
    });
  } catch (error) {
    await redis.cleanup();
    await postgres.drop();
    throw error;
  }
  project.provide('sharedCluster', {
    databaseUrl: postgres.connectionString,
    schema: postgres.schema,
    env: SHARED_CLUSTER_ENV,
    logDir,
    processes: cluster.processes.map(({ id, service, port, pid }) => ({ id, service, port, pid })),
  });
  return async () => {
    await cluster.stop();
    await redis.cleanup();
    await postgres.drop();
  };
}
