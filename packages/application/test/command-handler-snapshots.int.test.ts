import {
  createEventStore,
  openSnapshotStorage,
  type EventStore,
  type ReadStreamOptions,
  type RecordedEvent,
  type SnapshotStorage,
} from '@croupier/eventstore';
import { isolatedPostgres, withClient, type IsolatedPostgres } from '@croupier/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CommandHandler, type Aggregate, type SnapshotRefusal } from '../src/index.js';
import { add, aggregate as counter, context, type Command, type Event } from './counter.js';

const aggregate: Aggregate<Command, Event, number> = {
  ...counter,
  snapshot: { version: 1, encode: (total) => total, decode: (json) => json as number },
};
const KEY = 'a snapshot key of at least thirty-two characters';

/** Counts the events a store's stream reads return. */
function counting(store: EventStore): EventStore & { eventsRead: number } {
  const counted = {
    eventsRead: 0,
    append: store.append.bind(store),
    readAll: store.readAll.bind(store),
    head: store.head.bind(store),
    subscribe: store.subscribe.bind(store),
    verifyStream: store.verifyStream.bind(store),
    close: store.close.bind(store),
    readStream: async (stream: string, options?: ReadStreamOptions) => {
      const events: RecordedEvent[] = await store.readStream(stream, options);
      counted.eventsRead += events.length;
      return events;
    },
  };
  return counted;
}

/** Appends `count` counter events in batches, as a long-lived wallet would have them. */
async function longStream(store: EventStore, stream: string, count: number): Promise<void> {
  for (let at = 0; at < count; at += 500) {
    const size = Math.min(500, count - at);
    await store.append(
      stream,
      Array.from({ length: size }, () => ({
        id: crypto.randomUUID(),
        type: 'Added',
        data: { amount: 1 },
      })),
      { expectedVersion: at === 0 ? 'no-stream' : BigInt(at - 1) },
    );
  }
}

describe.each([
  ['PostgreSQL', 'postgres'],
  ['PGlite', 'pglite'],
] as const)('snapshots on %s (ADR 0025)', (_name, kind) => {
  let postgres: IsolatedPostgres | null = null;
  let store: EventStore;
  let storage: SnapshotStorage;
  beforeAll(async () => {
    if (kind === 'postgres') {
      postgres = await isolatedPostgres('snap');
      store = await createEventStore({
        kind,
        connectionString: postgres.connectionString,
        schema: postgres.schema,
      });
    } else store = await createEventStore({ kind, dataDir: 'memory://' });
    storage = await openSnapshotStorage(store);
  }, 60_000);
  afterAll(async () => {
    await store.close();
    await postgres?.drop();
  });

  const handler = (refusals: SnapshotRefusal[] = []) =>
    new CommandHandler(store, {
      snapshots: { storage, every: 100, key: KEY, onRefused: (r) => refusals.push(r) },
    });

  it('keeps the newest snapshot of a stream, and never answers an older one written later', async () => {
    const base = { aggregate: 'a', schemaVersion: 1, eventHash: 'h', digest: 'd' };
    await storage.save([{ ...base, stream: 's-1', revision: 5n, state: { n: 5 } }]);
    await storage.save([{ ...base, stream: 's-1', revision: 9n, state: { n: 9 } }]);
    await storage.save([{ ...base, stream: 's-1', revision: 7n, state: { n: 7 } }]);
    expect(await storage.latest('s-1', 'a')).toMatchObject({ revision: 9n, state: { n: 9 } });
    expect(await storage.latest('s-1', 'b')).toBeUndefined();
  });

  it('loads a long stream it has not cached from its snapshot alone', async () => {
    await longStream(store, 'long-1', 5_000);
    const first = handler();
    await first.load(aggregate, 'long-1'); // read whole once: it takes the snapshot
    await first.flushSnapshots();
    const counted = counting(store);
    const cold = new CommandHandler(counted, {
      snapshots: { storage, every: 100, key: KEY },
    });
    const handled = await cold.handle(aggregate, 'long-1', add(1), context);
    expect(handled).toMatchObject({ state: 5_001, revision: 5_000n });
    expect(counted.eventsRead).toBe(1); // the snapshot's own event, to check its hash
    expect(cold.stats().snapshots.used).toBe(1);
  });

  if (kind === 'postgres') {
    it('refuses a snapshot whose event was rewritten in the events table', async () => {
      await longStream(store, 'long-2', 300);
      const first = handler();
      await first.load(aggregate, 'long-2');
      await first.flushSnapshots();
      const snapshot = (await storage.latest('long-2', 'counter'))!;
      await withClient(postgres!.connectionString, (client) =>
        client.query(
          `UPDATE "${postgres!.schema}".events
             SET metadata = jsonb_set(metadata, '{hash}', to_jsonb(repeat('e', 64)))
           WHERE stream_name = 'long-2' AND stream_revision = $1`,
          [snapshot.revision.toString()],
        ),
      );
      const refusals: SnapshotRefusal[] = [];
      expect(await handler(refusals).load(aggregate, 'long-2')).toMatchObject({ state: 300 });
      expect(refusals).toMatchObject([{ stream: 'long-2', reason: 'chain' }]);
    });

    it('refuses a snapshot whose state was rewritten in the snapshot table', async () => {
      await longStream(store, 'long-3', 300);
      const first = handler();
      await first.load(aggregate, 'long-3');
      await first.flushSnapshots();
      await withClient(postgres!.connectionString, (client) =>
        client.query(
          `UPDATE "${postgres!.schema}".snapshots SET state = '1000000'::jsonb WHERE stream = 'long-3'`,
        ),
      );
      const refusals: SnapshotRefusal[] = [];
      expect(await handler(refusals).load(aggregate, 'long-3')).toMatchObject({ state: 300 });
      expect(refusals).toMatchObject([{ stream: 'long-3', reason: 'digest' }]);
    });

    it('keeps snapshots in a PostgreSQL database of their own for a store without one (EventStoreDB)', async () => {
      const separate = await openSnapshotStorage({} as EventStore, {
        connectionString: postgres!.connectionString,
        schema: postgres!.schema,
      });
      try {
        expect(await separate.latest('s-1', 'a')).toMatchObject({ revision: 9n });
      } finally {
        await separate.close();
      }
      await expect(openSnapshotStorage({} as EventStore)).rejects.toThrow(/DATABASE_URL/);
    });
  }
});
