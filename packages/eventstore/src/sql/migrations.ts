import { notifyChannel, quoteSchema } from './schema-name.js';
import type { SqlExecutor } from './driver.js';

/**
 * Versioned migrations, shared by the postgres and pglite adapters. `{{schema}}` is replaced by the
 * quoted schema, `{{channel}}` by the NOTIFY channel. Never edit a released migration: add one.
 */
export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'events, streams, checkpoints, append_events',
    sql: /* sql */ `
-- One row per stream: its head, locked by every append (the per-stream serialization point).
CREATE TABLE {{schema}}.streams (
  stream_name text PRIMARY KEY,
  revision    bigint NOT NULL,
  last_hash   text NOT NULL
);

-- The log. Global order is (transaction_id, sequence): readers only return transactions older than
-- every running one (pg_snapshot_xmin), so a late commit is never skipped. See ADR 0002.
CREATE TABLE {{schema}}.events (
  transaction_id  xid8 NOT NULL DEFAULT pg_current_xact_id(),
  sequence        bigserial NOT NULL,
  event_id        uuid NOT NULL,
  stream_name     text NOT NULL,
  stream_revision bigint NOT NULL,
  event_type      text NOT NULL,
  data            jsonb NOT NULL,
  metadata        jsonb NOT NULL,
  recorded_at     timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT events_pkey PRIMARY KEY (transaction_id, sequence),
  CONSTRAINT events_event_id_key UNIQUE (event_id),
  CONSTRAINT events_stream_revision_key UNIQUE (stream_name, stream_revision)
);

-- Subscription checkpoints: the position (ADR 0002 encoding) after which the next read starts.
CREATE TABLE {{schema}}.subscription_checkpoints (
  name       text PRIMARY KEY,
  position   numeric(40, 0) NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Appends a batch to one stream in one round trip. p_expected: >= 0 the exact revision of the last
-- event, -1 no-stream, -2 any, -3 exists. p_content[i] is the client's canonical JSON of
-- {type, data, metadata}; the chain hash is sha256(prevHash || content) computed here from the
-- stored head, so no read precedes the append. Errors: CS409 wrong expected version (DETAIL: the
-- actual revision or 'no-stream'), CS422 an event id stored elsewhere (DETAIL: JSON of where).
CREATE FUNCTION {{schema}}.append_events(
  p_stream   text,
  p_expected bigint,
  p_ids      uuid[],
  p_types    text[],
  p_data     text[],
  p_metadata text[],
  p_content  text[],
  p_notify   boolean
) RETURNS TABLE (out_revision bigint, out_transaction_id text, out_sequence bigint, out_idempotent boolean)
LANGUAGE plpgsql AS $fn$
DECLARE
  v_count    int := cardinality(p_ids);
  v_revision bigint;
  v_hash     text;
  v_prev     text;
  v_sequence bigint;
  v_first    record;
  v_matching int;
  v_last     record;
BEGIN
  IF v_count IS NULL OR v_count = 0 THEN
    RAISE EXCEPTION 'append_events: empty batch' USING ERRCODE = '22023';
  END IF;

  -- Lock the stream head; create it when missing. ON CONFLICT waits for a concurrent creator, so
  -- of two 'no-stream' appends exactly one inserts and the other sees the committed head.
  SELECT s.revision, s.last_hash INTO v_revision, v_hash
    FROM {{schema}}.streams s WHERE s.stream_name = p_stream FOR UPDATE;
  IF NOT FOUND THEN
    IF p_expected >= 0 OR p_expected = -3 THEN
      RAISE EXCEPTION 'wrong expected version' USING ERRCODE = 'CS409', DETAIL = 'no-stream';
    END IF;
    INSERT INTO {{schema}}.streams (stream_name, revision, last_hash)
      VALUES (p_stream, -1, repeat('0', 64))
      ON CONFLICT (stream_name) DO NOTHING;
    IF FOUND THEN
      v_revision := -1;
      v_hash := repeat('0', 64);
    ELSE
      SELECT s.revision, s.last_hash INTO v_revision, v_hash
        FROM {{schema}}.streams s WHERE s.stream_name = p_stream FOR UPDATE;
    END IF;
  END IF;

  -- Idempotency, checked under the stream lock so a retry racing its original sees it committed.
  -- A retry is the same ids at consecutive revisions of this stream; then it is a no-op whatever
  -- the expected version. If the first id is new, any other stored id fails the unique index.
  IF v_revision >= 0 THEN
    SELECT e.stream_name, e.stream_revision INTO v_first
      FROM {{schema}}.events e WHERE e.event_id = p_ids[1];
    IF FOUND THEN
      IF v_first.stream_name = p_stream THEN
        SELECT count(*) INTO v_matching
          FROM unnest(p_ids) WITH ORDINALITY AS u(id, ord)
          JOIN {{schema}}.events e ON e.event_id = u.id
         WHERE e.stream_name = p_stream AND e.stream_revision = v_first.stream_revision + u.ord - 1;
        IF v_matching = v_count THEN
          SELECT e.stream_revision, e.transaction_id, e.sequence INTO v_last
            FROM {{schema}}.events e WHERE e.event_id = p_ids[v_count];
          RETURN QUERY SELECT v_last.stream_revision, v_last.transaction_id::text, v_last.sequence, true;
          RETURN;
        END IF;
      END IF;
      RAISE EXCEPTION 'duplicate event id' USING ERRCODE = 'CS422',
        DETAIL = json_build_object('id', p_ids[1], 'stream', v_first.stream_name,
                                   'revision', v_first.stream_revision)::text;
    END IF;
  END IF;

  IF (p_expected = -1 AND v_revision >= 0)
     OR (p_expected = -3 AND v_revision < 0)
     OR (p_expected >= 0 AND p_expected <> v_revision) THEN
    RAISE EXCEPTION 'wrong expected version' USING ERRCODE = 'CS409',
      DETAIL = CASE WHEN v_revision < 0 THEN 'no-stream' ELSE v_revision::text END;
  END IF;

  FOR i IN 1 .. v_count LOOP
    v_prev := v_hash;
    v_hash := encode(sha256(convert_to(v_prev || p_content[i], 'UTF8')), 'hex');
    INSERT INTO {{schema}}.events (event_id, stream_name, stream_revision, event_type, data, metadata)
      VALUES (p_ids[i], p_stream, v_revision + i, p_types[i], p_data[i]::jsonb,
              p_metadata[i]::jsonb || jsonb_build_object('prevHash', v_prev, 'hash', v_hash))
      RETURNING sequence INTO v_sequence;
  END LOOP;

  UPDATE {{schema}}.streams SET revision = v_revision + v_count, last_hash = v_hash
   WHERE stream_name = p_stream;

  IF p_notify THEN
    PERFORM pg_notify('{{channel}}', '');
  END IF;

  RETURN QUERY SELECT v_revision + v_count, pg_current_xact_id()::text, v_sequence, false;
END
$fn$;
`,
  },
];

/** SQL text of a migration for one schema. */
export function migrationSql(migration: Migration, schema: string): string {
  return migration.sql
    .replaceAll('{{schema}}', quoteSchema(schema))
    .replaceAll('{{channel}}', notifyChannel(schema));
}

/**
 * Applies the missing migrations in one transaction under an advisory lock, so processes that
 * start together do not race to create the schema.
 */
export async function migrate(
  driver: { transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> },
  schema: string,
): Promise<number[]> {
  const quoted = quoteSchema(schema);
  return driver.transaction(async (tx) => {
    await tx.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [`croupier.migrate:${schema}`]);
    await tx.query(`CREATE SCHEMA IF NOT EXISTS ${quoted}`);
    await tx.query(
      `CREATE TABLE IF NOT EXISTS ${quoted}.schema_migrations (
         version    integer PRIMARY KEY,
         name       text NOT NULL,
         applied_at timestamptz NOT NULL DEFAULT now()
       )`,
    );
    const applied = await tx.query<{ version: number }>(
      `SELECT version FROM ${quoted}.schema_migrations`,
    );
    const done = new Set(applied.rows.map((row) => row.version));
    const newlyApplied: number[] = [];
    for (const migration of MIGRATIONS) {
      if (done.has(migration.version)) continue;
      await tx.exec(migrationSql(migration, schema));
      await tx.query(`INSERT INTO ${quoted}.schema_migrations (version, name) VALUES ($1, $2)`, [
        migration.version,
        migration.name,
      ]);
      newlyApplied.push(migration.version);
    }
    return newlyApplied;
  });
}
