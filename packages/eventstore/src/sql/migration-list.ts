import type { SqlExecutor } from './driver.js';
import { quoteSchema } from './schema-name.js';

/** One migration of a list: never edited once released, only followed by another. */
export interface Migration {
  readonly version: number;
  readonly name: string;
  /** SQL with `{{schema}}` where the quoted schema name goes. */
  readonly sql: string;
}

/**
 * Applies what a migration list (the read models', the snapshots') has not applied yet in this
 * schema, in one transaction under an advisory lock named after the list, recording each in the
 * list's own table. Answers the versions it applied.
 */
export async function applyMigrationList(
  driver: { transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> },
  schema: string,
  list: {
    /** The list's own table of applied versions. */
    readonly table: string;
    /** Names the advisory lock every process migrating this list takes. */
    readonly lock: string;
    readonly migrations: readonly Migration[];
  },
): Promise<number[]> {
  const quoted = quoteSchema(schema);
  return driver.transaction(async (tx) => {
    await tx.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [`${list.lock}:${schema}`]);
    await tx.query(`CREATE SCHEMA IF NOT EXISTS ${quoted}`);
    await tx.query(
      `CREATE TABLE IF NOT EXISTS ${quoted}.${list.table} (
         version    integer PRIMARY KEY,
         name       text NOT NULL,
         applied_at timestamptz NOT NULL DEFAULT now()
       )`,
    );
    const applied = await tx.query<{ version: number }>(
      `SELECT version FROM ${quoted}.${list.table}`,
    );
    const done = new Set(applied.rows.map((row) => row.version));
    const newlyApplied: number[] = [];
    for (const migration of list.migrations) {
      if (done.has(migration.version)) continue;
      await tx.exec(migration.sql.replaceAll('{{schema}}', quoted));
      await tx.query(`INSERT INTO ${quoted}.${list.table} (version, name) VALUES ($1, $2)`, [
        migration.version,
        migration.name,
      ]);
      newlyApplied.push(migration.version);
    }
    return newlyApplied;
  });
}
