import { EsdbEventStore } from './esdb/esdb-event-store.js';
import { EventValidationError } from './errors.js';
import { MemoryEventStore } from './memory/memory-event-store.js';
import { PgliteDriver } from './pglite/pglite-driver.js';
import type { EventStore } from './port.js';
import { PostgresDriver } from './postgres/postgres-driver.js';
import { DEFAULT_SCHEMA, quoteSchema } from './sql/schema-name.js';
import { SqlEventStore } from './sql/sql-event-store.js';
import type { GroupAppendTuning } from './sql/group-append.js';
import type { SqlSubscriptionTuning } from './sql/sql-subscription.js';

export type EventStoreConfig =
  | {
      readonly kind: 'postgres';
      readonly connectionString: string;
      /** Schema of the tables, created if missing. Default `croupier`. */
      readonly schema?: string;
      /** Pool size for appends and reads. Default 10; each subscription has its own connection. */
      readonly maxConnections?: number;
      /** Shown in pg_stat_activity (subscriptions add `:subscription`). */
      readonly applicationName?: string;
      /** Deadline of opening a connection, ms. Default 5 s. */
      readonly connectTimeoutMs?: number;
      /** Deadline of a statement's answer, ms. Default 30 s. */
      readonly queryTimeoutMs?: number;
      readonly subscriptions?: Partial<SqlSubscriptionTuning>;
      /** Group commit of concurrent appends (on by default) and the head cache. */
      readonly appends?: Partial<GroupAppendTuning>;
    }
  | {
      readonly kind: 'pglite';
      /** A directory (created if missing), or `memory://` for a throw-away database. */
      readonly dataDir: string;
      readonly schema?: string;
      readonly subscriptions?: Partial<SqlSubscriptionTuning>;
      readonly appends?: Partial<GroupAppendTuning>;
    }
  | {
      /** In this process's memory: for tests and as the port's reference; not durable. */
      readonly kind: 'memory';
    }
  | {
      readonly kind: 'esdb';
      /** e.g. `esdb://localhost:2113?tls=false` */
      readonly connectionString: string;
      readonly subscriptions?: { readonly lockRetryMs?: number; readonly maxBackoffMs?: number };
    };

/** Opens an event store (and migrates its schema, for the SQL stores); `memory` starts empty. */
export async function createEventStore(config: EventStoreConfig): Promise<EventStore> {
  switch (config.kind) {
    case 'postgres': {
      const schema = config.schema ?? DEFAULT_SCHEMA;
      quoteSchema(schema);
      const driver = new PostgresDriver({
        connectionString: config.connectionString,
        schema,
        ...(config.maxConnections === undefined ? {} : { maxConnections: config.maxConnections }),
        ...(config.applicationName === undefined
          ? {}
          : { applicationName: config.applicationName }),
        ...(config.connectTimeoutMs === undefined
          ? {}
          : { connectTimeoutMs: config.connectTimeoutMs }),
        ...(config.queryTimeoutMs === undefined ? {} : { queryTimeoutMs: config.queryTimeoutMs }),
      });
      return SqlEventStore.open(driver, {
        schema,
        ...(config.subscriptions ? { subscriptions: config.subscriptions } : {}),
        ...(config.appends ? { appends: config.appends } : {}),
      });
    }
    case 'pglite': {
      const schema = config.schema ?? DEFAULT_SCHEMA;
      quoteSchema(schema);
      const driver = await PgliteDriver.open(config.dataDir);
      return SqlEventStore.open(driver, {
        schema,
        ...(config.subscriptions ? { subscriptions: config.subscriptions } : {}),
        ...(config.appends ? { appends: config.appends } : {}),
      });
    }
    case 'memory':
      return new MemoryEventStore();
    case 'esdb':
      return EsdbEventStore.connect(config.connectionString, config.subscriptions);
    default:
      throw new EventValidationError(
        `unknown event store kind ${JSON.stringify((config as { kind: unknown }).kind)}`,
      );
  }
}
