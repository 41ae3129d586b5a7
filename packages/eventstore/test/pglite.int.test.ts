import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { existsSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { createEventStore } from '../src/index.js';
import { eventStoreContract } from './contract.js';

const directories: string[] = [];
afterAll(async () => {
  await Promise.all(
    directories.map((directory) => rm(directory, { recursive: true, force: true })),
  );
});

eventStoreContract({
  name: 'pglite (file-backed)',
  open: async () => {
    const directory = await mkdtemp(join(tmpdir(), 'croupier-pglite-'));
    directories.push(directory);
    return createEventStore({
      kind: 'pglite',
      dataDir: directory,
      subscriptions: { lockRetryMs: 200 },
    });
  },
});

describe('pglite in a directory that does not exist yet', () => {
  it('creates it and its parents (a first start with DATA_DIR missing)', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'croupier-pglite-'));
    directories.push(directory);
    const dataDir = join(directory, 'data', 'eventstore');
    const store = await createEventStore({ kind: 'pglite', dataDir });
    try {
      expect(existsSync(dataDir)).toBe(true);
      expect(await store.readStream('nothing-here')).toEqual([]);
    } finally {
      await store.close();
    }
  });
});
