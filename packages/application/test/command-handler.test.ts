import { DomainError } from '@croupier/contracts';
import { MemoryEventStore, type EventStore } from '@croupier/eventstore';
import { describe, expect, it } from 'vitest';
import { CommandHandler, type Aggregate } from '../src/index.js';
import { add, aggregate, context, counter, type Command, type Event } from './counter.js';

/**
 * The command handler's own rules, on the in-memory store: retries, per-stream queues, the state
 * cache and the one-writer check need no database. What PostgreSQL adds (two processes racing on
 * one table) stays in command-handler.int.test.ts.
 */
const append = (store: EventStore, stream: string, amount: number) =>
  store.append(stream, [{ id: crypto.randomUUID(), type: 'Added', data: { amount } }], {
    expectedVersion: 'any',
  });

/**
 * A store another process writes to: before each of the handler's next `times` appends, it
 * appends one event of its own to the same stream, so the handler's expected version is stale.
 */
class RacedStore extends MemoryEventStore {
  races = 0;
  readonly reads: { stream: string; from: bigint | undefined }[] = [];

  override async append(...args: Parameters<EventStore['append']>) {
    if (this.races > 0) {
      this.races--;
      await super.append(
        args[0],
        [{ id: crypto.randomUUID(), type: 'Added', data: { amount: 100 } }],
        { expectedVersion: 'any' },
      );
    }
    return super.append(...args);
  }

  override readStream(...args: Parameters<EventStore['readStream']>) {
    this.reads.push({ stream: args[0], from: args[1]?.from });
    return super.readStream(...args);
  }
}

/** A store whose reads of one stream wait until `open()`: a command held mid-way. */
class GatedStore extends MemoryEventStore {
  readonly #gate: Promise<void>;
  open!: () => void;

  constructor(private readonly gated: string) {
    super();
    this.#gate = new Promise((resolve) => (this.open = resolve));
  }

  override async readStream(...args: Parameters<EventStore['readStream']>) {
    if (args[0] === this.gated) await this.#gate;
    return super.readStream(...args);
  }
}

/** A store whose appends fail for a reason that is not a conflict. */
class FailingStore extends MemoryEventStore {
  appends = 0;

  override append(): ReturnType<EventStore['append']> {
    this.appends++;
    return Promise.reject(new Error('disk full'));
  }
}

/** A retry policy that records the attempts it was asked to wait after, and does not wait. */
function recordingRetry(maxAttempts: number) {
  const waitedAfter: number[] = [];
  return {
    waitedAfter,
    retry: {
      maxAttempts,
      backoff: (attempt: number) => {
        waitedAfter.push(attempt);
        return 0;
      },
    },
  };
}

describe('the command handler, retrying after a concurrent append', () => {
  it('decides again on the newer state and appends after the other writer', async () => {
    const store = new RacedStore();
    const { retry, waitedAfter } = recordingRetry(5);
    const commands = new CommandHandler(store, { retry });
    await commands.handle(aggregate, 'counter-a', add(1), context);
    store.races = 2;

    const handled = await commands.handle(aggregate, 'counter-a', add(5), context);

    expect(handled).toMatchObject({ state: 206, revision: 3n });
    // The first attempt decided on the cached state: its conflict only says the cache was behind,
    // so the handler reads at once; the second attempt's conflict is contention, and it waits.
    expect(waitedAfter).toEqual([2]);
    const amounts = (await store.readStream('counter-a')).map(
      (event) => (event.data as { amount: number }).amount,
    );
    expect(amounts).toEqual([1, 100, 100, 5]);
  });

  it('re-checks the rule on the newer state: a conflict can turn into a refusal', async () => {
    const store = new RacedStore();
    const commands = new CommandHandler(store, { retry: recordingRetry(5).retry });
    store.races = 1;

    await expect(
      commands.handle(aggregate, 'counter-b', add(5, 50), context),
    ).rejects.toMatchObject({ code: 'INSUFFICIENT_FUNDS' });
    expect(await store.readStream('counter-b')).toHaveLength(1); // the other writer's only
  });

  it('gives up with CONCURRENCY_CONFLICT after maxAttempts, having appended nothing', async () => {
    const store = new RacedStore();
    const { retry, waitedAfter } = recordingRetry(3);
    const commands = new CommandHandler(store, { retry });
    store.races = 3;

    await expect(commands.handle(aggregate, 'counter-c', add(5), context)).rejects.toMatchObject({
      code: 'CONCURRENCY_CONFLICT',
    });
    expect(waitedAfter).toEqual([1, 2]); // no wait after the last attempt
    const events = await store.readStream('counter-c');
    expect(events.map((event) => (event.data as { amount: number }).amount)).toEqual([
      100, 100, 100,
    ]);
  });

  it('passes on a store error that is not a conflict, without retrying', async () => {
    const store = new FailingStore();
    const { retry, waitedAfter } = recordingRetry(5);
    const commands = new CommandHandler(store, { retry });

    await expect(commands.handle(aggregate, 'counter-d', add(1), context)).rejects.toThrow(
      'disk full',
    );
    expect(waitedAfter).toEqual([]);
    expect(store.appends).toBe(1);
  });

  it('refuses a policy of no attempts or a negative cache when it is made', () => {
    const store = new MemoryEventStore();
    expect(
      () => new CommandHandler(store, { retry: { maxAttempts: 0, backoff: () => 0 } }),
    ).toThrow(RangeError);
    expect(() => new CommandHandler(store, { cacheSize: -1 })).toThrow(RangeError);
  });
});

describe('the command handler, one stream at a time', () => {
  it('runs concurrent commands on one stream one after another: none conflicts', async () => {
    const store = new RacedStore();
    const { retry, waitedAfter } = recordingRetry(1); // a single conflict would fail the command
    const commands = new CommandHandler(store, { retry });

    const results = await Promise.allSettled(
      Array.from({ length: 30 }, () =>
        commands.handle(aggregate, 'counter-e', add(1, 25), context),
      ),
    );

    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(25);
    const refused = results.flatMap((r) =>
      r.status === 'rejected' ? [(r.reason as DomainError).code] : [],
    );
    expect(refused).toEqual(Array(5).fill('INSUFFICIENT_FUNDS'));
    expect(waitedAfter).toEqual([]);
  });

  it('does not hold one stream behind another', async () => {
    const store = new GatedStore('counter-f');
    const commands = new CommandHandler(store);
    const waiting = commands.handle(aggregate, 'counter-f', add(1), context);

    // counter-f's command is still reading its stream; counter-g goes ahead of it.
    await expect(commands.handle(aggregate, 'counter-g', add(2), context)).resolves.toMatchObject({
      state: 2,
    });
    expect(await store.readAll({ limit: 10, filter: { streamPrefix: 'counter-f' } })).toEqual([]);
    store.open();
    await expect(waiting).resolves.toMatchObject({ state: 1 });
  });

  it('runs the next command on a stream after one that failed', async () => {
    const commands = new CommandHandler(new MemoryEventStore());
    const refused = commands.handle(aggregate, 'counter-h', add(5, 1), context);
    const next = commands.handle(aggregate, 'counter-h', add(1, 1), context);

    await expect(refused).rejects.toMatchObject({ code: 'INSUFFICIENT_FUNDS' });
    await expect(next).resolves.toMatchObject({ state: 1, revision: 0n });
  });
});

describe('the command handler, caching folded states', () => {
  it('decides on the state it holds without reading the stream (ADR 0020)', async () => {
    const store = new RacedStore();
    const commands = new CommandHandler(store);
    await commands.handle(aggregate, 'counter-i', add(1), context);
    await commands.handle(aggregate, 'counter-i', add(2), context);
    store.reads.length = 0;

    const handled = await commands.handle(aggregate, 'counter-i', add(3), context);

    expect(handled).toMatchObject({ state: 6, revision: 2n });
    expect(store.reads).toEqual([]);
    expect(commands.cachedStates).toBe(1);
  });

  it('after a conflict, reads only the events after the revision it holds', async () => {
    const store = new RacedStore();
    const commands = new CommandHandler(store);
    await commands.handle(aggregate, 'counter-i2', add(1), context);
    await commands.handle(aggregate, 'counter-i2', add(2), context);
    store.reads.length = 0;
    store.races = 1;

    await commands.handle(aggregate, 'counter-i2', add(3), context);

    expect(store.reads).toEqual([{ stream: 'counter-i2', from: 2n }]);
  });

  it('folds what another writer appended after the state it cached', async () => {
    const store = new MemoryEventStore();
    const commands = new CommandHandler(store);
    await commands.handle(aggregate, 'counter-j', add(1), context);
    await append(store, 'counter-j', 10);

    expect(await commands.load(aggregate, 'counter-j')).toEqual({ state: 11, revision: 1n });
  });

  it('keeps at most cacheSize states per aggregate, the least recently used out first', async () => {
    const store = new RacedStore();
    const commands = new CommandHandler(store, { cacheSize: 2 });
    await commands.handle(aggregate, 'counter-k1', add(1), context);
    await commands.handle(aggregate, 'counter-k2', add(1), context);
    await commands.load(aggregate, 'counter-k1'); // k1 used last: k2 is the one to go
    await commands.handle(aggregate, 'counter-k3', add(1), context);
    store.reads.length = 0;

    await commands.load(aggregate, 'counter-k1');
    await commands.load(aggregate, 'counter-k2');

    expect(commands.cachedStates).toBe(2);
    expect(store.reads).toEqual([
      { stream: 'counter-k1', from: 1n }, // held: only what came after
      { stream: 'counter-k2', from: undefined }, // evicted: read whole
    ]);
  });

  it('keeps states per aggregate: another decider on the same stream folds its own', async () => {
    const store = new MemoryEventStore();
    const commands = new CommandHandler(store);
    const doubled: Aggregate<Command, Event, number> = {
      ...aggregate,
      name: 'doubled',
      decider: { ...counter, evolve: (total, event) => total + 2 * event.data.amount },
    };
    await commands.handle(aggregate, 'counter-l', add(3), context);

    expect((await commands.load(doubled, 'counter-l')).state).toBe(6);
    expect((await commands.load(aggregate, 'counter-l')).state).toBe(3);
  });

  it('caches nothing with cacheSize 0: every load reads the whole stream', async () => {
    const store = new RacedStore();
    const commands = new CommandHandler(store, { cacheSize: 0 });
    await commands.handle(aggregate, 'counter-m', add(1), context);
    store.reads.length = 0;

    await commands.load(aggregate, 'counter-m');

    expect(commands.cachedStates).toBe(0);
    expect(store.reads).toEqual([{ stream: 'counter-m', from: undefined }]);
  });
});

describe('the command handler, one writer per event type', () => {
  it('refuses an event type its aggregate does not declare, appending nothing', async () => {
    const store = new MemoryEventStore();
    const commands = new CommandHandler(store);
    const rogue: Aggregate<Command, Event, number> = { ...aggregate, name: 'rogue', writes: [] };

    await expect(commands.handle(rogue, 'counter-n', add(1), context)).rejects.toThrow(
      /rogue decided Added, an event type it does not write/,
    );
    expect(await store.readStream('counter-n')).toHaveLength(0);
  });

  it('refuses a batch with one undeclared type among declared ones, appending none of it', async () => {
    type Mixed = Event | { type: 'Removed'; data: { amount: number } };
    const store = new MemoryEventStore();
    const commands = new CommandHandler(store);
    const mixed: Aggregate<Command, Mixed, number> = {
      name: 'mixed',
      writes: ['Added'],
      decider: {
        initialState: () => 0,
        evolve: (total) => total,
        decide: () => [
          { type: 'Added', data: { amount: 1 } },
          { type: 'Removed', data: { amount: 1 } },
        ],
      },
      parse: (recorded) => recorded as unknown as Mixed,
    };

    await expect(commands.handle(mixed, 'counter-o', add(1), context)).rejects.toThrow(
      /mixed decided Removed/,
    );
    expect(await store.readStream('counter-o')).toHaveLength(0);
  });
});

describe('the command handler, events that must read back', () => {
  /** The counter, with a schema: amounts above 1,000 are not events it can read back. */
  const strict: Aggregate<Command, Event, number> = {
    ...aggregate,
    name: 'strict-counter',
    parse: (event) => {
      const amount = (event.data as { amount?: unknown }).amount;
      if (event.type !== 'Added' || typeof amount !== 'number' || amount > 1_000)
        throw new Error(`not an Added event: ${JSON.stringify(event.data)}`);
      return event as Event;
    },
  };

  it('refuses to append an event its own schema refuses, appending nothing', async () => {
    const store = new MemoryEventStore();
    const commands = new CommandHandler(store);
    await commands.handle(strict, 'counter-s', add(5), context);
    await expect(commands.handle(strict, 'counter-s', add(5_000), context)).rejects.toThrow(
      'strict-counter decided a Added its schema refuses; nothing was appended',
    );
    expect(await store.readStream('counter-s')).toHaveLength(1);
  });
});
