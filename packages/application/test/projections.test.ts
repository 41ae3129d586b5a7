import {
  EventStoreClosedError,
  MemoryEventStore,
  type EventStore,
  type RecordedEvent,
} from '@croupier/eventstore';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ProjectionHub, randomId, type Projection } from '../src/index.js';

class Totals implements Projection {
  readonly name = 'totals';
  total = 0;
  seen = 0;
  apply(event: RecordedEvent): void {
    this.seen++;
    this.total += (event.data as { amount: number }).amount;
  }
  reset(): void {
    this.total = 0;
    this.seen = 0;
  }
}

class Broken implements Projection {
  readonly name = 'broken';
  apply(): void {
    throw new Error('always fails');
  }
  reset(): void {}
}

/**
 * The hub reads the store's global log; nothing here is about storage, so each test takes a
 * fresh in-memory store. It polls every 10 s: a test that sees a new event without waiting has
 * seen `sync()` read it.
 */
describe('the projection hub', () => {
  let store: EventStore;
  let hub: ProjectionHub;
  let errors: unknown[];
  beforeEach(async () => {
    store = new MemoryEventStore();
    for (let i = 1; i <= 5; i++) await append(`s-${i}`, i);
    errors = [];
    hub = new ProjectionHub(store, { pollIntervalMs: 10_000, onError: (e) => errors.push(e) });
  });
  afterEach(async () => {
    await hub.stop();
    await store.close();
  });

  const append = (stream: string, amount: number) =>
    store.append(stream, [{ id: randomId(), type: 'Added', data: { amount } }], {
      expectedVersion: 'any',
    });

  it('has caught up with every stored event once started', async () => {
    const totals = hub.register(new Totals());
    await hub.start();
    expect(totals).toMatchObject({ total: 15, seen: 5 });
  });

  it('answers as of an event appended after start once synced, without waiting for a poll', async () => {
    const totals = hub.register(new Totals());
    await hub.start();
    await append('s-6', 100);
    await hub.sync();
    expect(totals).toMatchObject({ total: 115, seen: 6 });
  });

  it('rebuilds from the start: the same totals, each event applied once', async () => {
    const totals = hub.register(new Totals());
    await hub.start();
    await hub.rebuild();
    expect(totals).toMatchObject({ total: 15, seen: 5 });
  });

  it('keeps the other read models current when one of them fails, and reports it', async () => {
    hub.register(new Broken());
    const totals = hub.register(new Totals());
    await hub.start();
    await append('s-6', 100);
    await hub.sync();
    expect(totals.total).toBe(115);
    expect(errors.length).toBeGreaterThan(0);
  });

  it('fails a sync whose read fails, at once, instead of waiting for the store to come back', async () => {
    const totals = hub.register(new Totals());
    await hub.start();
    await store.close();
    // A request reading the projections answers (503) rather than hang while the store is out.
    await expect(hub.sync()).rejects.toBeInstanceOf(EventStoreClosedError);
    await expect(hub.sync()).rejects.toBeInstanceOf(EventStoreClosedError);
    expect(errors.length).toBeGreaterThanOrEqual(2);
    expect(totals.seen).toBe(5);
  });
});
