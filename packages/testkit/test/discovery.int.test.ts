import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import {
  containerRuntimeAvailable,
  discoverPostgres,
  discoverRedis,
  findPostgres,
  findRedis,
  isolatedRedisPrefix,
  probePostgres,
  withClient,
} from '../src/index.js';
import { usePostgresSchema, useRedisPrefix } from '../src/vitest.js';

const UNREACHABLE_PG = 'postgres://postgres@127.0.0.1:1/test';
const UNREACHABLE_REDIS = 'redis://127.0.0.1:1';

async function schemaExists(schema: string): Promise<boolean> {
  const { connectionString } = await findPostgres();
  return withClient(connectionString, async (client) => {
    const result = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema]);
    return result.rowCount === 1;
  });
}

// Registered before usePostgresSchema, so (hooks run as a stack) it runs after the drop.
let isolatedSchema = '';
afterAll(async () => {
  expect(isolatedSchema).toMatch(/^tk_[0-9a-f]{12}$/);
  expect(await schemaExists(isolatedSchema)).toBe(false);
});
const database = usePostgresSchema('tk');
const redisPrefix = useRedisPrefix('tk');

describe('PostgreSQL discovery', () => {
  it('finds the server this machine runs', async () => {
    const server = await findPostgres();
    expect(['env', 'local', 'container']).toContain(server.source);
    expect(await probePostgres(server.connectionString, 2_000)).toBeNull();
  });

  it('says what is wrong with a DATABASE_URL that does not answer', async () => {
    await expect(discoverPostgres({ env: { DATABASE_URL: UNREACHABLE_PG } })).rejects.toThrow(
      /DATABASE_URL is set but PostgreSQL does not answer/,
    );
  });

  it('says what to start when nothing answers and no container runtime exists', async () => {
    const runtime = await containerRuntimeAvailable();
    if (runtime.available) return; // here testcontainers would start one instead
    const error = await discoverPostgres({ env: {}, localUrl: UNREACHABLE_PG }).catch(
      (e: unknown) => e,
    );
    expect(String(error)).toMatch(/Start PostgreSQL: pg_ctlcluster .* or set DATABASE_URL/);
    expect(String(error)).toContain(runtime.reason);
  });

  it('gives each test file its own schema', async () => {
    const { schema } = database.get();
    isolatedSchema = schema;
    expect(await schemaExists(schema)).toBe(true);
  });
});

describe('Redis discovery', () => {
  it('finds the server this machine runs', async () => {
    const server = await findRedis();
    expect(['env', 'local', 'container']).toContain(server.source);
  });

  it('says what to start when nothing answers and no container runtime exists', async () => {
    await expect(discoverRedis({ env: { REDIS_URL: UNREACHABLE_REDIS } })).rejects.toThrow(
      /REDIS_URL is set/,
    );
    const runtime = await containerRuntimeAvailable();
    if (runtime.available) return;
    await expect(discoverRedis({ env: {}, localUrl: UNREACHABLE_REDIS })).rejects.toThrow(
      /Start Redis: redis-server/,
    );
  });

  it('cleans only the keys under its own prefix', async () => {
    const mine = redisPrefix.get();
    const other = await isolatedRedisPrefix('tk_other');
    expect(mine.prefix).not.toBe(other.prefix);
    const redis = new Redis(mine.url);
    try {
      await redis.set(`${mine.prefix}a`, '1');
      await redis.set(`${other.prefix}a`, '1');
      expect(await other.cleanup()).toBe(1);
      expect(await redis.get(`${mine.prefix}a`)).toBe('1');
      expect(await redis.get(`${other.prefix}a`)).toBeNull();
    } finally {
      redis.disconnect();
    }
  });
});

describe('container runtime probe', () => {
  it('answers with a reason either way', async () => {
    const runtime = await containerRuntimeAvailable();
    expect(typeof runtime.available).toBe('boolean');
    expect(runtime.reason.length).toBeGreaterThan(0);
  });
});
