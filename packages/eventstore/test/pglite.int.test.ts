import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
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
