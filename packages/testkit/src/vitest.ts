import { afterAll, beforeAll } from 'vitest';
import { isolatedPostgres, type IsolatedPostgres } from './postgres.js';
import { isolatedRedisPrefix, type IsolatedRedisPrefix } from './redis.js';

/** A value that exists between a file's beforeAll and afterAll. */
export interface Lazy<T> {
  get(): T;
}

function lazy<T>(what: string): { value: T | undefined; handle: Lazy<T> } {
  const box: { value: T | undefined; handle: Lazy<T> } = {
    value: undefined,
    handle: {
      get() {
        if (box.value === undefined)
          throw new Error(`${what} is only available inside tests (after beforeAll)`);
        return box.value;
      },
    },
  };
  return box;
}

/** Gives the current test file its own PostgreSQL schema, dropped in afterAll. */
export function usePostgresSchema(prefix = 't'): Lazy<IsolatedPostgres> {
  const box = lazy<IsolatedPostgres>('usePostgresSchema()');
  beforeAll(async () => {
    box.value = await isolatedPostgres(prefix);
  });
  afterAll(async () => {
    await box.value?.drop();
  });
  return box.handle;
}

/** Gives the current test file its own Redis key prefix, whose keys are deleted in afterAll. */
export function useRedisPrefix(name = 't'): Lazy<IsolatedRedisPrefix> {
  const box = lazy<IsolatedRedisPrefix>('useRedisPrefix()');
  beforeAll(async () => {
    box.value = await isolatedRedisPrefix(name);
  });
  afterAll(async () => {
    await box.value?.cleanup();
  });
  return box.handle;
}
