import { describe, expect, it } from 'vitest';
import {
  createEventStore,
  decodePosition,
  EventStoreClosedError,
  MemoryEventStore,
  WrongExpectedVersionError,
  type EventStore,
} from '../src/index.js';
import { eventStoreContract } from './contract.js';
import { event, events, eventually, record, rejection, sleep, uniqueName } from './support.js';

eventStoreContract({
  name: 'memory',
  open: () => createEventStore({ kind: 'memory' }),
  detectsDuplicateIdsAcrossStreams: true,
  checkpointsFilteredEvents: true,
});

describe('memory event store', () => {
  it('of 16 appenders that each read the head and append at it, no two succeed at one revision', async () => {
    const store = new MemoryEventStore();
    const stream = uniqueName('race');
    const perWriter = 5;
    const won: bigint[] = [];
    let conflicts = 0;
    await Promise.all(
      Array.from({ length: 16 }, async (_, writer) => {
        for (let appended = 0; appended < perWriter;) {
          const [head] = await store.readStream(stream, { direction: 'backwards', limit: 1 });
          try {
            const result = await store.append(stream, [event('Claimed', { writer, appended })], {
              expectedVersion: head ? head.revision : 'no-stream',
            });
            won.push(result.revision);
            appended += 1;
          } catch (error) {
            expect(error).toBeInstanceOf(WrongExpectedVersionError);
            conflicts += 1;
          }
        }
      }),
    );
    const total = 16 * perWriter;
    expect([...won].sort((a, b) => (a < b ? -1 : 1))).toEqual(
      Array.from({ length: total }, (_, revision) => BigInt(revision)),
    );
    // The writers did interleave: without conflicts this would test nothing.
    expect(conflicts).toBeGreaterThan(0);
    expect(await store.readStream(stream)).toHaveLength(total);
    expect(await store.verifyStream(stream)).toMatchObject({ ok: true, events: total });
    await store.close();
  });

  it("gives positions the SQL stores' shape: one transaction per append, gaps between appends", async () => {
    const store = new MemoryEventStore();
    const stream = uniqueName('shape');
    const first = await store.append(stream, events(1), { expectedVersion: 'no-stream' });
    const batch = await store.append(stream, events(3), { expectedVersion: 0n });
    const [one, two, three, four] = (await store.readStream(stream)).map((e) =>
      decodePosition(e.position),
    );
    expect(one).toEqual({ transactionId: 1n, sequence: 1n });
    expect([two, three, four]).toEqual([
      { transactionId: 2n, sequence: 2n },
      { transactionId: 2n, sequence: 3n },
      { transactionId: 2n, sequence: 4n },
    ]);
    expect(batch.position - first.position).toBeGreaterThan(2n ** 64n);
    expect(Number.isSafeInteger(Number(first.position))).toBe(false);
    // Any bigint is a place in the log, between events too.
    const afterGap = await store.readAll({ after: first.position + 1n });
    expect(afterGap).toHaveLength(3);
    expect(afterGap[0]?.position).toBeGreaterThan(first.position + 1n);
    await store.close();
  });

  it('keeps what was appended: neither the caller nor a reader can change stored events', async () => {
    const store = new MemoryEventStore();
    const stream = uniqueName('copy');
    const data = { amount: 5, tags: ['a'] };
    const batch = [event('Deposited', data, { actor: 'p1' })];
    const pending = store.append(stream, batch, { expectedVersion: 'no-stream' });
    data.amount = 500;
    batch.push(event('Forged'));
    await pending;
    const stored = await store.readStream(stream);
    expect(stored).toHaveLength(1);
    const [read] = stored;
    expect(read?.data).toEqual({ amount: 5, tags: ['a'] });
    (read?.data as { tags: string[] }).tags.push('b');
    (read?.metadata as Record<string, unknown>)['actor'] = 'mallory';
    const [again] = await store.readStream(stream);
    expect(again?.data).toEqual({ amount: 5, tags: ['a'] });
    expect(again?.metadata['actor']).toBe('p1');
    expect(await store.verifyStream(stream)).toMatchObject({ ok: true, events: 1 });
    await store.close();
  });

  it('gives every store its own log', async () => {
    const stream = uniqueName('own');
    const one = await createEventStore({ kind: 'memory' });
    const two = await createEventStore({ kind: 'memory' });
    await one.append(stream, events(2), { expectedVersion: 'no-stream' });
    expect(await two.readStream(stream)).toEqual([]);
    expect(await two.readAll()).toEqual([]);
    await two.append(stream, events(1), { expectedVersion: 'no-stream' });
    await Promise.all([one.close(), two.close()]);
  });

  it('close() waits for the handler in flight, stops the subscriptions, then refuses every call', async () => {
    const store: EventStore = new MemoryEventStore();
    const stream = uniqueName('close');
    let started = false;
    let finished = false;
    const slow = record(store, {
      name: uniqueName('slow'),
      handler: async () => {
        started = true;
        await sleep(200);
        finished = true;
      },
    });
    await store.append(stream, events(2), { expectedVersion: 'no-stream' });
    await eventually(() => started, Boolean, { what: 'handler start' });
    await store.close();
    expect(finished).toBe(true);
    expect(slow.received).toHaveLength(1);
    await store.close();
    for (const call of [
      store.append(stream, events(1), { expectedVersion: 'any' }),
      store.readStream(stream),
      store.readAll(),
      store.verifyStream(stream),
    ]) {
      expect(await rejection(call)).toBeInstanceOf(EventStoreClosedError);
    }
    expect(() => store.subscribe({ name: 'late', handler: () => Promise.resolve() })).toThrow(
      EventStoreClosedError,
    );
  });
});
