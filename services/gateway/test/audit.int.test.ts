import { replayShoe, type ShoeReplay } from '@croupier/audit';
import { presetConfig } from '@croupier/contracts';
import { createEventStore, type EventStore } from '@croupier/eventstore';
import { isolatedPostgres, withClient, type IsolatedPostgres } from '@croupier/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadShoeEvidence } from '../src/index.js';
import { playShoe, startCasino, type Casino } from './support/casino.js';
import { named } from './support/tamper.js';

/**
 * Tampering done where an insider would do it: rows of the events table of a real PostgreSQL
 * (an isolated schema), changed with SQL behind the services' back. The replay reads the store
 * as it is and must name the stream and revision of every change.
 */
let postgres: IsolatedPostgres;
let store: EventStore;
let casino: Casino;
const TABLES = ['edit', 'payout', 'gone', 'swap', 'forge', 'lost', 'clean'] as const;
type Table = (typeof TABLES)[number];

beforeAll(async () => {
  postgres = await isolatedPostgres('audit');
  store = await createEventStore({
    kind: 'postgres',
    connectionString: postgres.connectionString,
    schema: postgres.schema,
    subscriptions: { pollIntervalMs: 20 },
  });
  casino = await startCasino(store);
  // Single-deck tables shuffle for every round: each round is a whole shoe, closed by the next.
  for (const table of TABLES)
    await playShoe(casino.system, table, { config: presetConfig('single-deck') });
  await casino.close();
}, 240_000);

afterAll(async () => {
  await store.close();
  await postgres.drop();
});

/** Runs SQL against the isolated schema's events table (`EVENTS` in the text). */
async function sql(
  text: string,
  params: unknown[] = [],
): Promise<{ rows: Record<string, unknown>[] }> {
  return withClient(postgres.connectionString, (client) =>
    client.query(text.replaceAll('EVENTS', `"${postgres.schema}".events`), params),
  );
}

async function revisionOf(stream: string, type: string, nth = 0): Promise<number> {
  const { rows } = await sql(
    'SELECT stream_revision FROM EVENTS WHERE stream_name = $1 AND event_type = $2 ORDER BY stream_revision',
    [stream, type],
  );
  return Number(rows[nth]!['stream_revision']);
}

async function replay(table: Table): Promise<ShoeReplay> {
  const evidence = await loadShoeEvidence(store, `${table}.1`);
  if (evidence === null) throw new Error(`no shoe ${table}.1`);
  return replayShoe(evidence);
}

describe('tampering with the PostgreSQL events table', () => {
  it('an untouched shoe replays as valid from the database', async () => {
    const result = await replay('clean');
    expect(named(result.verdict)).toEqual([]);
    expect(result.verdict.checks.find((c) => c.check === 'digest')?.status).toBe('pass');
  });

  it('an UPDATEd card is named by stream and revision', async () => {
    const stream = 'round-edit.1.1';
    const revision = await revisionOf(stream, 'CardDealt');
    const { rows } = await sql(
      "SELECT data->>'card' AS card FROM EVENTS WHERE stream_name = $1 AND stream_revision = $2",
      [stream, revision],
    );
    const forged = rows[0]!['card'] === 'KD' ? 'QD' : 'KD';
    await sql(
      `UPDATE EVENTS SET data = jsonb_set(data, '{card}', to_jsonb($3::text))
        WHERE stream_name = $1 AND stream_revision = $2`,
      [stream, revision, forged],
    );
    const found = named((await replay('edit')).verdict);
    expect(found).toContain(`hash-chain/EVENT_EDITED ${stream}@${revision}`);
    expect(found).toContain(`shuffle-order/CARD_MISMATCH ${stream}@${revision}`);
    expect(found).toContain(`streams-agree/STREAMS_DISAGREE ${stream}@${revision}`);
  });

  it('an UPDATEd payout is named with the recomputed and the recorded amount', async () => {
    const stream = 'round-payout.1.1';
    const revision = await revisionOf(stream, 'RoundSettled');
    await sql(
      `UPDATE EVENTS SET data = jsonb_set(data, '{lines,0,payout}', to_jsonb((data#>>'{lines,0,payout}')::int + 777))
        WHERE stream_name = $1 AND stream_revision = $2`,
      [stream, revision],
    );
    const result = await replay('payout');
    expect(named(result.verdict)).toContain(`hash-chain/EVENT_EDITED ${stream}@${revision}`);
    const payout = result.verdict.findings.find((f) => f.code === 'PAYOUT_MISMATCH');
    expect(payout).toMatchObject({ stream, revision: String(revision), check: 'payouts' });
    expect(Number(payout!.found) - Number(payout!.expected)).toBe(777);
  });

  it('a DELETEd event is named by the revision that is missing', async () => {
    const stream = 'round-gone.1.1';
    const revision = await revisionOf(stream, 'BetPlaced', 1);
    await sql('DELETE FROM EVENTS WHERE stream_name = $1 AND stream_revision = $2', [
      stream,
      revision,
    ]);
    const found = named((await replay('gone')).verdict);
    expect(found).toContain(`hash-chain/EVENT_MISSING ${stream}@${revision}`);
    expect(await store.verifyStream(stream)).toMatchObject({
      ok: false,
      brokenAt: BigInt(revision),
    });
  });

  it('rows whose revisions were swapped are named as reordered', async () => {
    const stream = 'round-swap.1.1';
    const first = await revisionOf(stream, 'CardDealt', 0);
    const second = await revisionOf(stream, 'CardDealt', 1);
    await sql(
      'UPDATE EVENTS SET stream_revision = -1 WHERE stream_name = $1 AND stream_revision = $2',
      [stream, first],
    );
    await sql(
      'UPDATE EVENTS SET stream_revision = $3 WHERE stream_name = $1 AND stream_revision = $2',
      [stream, second, first],
    );
    await sql(
      'UPDATE EVENTS SET stream_revision = $2 WHERE stream_name = $1 AND stream_revision = -1',
      [stream, second],
    );
    const found = named((await replay('swap')).verdict);
    expect(found).toContain(`hash-chain/EVENT_REORDERED ${stream}@${first}`);
    expect(found).toContain(`hash-chain/EVENT_REORDERED ${stream}@${second}`);
  });

  it('a forged commitment is named in the shoe stream', async () => {
    const stream = 'shoe-forge.1';
    await sql(
      `UPDATE EVENTS SET data = jsonb_set(data, '{commitment}', to_jsonb(repeat('ab', 32)))
        WHERE stream_name = $1 AND stream_revision = 0`,
      [stream],
    );
    const result = await replay('forge');
    const found = named(result.verdict);
    expect(found).toContain(`hash-chain/EVENT_EDITED ${stream}@0`);
    expect(found).toContain(`commitment/COMMITMENT_MISMATCH ${stream}@0`);
    expect(result.verdict.findings.find((f) => f.code === 'COMMITMENT_MISMATCH')?.found).toBe(
      'ab'.repeat(32),
    );
  });

  it('a DELETEd round stream is named by the shoe that dealt it and the digest that sealed it', async () => {
    await sql('DELETE FROM EVENTS WHERE stream_name = $1', ['round-lost.1.1']);
    const found = named((await replay('lost')).verdict);
    expect(found).toContain('streams-agree/STREAMS_DISAGREE round-lost.1.1@-');
    expect(found.some((f) => f.startsWith('digest/DIGEST_MISMATCH round-lost.1.1@'))).toBe(true);
  });
});
