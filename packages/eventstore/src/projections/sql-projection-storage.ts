import type { EventEmitter } from 'node:events';
import { int8Param, type SqlDriver, type SqlExecutor } from '../sql/driver.js';
import { applyMigrationList, type Migration } from '../sql/migration-list.js';
import { quoteSchema } from '../sql/schema-name.js';
import {
  ProjectionOwnershipLostError,
  validateModelName,
  type Document,
  type LeaseSignals,
  type ListOptions,
  type ModelCommit,
  type ModelSlot,
  type ModelState,
  type ProjectionLease,
  type ProjectionStorage,
  type StoredDocument,
} from './projection-storage.js';

/**
 * The projection tables' migrations: a list of their own (table `projection_migrations`), apart
 * from the event store's, so the read side's schema moves without touching the log's. Never edit
 * a released migration: add one.
 */
export const PROJECTION_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'projection checkpoints and documents',
    sql: /* sql */ `
-- One row per model and generation: the position its documents have applied the log to (ADR 0002
-- encoding), moved with compare-and-swap in the same transaction as the documents. Exactly one
-- generation per model is active (served); a rebuild fills another, then activates it.
CREATE TABLE {{schema}}.projection_checkpoints (
  model           text NOT NULL,
  generation      integer NOT NULL,
  position        numeric(40, 0) NOT NULL DEFAULT 0,
  active          boolean NOT NULL DEFAULT false,
  -- the event the model stopped at, and why; cleared by the next commit that moves it on
  failed_position numeric(40, 0),
  failure         text,
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT projection_checkpoints_pkey PRIMARY KEY (model, generation)
);
CREATE UNIQUE INDEX projection_checkpoints_active ON {{schema}}.projection_checkpoints (model) WHERE active;

-- The models' documents: a JSON document per key, with a partition and a sort column for the
-- queries that list (a player's rounds newest first, the debits older than a time).
CREATE TABLE {{schema}}.projection_documents (
  model      text NOT NULL,
  generation integer NOT NULL,
  key        text NOT NULL,
  partition  text,
  sort       numeric(40, 0),
  doc        jsonb NOT NULL,
  CONSTRAINT projection_documents_pkey PRIMARY KEY (model, generation, key)
);
CREATE INDEX projection_documents_list ON {{schema}}.projection_documents (model, generation, partition, sort);
`,
  },
  {
    version: 2,
    name: 'list documents in key order within a sort value',
    sql: /* sql */ `
-- A list is ordered by sort, then key: with the key in the index, a page of a long partition (a
-- player's rounds, the significant events of a day) is read from the index in order and stops at
-- its limit, with no sort of the partition's rows.
CREATE INDEX projection_documents_list_by_key
  ON {{schema}}.projection_documents (model, generation, partition, sort, key);
DROP INDEX {{schema}}.projection_documents_list;
`,
  },
];

interface StateRow {
  model: string;
  generation: number;
  position: string;
  active: boolean;
  failed_position: string | null;
  failure: string | null;
}

function stateOf(row: StateRow): ModelState {
  return {
    model: row.model,
    generation: row.generation,
    position: BigInt(row.position),
    active: row.active,
    failure:
      row.failed_position === null
        ? null
        : { position: BigInt(row.failed_position), error: row.failure ?? '' },
  };
}

const STATE_COLUMNS = `model, generation, position::text AS position, active,
  failed_position::text AS failed_position, failure`;

function statements(schema: string) {
  const s = quoteSchema(schema);
  // The active generation as a value, not a join: the documents' index then has every column
  // before `partition, sort` bound, and a page is read from it in order, stopping at its limit.
  const active = `d.generation = (SELECT c.generation FROM ${s}.projection_checkpoints c
      WHERE c.model = $1::text AND c.active)`;
  // One statement per partition filter, so each compares the partition with an operator the
  // index serves (`IS NOT DISTINCT FROM` is not one). Every one takes the same parameters: $2 is
  // null where the partition is not compared with it.
  const partitionFilter = {
    any: '$2::text IS NULL',
    none: '$2::text IS NULL AND d.partition IS NULL',
    one: 'd.partition = $2::text',
  } as const;
  const list = (order: 'ASC' | 'DESC', partition: keyof typeof partitionFilter) =>
    `SELECT d.key, d.doc, d.partition, d.sort::text AS sort
      FROM ${s}.projection_documents d
      WHERE d.model = $1::text AND ${active} AND ${partitionFilter[partition]}
        AND ($4::numeric IS NULL OR d.sort <= $4::numeric)
        AND ($5::numeric IS NULL OR d.sort >= $5::numeric)
      ORDER BY d.sort ${order} NULLS FIRST, d.key ${order} LIMIT $3::bigint`;
  return {
    /** $1 model */
    ensureModel: `INSERT INTO ${s}.projection_checkpoints (model, generation, position, active)
      SELECT $1::text, 1, 0, true
      WHERE NOT EXISTS (SELECT 1 FROM ${s}.projection_checkpoints WHERE model = $1::text)
      ON CONFLICT DO NOTHING`,
    /** $1 model or null */
    states: `SELECT ${STATE_COLUMNS} FROM ${s}.projection_checkpoints
      WHERE $1::text IS NULL OR model = $1::text ORDER BY model, generation`,
    /** $1 models, $2 generations, $3 keys */
    load: `SELECT d.model, d.generation, d.key, d.doc FROM ${s}.projection_documents d
      WHERE (d.model, d.generation, d.key) IN
        (SELECT * FROM unnest($1::text[], $2::integer[], $3::text[]))`,
    /** $1 models, $2 generations, $3 from, $4 to, $5 failed positions, $6 failures */
    advance: `UPDATE ${s}.projection_checkpoints c
      SET position = u.to_position, failed_position = u.failed_position, failure = u.failure,
          updated_at = now()
      FROM unnest($1::text[], $2::integer[], $3::numeric[], $4::numeric[], $5::numeric[], $6::text[])
        AS u(model, generation, from_position, to_position, failed_position, failure)
      WHERE c.model = u.model AND c.generation = u.generation AND c.position = u.from_position
      RETURNING c.model, c.generation`,
    /**
     * $1 the rows as one JSON array of {model, generation, key, partition, sort, doc}, sort as a
     * string. One JSON text rather than an array per column: the documents are not escaped again
     * as array elements by the client and parsed out of them by the server (docs/adr/0047).
     */
    upsert: `INSERT INTO ${s}.projection_documents (model, generation, key, partition, sort, doc)
      SELECT u.model, u.generation, u.key, u.partition, u.sort, u.doc
      FROM json_to_recordset($1::json)
        AS u(model text, generation integer, key text, partition text, sort numeric, doc jsonb)
      ON CONFLICT (model, generation, key)
      DO UPDATE SET partition = excluded.partition, sort = excluded.sort, doc = excluded.doc`,
    /** $1 models, $2 generations, $3 keys */
    remove: `DELETE FROM ${s}.projection_documents d
      USING unnest($1::text[], $2::integer[], $3::text[]) AS u(model, generation, key)
      WHERE d.model = u.model AND d.generation = u.generation AND d.key = u.key`,
    /** $1 model, $2 key */
    get: `SELECT d.doc FROM ${s}.projection_documents d
      WHERE d.model = $1::text AND ${active} AND d.key = $2::text`,
    /** $1 model, $2 keys */
    getMany: `SELECT d.key, d.doc FROM ${s}.projection_documents d
      WHERE d.model = $1::text AND ${active} AND d.key = ANY($2::text[])`,
    /** $1 model, $2 partition, $3 limit, $4 greatest sort, $5 least sort */
    list: {
      ASC: { any: list('ASC', 'any'), none: list('ASC', 'none'), one: list('ASC', 'one') },
      DESC: { any: list('DESC', 'any'), none: list('DESC', 'none'), one: list('DESC', 'one') },
    },
    /** $1 model */
    createGeneration: `INSERT INTO ${s}.projection_checkpoints (model, generation, position, active)
      SELECT $1::text, coalesce(max(generation), 0) + 1, 0, false
      FROM ${s}.projection_checkpoints WHERE model = $1::text
      RETURNING ${STATE_COLUMNS}`,
    /** $1 model */
    deactivate: `UPDATE ${s}.projection_checkpoints SET active = false WHERE model = $1::text AND active`,
    /** $1 model, $2 generation */
    activate: `UPDATE ${s}.projection_checkpoints SET active = true, updated_at = now()
      WHERE model = $1::text AND generation = $2::integer`,
    /** $1 model, $2 generation kept */
    dropDocuments: `DELETE FROM ${s}.projection_documents WHERE model = $1::text AND generation <> $2::integer`,
    dropCheckpoints: `DELETE FROM ${s}.projection_checkpoints WHERE model = $1::text AND generation <> $2::integer`,
    analyze: `ANALYZE ${s}.projection_documents`,
  };
}

/** Applies the projection tables' missing migrations, under an advisory lock. */
export async function migrateProjections(
  driver: { transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> },
  schema: string,
): Promise<number[]> {
  return applyMigrationList(driver, schema, {
    table: 'projection_migrations',
    lock: 'croupier.migrate-projections',
    migrations: PROJECTION_MIGRATIONS,
  });
}

const slotKey = (slot: ModelSlot) => `${slot.model}#${slot.generation}`;
export { slotKey as projectionSlotKey };

/** Document rows written before the first ANALYZE; each next one waits for twice as many. */
const FIRST_ANALYZE_AFTER = 1_000;

const nullable = (value: bigint | null | undefined) =>
  value === null || value === undefined ? null : int8Param(value);

export interface SqlProjectionStorageOptions {
  readonly appended?: EventEmitter;
  readonly ownsDriver?: boolean;
  /**
   * Fault injection for crash tests: awaited inside each commit's transaction, after the
   * documents and checkpoints are written and before COMMIT.
   */
  readonly beforeCommit?: () => Promise<void>;
}

/** Projection storage in the event store's PostgreSQL (or PGlite) database. */
export class SqlProjectionStorage implements ProjectionStorage {
  readonly #driver: SqlDriver;
  readonly #schema: string;
  readonly #sql: ReturnType<typeof statements>;
  readonly #appended: EventEmitter | null;
  readonly #ownsDriver: boolean;
  readonly #beforeCommit: (() => Promise<void>) | null;
  /** Opened by the store on its own driver: its appends wake the leases (ADR 0045). */
  readonly wakesOnAppends: boolean;
  /** Document rows this storage wrote, and the count at which it runs ANALYZE next. */
  #written = 0;
  #analyzeAt = FIRST_ANALYZE_AFTER;

  private constructor(driver: SqlDriver, schema: string, options: SqlProjectionStorageOptions) {
    this.#driver = driver;
    this.#schema = schema;
    this.#sql = statements(schema);
    this.#appended = options.appended ?? null;
    this.wakesOnAppends = this.#appended !== null;
    this.#ownsDriver = options.ownsDriver ?? false;
    this.#beforeCommit = options.beforeCommit ?? null;
  }

  /**
   * Migrates the projection tables and returns the storage. `appended` is the event store's
   * in-process wake-up when it shares the driver; `ownsDriver` closes the driver with it.
   */
  static async open(
    driver: SqlDriver,
    options: SqlProjectionStorageOptions & { schema: string },
  ): Promise<SqlProjectionStorage> {
    await migrateProjections(driver, options.schema);
    return new SqlProjectionStorage(driver, options.schema, options);
  }

  async ensureModel(model: string): Promise<ModelState> {
    validateModelName(model);
    await this.#driver.query(this.#sql.ensureModel, [model]);
    const active = (await this.states(model)).find((state) => state.active);
    if (active === undefined) throw new Error(`projection ${model} has no active generation`);
    return active;
  }

  async states(model?: string): Promise<ModelState[]> {
    const { rows } = await this.#driver.query<StateRow>(this.#sql.states, [model ?? null]);
    return rows.map(stateOf);
  }

  async openLease(model: string, signals: LeaseSignals): Promise<ProjectionLease> {
    validateModelName(model);
    const session = await this.#driver.openSubscriptionSession(
      `croupier.projection:${this.#schema}:${model}`,
      signals.wake,
      signals.broken,
    );
    // The store's in-process wake-up says what each committed append wrote.
    const appended = (written?: readonly { readonly position: bigint }[]) => {
      signals.wake(
        written?.reduce<bigint | undefined>(
          (newest, batch) =>
            newest === undefined || batch.position > newest ? batch.position : newest,
          undefined,
        ),
      );
    };
    this.#appended?.on('appended', appended);
    return {
      tryAcquire: () => session.tryAcquire(),
      close: async () => {
        this.#appended?.off('appended', appended);
        await session.close();
      },
    };
  }

  async load(
    requests: readonly (ModelSlot & { readonly keys: readonly string[] })[],
  ): Promise<Map<string, Map<string, Document>>> {
    const result = new Map<string, Map<string, Document>>();
    const models: string[] = [];
    const generations: number[] = [];
    const keys: string[] = [];
    for (const request of requests) {
      result.set(slotKey(request), new Map());
      for (const key of request.keys) {
        models.push(request.model);
        generations.push(request.generation);
        keys.push(key);
      }
    }
    if (keys.length === 0) return result;
    const { rows } = await this.#driver.query<{
      model: string;
      generation: number;
      key: string;
      doc: Document;
    }>(this.#sql.load, [models, generations, keys]);
    for (const row of rows)
      result.get(slotKey({ model: row.model, generation: row.generation }))?.set(row.key, row.doc);
    return result;
  }

  async commit(commits: readonly ModelCommit[]): Promise<void> {
    if (commits.length === 0) return;
    const written = await this.#driver.transaction(async (tx) => {
      // The checkpoints first: their rows stay locked to the end, so a runner that lost its lease
      // waits here and then finds them moved, before it has written a document.
      const advanced = await tx.query<{ model: string; generation: number }>(this.#sql.advance, [
        commits.map((c) => c.model),
        commits.map((c) => c.generation),
        commits.map((c) => int8Param(c.from)),
        commits.map((c) => int8Param(c.to)),
        commits.map((c) => nullable(c.failure?.position)),
        commits.map((c) => c.failure?.error ?? null),
      ]);
      if (advanced.rows.length !== commits.length) {
        const moved = new Set(
          advanced.rows.map((row) => slotKey({ model: row.model, generation: row.generation })),
        );
        throw new ProjectionOwnershipLostError(
          commits.filter((c) => !moved.has(slotKey(c))).map((c) => c.model),
        );
      }
      const upserts = commits.flatMap((c) =>
        c.writes.filter((w) => w.doc !== null).map((w) => ({ slot: c, write: w })),
      );
      if (upserts.length > 0)
        await tx.query(this.#sql.upsert, [
          JSON.stringify(
            upserts.map((u) => ({
              model: u.slot.model,
              generation: u.slot.generation,
              key: u.write.key,
              partition: u.write.partition,
              sort: nullable(u.write.sort),
              doc: u.write.doc,
            })),
          ),
        ]);
      const removals = commits.flatMap((c) =>
        c.writes.filter((w) => w.doc === null).map((w) => ({ slot: c, write: w })),
      );
      if (removals.length > 0)
        await tx.query(this.#sql.remove, [
          removals.map((r) => r.slot.model),
          removals.map((r) => r.slot.generation),
          removals.map((r) => r.write.key),
        ]);
      await this.#beforeCommit?.();
      return upserts.length + removals.length;
    });
    await this.#analyzeAsItGrows(written);
  }

  /**
   * Statistics of the documents' table kept up as a catch-up fills it. Without them (a new or a
   * truncated table, autovacuum not there yet) the lookups' prepared generic plans cannot tell the
   * primary key from the list index, which also holds the key: with the list index, each lookup
   * scans every document of its model, and a catch-up slows as the table grows (docs/adr/0028).
   * Analyzing after 1,000 rows written, then each time they double, costs O(log n) ANALYZEs (a
   * sample of the table each), and each invalidates the plans that were made without them.
   */
  async #analyzeAsItGrows(written: number): Promise<void> {
    this.#written += written;
    if (this.#written < this.#analyzeAt) return;
    this.#analyzeAt = this.#written * 2;
    // After the commit: a failure here must not read as a failed commit (the runner would then
    // find its own checkpoint moved). Autovacuum analyzes the table in the end anyway.
    await this.#driver.query(this.#sql.analyze).catch(() => undefined);
  }

  async get(model: string, key: string): Promise<Document> {
    const { rows } = await this.#driver.query<{ doc: Document }>(this.#sql.get, [model, key]);
    return rows[0]?.doc;
  }

  async getMany(model: string, keys: readonly string[]): Promise<Map<string, Document>> {
    if (keys.length === 0) return new Map();
    const { rows } = await this.#driver.query<{ key: string; doc: Document }>(this.#sql.getMany, [
      model,
      [...keys],
    ]);
    return new Map(rows.map((row) => [row.key, row.doc]));
  }

  async list(model: string, options: ListOptions = {}): Promise<StoredDocument[]> {
    const { rows } = await this.#driver.query<{
      key: string;
      doc: Document;
      partition: string | null;
      sort: string | null;
    }>(
      this.#sql.list[options.order === 'desc' ? 'DESC' : 'ASC'][
        options.partition === undefined ? 'any' : options.partition === null ? 'none' : 'one'
      ],
      [
        model,
        options.partition ?? null,
        options.limit ?? null,
        nullable(options.sortAtMost),
        nullable(options.sortAtLeast),
      ],
    );
    return rows.map((row) => ({
      key: row.key,
      doc: row.doc,
      partition: row.partition,
      sort: row.sort === null ? null : BigInt(row.sort),
    }));
  }

  async createGeneration(model: string): Promise<ModelState> {
    validateModelName(model);
    const { rows } = await this.#driver.query<StateRow>(this.#sql.createGeneration, [model]);
    return stateOf(rows[0]!);
  }

  async activate(model: string, generation: number): Promise<void> {
    await this.#driver.transaction(async (tx) => {
      await tx.query(this.#sql.deactivate, [model]);
      const { rowCount } = await tx.query(this.#sql.activate, [model, generation]);
      if (rowCount !== 1) throw new Error(`projection ${model} has no generation ${generation}`);
      await tx.query(this.#sql.dropDocuments, [model, generation]);
      await tx.query(this.#sql.dropCheckpoints, [model, generation]);
    });
  }

  async close(): Promise<void> {
    if (this.#ownsDriver) await this.#driver.close();
  }
}
