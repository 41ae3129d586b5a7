import type { EventStore, ProjectionStorage } from '@croupier/eventstore';
import { afterEach, beforeEach, describe, expect, it as vitestIt } from 'vitest';
import {
  ProjectionError,
  type DocumentSet,
  type DurableProjection,
  ProjectionLagError,
  ProjectionRunner,
  ProjectionStoppedError,
  randomId,
} from '../src/index.js';
import { TallyProjection, type Tally } from './tally.js';

export interface RunnerFixture {
  readonly store: EventStore;
  readonly storage: ProjectionStorage;
  close(): Promise<void>;
}

/**
 * The runner's behaviour on one storage (memory, PGlite, PostgreSQL: the same code). Runners poll
 * every 10 s, so a test that sees a change without waiting has seen a wake-up or `sync()` do it.
 */
export function projectionRunnerSuite(
  kind: string,
  open: () => Promise<RunnerFixture>,
  /** Names (their start) of the only tests to run: where each fixture is slow to make. */
  only?: readonly string[],
): void {
  const it = (name: string, test: () => Promise<void>) => {
    const run = only === undefined || only.some((start) => name.startsWith(start));
    (run ? vitestIt : vitestIt.skip)(name, test);
  };
  describe(`the projection runner (${kind})`, () => {
    let store: EventStore;
    let storage: ProjectionStorage;
    let fixture: RunnerFixture;
    const runners: ProjectionRunner[] = [];
    beforeEach(async () => {
      fixture = await open();
      ({ store, storage } = fixture);
    });
    afterEach(async () => {
      await Promise.all(runners.splice(0).map((runner) => runner.stop()));
      await fixture.close();
    });

    const runner = (options: ConstructorParameters<typeof ProjectionRunner>[2] = {}) => {
      const made = new ProjectionRunner(store, storage, {
        pollIntervalMs: 10_000,
        lockRetryMs: 20,
        ...options,
      });
      runners.push(made);
      return made;
    };
    const add = async (stream: string, amount: number, extra: object = {}) =>
      (
        await store.append(
          stream,
          [{ id: randomId(), type: 'Added', data: { amount, ...extra } }],
          {
            expectedVersion: 'any',
          },
        )
      ).position;
    const tally = (key: string, model = 'tally') => storage.get(model, key) as Promise<Tally>;

    it('starts caught up with the log, each event applied once, in its stream order', async () => {
      for (let i = 0; i < 7; i++) await add(`s-${i % 3}`, i);
      const live = runner({ batchSize: 2 });
      live.register(new TallyProjection());
      await live.start();
      expect(await tally('s-0')).toEqual({ revisions: ['0', '1', '2'], total: 0 + 3 + 6 });
      expect(await tally('s-2')).toEqual({ revisions: ['0', '1'], total: 2 + 5 });
      // Several documents in one read: those that exist, by key.
      const many = await storage.getMany('tally', ['s-1', 's-2', 'none']);
      expect([...many.keys()].sort()).toEqual(['s-1', 's-2']);
      expect(many.get('s-1')).toEqual({ revisions: ['0', '1'], total: 1 + 4 });
    });

    it('reads its own writes: sync() waits for what this process appended', async () => {
      const live = runner();
      live.register(new TallyProjection());
      await live.start();
      live.noteAppended(await add('s', 5));
      await live.sync();
      expect(await tally('s')).toMatchObject({ total: 5 });
    });

    it('restarts from its checkpoint, not from the first event', async () => {
      for (let i = 0; i < 5; i++) await add('s', 1);
      const first = runner();
      first.register(new TallyProjection());
      await first.start();
      await first.stop();
      for (let i = 0; i < 3; i++) await add('s', 1);
      const second = runner();
      const projection = second.register(new TallyProjection());
      await second.start();
      expect(projection.applied).toBe(3);
      expect(await tally('s')).toEqual({
        revisions: ['0', '1', '2', '3', '4', '5', '6', '7'],
        total: 8,
      });
    });

    it('stops a model at the event it cannot apply, keeps what came before, and tells', async () => {
      await add('a', 1);
      await add('a', 2);
      const poison = await add('a', 3, { poison: true });
      await add('a', 4);
      await add('b', 10);
      const stopped: ProjectionError[] = [];
      const live = runner({ onStopped: (error) => stopped.push(error) });
      live.register(new TallyProjection());
      const other = live.register(new TallyProjection('other'));
      other.poisoned = false;
      await live.start();

      expect(stopped).toHaveLength(1);
      expect(stopped[0]!.message).toMatch(
        /^projection tally failed on Added at a@2: Error: poisoned amount 3$/,
      );
      // Not skipped: the failed event's own change is not kept, nothing after it is applied.
      expect(await tally('a')).toEqual({ revisions: ['0', '1'], total: 3 });
      expect(await tally('b')).toBeUndefined();
      const [state] = await storage.states('tally');
      expect(state!.failure).toEqual({ position: poison, error: stopped[0]!.message });
      expect(state!.position).toBeLessThan(poison);
      // The other model goes on.
      expect(other.applied).toBe(5);
      expect(await tally('b', 'other')).toMatchObject({ total: 10 });
      // Readers are told at once, whatever they wait for.
      await expect(live.waitFor(poison, ['tally'])).rejects.toBeInstanceOf(ProjectionStoppedError);
      await expect(live.sync(['tally'])).rejects.toThrow(/projection tally is stopped/);
      expect(live.status().find((s) => s.name === 'tally')!.stopped).toMatch(/a@2/);

      // Restarted with the fault fixed, it goes on from the event it stopped at.
      await live.stop();
      const fixed = runner();
      const projection = fixed.register(new TallyProjection());
      projection.poisoned = false;
      await fixed.start();
      expect(await tally('a')).toEqual({ revisions: ['0', '1', '2', '3'], total: 10 });
      expect(await tally('b')).toMatchObject({ total: 10 });
      expect((await storage.states('tally'))[0]!.failure).toBeNull();
    });

    it('lets one runner at a time project a model; another takes over when it stops', async () => {
      await add('s', 1);
      const first = runner();
      const firstTally = first.register(new TallyProjection());
      await first.start();
      const second = runner();
      const secondTally = second.register(new TallyProjection());
      await second.start();
      expect(first.status()[0]!.held).toBe(true);
      expect(second.status()[0]!.held).toBe(false);

      // The standby serves reads from what the active one writes.
      const position = await add('s', 2);
      first.noteAppended(position);
      await second.waitFor(position);
      expect(await tally('s')).toMatchObject({ total: 3 });
      expect(secondTally.applied).toBe(0);

      await first.stop();
      const later = await add('s', 4);
      second.noteAppended(later);
      await second.sync();
      expect(second.status()[0]!.held).toBe(true);
      expect(firstTally.applied + secondTally.applied).toBe(3);
      expect(await tally('s')).toEqual({ revisions: ['0', '1', '2'], total: 7 });
    });

    it('does not run a model on a lease that broke while it was being taken', async () => {
      // The first lease this runner opens breaks while it is acquired (its connection lost):
      // its \`broken\` arrives before \`tryAcquire\` answers.
      let breaking = 1;
      const flaky = new Proxy(storage, {
        get(target, property, receiver) {
          if (property === 'openLease')
            return async (
              model: string,
              signals: Parameters<ProjectionStorage['openLease']>[1],
            ) => {
              const lease = await target.openLease(model, signals);
              if (breaking-- <= 0) return lease;
              return {
                tryAcquire: async () => {
                  const acquired = await lease.tryAcquire();
                  signals.broken(new Error('the lease connection was lost'));
                  return acquired;
                },
                close: () => lease.close(),
              };
            };
          const value: unknown = Reflect.get(target, property, receiver);
          return typeof value === 'function' ? (value as () => unknown).bind(target) : value;
        },
      });
      const first = new ProjectionRunner(store, flaky, { pollIntervalMs: 10_000, lockRetryMs: 50 });
      runners.push(first);
      first.register(new TallyProjection());
      await first.start();
      const second = runner({ lockRetryMs: 10 });
      second.register(new TallyProjection());
      await second.start();
      // Between the break and the first runner's next attempt, either may take the lease; never both.
      await new Promise((resolve) => setTimeout(resolve, 200));
      const holders = [first, second].filter((r) => r.status()[0]!.held);
      expect(holders).toHaveLength(1);
      const position = await add('s', 3);
      holders[0]!.noteAppended(position);
      await holders[0]!.sync();
      expect(await tally('s')).toEqual({ revisions: ['0'], total: 3 });
    });

    it('answers a read that cannot be served in time with a lag error', async () => {
      const active = runner();
      active.register(new TallyProjection());
      await active.start();
      const standby = runner({ lockRetryMs: 60_000 }); // asks for the lease at start, then waits
      standby.register(new TallyProjection());
      await standby.start();
      await active.stop(); // nobody projects it now
      const position = await add('s', 1);
      await expect(standby.waitFor(position, ['tally'], 50)).rejects.toBeInstanceOf(
        ProjectionLagError,
      );
    });

    it('refuses a projection that uses a document it did not name', async () => {
      await add('s', 1);
      const live = runner();
      const sloppy: DurableProjection<{ x: number }, 'Added'> = {
        name: 'sloppy',
        handles: ['Added'],
        keysOf: () => ['named'],
        apply: (_event, docs) => {
          docs.put('other', { x: 1 });
        },
      };
      live.register(sloppy);
      await live.start();
      expect(live.status()[0]!.stopped).toMatch(
        /used document "other" for Added at s@0 without naming it/,
      );
    });

    it('lists a partition by sort then key, between bounds, a page at a time', async () => {
      const { generation } = await storage.ensureModel('pages');
      const doc = (partition: string | null, sort: bigint | null, key: string) => ({
        key,
        doc: { key },
        partition,
        sort,
      });
      await storage.commit([
        {
          model: 'pages',
          generation,
          from: 0n,
          to: 1n,
          writes: [
            doc('p', 3n, 'c'),
            doc('p', 1n, 'a'),
            doc('p', 2n, 'b2'),
            doc('p', 2n, 'b1'),
            doc('q', 2n, 'q'),
            doc(null, null, 'none'),
          ],
        },
      ]);
      const keys = async (options: Parameters<ProjectionStorage['list']>[1]) =>
        (await storage.list('pages', options)).map((row) => row.key);
      expect(await keys({ partition: 'p' })).toEqual(['a', 'b1', 'b2', 'c']);
      expect(await keys({ partition: 'p', order: 'desc', limit: 2 })).toEqual(['c', 'b2']);
      expect(await keys({ partition: 'p', order: 'desc', sortAtMost: 2n, limit: 2 })).toEqual([
        'b2',
        'b1',
      ]);
      expect(await keys({ partition: 'p', sortAtLeast: 2n, sortAtMost: 2n })).toEqual(['b1', 'b2']);
      expect(await keys({ partition: null })).toEqual(['none']);
      expect(await keys({ sortAtLeast: 2n })).toEqual(['b1', 'b2', 'q', 'c']);
      expect(await keys({})).toEqual(['none', 'a', 'b1', 'b2', 'q', 'c']);
    });

    it('rebuilds a model into a new generation, serving the live one meanwhile, then swaps', async () => {
      for (let i = 0; i < 9; i++) await add(`s-${i % 4}`, i);
      const live = runner({ batchSize: 4 });
      const projection = live.register(new TallyProjection());
      await live.start();
      const before = await storage.list('tally');
      const rebuilt = await live.rebuild('tally');
      expect(rebuilt).toMatchObject({ generation: 2, events: 9 });
      expect(await storage.list('tally')).toEqual(before);
      expect(projection.applied).toBe(18);
      expect((await storage.states('tally')).map((s) => [s.generation, s.active])).toEqual([
        [2, true],
      ]);
      // The new generation goes on live.
      live.noteAppended(await add('s-0', 100));
      await live.sync();
      expect(await tally('s-0')).toMatchObject({ revisions: ['0', '1', '2', '3'], total: 112 });
    });

    it('rebuilds a model another process runs: that one takes it up from the new generation', async () => {
      for (let i = 0; i < 6; i++) await add(`s-${i % 2}`, i);
      const holder = runner({ batchSize: 4 });
      const held = holder.register(new TallyProjection());
      await holder.start();
      const other = runner({ lockRetryMs: 60_000 });
      other.register(new TallyProjection());
      await other.start();
      expect(other.status()[0]!.held).toBe(false);
      const before = await storage.list('tally');
      expect(await other.rebuild('tally')).toMatchObject({ generation: 2, events: 6 });
      expect(await storage.list('tally')).toEqual(before);
      // The holder's next commit finds its generation gone, commits nothing, and goes on from
      // the new one: each event applied once.
      const position = await add('s-0', 100);
      await other.waitFor(position);
      await holder.waitFor(position);
      expect(await tally('s-0')).toEqual({ revisions: ['0', '1', '2', '3'], total: 106 });
      // (Its apply may have run twice for the last event: once in the batch that was refused.)
      expect(held.applied).toBeGreaterThanOrEqual(7);
      expect((await storage.states('tally')).map((s) => [s.generation, s.active])).toEqual([
        [2, true],
      ]);
    });

    it('catches up in full batches, keeping their documents between them, as one batch at a time would', async () => {
      for (let i = 0; i < 15; i++) await add(`s-${i % 3}`, i);
      // Pages of 2, then 4: every batch but the last is full, so each hands its documents to the
      // next, which changes them in place.
      const live = runner({ batchSize: 2, catchUpBatchSize: 4 });
      const projection = live.register(new TallyProjection('tally', true));
      await live.start();
      expect(projection.applied).toBe(15);
      for (let s = 0; s < 3; s++)
        expect(await tally(`s-${s}`)).toEqual({
          revisions: ['0', '1', '2', '3', '4'],
          total: [0, 1, 2, 3, 4].reduce((sum, k) => sum + s + 3 * k, 0),
        });
      // Caught up, it goes on live from what it committed.
      live.noteAppended(await add('s-0', 100));
      await live.sync();
      expect(await tally('s-0')).toMatchObject({ revisions: ['0', '1', '2', '3', '4', '5'] });
    });

    it('stops a model at an event of a later batch of a catch-up with only what came before it', async () => {
      for (let i = 0; i < 7; i++) await add('a', 1);
      const poison = await add('a', 50, { poison: true });
      for (let i = 0; i < 3; i++) await add('a', 1);
      // Batches of 2, 4 and 4 events: the poisoned one is the second of the third, full batch.
      const live = runner({ batchSize: 2, catchUpBatchSize: 4 });
      live.register(new TallyProjection('tally', true));
      await live.start();
      // The document the earlier batches left, changed in place by the poisoned event's batch up
      // to the throw, is not what is committed: the events before it are applied again to it as
      // stored.
      expect(await tally('a')).toEqual({
        revisions: ['0', '1', '2', '3', '4', '5', '6'],
        total: 7,
      });
      const [state] = await storage.states('tally');
      expect(state!.failure?.position).toBe(poison);
    });

    it('rebuilds several models in one pass over the log', async () => {
      for (let i = 0; i < 20; i++) await add(`s-${i % 4}`, i);
      let reads = 0;
      const counted = new Proxy(store, {
        get(target, property, receiver) {
          if (property === 'readAll')
            return (options: Parameters<EventStore['readAll']>[0]) => {
              reads++;
              return target.readAll(options);
            };
          const value: unknown = Reflect.get(target, property, receiver);
          return typeof value === 'function' ? (value as () => unknown).bind(target) : value;
        },
      });
      const live = new ProjectionRunner(counted, storage, {
        pollIntervalMs: 10_000,
        batchSize: 2,
        catchUpBatchSize: 4,
      });
      runners.push(live);
      live.register(new TallyProjection('tally', true));
      live.register(new TallyProjection('other'));
      await live.start();
      const before = { tally: await storage.list('tally'), other: await storage.list('other') };
      reads = 0;
      await live.rebuild('tally');
      const alone = reads;
      reads = 0;
      const rebuilt = await live.rebuildAll();
      expect(reads).toBe(alone);
      expect(rebuilt.generations).toEqual({ tally: 3, other: 2 });
      expect(rebuilt.events).toBe(20);
      expect({ tally: await storage.list('tally'), other: await storage.list('other') }).toEqual(
        before,
      );
      expect(live.status().map((s) => [s.name, s.generation])).toEqual([
        ['tally', 3],
        ['other', 2],
      ]);
    });

    it('syncs to the log head: what another process appended is read too', async () => {
      const live = runner();
      live.register(new TallyProjection());
      await live.start();
      await add('s', 5); // not noted: as if another process appended it
      await live.syncToHead();
      expect(await tally('s')).toMatchObject({ total: 5 });
    });

    it('stops a model whose keysOf throws, at that event', async () => {
      await add('s', 1);
      const bad = await add('s', 2, { poison: true });
      const live = runner();
      const tallyOf = new TallyProjection();
      live.register({
        name: 'picky',
        handles: tallyOf.handles,
        keysOf: (event) => {
          if ((event.data as { poison?: boolean }).poison) throw new Error('cannot key it');
          return tallyOf.keysOf(event);
        },
        apply: (event, docs: DocumentSet<Tally>) => {
          tallyOf.apply(event, docs);
        },
      });
      await live.start();
      const [state] = await storage.states('picky');
      expect(state!.failure).toEqual({
        position: bad,
        error: 'projection picky failed on Added at s@1: Error: cannot key it',
      });
      expect(await tally('s', 'picky')).toEqual({ revisions: ['0'], total: 1 });
    });

    it('gives a model only the event types it declares, whatever its keysOf would name', async () => {
      await add('s', 1);
      await store.append('s', [{ id: randomId(), type: 'Removed', data: { amount: 5 } }], {
        expectedVersion: 'any',
      });
      const last = await add('s', 2);
      const live = runner();
      const tallyOf = new TallyProjection();
      const asked: string[] = [];
      live.register({
        name: 'declared',
        handles: tallyOf.handles,
        keysOf: (event) => {
          asked.push(event.type);
          return [event.stream];
        },
        apply: (event, docs: DocumentSet<Tally>) => {
          tallyOf.apply(event, docs);
        },
      });
      await live.start();
      await live.waitFor(last, ['declared']);
      expect(asked).toEqual(['Added', 'Added']);
      expect(await tally('s', 'declared')).toEqual({ revisions: ['0', '2'], total: 3 });
    });
  });
}
