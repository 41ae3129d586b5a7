import { randomUUID } from 'node:crypto';
import { withClient } from '@croupier/testkit';
import { beforeAll, describe, expect, it } from 'vitest';
import { chainContent, LogHeldBackError, untilReadable, type EventStore } from '../src/index.js';
import {
  event,
  events,
  eventually,
  readAllWithPrefix,
  record,
  sleep,
  uniqueName,
} from './support.js';
import { postgresSchema } from './postgres-schema.js';

/** PostgreSQL-only behaviour: late commits, tampering, restarts, dead processes. */
const { database, openStore, sql } = postgresSchema('es_pg');

/** Ends the subscription connections of one store, as if its process died. */
async function killSubscriptionConnections(applicationName: string): Promise<number> {
  const rows = await sql<{ killed: boolean }>(
    `SELECT pg_terminate_backend(pid) AS killed FROM pg_stat_activity WHERE application_name = $1`,
    [`${applicationName}:subscription`],
  );
  return rows.filter((row) => row.killed).length;
}

let store: EventStore;
beforeAll(async () => {
  store = await openStore();
});

describe('postgres: a transaction that commits late is not skipped', () => {
  it('readAll and subscribers wait for the earlier transaction, then see both in commit order', async () => {
    const prefix = uniqueName('late');
    const recorder = record(store, { name: uniqueName('late'), filter: { streamPrefix: prefix } });
    await recorder.subscription.caughtUp();
    const early = event('EarlyButSlow', { n: 1 });
    const content = chainContent(early);
    await withClient(database.get().connectionString, async (slow) => {
      await slow.query('BEGIN');
      // The slow writer takes its transaction id first...
      await slow.query(
        `SELECT * FROM "${database.get().schema}".append_events($1, -1, $2::uuid[], $3, $4, $5, $6, true)`,
        [`${prefix}-slow`, [early.id], [early.type], ['{"n":1}'], ['{}'], [content]],
      );
      // ...a fast writer commits after it, with a higher transaction id.
      const fast = await store.append(`${prefix}-fast`, [event('LateButFast')], {
        expectedVersion: 'no-stream',
      });
      await sleep(400);
      expect(await store.readAll({ filter: { streamPrefix: prefix } })).toEqual([]);
      expect(recorder.received).toEqual([]);
      // The head says both: the fast one is committed, and not readable yet.
      const held = await store.head();
      expect(held.committed).toBeGreaterThanOrEqual(fast.position);
      expect(held.readable).toBeLessThan(fast.position);
      await slow.query('COMMIT');
      const both = await readAllWithPrefix(store, prefix, 2);
      expect(both.map((e) => e.type)).toEqual(['EarlyButSlow', 'LateButFast']);
      expect(both[1]?.position).toBe(fast.position);
      expect(both[0]!.position).toBeLessThan(fast.position);
    });
    await eventually(
      () => recorder.received.length,
      (n) => n === 2,
    );
    expect(recorder.received.map((e) => e.type)).toEqual(['EarlyButSlow', 'LateButFast']);
    await recorder.subscription.stop();
  });
});

describe('postgres: untilReadable', () => {
  it('waits out a transaction that holds the log back, and gives up naming both ends', async () => {
    const prefix = uniqueName('held');
    await withClient(database.get().connectionString, async (other) => {
      // A transaction with an id, in another session: what commits after it is held back.
      await other.query('BEGIN');
      await other.query('SELECT pg_current_xact_id()');
      const appended = await store.append(`${prefix}-a`, [event('Committed')], {
        expectedVersion: 'no-stream',
      });
      const gaveUp = await untilReadable(store, { timeoutMs: 150 }).catch(
        (error: unknown) => error,
      );
      expect(gaveUp).toBeInstanceOf(LogHeldBackError);
      expect((gaveUp as LogHeldBackError).committed).toBeGreaterThanOrEqual(appended.position);
      expect((gaveUp as LogHeldBackError).readable).toBeLessThan(appended.position);
      const waited = untilReadable(store);
      await sleep(200);
      await other.query('COMMIT');
      expect(await waited).toBeGreaterThanOrEqual(appended.position);
      expect(await store.readAll({ filter: { streamPrefix: prefix } })).toHaveLength(1);
    });
  });
});

describe('postgres: tamper evidence', () => {
  async function writeStream(label: string): Promise<string> {
    const stream = uniqueName(label);
    await store.append(
      stream,
      Array.from({ length: 5 }, (_, index) => event('StakeDebited', { amount: 10 * (index + 1) })),
      { expectedVersion: 'no-stream' },
    );
    expect(await store.verifyStream(stream)).toMatchObject({ ok: true, events: 5 });
    return stream;
  }

  it('names the stream and revision of a row edited in place', async () => {
    const stream = await writeStream('edited');
    await sql(
      `UPDATE events SET data = jsonb_set(data, '{amount}', '999') WHERE stream_name = $1 AND stream_revision = 2`,
      [stream],
    );
    expect(await store.verifyStream(stream)).toMatchObject({
      ok: false,
      stream,
      brokenAt: 2n,
      reason: 'hash does not match the event content',
    });
  });

  it('notices a metadata edit that keeps the stored hash', async () => {
    const stream = await writeStream('meta');
    await sql(
      `UPDATE events SET metadata = metadata || '{"actor":"someone else"}' WHERE stream_name = $1 AND stream_revision = 4`,
      [stream],
    );
    expect(await store.verifyStream(stream)).toMatchObject({ ok: false, stream, brokenAt: 4n });
  });

  it('names the gap left by a deleted row', async () => {
    const stream = await writeStream('deleted');
    await sql(`DELETE FROM events WHERE stream_name = $1 AND stream_revision = 1`, [stream]);
    expect(await store.verifyStream(stream)).toMatchObject({ ok: false, stream, brokenAt: 1n });
  });

  it('notices the last event deleted (the stream head disagrees)', async () => {
    const stream = await writeStream('truncated');
    await sql(`DELETE FROM events WHERE stream_name = $1 AND stream_revision = 4`, [stream]);
    expect(await store.verifyStream(stream)).toMatchObject({ ok: false, stream, brokenAt: 4n });
  });

  it('names the first of two swapped rows', async () => {
    const stream = await writeStream('swapped');
    await sql(
      `UPDATE events SET stream_revision = CASE stream_revision WHEN 2 THEN -3 ELSE -2 END
        WHERE stream_name = $1 AND stream_revision IN (2, 3)`,
      [stream],
    );
    await sql(
      `UPDATE events SET stream_revision = -stream_revision WHERE stream_name = $1 AND stream_revision < 0`,
      [stream],
    );
    const verification = await store.verifyStream(stream);
    expect(verification).toMatchObject({ ok: false, stream, brokenAt: 2n });
  });
});

describe('postgres: restarts and dead processes', () => {
  it('a subscriber stopped mid-way resumes in a new process from its checkpoint with no gap', async () => {
    const prefix = uniqueName('restart');
    const name = uniqueName('projection');
    for (let batch = 0; batch < 10; batch += 1) {
      await store.append(`${prefix}-${batch}`, events(50), { expectedVersion: 'no-stream' });
    }
    const first = await openStore();
    let handled = 0;
    const before = record(first, {
      name,
      filter: { streamPrefix: prefix },
      handler: async () => {
        handled += 1;
        if (handled === 200) await sleep(50);
      },
    });
    await eventually(
      () => handled,
      (n) => n >= 200,
    );
    await first.close(); // the process shuts down mid-way
    const stoppedAt = before.received.length;
    expect(stoppedAt).toBeGreaterThanOrEqual(200);
    expect(stoppedAt).toBeLessThan(500);

    const second = await openStore();
    const after = record(second, { name, filter: { streamPrefix: prefix } });
    await eventually(
      () => after.received.length,
      (n) => stoppedAt + n >= 500,
      { timeoutMs: 20_000 },
    );
    expect(after.received[0]!.position).toBeGreaterThan(before.received.at(-1)!.position);
    const all = [...before.received, ...after.received];
    expect(new Set(all.map((e) => e.id)).size).toBe(500);
    expect(all.map((e) => e.position)).toEqual(
      [...all.map((e) => e.position)].sort((a, b) => (a < b ? -1 : 1)),
    );
    expect(all).toEqual(await readAllWithPrefix(store, prefix, 500));
    await after.subscription.stop();
  });

  it('a consumer whose connection dies reconnects and resumes from its checkpoint', async () => {
    const applicationName = `croupier-test-${randomUUID().slice(0, 8)}`;
    const own = await openStore(applicationName);
    const prefix = uniqueName('lost');
    const recorder = record(own, { name: uniqueName('lost'), filter: { streamPrefix: prefix } });
    await recorder.subscription.caughtUp();
    await store.append(`${prefix}-s`, events(5), { expectedVersion: 'no-stream' });
    await eventually(
      () => recorder.received.length,
      (n) => n === 5,
    );
    expect(await killSubscriptionConnections(applicationName)).toBe(1);
    await store.append(`${prefix}-s`, events(5), { expectedVersion: 4n });
    await eventually(
      () => recorder.received.length,
      (n) => n >= 10,
      { timeoutMs: 15_000 },
    );
    expect(recorder.errors.length).toBeGreaterThan(0);
    const revisions = recorder.received.map((e) => e.revision);
    // At least once: every revision, in order; a redelivered event may repeat.
    expect([...new Set(revisions)]).toEqual([0n, 1n, 2n, 3n, 4n, 5n, 6n, 7n, 8n, 9n]);
    await recorder.subscription.stop();
  });

  it('of two processes one consumes; the other takes over when the first dies', async () => {
    const names = [
      `croupier-test-${randomUUID().slice(0, 8)}`,
      `croupier-test-${randomUUID().slice(0, 8)}`,
    ] as const;
    const processes = [await openStore(names[0]), await openStore(names[1])] as const;
    const prefix = uniqueName('ha');
    const name = uniqueName('settlement');
    const consumers = processes.map((process) =>
      record(process, { name, filter: { streamPrefix: prefix } }),
    );
    await store.append(`${prefix}-s`, events(3), { expectedVersion: 'no-stream' });
    await eventually(
      () => consumers[0]!.received.length + consumers[1]!.received.length,
      (n) => n >= 3,
    );
    await sleep(300);
    const activeIndex = consumers[0]!.received.length > 0 ? 0 : 1;
    const active = consumers[activeIndex]!;
    const standby = consumers[1 - activeIndex]!;
    expect(active.received).toHaveLength(3);
    expect(standby.received).toHaveLength(0);

    // The active process dies: PostgreSQL drops its session and with it the advisory lock.
    expect(await killSubscriptionConnections(names[activeIndex])).toBe(1);
    await processes[activeIndex].close();
    await store.append(`${prefix}-s`, events(3), { expectedVersion: 2n });
    await eventually(
      () => standby.received.length,
      (n) => n >= 3,
      { timeoutMs: 15_000, what: 'takeover' },
    );
    expect(standby.received.map((e) => e.revision)).toEqual([3n, 4n, 5n]);
    await standby.subscription.stop();
  });
});

describe('postgres: live tail across processes', () => {
  it('wakes a subscriber in another process through NOTIFY, not the poll', async () => {
    // No idle poll within the test: only a NOTIFY wakes it. The short poll stays short: it only
    // runs once a NOTIFY named a commit not yet readable (another transaction of the database,
    // a concurrent test's, holding the read back: ADR 0045).
    const listener = await openStore(undefined, {
      pollIntervalMs: 100,
      idlePollIntervalMs: 60_000,
    });
    const prefix = uniqueName('notify');
    const recorder = record(listener, {
      name: uniqueName('notify'),
      filter: { streamPrefix: prefix },
    });
    await recorder.subscription.caughtUp();
    for (let round = 0; round < 3; round += 1) {
      const started = Date.now();
      await store.append(`${prefix}-s`, events(1), {
        expectedVersion: round === 0 ? 'no-stream' : BigInt(round - 1),
      });
      await eventually(
        () => recorder.received.length,
        (n) => n === round + 1,
        { timeoutMs: 5_000 },
      );
      expect(Date.now() - started).toBeLessThan(2_000);
    }
    await recorder.subscription.stop();
  });
});

describe('postgres: migrations', () => {
  it('records applied versions and is idempotent across concurrent starts', async () => {
    const again = await Promise.all([openStore(), openStore(), openStore()]);
    expect(again).toHaveLength(3);
    const applied = await sql<{ version: number }>(
      `SELECT version FROM schema_migrations ORDER BY version`,
    );
    expect(applied.map((row) => row.version)).toEqual([1, 2]);
  });
});
