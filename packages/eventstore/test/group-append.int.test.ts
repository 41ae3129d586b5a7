import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { usePostgresSchema } from '@croupier/testkit/vitest';
import { withClient } from '@croupier/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  chainHash,
  createEventStore,
  decodePosition,
  DuplicateEventIdError,
  GENESIS_HASH,
  WrongExpectedVersionError,
  type AppendResult,
  type EventStore,
  type GroupAppendTuning,
} from '../src/index.js';
import { event, events, uniqueName } from './support.js';

/**
 * Group commit (ADR 0021): appends sent while one is in flight share one transaction, and each
 * keeps its own outcome. With one group in flight, appends started in the same tick go as: the
 * first alone, all the others as one group behind it.
 */
const database = usePostgresSchema('es_group');
const directories: string[] = [];
afterAll(async () => {
  await Promise.all(
    directories.map((directory) => rm(directory, { recursive: true, force: true })),
  );
});

const ONE_IN_FLIGHT: Partial<GroupAppendTuning> = { maxGroupsInFlight: 1 };

const targets: {
  name: string;
  open: (appends: Partial<GroupAppendTuning>) => Promise<EventStore>;
}[] = [
  {
    name: 'postgres',
    open: (appends) =>
      createEventStore({
        kind: 'postgres',
        connectionString: database.get().connectionString,
        schema: database.get().schema,
        appends,
      }),
  },
  {
    name: 'pglite',
    open: async (appends) => {
      const directory = await mkdtemp(join(tmpdir(), 'croupier-group-'));
      directories.push(directory);
      return createEventStore({ kind: 'pglite', dataDir: directory, appends });
    },
  },
];

const transactionOf = (result: AppendResult): bigint =>
  decodePosition(result.position).transactionId;

for (const target of targets) {
  describe(`group commit: ${target.name}`, () => {
    let store: EventStore;
    let ungrouped: EventStore;
    beforeAll(async () => {
      // Both opened here, under the hook's longer deadline: PGlite takes a while to start.
      [store, ungrouped] = await Promise.all([
        target.open(ONE_IN_FLIGHT),
        target.open({ groupCommit: false }),
      ]);
    });
    afterAll(async () => {
      await Promise.all([store.close(), ungrouped.close()]);
    });

    it('sends the appends that wait behind one in flight as one transaction', async () => {
      const streams = Array.from({ length: 8 }, () => uniqueName('grouped'));
      const results = await Promise.all(
        streams.map((stream) => store.append(stream, events(2), { expectedVersion: 'no-stream' })),
      );
      const [first, ...grouped] = results;
      expect(new Set(grouped.map(transactionOf)).size).toBe(1);
      expect(transactionOf(grouped[0]!)).not.toBe(transactionOf(first!));
      // Positions still order the events: in the group, by stream name (the lock order).
      const positions = grouped.map((result) => result.position);
      expect(new Set(positions).size).toBe(grouped.length);
      for (const [index, stream] of streams.entries()) {
        expect(results[index]).toMatchObject({ revision: 1n, idempotent: false });
        expect(await store.verifyStream(stream)).toMatchObject({ ok: true, events: 2 });
      }
    });

    it('gives each append of a group its own outcome: a conflict, a retry or a duplicate fails no other', async () => {
      const existing = uniqueName('existing');
      const retried = uniqueName('retried');
      const reused = uniqueName('reused');
      await store.append(existing, events(1), { expectedVersion: 'no-stream' });
      const original = [event('Original')];
      const stored = await store.append(retried, original, { expectedVersion: 'no-stream' });
      const elsewhere = event('StoredElsewhere');
      await store.append(reused, [elsewhere], { expectedVersion: 'no-stream' });

      const fresh = Array.from({ length: 4 }, () => uniqueName('fresh'));
      const outcomes = await Promise.allSettled([
        store.append(uniqueName('leader'), events(1), { expectedVersion: 'no-stream' }),
        store.append(existing, events(1), { expectedVersion: 5n }),
        store.append(existing, events(1), { expectedVersion: 'no-stream' }),
        store.append(retried, original, { expectedVersion: 'any' }),
        store.append(uniqueName('thief'), [elsewhere], { expectedVersion: 'any' }),
        ...fresh.map((stream) => store.append(stream, events(3), { expectedVersion: 'no-stream' })),
      ]);
      const [, wrongVersion, wrongNoStream, retry, duplicate, ...written] = outcomes;
      expect(wrongVersion).toMatchObject({
        status: 'rejected',
        reason: expect.any(WrongExpectedVersionError) as unknown,
      });
      expect((wrongVersion as PromiseRejectedResult).reason).toMatchObject({ actual: 0n });
      expect((wrongNoStream as PromiseRejectedResult).reason).toBeInstanceOf(
        WrongExpectedVersionError,
      );
      expect(retry).toEqual({ status: 'fulfilled', value: { ...stored, idempotent: true } });
      expect((duplicate as PromiseRejectedResult).reason).toBeInstanceOf(DuplicateEventIdError);
      const values = written.map((outcome) => {
        expect(outcome.status).toBe('fulfilled');
        return (outcome as PromiseFulfilledResult<AppendResult>).value;
      });
      // The stored id sent the group again with the lookup, still as one group.
      expect(new Set(values.map(transactionOf)).size).toBe(1);
      for (const stream of fresh) {
        expect(await store.verifyStream(stream)).toMatchObject({ ok: true, events: 3 });
      }
      expect(await store.readStream(existing)).toHaveLength(1);
    });

    it('appends to one stream twice in a group, one after the other', async () => {
      const stream = uniqueName('twice');
      const outcomes = await Promise.all([
        store.append(uniqueName('leader'), events(1), { expectedVersion: 'no-stream' }),
        store.append(stream, events(2), { expectedVersion: 'no-stream' }),
        store.append(stream, events(2), { expectedVersion: 1n }),
        store.append(stream, events(1), { expectedVersion: 'any' }),
      ]);
      expect(outcomes.slice(1).map((result) => result.revision)).toEqual([1n, 3n, 4n]);
      expect(await store.verifyStream(stream)).toMatchObject({ ok: true, events: 5 });
    });

    it('hashes on either side the same chain: client for exact versions, database otherwise', async () => {
      const stream = uniqueName('sides');
      const batches = [events(2), events(1), events(3), events(1)];
      await store.append(stream, batches[0]!, { expectedVersion: 'no-stream' }); // client
      await store.append(stream, batches[1]!, { expectedVersion: 'any' }); // database
      await store.append(stream, batches[2]!, { expectedVersion: 2n }); // client (cached head)
      await store.append(stream, batches[3]!, { expectedVersion: 'exists' }); // database
      let previous = GENESIS_HASH;
      const stored = await store.readStream(stream);
      stored.forEach((recorded, index) => {
        expect(recorded.metadata['prevHash']).toBe(previous);
        previous = chainHash(previous, batches.flat()[index]!);
        expect(recorded.metadata['hash']).toBe(previous);
      });
      expect(stored).toHaveLength(7);
    });

    it('with group commit off, concurrent appends are separate transactions', async () => {
      const results = await Promise.all(
        Array.from({ length: 4 }, () =>
          ungrouped.append(uniqueName('alone'), events(1), { expectedVersion: 'no-stream' }),
        ),
      );
      expect(new Set(results.map(transactionOf)).size).toBe(4);
    });
  });
}

describe('group commit: postgres, a head the client remembers wrongly', () => {
  it('is hashed again by the database from the stored head', async () => {
    const store = await createEventStore({
      kind: 'postgres',
      connectionString: database.get().connectionString,
      schema: database.get().schema,
    });
    try {
      const stream = uniqueName('stale');
      await store.append(stream, events(1), { expectedVersion: 'no-stream' });
      // Only a rewritten head can disagree with what this store appended; simulate one.
      const rewritten = 'f'.repeat(64);
      await withClient(database.get().connectionString, (client) =>
        client.query(
          `UPDATE "${database.get().schema}".streams SET last_hash = $2 WHERE stream_name = $1`,
          [stream, rewritten],
        ),
      );
      const next = event('AfterRewrite');
      expect(await store.append(stream, [next], { expectedVersion: 0n })).toMatchObject({
        revision: 1n,
      });
      const [, recorded] = await store.readStream(stream);
      expect(recorded?.metadata['prevHash']).toBe(rewritten);
      expect(recorded?.metadata['hash']).toBe(chainHash(rewritten, next));
    } finally {
      await store.close();
    }
  });
});
