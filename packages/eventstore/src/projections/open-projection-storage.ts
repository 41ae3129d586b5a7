import { EventValidationError } from '../errors.js';
import type { EventStore } from '../port.js';
import { PostgresDriver } from '../postgres/postgres-driver.js';
import { DEFAULT_SCHEMA, quoteSchema } from '../sql/schema-name.js';
import type { ProjectionStorage } from './projection-storage.js';
import { SqlProjectionStorage } from './sql-projection-storage.js';

/** A store that keeps durable read models beside its log (SQL and memory stores). */
interface HostsProjections {
  openProjectionStorage(): Promise<ProjectionStorage>;
}

function hostsProjections(store: EventStore): store is EventStore & HostsProjections {
  return typeof (store as Partial<HostsProjections>).openProjectionStorage === 'function';
}

export interface ProjectionDatabase {
  /** PostgreSQL holding the read models of a store that cannot (EventStoreDB). */
  readonly connectionString: string;
  readonly schema?: string;
  readonly applicationName?: string;
  readonly connectTimeoutMs?: number;
  readonly queryTimeoutMs?: number;
  /** Fault injection for crash tests (see `SqlProjectionStorageOptions.beforeCommit`). */
  readonly beforeCommit?: () => Promise<void>;
}

/**
 * Where a process keeps its durable read models: beside the log in the store's own database
 * (PostgreSQL, PGlite, memory), or, for a store without one (EventStoreDB), in the PostgreSQL
 * database given. The runner, models and tables are the same either way.
 */
export async function openProjectionStorage(
  store: EventStore,
  database?: ProjectionDatabase,
): Promise<ProjectionStorage> {
  if (hostsProjections(store)) return store.openProjectionStorage();
  if (database === undefined)
    throw new EventValidationError(
      'this event store keeps no read models: projections need a PostgreSQL database (DATABASE_URL)',
    );
  return openProjectionDatabase(database);
}

/** Projection storage in a PostgreSQL database of its own connections, whatever the log's store. */
export async function openProjectionDatabase(
  database: ProjectionDatabase,
): Promise<ProjectionStorage> {
  const schema = database.schema ?? DEFAULT_SCHEMA;
  quoteSchema(schema);
  const driver = new PostgresDriver({
    connectionString: database.connectionString,
    schema,
    applicationName: database.applicationName ?? 'croupier-projections',
    ...(database.connectTimeoutMs === undefined
      ? {}
      : { connectTimeoutMs: database.connectTimeoutMs }),
    ...(database.queryTimeoutMs === undefined ? {} : { queryTimeoutMs: database.queryTimeoutMs }),
  });
  try {
    return await SqlProjectionStorage.open(driver, {
      schema,
      ownsDriver: true,
      ...(database.beforeCommit ? { beforeCommit: database.beforeCommit } : {}),
    });
  } catch (error) {
    await driver.close().catch(() => undefined);
    throw error;
  }
}
