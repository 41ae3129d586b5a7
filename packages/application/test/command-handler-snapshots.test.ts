import {
  MemoryEventStore,
  type ReadStreamOptions,
  type RecordedEvent,
  type Snapshot,
} from '@croupier/eventstore';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  CommandHandler,
  snapshotDigest,
  type Aggregate,
  type CommandHandlerOptions,
  type SnapshotRefusal,
} from '../src/index.js';
import { add, aggregate as counter, context, type Command, type Event } from './counter.js';

/** The counter, opting into snapshots (its state is a number: JSON as it is). */
const aggregate: Aggregate<Command, Event, number> = {
  ...counter,
  snapshot: { version: 1, encode: (total) => total, decode: (json) => json as number },
};

/** The memory store, counting the events its stream reads return. */
class CountingStore extends MemoryEventStore {
  eventsRead = 0;
  override async readStream(stream: string, options?: ReadStreamOptions): Promise<RecordedEvent[]> {
    const events = await super.readStream(stream, options);
    this.eventsRead += events.length;
    return events;
  }
}

const KEY = 'a snapshot key of at least thirty-two characters';

describe('the command handler with snapshots (ADR 0025)', () => {
  let store: CountingStore;
  let refusals: SnapshotRefusal[];
  const handler = async (options: Partial<CommandHandlerOptions> = {}, key = KEY) =>
    new CommandHandler(store, {
      snapshots: {
        storage: await store.openSnapshotStorage(),
        every: 10,
        key,
        onRefused: (refusal) => refusals.push(refusal),
      },
      ...options,
    });
  /** A stream of `count` events of 1, written through a handler that snapshots. */
  const written = async (stream: string, count: number) => {
    const writer = await handler();
    for (let i = 0; i < count; i++) await writer.handle(aggregate, stream, add(1), context);
    await writer.flushSnapshots();
    return writer;
  };
  beforeEach(() => {
    store = new CountingStore();
    refusals = [];
  });

  it('takes a snapshot every `every` events, off the command path', async () => {
    const writer = await written('c-1', 25);
    const snapshot = await (await store.openSnapshotStorage()).latest('c-1', 'counter');
    expect(snapshot).toMatchObject({ revision: 19n, state: 20, schemaVersion: 1 });
    // Revision 9's snapshot, still queued when 19's came, is written as 19's: one write.
    expect(writer.stats().snapshots.written).toBeGreaterThanOrEqual(1);
  });

  it('loads a stream it has not cached from its snapshot and the events after it', async () => {
    await written('c-2', 105);
    const cold = await handler();
    store.eventsRead = 0;
    const handled = await cold.handle(aggregate, 'c-2', add(1), context);
    expect(handled).toMatchObject({ state: 106, revision: 105n });
    // The snapshot's own event (checked against its hash) and the five after it: not 105.
    expect(store.eventsRead).toBe(1 + 5);
    expect(cold.stats().snapshots).toMatchObject({ used: 1, failures: 0 });
  });

  it('reads the stream whole, and says so, when the snapshot was changed', async () => {
    await written('c-3', 30);
    const storage = await store.openSnapshotStorage();
    const snapshot = (await storage.latest('c-3', 'counter'))!;
    storage.overwrite({ ...snapshot, state: 1_000 });
    const cold = await handler();
    store.eventsRead = 0;
    expect(await cold.load(aggregate, 'c-3')).toMatchObject({ state: 30, revision: 29n });
    expect(store.eventsRead).toBe(30);
    expect(refusals).toMatchObject([{ stream: 'c-3', revision: 29n, reason: 'digest' }]);
    expect(cold.stats().snapshots.refused.digest).toBe(1);
  });

  it('refuses a snapshot forged without the key, its digest recomputed', async () => {
    await written('c-4', 30);
    const storage = await store.openSnapshotStorage();
    const snapshot = (await storage.latest('c-4', 'counter'))!;
    const forged = { ...snapshot, state: 1_000 };
    storage.overwrite({ ...forged, digest: snapshotDigest('another key', forged) });
    expect(await (await handler()).load(aggregate, 'c-4')).toMatchObject({ state: 30 });
    expect(refusals).toMatchObject([{ reason: 'digest' }]);
  });

  it('refuses a snapshot that disagrees with the hash chain at its revision', async () => {
    await written('c-5', 30);
    const storage = await store.openSnapshotStorage();
    const snapshot = (await storage.latest('c-5', 'counter'))!;
    const elsewhere: Omit<Snapshot, 'digest'> = { ...snapshot, eventHash: 'f'.repeat(64) };
    storage.overwrite({ ...elsewhere, digest: snapshotDigest(KEY, elsewhere) });
    expect(await (await handler()).load(aggregate, 'c-5')).toMatchObject({ state: 30 });
    expect(refusals).toMatchObject([{ reason: 'chain' }]);
  });

  it('refuses a snapshot of a revision the stream does not hold', async () => {
    await written('c-6', 30);
    const storage = await store.openSnapshotStorage();
    const snapshot = (await storage.latest('c-6', 'counter'))!;
    const ahead: Omit<Snapshot, 'digest'> = { ...snapshot, revision: 40n, state: 41 };
    storage.overwrite({ ...ahead, digest: snapshotDigest(KEY, ahead) });
    expect(await (await handler()).load(aggregate, 'c-6')).toMatchObject({
      state: 30,
      revision: 29n,
    });
    expect(refusals).toMatchObject([{ reason: 'chain', revision: 40n }]);
  });

  it('ignores a snapshot of another schema version, and replaces it', async () => {
    await written('c-7', 30);
    const bumped = { ...aggregate, snapshot: { ...aggregate.snapshot!, version: 2 } };
    const cold = await handler();
    expect(await cold.load(bumped, 'c-7')).toMatchObject({ state: 30 });
    expect(refusals).toMatchObject([{ reason: 'schema-version' }]);
    await cold.flushSnapshots();
    const replaced = await (await store.openSnapshotStorage()).latest('c-7', 'counter');
    expect(replaced).toMatchObject({ schemaVersion: 2, revision: 29n });
  });

  it('snapshots a long stream it had to read whole, so the next cold load is short', async () => {
    const plain = new CommandHandler(store);
    for (let i = 0; i < 50; i++) await plain.handle(aggregate, 'c-8', add(1), context);
    const first = await handler();
    await first.load(aggregate, 'c-8');
    await first.flushSnapshots();
    store.eventsRead = 0;
    expect(await (await handler()).load(aggregate, 'c-8')).toMatchObject({ state: 50 });
    expect(store.eventsRead).toBe(1);
  });

  it('takes no snapshot of an aggregate that does not opt in', async () => {
    const writer = await handler();
    for (let i = 0; i < 25; i++) await writer.handle(counter, 'c-9', add(1), context);
    await writer.flushSnapshots();
    expect(await (await store.openSnapshotStorage()).latest('c-9', 'counter')).toBeUndefined();
  });

  it('takes snapshots of batched commands too', async () => {
    const writer = await handler();
    await Promise.all(
      Array.from({ length: 24 }, () => writer.handle(aggregate, 'c-10', add(1), context)),
    );
    await writer.flushSnapshots();
    const snapshot = await (await store.openSnapshotStorage()).latest('c-10', 'counter');
    expect(snapshot?.revision).toBeGreaterThanOrEqual(10n);
    expect(snapshot?.state).toBe(Number(snapshot!.revision) + 1);
  });

  it('refuses a snapshot policy that takes none', async () => {
    await expect(handler().then((h) => h)).resolves.toBeInstanceOf(CommandHandler);
    expect(
      () =>
        new CommandHandler(store, {
          snapshots: { storage: new MemoryEventStore() as never, every: 0 },
        }),
    ).toThrow(RangeError);
  });
});

describe('the bounded state cache', () => {
  it('counts hits, misses and evictions', async () => {
    const store = new MemoryEventStore();
    const commands = new CommandHandler(store, { cacheSize: 2 });
    for (const stream of ['s-1', 's-2', 's-3'])
      await commands.handle(counter, stream, add(1), context);
    await commands.handle(counter, 's-3', add(1), context);
    const { cache } = commands.stats();
    expect(cache).toMatchObject({ size: 2, capacity: 2, evictions: 1 });
    expect(cache.hits).toBeGreaterThanOrEqual(1);
    expect(cache.misses).toBeGreaterThanOrEqual(3);
  });
});
