import { EventValidationError } from '../errors.js';
import type { EventStore } from '../port.js';
import { PostgresDriver } from '../postgres/postgres-driver.js';
import type { ProjectionDatabase } from '../projections/open-projection-storage.js';
import { DEFAULT_SCHEMA, quoteSchema } from '../sql/schema-name.js';
import type { SnapshotStorage } from './snapshot-storage.js';
import { SqlSnapshotStorage } from './sql-snapshot-storage.js';

/** A store that keeps snapshots beside its log (SQL and memory stores). */
interface HostsSnapshots {
  openSnapshotStorage(): Promise<SnapshotStorage>;
}

function hostsSnapshots(store: EventStore): store is EventStore & HostsSnapshots {
  return typeof (store as Partial<HostsSnapshots>).openSnapshotStorage === 'function';
}

/**
 * Where a process keeps its aggregates' snapshots (docs/adr/0025): beside the log in the store's
 * own database (PostgreSQL, PGlite, memory), or, for a store without one (EventStoreDB), in the
 * PostgreSQL database given, as the read models are.
 */
export async function openSnapshotStorage(
  store: EventStore,
  database?: Omit<ProjectionDatabase, 'beforeCommit'>,
): Promise<SnapshotStorage> {
  if (hostsSnapshots(store)) return store.openSnapshotStorage();
  if (database === undefined)
    throw new EventValidationError(
      'this event store keeps no snapshots: they need a PostgreSQL database (DATABASE_URL)',
    );
  const schema = database.schema ?? DEFAULT_SCHEMA;
  quoteSchema(schema);
  const driver = new PostgresDriver({
    connectionString: database.connectionString,
    schema,
    applicationName: database.applicationName ?? 'croupier-snapshots',
    ...(database.connectTimeoutMs === undefined
      ? {}
      : { connectTimeoutMs: database.connectTimeoutMs }),
    ...(database.queryTimeoutMs === undefined ? {} : { queryTimeoutMs: database.queryTimeoutMs }),
  });
  try {
    return await SqlSnapshotStorage.open(driver, { schema, ownsDriver: true });
  } catch (error) {
    await driver.close().catch(() => undefined);
    throw error;
  }
}
