import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import {
  chainContent,
  createEventStore,
  openProjectionStorage,
  type EventStore,
  type ProjectionStorage,
} from '@croupier/eventstore';
import { isolatedPostgres, withClient, type IsolatedPostgres } from '@croupier/testkit';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ProjectionLagError, ProjectionRunner, randomId } from '../src/index.js';
import { projectionRunnerSuite } from './projection-runner.suite.js';
import { TallyProjection, type Tally } from './tally.js';

const schemas: IsolatedPostgres[] = [];
afterAll(async () => {
  await Promise.all(schemas.map((schema) => schema.drop()));
});

async function openPostgres(): Promise<{
  postgres: IsolatedPostgres;
  store: EventStore;
  storage: ProjectionStorage;
}> {
  const postgres = await isolatedPostgres('proj');
  schemas.push(postgres);
  const store = await createEventStore({
    kind: 'postgres',
    connectionString: postgres.connectionString,
    schema: postgres.schema,
  });
  return { postgres, store, storage: await openProjectionStorage(store) };
}

projectionRunnerSuite('PostgreSQL', async () => {
  const { store, storage } = await openPostgres();
  return { store, storage, close: () => store.close() };
});

const eventually = <T>(check: () => T | Promise<T>, timeout = 60_000) =>
  vi.waitFor(check, { timeout, interval: 50 });

describe('a runner that knows of nothing unread polls slowly (ADR 0045)', () => {
  it('reads a commit nobody signalled only at its slow poll, and one it was told of but another transaction holds back at its short poll', async () => {
    const { postgres, store, storage } = await openPostgres();
    // Another process's store: its appends reach the runner by NOTIFY, naming their position.
    const writer = await createEventStore({
      kind: 'postgres',
      connectionString: postgres.connectionString,
      schema: postgres.schema,
    });
    const runner = new ProjectionRunner(store, storage, {
      pollIntervalMs: 50,
      idlePollIntervalMs: 60_000,
    });
    runner.register(new TallyProjection());
    const tally = (stream: string) => storage.get('tally', stream) as Promise<Tally | undefined>;
    try {
      await runner.start();
      const raw = { id: randomId(), type: 'Added' };
      await withClient(postgres.connectionString, (client) =>
        client.query(
          // Its last argument: no NOTIFY.
          `SELECT * FROM "${postgres.schema}".append_events($1, -1, $2::uuid[], $3, $4, $5, $6, false)`,
          [
            'raw',
            [raw.id],
            [raw.type],
            ['{"amount":1}'],
            ['{}'],
            [chainContent({ ...raw, data: { amount: 1 } })],
          ],
        ),
      );
      // No wake-up for it, and a slow poll: a runner polling every 50 ms would have it by now.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(await tally('raw')).toBeUndefined();
      await withClient(postgres.connectionString, async (holder) => {
        // An older transaction that appends nothing: its end wakes nobody.
        await holder.query('BEGIN');
        await holder.query('SELECT pg_current_xact_id()');
        await writer.append('told', [{ id: randomId(), type: 'Added', data: { amount: 2 } }], {
          expectedVersion: 'no-stream',
        });
        await eventually(async () => {
          expect(await tally('raw')).toEqual({ revisions: ['0'], total: 1 });
        }, 2_000);
        await new Promise((resolve) => setTimeout(resolve, 200));
        expect(await tally('told')).toBeUndefined();
        await holder.query('COMMIT');
      });
      // Known committed and not yet read: looked for every 50 ms, not after a minute.
      await eventually(async () => {
        expect(await tally('told')).toEqual({ revisions: ['0'], total: 2 });
      }, 2_000);
    } finally {
      await runner.stop();
      await writer.close();
      await store.close();
    }
  });
});

describe('syncToHead while an older transaction runs (ADR 0002)', () => {
  /** A started runner of the tally model on a schema of its own; `close` stops it all. */
  async function tallyRunner(pollIntervalMs: number) {
    const { postgres, store, storage } = await openPostgres();
    const runner = new ProjectionRunner(store, storage, { pollIntervalMs });
    runner.register(new TallyProjection());
    await runner.start();
    const tally = (stream: string) => storage.get('tally', stream) as Promise<Tally | undefined>;
    const close = async () => {
      await runner.stop();
      await store.close();
    };
    return { postgres, store, runner, tally, close };
  }

  /**
   * Runs `body` while a transaction with an id stays open until `release`: any such transaction,
   * in any database of the server, holds back what commits after it began.
   */
  async function holdingBack(
    connectionString: string,
    body: (release: () => Promise<unknown>) => Promise<void>,
  ): Promise<void> {
    await withClient(connectionString, async (holder) => {
      await holder.query('BEGIN');
      await holder.query('SELECT pg_current_xact_id()');
      await body(() => holder.query('COMMIT'));
      await holder.query('COMMIT'); // no more than a warning where `release` ended it
    });
  }

  const added = (amount: number) => [{ id: randomId(), type: 'Added', data: { amount } }];

  it('waits for a commit the older transaction holds back, then answers with it applied', async () => {
    const { postgres, runner, tally, close } = await tallyRunner(50);
    const writer = await createEventStore({
      kind: 'postgres',
      connectionString: postgres.connectionString,
      schema: postgres.schema,
    });
    try {
      await holdingBack(postgres.connectionString, async (release) => {
        await writer.append('held', added(3), { expectedVersion: 'no-stream' });
        let synced = false;
        const sync = runner.syncToHead(undefined, 30_000).then(() => {
          synced = true;
        });
        await new Promise((resolve) => setTimeout(resolve, 500));
        // Answering now would read as if the committed append had not happened.
        expect(synced).toBe(false);
        await release();
        await sync;
      });
      expect(await tally('held')).toEqual({ revisions: ['0'], total: 3 });
    } finally {
      await writer.close();
      await close();
    }
  });

  it('looks again soon for its own append that a short transaction held back, not at its poll', async () => {
    // A minute's poll: only the quick looks again can make the sync below.
    const { postgres, store, runner, tally, close } = await tallyRunner(60_000);
    try {
      await holdingBack(postgres.connectionString, async (release) => {
        const { position } = await store.append('own', added(4), { expectedVersion: 'no-stream' });
        runner.noteAppended(position);
        const sync = runner.sync(undefined, 10_000);
        // Woken by its own append, the runner reads nothing readable yet.
        await new Promise((resolve) => setTimeout(resolve, 300));
        await release();
        await sync;
      });
      expect(await tally('own')).toEqual({ revisions: ['0'], total: 4 });
    } finally {
      await close();
    }
  });

  it('start() resolves with what was committed before it applied, held back or not', async () => {
    const { postgres, store, storage } = await openPostgres();
    const runner = new ProjectionRunner(store, storage, { pollIntervalMs: 50 });
    runner.register(new TallyProjection());
    try {
      await holdingBack(postgres.connectionString, async (release) => {
        await store.append('before-start', added(6), { expectedVersion: 'no-stream' });
        let started = false;
        const start = runner.start().then(() => {
          started = true;
        });
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect(started).toBe(false);
        await release();
        await start;
      });
      expect(await storage.get('tally', 'before-start')).toEqual({ revisions: ['0'], total: 6 });
    } finally {
      await runner.stop();
      await store.close();
    }
  });

  it('gives up at its timeout with ProjectionLagError, not a stale answer', async () => {
    const { postgres, store, runner, close } = await tallyRunner(50);
    try {
      await holdingBack(postgres.connectionString, async () => {
        await store.append('late', added(1), { expectedVersion: 'no-stream' });
        await expect(runner.syncToHead(undefined, 300)).rejects.toBeInstanceOf(ProjectionLagError);
      });
    } finally {
      await close();
    }
  });
});

/**
 * Runner processes on real PostgreSQL, killed with SIGKILL: a commit is all or nothing, and only
 * one process at a time projects a model.
 */
// Each test starts node processes with tsx, which takes seconds on a loaded machine.
describe('projection runner processes on PostgreSQL', { timeout: 180_000 }, () => {
  let postgres: IsolatedPostgres;
  let store: EventStore;
  const children: ChildProcess[] = [];
  beforeEach(async () => {
    ({ postgres, store } = await openPostgres());
  });
  afterEach(async () => {
    for (const child of children.splice(0)) child.kill('SIGKILL');
    await store.close();
  });

  const script = fileURLToPath(new URL('./fixtures/tally-runner.ts', import.meta.url));
  function startRunner(env: Record<string, string> = {}) {
    const child = spawn(
      process.execPath,
      ['--conditions=@croupier/source', '--import', 'tsx', script],
      {
        env: {
          ...process.env,
          PG_URL: postgres.connectionString,
          PG_SCHEMA: postgres.schema,
          ...env,
        },
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    children.push(child);
    const output = { text: '' };
    child.stdout.on('data', (chunk: Buffer) => {
      output.text += chunk.toString();
    });
    const exited = new Promise<void>((resolve) =>
      child.once('exit', () => {
        resolve();
      }),
    );
    const kill = async () => {
      child.kill('SIGKILL');
      await exited;
    };
    return { child, output, kill };
  }

  /** Appends `perStream` events to each of `streams` streams, ten at a time. */
  async function appendEvents(streams: number, perStream: number, prefix = 's'): Promise<void> {
    for (let s = 0; s < streams; s++)
      for (let i = 0; i < perStream; i += 10)
        await store.append(
          `${prefix}-${s}`,
          Array.from({ length: Math.min(10, perStream - i) }, (_, k) => ({
            id: randomId(),
            type: 'Added',
            data: { amount: i + k + 1 },
          })),
          { expectedVersion: 'any' },
        );
  }

  const query = <Row>(sql: string) =>
    withClient(
      postgres.connectionString,
      async (client) => (await client.query(sql)).rows as Row[],
    );
  /**
   * The model's checkpoint and documents in one snapshot: a killed process's last COMMIT may
   * still land after it died, between two separate reads.
   */
  const projected = () =>
    withClient(postgres.connectionString, async (client) => {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
      const checkpoints = await client.query<{ position: string }>(
        `SELECT position::text AS position FROM "${postgres.schema}".projection_checkpoints WHERE model = 'tally' AND active`,
      );
      const docs = await client.query<{ key: string; doc: Tally }>(
        `SELECT key, doc FROM "${postgres.schema}".projection_documents WHERE model = 'tally'`,
      );
      await client.query('COMMIT');
      return {
        position: BigInt(checkpoints.rows[0]?.position ?? '0'),
        tallies: new Map(docs.rows.map((row) => [row.key, row.doc])),
      };
    });
  const checkpoint = async () => (await projected()).position;
  /** Checks the documents are the log up to the checkpoint applied exactly once; answers it. */
  const exactlyOnce = async () => {
    const { position, tallies } = await projected();
    expect(tallies).toEqual(await expected(position));
    return position;
  };
  const head = async () => (await store.readAll({ limit: 100_000 })).at(-1)!.position;

  /** What the documents must be once the log up to `upTo` is applied exactly once. */
  async function expected(upTo: bigint): Promise<Map<string, Tally>> {
    const result = new Map<string, { revisions: string[]; total: number }>();
    for (const event of await store.readAll({ limit: 100_000 })) {
      if (event.position > upTo) break;
      const tally = result.get(event.stream) ?? { revisions: [], total: 0 };
      tally.revisions.push(String(event.revision));
      tally.total += (event.data as { amount: number }).amount;
      result.set(event.stream, tally);
    }
    return result;
  }

  it('killed inside a commit, loses and doubles nothing; a restart serves the same answers', async () => {
    await appendEvents(10, 100); // 1,000 events, batches of 100
    const first = startRunner({ HANG_AT_COMMIT: '3' });
    await eventually(() => {
      expect(first.output.text).toContain('IN_COMMIT');
    });
    // Two batches committed; the third has written its documents and checkpoint, uncommitted.
    const before = await exactlyOnce();
    expect(before).toBeGreaterThan(0n);
    await first.kill();
    expect(await exactlyOnce()).toBe(before);

    const second = startRunner();
    const end = await head();
    await eventually(async () => {
      expect(await checkpoint()).toBe(end);
    });
    await exactlyOnce();
    const { tallies } = await projected();
    expect([...tallies.values()].map((t) => t.revisions.length)).toEqual(Array(10).fill(100));

    // Restarted again with nothing new: the same answers, nothing applied twice.
    await second.kill();
    const third = startRunner();
    await eventually(() => {
      expect(third.output.text).toContain('HELD');
    });
    await appendEvents(1, 1, 'late');
    const later = await head();
    await eventually(async () => {
      expect(await checkpoint()).toBe(later);
    });
    expect(await exactlyOnce()).toBe(later);
  });

  it('killed at any moment while events arrive, ends with each event applied once', async () => {
    const writing = appendEvents(8, 150);
    let written = false;
    void writing.then(() => (written = true));
    let last = 0n;
    for (let round = 0; round < 3; round++) {
      const runner = startRunner({ BATCH_SIZE: '37' });
      await eventually(async () => {
        const at = await checkpoint();
        // Killed again once the writers are done and it has caught up: nothing is left to pass.
        if (written && at === (await head())) return;
        expect(at).toBeGreaterThan(last);
      });
      await runner.kill();
      last = await exactlyOnce();
    }
    await writing;
    startRunner({ BATCH_SIZE: '37' });
    const end = await head();
    await eventually(async () => {
      expect(await checkpoint()).toBe(end);
    });
    expect(await exactlyOnce()).toBe(end);
  });

  it('never lets two processes project a model at once', async () => {
    await appendEvents(4, 50);
    const a = startRunner({ BATCH_SIZE: '20' });
    const b = startRunner({ BATCH_SIZE: '20' });
    const runners = [a, b];
    await eventually(() => {
      expect(runners.filter((r) => r.output.text.includes('HELD'))).toHaveLength(1);
    });
    const holder = runners.find((r) => r.output.text.includes('HELD'))!;
    const standby = runners.find((r) => r !== holder)!;
    const writing = appendEvents(4, 50, 't');
    // One advisory lock holder for the model, and it is the one that said so.
    const lease = `croupier.projection:${postgres.schema}:tally`;
    const locks = await query<{ pid: number }>(
      `SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted
         AND ((classid::bigint << 32) | objid::bigint)
           = ('x' || substr(md5('${lease}'), 1, 16))::bit(64)::bigint`,
    );
    expect(locks).toHaveLength(1);
    expect(standby.output.text).not.toContain('HELD');
    await holder.kill();
    await eventually(() => {
      expect(standby.output.text).toContain('HELD');
    });
    await writing;
    const end = await head();
    await eventually(async () => {
      expect(await checkpoint()).toBe(end);
    });
    expect(await exactlyOnce()).toBe(end);
  });
});
