import { int8Param, type SqlExecutor } from '../sql/driver.js';
import { applyMigrationList, type Migration } from '../sql/migration-list.js';
import { quoteSchema } from '../sql/schema-name.js';
import type { Snapshot, SnapshotStorage } from './snapshot-storage.js';

/**
 * The snapshot table's migrations: a list of their own (table `snapshot_migrations`), apart from
 * the log's and the read models', so snapshots move without touching either. Never edit a
 * released migration: add one.
 */
export const SNAPSHOT_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'aggregate snapshots',
    sql: /* sql */ `
-- An aggregate's folded state of a stream at a revision, with the hash of the event at that
-- revision (checked against the events table before use) and a digest over the row. A cache of
-- the log: deleting every row loses nothing but speed.
CREATE TABLE {{schema}}.snapshots (
  stream         text NOT NULL,
  aggregate      text NOT NULL,
  revision       bigint NOT NULL,
  schema_version integer NOT NULL,
  event_hash     text NOT NULL,
  digest         text NOT NULL,
  state          jsonb NOT NULL,
  taken_at       timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT snapshots_pkey PRIMARY KEY (stream, aggregate, revision)
);
`,
  },
];

/** Applies the snapshot table's missing migrations, under an advisory lock. */
export async function migrateSnapshots(
  driver: { transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> },
  schema: string,
): Promise<number[]> {
  return applyMigrationList(driver, schema, {
    table: 'snapshot_migrations',
    lock: 'croupier.migrate-snapshots',
    migrations: SNAPSHOT_MIGRATIONS,
  });
}

function statements(schema: string) {
  const s = quoteSchema(schema);
  return {
    /** $1 stream, $2 aggregate */
    latest: `SELECT stream, aggregate, revision::text AS revision, schema_version, event_hash,
        digest, state FROM ${s}.snapshots
      WHERE stream = $1::text AND aggregate = $2::text ORDER BY revision DESC LIMIT 1`,
    /**
     * $1 streams, $2 aggregates, $3 revisions, $4 versions, $5 event hashes, $6 digests, $7
     * states (JSON text). The older rows go in the same statement (the DELETE does not see the
     * rows this INSERT adds).
     */
    save: `WITH u AS (
        SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::integer[], $5::text[],
          $6::text[], $7::text[])
          AS u(stream, aggregate, revision, schema_version, event_hash, digest, state)
      ), pruned AS (
        DELETE FROM ${s}.snapshots d USING u
        WHERE d.stream = u.stream AND d.aggregate = u.aggregate AND d.revision < u.revision
      )
      INSERT INTO ${s}.snapshots (stream, aggregate, revision, schema_version, event_hash, digest, state)
      SELECT stream, aggregate, revision, schema_version, event_hash, digest, state::jsonb FROM u
      ON CONFLICT (stream, aggregate, revision) DO UPDATE
      SET schema_version = excluded.schema_version, event_hash = excluded.event_hash,
          digest = excluded.digest, state = excluded.state, taken_at = now()`,
  };
}

interface SnapshotRow {
  stream: string;
  aggregate: string;
  revision: string;
  schema_version: number;
  event_hash: string;
  digest: string;
  state: unknown;
}

interface SnapshotDriver extends SqlExecutor {
  transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** Snapshots in the event store's PostgreSQL (or PGlite) database, or in one of their own. */
export class SqlSnapshotStorage implements SnapshotStorage {
  readonly #driver: SnapshotDriver;
  readonly #sql: ReturnType<typeof statements>;
  readonly #ownsDriver: boolean;

  private constructor(driver: SnapshotDriver, schema: string, ownsDriver: boolean) {
    this.#driver = driver;
    this.#sql = statements(schema);
    this.#ownsDriver = ownsDriver;
  }

  /** Migrates the snapshot table and returns the storage; `ownsDriver` closes it with it. */
  static async open(
    driver: SnapshotDriver,
    options: { readonly schema: string; readonly ownsDriver?: boolean },
  ): Promise<SqlSnapshotStorage> {
    await migrateSnapshots(driver, options.schema);
    return new SqlSnapshotStorage(driver, options.schema, options.ownsDriver ?? false);
  }

  async latest(stream: string, aggregate: string): Promise<Snapshot | undefined> {
    const { rows } = await this.#driver.query<SnapshotRow>(this.#sql.latest, [stream, aggregate]);
    const row = rows[0];
    if (row === undefined) return undefined;
    return {
      stream: row.stream,
      aggregate: row.aggregate,
      revision: BigInt(row.revision),
      schemaVersion: row.schema_version,
      eventHash: row.event_hash,
      digest: row.digest,
      state: row.state,
    };
  }

  async save(snapshots: readonly Snapshot[]): Promise<void> {
    if (snapshots.length === 0) return;
    await this.#driver.query(this.#sql.save, [
      snapshots.map((s) => s.stream),
      snapshots.map((s) => s.aggregate),
      snapshots.map((s) => int8Param(s.revision)),
      snapshots.map((s) => s.schemaVersion),
      snapshots.map((s) => s.eventHash),
      snapshots.map((s) => s.digest),
      snapshots.map((s) => JSON.stringify(s.state)),
    ]);
  }

  async close(): Promise<void> {
    if (this.#ownsDriver) await this.#driver.close();
  }
}
