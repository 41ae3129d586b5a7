import {
  createEventStore,
  EventStoreClosedError,
  type EventStore,
  type RecordedEvent,
} from '@croupier/eventstore';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

describe('the projection hub on PGlite', () => {
  let store: EventStore;
  beforeAll(async () => {
    store = await createEventStore({ kind: 'pglite', dataDir: 'memory://' });
  });
  afterAll(async () => {
    await store.close();
  });

  const append = (stream: string, amount: number) =>
    store.append(stream, [{ id: randomId(), type: 'Added', data: { amount } }], {
      expectedVersion: 'any',
    });

  it('catches up, tails, answers as of any committed event after sync, and rebuilds', async () => {
    for (let i = 1; i <= 5; i++) await append(`s-${i}`, i);
    const errors: unknown[] = [];
    const hub = new ProjectionHub(store, {
      pollIntervalMs: 10_000,
      onError: (e) => errors.push(e),
    });
    const totals = hub.register(new Totals());
    hub.register(new Broken()); // a faulty read model must not stall the others
    await hub.start();
    expect(totals.total).toBe(15);
    await append('s-6', 100);
    await hub.sync(); // no poll for 10 s: sync must read it now
    expect(totals.total).toBe(115);
    expect(totals.seen).toBe(6);
    await hub.rebuild();
    expect(totals).toMatchObject({ total: 115, seen: 6 });
    expect(errors.length).toBeGreaterThan(0);
    await hub.stop();
  });

  it('fails a sync whose read fails, at once, instead of waiting for the store to come back', async () => {
    const away = await createEventStore({ kind: 'pglite', dataDir: 'memory://' });
    const errors: unknown[] = [];
    const hub = new ProjectionHub(away, { pollIntervalMs: 10_000, onError: (e) => errors.push(e) });
    const totals = hub.register(new Totals());
    await hub.start();
    await away.close();
    // A request reading the projections answers (503) rather than hang while the store is out.
    await expect(hub.sync()).rejects.toBeInstanceOf(EventStoreClosedError);
    await expect(hub.sync()).rejects.toBeInstanceOf(EventStoreClosedError);
    expect(errors.length).toBeGreaterThanOrEqual(2);
    expect(totals.seen).toBe(0);
    await hub.stop();
  });
});
