import { MemoryEventStore } from '@croupier/eventstore';
import { afterEach, describe, expect, it } from 'vitest';
import { ProjectionRunner, randomId } from '../src/index.js';
import { TallyProjection, type Tally } from './tally.js';

/**
 * The runner's document cache: reads of a model it runs come from memory, its own commits drop
 * what they change, and it holds no more documents than it may.
 */
describe('the document cache', () => {
  const stores: MemoryEventStore[] = [];
  const runners: ProjectionRunner[] = [];
  afterEach(async () => {
    await Promise.all(runners.splice(0).map((runner) => runner.stop()));
    await Promise.all(stores.splice(0).map((store) => store.close()));
  });

  async function setUp(documentCacheSize: number) {
    const store = new MemoryEventStore();
    stores.push(store);
    const storage = await store.openProjectionStorage();
    const runner = new ProjectionRunner(store, storage, {
      pollIntervalMs: 10_000,
      documentCacheSize,
    });
    runners.push(runner);
    runner.register(new TallyProjection());
    await runner.start();
    const add = async (stream: string, amount: number) => {
      const { position } = await store.append(
        stream,
        [{ id: randomId(), type: 'Added', data: { amount } }],
        { expectedVersion: 'any' },
      );
      runner.noteAppended(position);
      await runner.sync();
    };
    const read = (key: string) => runner.documents.get('tally', key) as Promise<Tally | undefined>;
    return { runner, add, read };
  }

  it('answers a second read from memory, and a read after a commit with what it wrote', async () => {
    const { runner, add, read } = await setUp(10);
    await add('s', 5);
    expect(await read('s')).toMatchObject({ total: 5 });
    expect(await read('s')).toMatchObject({ total: 5 });
    expect(runner.documentCache).toMatchObject({ size: 1, hits: 1, misses: 1 });
    await add('s', 2);
    expect(await read('s')).toMatchObject({ total: 7 });
    expect(runner.documentCache).toMatchObject({ hits: 1, misses: 2 });
    // What a caller does to its copy does not reach the cache.
    const copy = (await read('s'))!;
    copy.revisions.push('forged');
    expect((await read('s'))!.revisions).toEqual(['0', '1']);
  });

  it('remembers an absent document until a commit writes it', async () => {
    const { add, read, runner } = await setUp(10);
    expect(await read('later')).toBeUndefined();
    expect(await read('later')).toBeUndefined();
    expect(runner.documentCache.hits).toBe(1);
    await add('later', 3);
    expect(await read('later')).toMatchObject({ total: 3 });
  });

  it('holds at most its size, the least recently read dropped first', async () => {
    const { add, read, runner } = await setUp(2);
    for (const stream of ['a', 'b', 'c']) await add(stream, 1);
    await read('a');
    await read('b');
    await read('a');
    await read('c');
    expect(runner.documentCache.size).toBe(2);
    const { hits } = runner.documentCache;
    await read('a');
    expect(runner.documentCache.hits).toBe(hits + 1);
    await read('b');
    expect(runner.documentCache.hits).toBe(hits + 1);
  });

  it('caches nothing for a model this process does not run, nor with size 0', async () => {
    const { read, add, runner } = await setUp(0);
    await add('s', 1);
    await read('s');
    await read('s');
    expect(runner.documentCache).toMatchObject({ size: 0, hits: 0 });
    await runner.stop();
    expect((await read('s'))?.total).toBe(1);
    expect(runner.documentCache.size).toBe(0);
  });
});
