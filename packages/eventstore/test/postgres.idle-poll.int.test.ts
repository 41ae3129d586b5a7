import { withClient } from '@croupier/testkit';
import { describe, expect, it } from 'vitest';
import { chainContent } from '../src/index.js';
import { event, eventually, record, sleep, uniqueName } from './support.js';
import { postgresSchema } from './postgres-schema.js';

/**
 * The slow poll in a schema of its own: a store that another test left open on the same schema
 * may still send a NOTIFY late (it waits for a listener to appear before it signals, ADR 0046),
 * and a wake-up this test did not cause would read the commit it expects to stay unread.
 */
const { database, openStore, sql } = postgresSchema('es_pg_idle');

describe('postgres: a subscriber that knows of nothing unread polls slowly (ADR 0045)', () => {
  it('reads a commit nobody signalled only at its slow poll, and one it was told of but another transaction holds back at its short poll', async () => {
    const quiet = await openStore(undefined, {
      lockRetryMs: 200,
      pollIntervalMs: 50,
      idlePollIntervalMs: 60_000,
    });
    // Another process's store: its appends reach `quiet` by NOTIFY, naming their position.
    const writer = await openStore();
    const prefix = uniqueName('idle');
    const recorder = record(quiet, { name: uniqueName('idle'), filter: { streamPrefix: prefix } });
    await recorder.subscription.caughtUp();
    const unsignalled = event('Unsignalled');
    // Its last argument: no NOTIFY (a NOTIFY naming nothing would keep it polling for 2 s).
    await sql(`SELECT * FROM append_events($1, -1, $2::uuid[], $3, $4, $5, $6, false)`, [
      `${prefix}-raw`,
      [unsignalled.id],
      [unsignalled.type],
      ['{}'],
      ['{}'],
      [chainContent(unsignalled)],
    ]);
    // No wake-up for it, and a slow poll: a subscriber polling every 50 ms would have it by now.
    await sleep(1_000);
    expect(recorder.received).toEqual([]);
    await withClient(database.get().connectionString, async (holder) => {
      // An older transaction that appends nothing: its end wakes nobody.
      await holder.query('BEGIN');
      await holder.query('SELECT pg_current_xact_id()');
      await writer.append(`${prefix}-told`, [event('Told')], { expectedVersion: 'no-stream' });
      await eventually(
        () => recorder.received.length,
        (n) => n === 1,
        { timeoutMs: 2_000, what: 'the woken read' },
      );
      await sleep(200);
      expect(recorder.received.map((e) => e.type)).toEqual(['Unsignalled']);
      await holder.query('COMMIT');
    });
    // Known committed and not yet read: looked for every 50 ms, not after a minute.
    await eventually(
      () => recorder.received.length,
      (n) => n === 2,
      { timeoutMs: 2_000, what: 'the held-back event at the short poll' },
    );
    expect(recorder.received.map((e) => e.type)).toEqual(['Unsignalled', 'Told']);
    await recorder.subscription.stop();
  });
});
