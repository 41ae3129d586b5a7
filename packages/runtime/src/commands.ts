import { hkdfSync } from 'node:crypto';
import { CommandHandler, DEFAULT_RETRY, type SnapshotPolicy } from '@croupier/application';
import { openSnapshotStorage, type EventStore, type SnapshotStorage } from '@croupier/eventstore';
import { connectionApplicationName, type StoreSettings } from './store.js';

/** The settings of a process's command handler (docs/operations.md, state cache and snapshots). */
export interface CommandSettings extends StoreSettings {
  readonly STATE_CACHE_SIZE: number;
  readonly SNAPSHOT_EVERY: number;
  readonly SNAPSHOT_KEY?: string | undefined;
  readonly JWT_SECRET: string;
}

export interface CommandLogger {
  warn(object: object, message: string): void;
}

/** A process's command handler and the snapshot storage it holds. */
export interface ProcessCommands {
  readonly commands: CommandHandler;
  /** Writes the snapshots still queued and releases their storage. */
  close(): Promise<void>;
}

/**
 * Where a process keeps its aggregates' snapshots (ADR 0025): beside the log in the event store's
 * database (PostgreSQL, PGlite), or, with EVENTSTORE=esdb, in the PostgreSQL database of
 * DATABASE_URL, as the read models; null when SNAPSHOT_EVERY is 0.
 */
export async function openSnapshots(
  settings: CommandSettings,
  store: EventStore,
  processName: string,
): Promise<SnapshotStorage | null> {
  if (settings.SNAPSHOT_EVERY === 0) return null;
  if (settings.EVENTSTORE !== 'esdb') return openSnapshotStorage(store);
  if (settings.DATABASE_URL === undefined)
    throw new Error(
      'EVENTSTORE=esdb keeps its snapshots in PostgreSQL: set DATABASE_URL, or SNAPSHOT_EVERY=0 to take none',
    );
  return openSnapshotStorage(store, {
    connectionString: settings.DATABASE_URL,
    schema: settings.DATABASE_SCHEMA,
    applicationName: `${connectionApplicationName(settings, processName)}:snapshots`,
    ...(settings.DATABASE_CONNECT_TIMEOUT_MS === undefined
      ? {}
      : { connectTimeoutMs: settings.DATABASE_CONNECT_TIMEOUT_MS }),
    ...(settings.DATABASE_QUERY_TIMEOUT_MS === undefined
      ? {}
      : { queryTimeoutMs: settings.DATABASE_QUERY_TIMEOUT_MS }),
  });
}

/** The snapshots' HMAC key: from SNAPSHOT_KEY, else from JWT_SECRET, under a label of its own. */
export function snapshotKey(
  settings: Pick<CommandSettings, 'SNAPSHOT_KEY' | 'JWT_SECRET'>,
): Buffer {
  return Buffer.from(
    hkdfSync(
      'sha256',
      settings.SNAPSHOT_KEY ?? settings.JWT_SECRET,
      'croupier',
      'snapshot-digest/v1',
      32,
    ),
  );
}

/**
 * A process's one command handler (ADR 0007): its retry policy, its bounded state cache
 * (STATE_CACHE_SIZE) and its snapshots (SNAPSHOT_EVERY, ADR 0025), a snapshot that disagrees with
 * the log logged as a warning (and counted: `CommandMetrics`).
 */
export function commandHandlerOf(
  settings: CommandSettings,
  store: EventStore,
  snapshots: SnapshotStorage | null,
  logger: CommandLogger,
  onAppended?: (position: bigint) => void,
): ProcessCommands {
  const policy: SnapshotPolicy | undefined =
    snapshots === null
      ? undefined
      : {
          storage: snapshots,
          every: settings.SNAPSHOT_EVERY,
          key: snapshotKey(settings),
          onRefused: (refusal) => {
            logger.warn(
              { ...refusal, revision: refusal.revision.toString() },
              'snapshot refused: the stream was read whole',
            );
          },
          onError: (error) => {
            logger.warn({ err: error }, 'snapshot not read or written; commands go on without it');
          },
        };
  const commands = new CommandHandler(store, {
    retry: DEFAULT_RETRY,
    cacheSize: settings.STATE_CACHE_SIZE,
    ...(policy === undefined ? {} : { snapshots: policy }),
    ...(onAppended === undefined ? {} : { onAppended }),
  });
  return {
    commands,
    close: async () => {
      await commands.flushSnapshots();
      await snapshots?.close();
    },
  };
}
