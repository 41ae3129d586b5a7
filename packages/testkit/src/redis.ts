import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { containerRuntimeAvailable, firstLine, withTimeout } from './container-runtime.js';
import type { DiscoveryOptions } from './postgres.js';

export interface RedisServer {
  readonly url: string;
  readonly source: 'env' | 'local' | 'container';
}

export const LOCAL_REDIS_URL = 'redis://127.0.0.1:6379';

let found: Promise<RedisServer> | undefined;

/**
 * Finds Redis, once per process: `REDIS_URL`, then 127.0.0.1:6379, then a testcontainers Redis
 * when a container runtime exists; otherwise throws an error that says what to start.
 */
export function findRedis(): Promise<RedisServer> {
  found ??= discoverRedis().catch((error: unknown) => {
    found = undefined;
    throw error;
  });
  return found;
}

/** `findRedis` without the per-process cache. */
export async function discoverRedis(options: DiscoveryOptions = {}): Promise<RedisServer> {
  const env = options.env ?? process.env;
  const localUrl = options.localUrl ?? LOCAL_REDIS_URL;
  const fromEnv = env['REDIS_URL'];
  if (fromEnv) {
    const problem = await probeRedis(fromEnv, 5_000);
    if (problem) throw new Error(`REDIS_URL is set but Redis does not answer: ${problem}`);
    return { url: fromEnv, source: 'env' };
  }
  const localProblem = await probeRedis(localUrl, 1_500);
  if (!localProblem) return { url: localUrl, source: 'local' };
  const runtime = await containerRuntimeAvailable();
  if (runtime.available) {
    const { GenericContainer, Wait } = await import('testcontainers');
    const container = await new GenericContainer('redis:7-alpine')
      .withExposedPorts(6379)
      .withWaitStrategy(Wait.forLogMessage(/Ready to accept connections/))
      .start();
    return {
      url: `redis://${container.getHost()}:${container.getMappedPort(6379)}`,
      source: 'container',
    };
  }
  throw new Error(
    [
      'No Redis for the tests.',
      '  REDIS_URL: not set',
      `  ${localUrl}: ${localProblem}`,
      `  testcontainers: ${runtime.reason}`,
      'Start Redis: redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no, or set REDIS_URL.',
    ].join('\n'),
  );
}

/** Null when PING answers within `timeoutMs`, else why not. */
export async function probeRedis(url: string, timeoutMs: number): Promise<string | null> {
  const redis = new Redis(url, {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    enableOfflineQueue: false,
  });
  redis.on('error', () => undefined);
  try {
    await withTimeout(redis.connect(), timeoutMs + 500, 'connect');
    await withTimeout(redis.ping(), timeoutMs, 'PING');
    return null;
  } catch (error) {
    return firstLine(error);
  } finally {
    redis.disconnect();
  }
}

/** A key prefix of its own for one test file. */
export interface IsolatedRedisPrefix {
  readonly url: string;
  /** e.g. `t_1a2b3c4d5e6f:`; put it in front of every key (or use ioredis' `keyPrefix`). */
  readonly prefix: string;
  readonly server: RedisServer;
  /** Deletes every key under the prefix. */
  cleanup(): Promise<number>;
}

export async function isolatedRedisPrefix(name = 't'): Promise<IsolatedRedisPrefix> {
  const server = await findRedis();
  const prefix = `${name}_${randomBytes(6).toString('hex')}:`;
  return { url: server.url, prefix, server, cleanup: () => deleteByPrefix(server.url, prefix) };
}

/** Deletes the keys that start with `prefix` (SCAN, so it does not block the server). */
export async function deleteByPrefix(url: string, prefix: string): Promise<number> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  redis.on('error', () => undefined);
  await redis.connect();
  let deleted = 0;
  try {
    const pattern = `${prefix.replace(/[*?[\]\\]/g, '\\$&')}*`;
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
      cursor = next;
      if (keys.length > 0) deleted += await redis.unlink(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
  return deleted;
}
