import { join, resolve } from 'node:path';
import { createEventStore, type EventStore } from '@croupier/eventstore';

export interface StoreSettings {
  readonly EVENTSTORE: 'pglite' | 'postgres' | 'esdb';
  readonly DATA_DIR: string;
  readonly DATABASE_URL?: string | undefined;
  readonly DATABASE_SCHEMA: string;
  readonly EVENTSTORE_URL?: string | undefined;
  readonly DATABASE_APPLICATION_NAME?: string | undefined;
}

/** Opens the event store the settings name (PGlite under DATA_DIR/eventstore by default). */
export function openStore(
  settings: StoreSettings,
  applicationName = 'croupier',
): Promise<EventStore> {
  switch (settings.EVENTSTORE) {
    case 'postgres':
      return createEventStore({
        kind: 'postgres',
        connectionString: settings.DATABASE_URL!,
        schema: settings.DATABASE_SCHEMA,
        applicationName,
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
