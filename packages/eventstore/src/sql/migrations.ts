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
  stream_name    text PRIMARY KEY,
  revision       bigint NOT NULL,
  last_hash      text NOT NULL,
  -- the head's hash before the last append: lets one UPDATE both advance and report it
  prev_last_hash text NOT NULL
) WITH (fillfactor = 70); -- room on each page keeps the per-append head update HOT

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

-- The chain over a batch: element i is sha256(element i-1 || p_content[i]), element 0 being p_prev.
-- p_content[i] is the client's canonical JSON of {type, data, metadata}.
CREATE FUNCTION {{schema}}.chain_hashes(p_prev text, p_content text[]) RETURNS text[]
LANGUAGE plpgsql IMMUTABLE STRICT AS $fn$
DECLARE
  v_hashes text[] := ARRAY[p_prev];
BEGIN
  FOR i IN 1 .. cardinality(p_content) LOOP
    v_hashes := v_hashes || encode(sha256(convert_to(v_hashes[i] || p_content[i], 'UTF8')), 'hex');
  END LOOP;
  RETURN v_hashes;
END
$fn$;

-- Appends a batch to one stream in one round trip. p_expected: >= 0 the exact revision of the last
-- event, -1 no-stream, -2 any, -3 exists. The chain is hashed here from the stored head, so no
-- read precedes the append. Errors: CS409 wrong expected version (DETAIL: the actual revision or
-- 'no-stream'), CS422 an id already stored (DETAIL: JSON of where); an id stored elsewhere that is
-- not the batch's first fails the unique index (23505), which the client resolves.
--
-- Fast path (existing stream, expected version holds): one UPDATE locks the head, checks the
-- version in its WHERE, advances it and keeps the previous hash in prev_last_hash, so no separate
-- SELECT ... FOR UPDATE is needed. A new stream is one INSERT ... ON CONFLICT: of two concurrent
-- creators exactly one inserts. Everything else (mismatch, retry) takes the slow path.
CREATE FUNCTION {{schema}}.append_events(
  p_stream   text,
  p_expected bigint,
  p_ids      uuid[],
  p_types    text[],
  p_data     text[],
  p_metadata text[],
  p_content  text[],
  p_notify   boolean,
  OUT out_revision bigint,
  OUT out_transaction_id text,
  OUT out_sequence bigint,
  OUT out_idempotent boolean
) LANGUAGE plpgsql AS $fn$
DECLARE
  v_count    int := cardinality(p_ids);
  v_base     bigint;
  v_prev     text;
  v_hashes   text[];
  v_actual   bigint;
  v_sequence bigint;
  v_first    record;
  v_matching int;
  v_last     record;
BEGIN
  IF v_count IS NULL OR v_count = 0 THEN
    RAISE EXCEPTION 'append_events: empty batch' USING ERRCODE = '22023';
  END IF;

  FOR attempt IN 1 .. 2 LOOP
    IF p_expected <> -1 THEN
      UPDATE {{schema}}.streams s
         SET revision = s.revision + v_count,
             prev_last_hash = s.last_hash,
             last_hash = ({{schema}}.chain_hashes(s.last_hash, p_content))[v_count + 1]
       WHERE s.stream_name = p_stream AND (p_expected < 0 OR s.revision = p_expected)
      RETURNING s.revision - v_count, s.prev_last_hash INTO v_base, v_prev;
      EXIT WHEN FOUND;
    END IF;
    IF p_expected IN (-1, -2) THEN
      INSERT INTO {{schema}}.streams AS s (stream_name, revision, last_hash, prev_last_hash)
        VALUES (p_stream, v_count - 1,
                ({{schema}}.chain_hashes(repeat('0', 64), p_content))[v_count + 1], repeat('0', 64))
        ON CONFLICT (stream_name) DO NOTHING
      RETURNING -1::bigint, s.prev_last_hash INTO v_base, v_prev;
      EXIT WHEN FOUND;
      -- Another transaction created the stream meanwhile: 'any' retries the update once.
      CONTINUE WHEN p_expected = -2 AND attempt = 1;
    END IF;

    -- Slow path: the expected version does not hold (or the stream is missing). An idempotent
    -- retry (same ids at consecutive revisions of this stream) returns the original result.
    SELECT s.revision INTO v_actual FROM {{schema}}.streams s WHERE s.stream_name = p_stream;
    IF FOUND THEN
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
            out_revision := v_last.stream_revision;
            out_transaction_id := v_last.transaction_id::text;
            out_sequence := v_last.sequence;
            out_idempotent := true;
            RETURN;
          END IF;
        END IF;
        RAISE EXCEPTION 'duplicate event id' USING ERRCODE = 'CS422',
          DETAIL = json_build_object('id', p_ids[1], 'stream', v_first.stream_name,
                                     'revision', v_first.stream_revision)::text;
      END IF;
    END IF;
    RAISE EXCEPTION 'wrong expected version' USING ERRCODE = 'CS409',
      DETAIL = CASE WHEN v_actual IS NULL THEN 'no-stream' ELSE v_actual::text END;
  END LOOP;

  v_hashes := {{schema}}.chain_hashes(v_prev, p_content);
  FOR i IN 1 .. v_count LOOP
    INSERT INTO {{schema}}.events (event_id, stream_name, stream_revision, event_type, data, metadata)
      VALUES (p_ids[i], p_stream, v_base + i, p_types[i], p_data[i]::jsonb,
              p_metadata[i]::jsonb || jsonb_build_object('prevHash', v_hashes[i], 'hash', v_hashes[i + 1]))
      RETURNING sequence INTO v_sequence;
  END LOOP;

  -- The adapters pass false and signal after commit instead: a NOTIFY inside the transaction
  -- holds a cluster-wide lock through the commit's WAL flush, serializing every appending commit
  -- (measured: 3x fewer appends/s with 16 writers). Kept for writers that bypass the adapter.
  IF p_notify THEN
    PERFORM pg_notify('{{channel}}', '');
  END IF;

  out_revision := v_base + v_count;
  out_transaction_id := pg_current_xact_id()::text;
  out_sequence := v_sequence;
  out_idempotent := false;
END
$fn$;
`,
  },
  {
    version: 2,
    name: 'append_groups: many streams per transaction, the chain hashed once',
    sql: /* sql */ `
-- Where a stored id of a batch is: a retry of that very batch (the same ids at consecutive
-- revisions of p_stream) gives the original result, status 'retry'; any other stored id gives
-- 'duplicate' naming the first one. No row when none of the ids is stored.
CREATE FUNCTION {{schema}}.resolve_stored_ids(p_stream text, p_ids uuid[],
  OUT out_status text, OUT out_revision bigint, OUT out_transaction_id text,
  OUT out_sequence bigint, OUT out_detail text)
RETURNS SETOF record LANGUAGE plpgsql STABLE AS $fn$
DECLARE
  v_found    record;
  v_count    int := cardinality(p_ids);
  v_matching int := 0;
  f_ord      bigint;
  f_stream   text;
  f_revision bigint;
BEGIN
  FOR v_found IN
    SELECT u.ord, e.stream_name, e.stream_revision, e.transaction_id, e.sequence
      FROM unnest(p_ids) WITH ORDINALITY AS u(id, ord)
      JOIN {{schema}}.events e ON e.event_id = u.id
     ORDER BY u.ord
  LOOP
    IF f_ord IS NULL THEN
      f_ord := v_found.ord;
      f_stream := v_found.stream_name;
      f_revision := v_found.stream_revision;
    END IF;
    IF v_found.stream_name = p_stream AND v_found.stream_revision = f_revision - f_ord + v_found.ord THEN
      v_matching := v_matching + 1;
    END IF;
    out_revision := v_found.stream_revision;
    out_transaction_id := v_found.transaction_id::text;
    out_sequence := v_found.sequence;
  END LOOP;
  IF f_ord IS NULL THEN
    RETURN;
  END IF;
  IF f_ord = 1 AND f_stream = p_stream AND v_matching = v_count THEN
    out_status := 'retry';
  ELSE
    out_status := 'duplicate';
    out_revision := NULL;
    out_transaction_id := NULL;
    out_sequence := NULL;
    out_detail := json_build_object('id', p_ids[f_ord], 'stream', f_stream,
                                    'revision', f_revision)::text;
  END IF;
  RETURN NEXT;
END
$fn$;

-- Appends a group of batches, each to its own stream, in one transaction (the adapters' group
-- commit: appends that arrive while the previous group is in flight). Item i is the batch of
-- p_counts[i] events for p_streams[i], with p_expected[i] as in append_events (>= 0 the exact
-- revision of the last event, -1 no-stream, -2 any, -3 exists); the events of all items follow
-- each other in p_ids, p_types, p_data, p_metadata, p_content.
--
-- Every item gets its own row and its own outcome; none of them fails another, and no EXCEPTION
-- block (subtransaction) is used: the expected version, and with p_check_ids retries and
-- duplicates, are checked before anything of the item is written. Statuses: 'ok', 'retry' (the same batch is stored: its
-- original result), 'conflict' (DETAIL-like out_detail: the actual revision or 'no-stream'),
-- 'duplicate' (out_detail: JSON of where the id is), 'stale' (the client's head hash was wrong:
-- resend without it). Anything else (an id inserted concurrently by another transaction, a
-- deadlock) raises: the client sends the group again with p_check_ids (a unique violation on
-- event_id), or appends each item alone.
--
-- The chain is hashed once per event. Where the client knows the head it expects (exact version
-- from an earlier append, or no-stream: the genesis hash), it hashes and sends p_prev[i] (the
-- head's hash) and p_last[i] (the batch's last hash), with prevHash and hash already in
-- p_metadata, and p_content NULL: the server links the chain by checking p_prev[i] against the
-- stored head in the same UPDATE that checks the version. Otherwise p_prev[i] is NULL and the
-- server locks the head and hashes p_content from it.
CREATE FUNCTION {{schema}}.append_groups(
  p_streams  text[],
  p_expected bigint[],
  p_counts   int[],
  p_prev     text[],
  p_last     text[],
  p_ids      uuid[],
  p_types    text[],
  p_data     text[],
  p_metadata text[],
  p_content  text[],
  p_check_ids boolean
) RETURNS TABLE (
  out_item int,
  out_status text,
  out_revision bigint,
  out_transaction_id text,
  out_sequence bigint,
  out_last_hash text,
  out_detail text
) LANGUAGE plpgsql AS $fn$
DECLARE
  v_items    int := cardinality(p_streams);
  v_events   int := cardinality(p_ids);
  v_stored   uuid[];
  v_first    int := 1;
  v_n        int;
  v_stream   text;
  v_expected bigint;
  v_written  boolean;
  v_actual   bigint;
  v_head     text;
  v_hashes   text[];
  r_status   text;
  r_revision bigint;
  r_xid      text;
  r_sequence bigint;
  r_detail   text;
  -- per written item, in item order
  w_item     int[] := '{}';
  w_count    int[] := '{}';
  w_base     bigint[] := '{}';
  w_last     text[] := '{}';
  -- per event: its stream and revision (NULL unless its item is written), and the chain fields
  -- the server computed (NULL where the client hashed)
  e_stream   text[];
  e_revision bigint[];
  v_prevh    text[];
  v_hash     text[];
  v_seqs     bigint[];
  v_done     int := 0;
  v_xid      text;
BEGIN
  -- Shape checks without a query (the counts are checked as the loop walks them).
  IF v_items IS NULL OR v_items = 0 OR v_events IS NULL
     OR cardinality(p_expected) <> v_items OR cardinality(p_counts) <> v_items
     OR cardinality(p_prev) <> v_items OR cardinality(p_last) <> v_items
     OR cardinality(p_types) <> v_events OR cardinality(p_data) <> v_events
     OR cardinality(p_metadata) <> v_events OR cardinality(p_content) <> v_events THEN
    RAISE EXCEPTION 'append_groups: arrays of unequal length' USING ERRCODE = '22023';
  END IF;
  v_prevh := array_fill(NULL::text, ARRAY[v_events]);
  v_hash := v_prevh;
  e_stream := v_prevh;
  e_revision := array_fill(NULL::bigint, ARRAY[v_events]);

  -- Ids stored already: retries and duplicates told apart before anything is written. Only on
  -- request: the client asks after the unique index refused a group (an id of another stream
  -- reused, a retry with 'any'); a retry at its old exact version or with 'no-stream' meets a
  -- version that no longer holds and is resolved below without it.
  IF p_check_ids THEN
    SELECT array_agg(e.event_id) INTO v_stored
      FROM {{schema}}.events e WHERE e.event_id = ANY (p_ids);
  END IF;

  FOR i IN 1 .. v_items LOOP
    v_n := p_counts[i];
    IF v_n IS NULL OR v_n < 1 OR v_first + v_n - 1 > v_events THEN
      RAISE EXCEPTION 'append_groups: item % has a bad event count', i USING ERRCODE = '22023';
    END IF;
    v_stream := p_streams[i];
    v_expected := p_expected[i];
    v_written := false;
    r_status := NULL;
    r_revision := NULL;
    r_xid := NULL;
    r_sequence := NULL;
    r_detail := NULL;

    IF v_stored IS NOT NULL AND p_ids[v_first : v_first + v_n - 1] && v_stored THEN
      SELECT * INTO r_status, r_revision, r_xid, r_sequence, r_detail
        FROM {{schema}}.resolve_stored_ids(v_stream, p_ids[v_first : v_first + v_n - 1]);
    ELSIF p_prev[i] IS NOT NULL THEN
      -- The client hashed from the head it expects: one statement checks version and link.
      IF v_expected = -1 THEN
        INSERT INTO {{schema}}.streams AS s (stream_name, revision, last_hash, prev_last_hash)
          VALUES (v_stream, v_n - 1, p_last[i], p_prev[i])
          ON CONFLICT (stream_name) DO NOTHING;
      ELSE
        UPDATE {{schema}}.streams s
           SET revision = v_expected + v_n, prev_last_hash = s.last_hash, last_hash = p_last[i]
         WHERE s.stream_name = v_stream AND s.revision = v_expected AND s.last_hash = p_prev[i];
      END IF;
      IF FOUND THEN
        v_written := true;
        w_base := w_base || v_expected;
        w_last := w_last || p_last[i];
      END IF;
    END IF;

    IF NOT v_written AND r_status IS NULL THEN
      -- Lock the head (or find none), check the expected version, hash from the stored head.
      FOR attempt IN 1 .. 2 LOOP
        SELECT s.revision, s.last_hash INTO v_actual, v_head
          FROM {{schema}}.streams s WHERE s.stream_name = v_stream FOR UPDATE;
        IF NOT FOUND THEN
          v_actual := NULL;
          EXIT WHEN v_expected NOT IN (-1, -2);
          v_head := repeat('0', 64);
        ELSIF NOT (v_expected IN (-2, -3) OR v_expected = v_actual) THEN
          EXIT;
        END IF;
        IF p_prev[i] IS NOT NULL THEN
          -- The version holds but the client's head hash does not: its cache was wrong.
          r_status := 'stale';
          EXIT;
        END IF;
        v_hashes := {{schema}}.chain_hashes(v_head, p_content[v_first : v_first + v_n - 1]);
        IF v_actual IS NULL THEN
          INSERT INTO {{schema}}.streams AS s (stream_name, revision, last_hash, prev_last_hash)
            VALUES (v_stream, v_n - 1, v_hashes[v_n + 1], v_head)
            ON CONFLICT (stream_name) DO NOTHING;
          -- Created meanwhile by another transaction: look again.
          CONTINUE WHEN NOT FOUND;
        ELSE
          UPDATE {{schema}}.streams s
             SET revision = v_actual + v_n, prev_last_hash = v_head, last_hash = v_hashes[v_n + 1]
           WHERE s.stream_name = v_stream;
        END IF;
        v_prevh[v_first : v_first + v_n - 1] := v_hashes[1 : v_n];
        v_hash[v_first : v_first + v_n - 1] := v_hashes[2 : v_n + 1];
        v_written := true;
        w_base := w_base || coalesce(v_actual, -1);
        w_last := w_last || v_hashes[v_n + 1];
        EXIT;
      END LOOP;
      IF NOT v_written AND r_status IS NULL THEN
        -- The version does not hold: a retry whose original committed meanwhile, or a conflict.
        SELECT * INTO r_status, r_revision, r_xid, r_sequence, r_detail
          FROM {{schema}}.resolve_stored_ids(v_stream, p_ids[v_first : v_first + v_n - 1]);
        IF r_status IS NULL THEN
          r_status := 'conflict';
          r_detail := CASE WHEN v_actual IS NULL THEN 'no-stream' ELSE v_actual::text END;
        END IF;
      END IF;
    END IF;

    IF v_written THEN
      w_item := w_item || i;
      w_count := w_count || v_n;
      FOR k IN 0 .. v_n - 1 LOOP
        e_stream[v_first + k] := v_stream;
        e_revision[v_first + k] := w_base[cardinality(w_base)] + 1 + k;
      END LOOP;
    ELSE
      out_item := i;
      out_status := r_status;
      out_revision := r_revision;
      out_transaction_id := r_xid;
      out_sequence := r_sequence;
      out_last_hash := NULL;
      out_detail := r_detail;
      RETURN NEXT;
    END IF;
    v_first := v_first + v_n;
  END LOOP;

  IF v_first <> v_events + 1 THEN
    RAISE EXCEPTION 'append_groups: the counts do not add up to the events' USING ERRCODE = '22023';
  END IF;
  IF cardinality(w_item) = 0 THEN
    RETURN;
  END IF;

  -- Every written item's events in one statement, in item order (unnest keeps the arrays'
  -- order): sequences follow that order, so within a stream they follow the revisions.
  WITH inserted AS (
    INSERT INTO {{schema}}.events (event_id, stream_name, stream_revision, event_type, data, metadata)
    SELECT u.id, u.stream_name, u.revision, u.event_type, u.data::jsonb,
           CASE WHEN u.hash IS NULL THEN u.metadata::jsonb
                ELSE u.metadata::jsonb || jsonb_build_object('prevHash', u.prev_hash, 'hash', u.hash)
           END
      FROM unnest(p_ids, e_stream, e_revision, p_types, p_data, p_metadata, v_prevh, v_hash)
             AS u(id, stream_name, revision, event_type, data, metadata, prev_hash, hash)
     WHERE u.revision IS NOT NULL
    RETURNING sequence
  )
  SELECT array_agg(inserted.sequence ORDER BY inserted.sequence) INTO v_seqs FROM inserted;

  v_xid := pg_current_xact_id()::text;
  FOR n IN 1 .. cardinality(w_item) LOOP
    v_done := v_done + w_count[n];
    out_item := w_item[n];
    out_status := 'ok';
    out_revision := w_base[n] + w_count[n];
    out_transaction_id := v_xid;
    out_sequence := v_seqs[v_done];
    out_last_hash := w_last[n];
    out_detail := NULL;
    RETURN NEXT;
  END LOOP;
END
$fn$;

-- Version 1's single-stream append, now one item of append_groups: the chain is hashed once,
-- from the locked head. Same parameters, results and errors as before, for writers that bypass
-- the adapters.
CREATE OR REPLACE FUNCTION {{schema}}.append_events(
  p_stream   text,
  p_expected bigint,
  p_ids      uuid[],
  p_types    text[],
  p_data     text[],
  p_metadata text[],
  p_content  text[],
  p_notify   boolean,
  OUT out_revision bigint,
  OUT out_transaction_id text,
  OUT out_sequence bigint,
  OUT out_idempotent boolean
) LANGUAGE plpgsql AS $fn$
DECLARE
  v_row record;
BEGIN
  IF cardinality(p_ids) IS NULL OR cardinality(p_ids) = 0 THEN
    RAISE EXCEPTION 'append_events: empty batch' USING ERRCODE = '22023';
  END IF;
  SELECT * INTO v_row FROM {{schema}}.append_groups(
    ARRAY[p_stream], ARRAY[p_expected], ARRAY[cardinality(p_ids)], ARRAY[NULL::text],
    ARRAY[NULL::text], p_ids, p_types, p_data, p_metadata, p_content, true);
  IF v_row.out_status = 'conflict' THEN
    RAISE EXCEPTION 'wrong expected version' USING ERRCODE = 'CS409', DETAIL = v_row.out_detail;
  ELSIF v_row.out_status = 'duplicate' THEN
    RAISE EXCEPTION 'duplicate event id' USING ERRCODE = 'CS422', DETAIL = v_row.out_detail;
  END IF;
  IF p_notify AND v_row.out_status = 'ok' THEN
    PERFORM pg_notify('{{channel}}', '');
  END IF;
  out_revision := v_row.out_revision;
  out_transaction_id := v_row.out_transaction_id;
  out_sequence := v_row.out_sequence;
  out_idempotent := v_row.out_status = 'retry';
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
