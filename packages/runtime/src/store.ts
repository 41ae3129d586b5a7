import { join, resolve } from 'node:path';
import {
  createEventStore,
  openProjectionDatabase,
  openProjectionStorage,
  type EventStore,
  type ProjectionStorage,
} from '@croupier/eventstore';

export interface StoreSettings {
  readonly EVENTSTORE: 'pglite' | 'postgres' | 'esdb';
  readonly DATA_DIR: string;
  readonly DATABASE_URL?: string | undefined;
  readonly DATABASE_SCHEMA: string;
  readonly EVENTSTORE_URL?: string | undefined;
  readonly DATABASE_APPLICATION_NAME?: string | undefined;
  readonly DATABASE_CONNECT_TIMEOUT_MS?: number | undefined;
  readonly DATABASE_QUERY_TIMEOUT_MS?: number | undefined;
}

/**
 * The PostgreSQL application_name of a process's connections: the deployment's prefix
 * (DATABASE_APPLICATION_NAME), a dash and the process (`croupier-round`), so pg_stat_activity
 * tells one deployment's processes apart and an operator can find or cut them by prefix.
 */
export function connectionApplicationName(
  settings: Pick<StoreSettings, 'DATABASE_APPLICATION_NAME'>,
  processName: string,
): string {
  return `${settings.DATABASE_APPLICATION_NAME ?? 'croupier'}-${processName}`;
}

/**
 * Opens the event store the settings name (PGlite under DATA_DIR/eventstore by default). On
 * PostgreSQL every connection of it (the pool, each subscription's) is named
 * `connectionApplicationName(settings, processName)`; subscriptions add `:subscription`.
 */
export function openStore(settings: StoreSettings, processName: string): Promise<EventStore> {
  switch (settings.EVENTSTORE) {
    case 'postgres':
      return createEventStore({
        kind: 'postgres',
        connectionString: settings.DATABASE_URL!,
        schema: settings.DATABASE_SCHEMA,
        applicationName: connectionApplicationName(settings, processName),
        ...(settings.DATABASE_CONNECT_TIMEOUT_MS === undefined
          ? {}
          : { connectTimeoutMs: settings.DATABASE_CONNECT_TIMEOUT_MS }),
        ...(settings.DATABASE_QUERY_TIMEOUT_MS === undefined
          ? {}
          : { queryTimeoutMs: settings.DATABASE_QUERY_TIMEOUT_MS }),
      });
    case 'esdb':
      return createEventStore({ kind: 'esdb', connectionString: settings.EVENTSTORE_URL! });
    case 'pglite':
      return createEventStore({
        kind: 'pglite',
        dataDir: join(resolve(settings.DATA_DIR), 'eventstore'),
      });
  }
}

/**
 * Where the process keeps its durable read models (docs/adr/0023): beside the log in the event
 * store's database (PostgreSQL, PGlite), or, with EVENTSTORE=esdb, in the PostgreSQL database of
 * DATABASE_URL (its schema DATABASE_SCHEMA), which EventStoreDB deployments then need.
 */
export function openReadModelStorage(
  settings: StoreSettings,
  store: EventStore,
  processName: string,
): Promise<ProjectionStorage> {
  if (settings.EVENTSTORE !== 'esdb') return openProjectionStorage(store);
  if (settings.DATABASE_URL === undefined)
    throw new Error(
      'EVENTSTORE=esdb keeps its read models in PostgreSQL: set DATABASE_URL (and DATABASE_SCHEMA)',
    );
  return openProjectionDatabase({
    connectionString: settings.DATABASE_URL,
    schema: settings.DATABASE_SCHEMA,
    applicationName: `${connectionApplicationName(settings, processName)}:projections`,
    ...(settings.DATABASE_CONNECT_TIMEOUT_MS === undefined
      ? {}
      : { connectTimeoutMs: settings.DATABASE_CONNECT_TIMEOUT_MS }),
    ...(settings.DATABASE_QUERY_TIMEOUT_MS === undefined
      ? {}
      : { queryTimeoutMs: settings.DATABASE_QUERY_TIMEOUT_MS }),
  });
}
