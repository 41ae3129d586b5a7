import { quoteSchema } from './schema-name.js';

/** Columns of an event row, int8 and xid8 as the drivers return them (xid8 as text). */
export interface EventRow {
  readonly transaction_id: string;
  readonly sequence: unknown;
  readonly event_id: string;
  readonly stream_name: string;
  readonly stream_revision: unknown;
  readonly event_type: string;
  readonly data: unknown;
  readonly metadata: Record<string, unknown>;
  readonly recorded_at: Date | string;
}

/** The two ends of the log (`heads`): null where the log is empty. */
export interface HeadsRow {
  readonly readable_transaction_id: string | null;
  readonly readable_sequence: unknown;
  readonly committed_transaction_id: string | null;
  readonly committed_sequence: unknown;
}

/** A page of the log plus the newest visible position it could see (for filtered consumers). */
export interface PageRow extends Partial<EventRow> {
  readonly head_transaction_id: string;
  readonly head_sequence: unknown;
}

const EVENT_COLUMNS = `e.transaction_id::text AS transaction_id, e.sequence, e.event_id::text AS event_id,
  e.stream_name, e.stream_revision, e.event_type, e.data, e.metadata, e.recorded_at`;

/** Visible-and-final condition: only transactions older than every running one (ADR 0002). */
const SETTLED = `e.transaction_id < pg_snapshot_xmin(pg_current_snapshot())`;

/** The SQL text of every statement, for one schema. Shared by the postgres and pglite adapters. */
export function statements(schema: string) {
  const s = quoteSchema(schema);
  /** The newest event's position among those `where` admits ('' for every committed one). */
  const newest = (where: string) =>
    `SELECT e.transaction_id::text AS transaction_id, e.sequence FROM ${s}.events e ${where}
      ORDER BY e.transaction_id DESC, e.sequence DESC LIMIT 1`;
  return {
    /**
     * One group of appends (see append_groups): $1 streams, $2 expected, $3 counts, $4 head hash the
     * client chained from (or null), $5 its last hash; per event $6 ids, $7 types, $8 data,
     * $9 metadata, $10 content (null where the client hashed); $11 look up stored ids first
     */
    appendGroup: `SELECT out_item, out_status, out_revision, out_transaction_id, out_sequence, out_last_hash, out_detail
      FROM ${s}.append_groups($1::text[], $2::bigint[], $3::int[], $4::text[], $5::text[],
        $6::uuid[], $7::text[], $8::text[], $9::text[], $10::text[], $11::boolean)`,

    /** $1 stream, $2 from revision (null: start), $3 limit (null: all) */
    readStreamForwards: `SELECT ${EVENT_COLUMNS} FROM ${s}.events e
      WHERE e.stream_name = $1::text AND ($2::bigint IS NULL OR e.stream_revision >= $2::bigint)
      ORDER BY e.stream_revision ASC LIMIT $3::bigint`,

    /**
     * $1 stream, $2 from revision, $3 limit (null: all). Apart from the statement above: a
     * prepared statement's generic plan cannot use `$2 IS NULL OR revision >= $2` as an index
     * bound, so it scanned a long stream from its first event to skip to `$2` (issue 13).
     */
    readStreamForwardsFrom: `SELECT ${EVENT_COLUMNS} FROM ${s}.events e
      WHERE e.stream_name = $1::text AND e.stream_revision >= $2::bigint
      ORDER BY e.stream_revision ASC LIMIT $3::bigint`,

    /** $1 stream, $2 from revision (null: end), $3 limit (null: all) */
    readStreamBackwards: `SELECT ${EVENT_COLUMNS} FROM ${s}.events e
      WHERE e.stream_name = $1::text AND ($2::bigint IS NULL OR e.stream_revision <= $2::bigint)
      ORDER BY e.stream_revision DESC LIMIT $3::bigint`,

    /** $1 ids: where each is stored, to tell an idempotent retry from a duplicate */
    findEvents: `SELECT e.event_id::text AS event_id, e.stream_name, e.stream_revision,
        e.transaction_id::text AS transaction_id, e.sequence
      FROM ${s}.events e WHERE e.event_id = ANY ($1::uuid[])`,

    /** $1 stream */
    streamHead: `SELECT revision, last_hash FROM ${s}.streams WHERE stream_name = $1::text AND revision >= 0`,

    /** $1 after transaction id (text), $2 after sequence, $3 stream prefix, $4 types, $5 limit */
    readAll: `SELECT ${EVENT_COLUMNS} FROM ${s}.events e
      WHERE (e.transaction_id, e.sequence) > ($1::text::xid8, $2::bigint) AND ${SETTLED}
        AND ($3::text IS NULL OR starts_with(e.stream_name, $3::text))
        AND ($4::text[] IS NULL OR e.event_type = ANY ($4::text[]))
      ORDER BY e.transaction_id, e.sequence LIMIT $5::bigint`,

    /**
     * Same as readAll, plus the newest settled position in the same snapshot: a consumer whose
     * filter matched less than a page has scanned up to there and checkpoints it.
     */
    readPage: `WITH head AS MATERIALIZED (
        SELECT e.transaction_id, e.sequence FROM ${s}.events e WHERE ${SETTLED}
        ORDER BY e.transaction_id DESC, e.sequence DESC LIMIT 1
      ), page AS MATERIALIZED (
        SELECT ${EVENT_COLUMNS} FROM ${s}.events e
        WHERE (e.transaction_id, e.sequence) > ($1::text::xid8, $2::bigint) AND ${SETTLED}
          AND ($3::text IS NULL OR starts_with(e.stream_name, $3::text))
          AND ($4::text[] IS NULL OR e.event_type = ANY ($4::text[]))
        ORDER BY e.transaction_id, e.sequence LIMIT $5::bigint
      )
      SELECT head.transaction_id::text AS head_transaction_id, head.sequence AS head_sequence, page.*
      FROM head LEFT JOIN page ON true
      ORDER BY page.transaction_id::xid8, page.sequence`,

    /** Newest settled position: where a subscription that starts at 'end' begins. */
    head: newest(`WHERE ${SETTLED}`),

    /** The newest settled and the newest committed position, in one snapshot (LogHead). */
    heads: `SELECT r.transaction_id AS readable_transaction_id, r.sequence AS readable_sequence,
        c.transaction_id AS committed_transaction_id, c.sequence AS committed_sequence
      FROM (${newest('')}) c LEFT JOIN (${newest(`WHERE ${SETTLED}`)}) r ON true`,

    /** $1 name */
    loadCheckpoint: `SELECT position::text AS position FROM ${s}.subscription_checkpoints WHERE name = $1::text`,
    /** $1 name, $2 position */
    createCheckpoint: `INSERT INTO ${s}.subscription_checkpoints (name, position) VALUES ($1::text, $2::numeric)
      ON CONFLICT (name) DO NOTHING`,
    /** $1 name, $2 expected position, $3 new position: compare-and-swap */
    storeCheckpoint: `UPDATE ${s}.subscription_checkpoints SET position = $3::numeric, updated_at = now()
      WHERE name = $1::text AND position = $2::numeric`,
  };
}

export type Statements = ReturnType<typeof statements>;
