import { EventEmitter } from 'node:events';
import { RunningSubscriptions } from '../checkpointed-subscription.js';
import { EventStoreClosedError } from '../errors.js';
import { verifyChain } from '../hash-chain.js';
import type {
  AppendOptions,
  AppendResult,
  EventStore,
  LogHead,
  NewEvent,
  ReadAllOptions,
  ReadStreamOptions,
  RecordedEvent,
  StreamVerification,
  SubscribeOptions,
  Subscription,
} from '../port.js';
import { decodePosition } from '../position.js';
import {
  validateAppend,
  validateReadAllOptions,
  validateReadStreamOptions,
  validateStreamName,
  validateSubscribeOptions,
} from '../validation.js';
import { int8, int8Param, type SqlDriver } from './driver.js';
import {
  type AppendedBatch,
  DEFAULT_GROUP_APPEND_TUNING,
  GroupAppender,
  type GroupAppendTuning,
} from './group-append.js';
import { migrate } from './migrations.js';
import { SqlProjectionStorage } from '../projections/sql-projection-storage.js';
import type { ProjectionStorage } from '../projections/projection-storage.js';
import { SqlSnapshotStorage } from '../snapshots/sql-snapshot-storage.js';
import type { SnapshotStorage } from '../snapshots/snapshot-storage.js';
import { positionOf, toRecordedEvent } from './rows.js';
import { statements, type EventRow, type HeadsRow, type Statements } from './statements.js';
import {
  openSqlSession,
  type SqlSessionInit,
  type SqlSubscriptionTuning,
} from './sql-subscription.js';

export interface SqlEventStoreOptions {
  readonly schema: string;
  readonly subscriptions?: Partial<SqlSubscriptionTuning>;
  /** Group commit and the client-side head cache (defaults: DEFAULT_GROUP_APPEND_TUNING). */
  readonly appends?: Partial<GroupAppendTuning>;
}

/**
 * The EventStore on PostgreSQL's SQL, shared by the postgres and pglite adapters: the schema,
 * statements and logic are the same, only the driver differs.
 */
export class SqlEventStore implements EventStore {
  readonly #driver: SqlDriver;
  readonly #schema: string;
  readonly #sql: Statements;
  readonly #subscriptions: RunningSubscriptions;
  /** In-process wake-up for local subscribers; NOTIFY covers the other processes. */
  readonly #appended = new EventEmitter().setMaxListeners(0);
  readonly #appender: GroupAppender;
  #closed = false;

  private constructor(driver: SqlDriver, options: SqlEventStoreOptions) {
    this.#driver = driver;
    this.#schema = options.schema;
    this.#sql = statements(options.schema);
    this.#subscriptions = new RunningSubscriptions({
      pollIntervalMs: 250,
      // Appends wake the subscribers in this process, and NOTIFY those of others, naming what
      // they wrote: the poll only bounds a lost signal's delay (ADR 0045).
      idlePollIntervalMs: 5_000,
      lockRetryMs: 1_000,
      maxBackoffMs: 5_000,
      pageSize: 500,
      ...options.subscriptions,
    });
    this.#appender = new GroupAppender({
      executor: driver,
      sql: this.#sql,
      tuning: { ...DEFAULT_GROUP_APPEND_TUNING, ...options.appends },
      // Once per committed transaction: local subscribers now, other processes by NOTIFY.
      onAppended: (written) => {
        this.#appended.emit('appended', written);
        this.#driver.signalAppended(newestOf(written));
      },
    });
  }

  /** Migrates the schema (under an advisory lock) and returns a ready store. */
  static async open(driver: SqlDriver, options: SqlEventStoreOptions): Promise<SqlEventStore> {
    try {
      await migrate(driver, options.schema);
    } catch (error) {
      await driver.close().catch(() => undefined);
      throw error;
    }
    return new SqlEventStore(driver, options);
  }

  get schema(): string {
    return this.#schema;
  }

  /** Bad input and a closed store reject (never throw), like the I/O that follows. */
  async append(
    stream: string,
    events: readonly NewEvent[],
    options: AppendOptions,
  ): Promise<AppendResult> {
    this.#assertOpen();
    const { expected, encoded } = validateAppend(stream, events, options);
    return this.#appender.append({ stream, expected, encoded });
  }

  async readStream(stream: string, options?: ReadStreamOptions): Promise<RecordedEvent[]> {
    this.#assertOpen();
    validateStreamName(stream);
    const { from, direction, limit } = validateReadStreamOptions(options);
    const statement =
      direction === 'backwards'
        ? this.#sql.readStreamBackwards
        : from === null
          ? this.#sql.readStreamForwards
          : this.#sql.readStreamForwardsFrom;
    const { rows } = await this.#driver.query<EventRow>(statement, [
      stream,
      from === null ? null : int8Param(from),
      limit,
    ]);
    return rows.map(toRecordedEvent);
  }

  async readAll(options?: ReadAllOptions): Promise<RecordedEvent[]> {
    this.#assertOpen();
    const { after, limit, filter } = validateReadAllOptions(options);
    const { transactionId, sequence } = decodePosition(after);
    const { rows } = await this.#driver.query<EventRow>(this.#sql.readAll, [
      int8Param(transactionId),
      int8Param(sequence),
      filter.streamPrefix,
      filter.eventTypes,
      limit,
    ]);
    return rows.map(toRecordedEvent);
  }

  async head(): Promise<LogHead> {
    this.#assertOpen();
    const { rows } = await this.#driver.query<HeadsRow>(this.#sql.heads);
    const row = rows[0];
    const at = (transactionId: string | null, sequence: unknown) =>
      transactionId === null ? 0n : positionOf(transactionId, sequence);
    return {
      readable: at(row?.readable_transaction_id ?? null, row?.readable_sequence),
      committed: at(row?.committed_transaction_id ?? null, row?.committed_sequence),
    };
  }

  subscribe(options: SubscribeOptions): Subscription {
    this.#assertOpen();
    validateSubscribeOptions(options);
    const session: SqlSessionInit = {
      driver: this.#driver,
      sql: this.#sql,
      name: options.name,
      leaseKey: `croupier.subscription:${this.#schema}:${options.name}`,
      appended: this.#appended,
    };
    return this.#subscriptions.start(options, (signals) => openSqlSession(session, signals));
  }

  /**
   * Storage for durable read models in this store's database (docs/adr/0023), on the store's
   * connections: its tables are migrated on first use; closing the store closes it.
   */
  async openProjectionStorage(): Promise<ProjectionStorage> {
    this.#assertOpen();
    return SqlProjectionStorage.open(this.#driver, {
      schema: this.#schema,
      appended: this.#appended,
    });
  }

  /**
   * Aggregate snapshots in this store's database (docs/adr/0025), on the store's connections:
   * the table is migrated on first use; closing the store closes it.
   */
  async openSnapshotStorage(): Promise<SnapshotStorage> {
    this.#assertOpen();
    return SqlSnapshotStorage.open(this.#driver, { schema: this.#schema });
  }

  async verifyStream(stream: string): Promise<StreamVerification> {
    this.#assertOpen();
    validateStreamName(stream);
    // One snapshot for the events and the head, or an append in between would look like tampering.
    return this.#driver.transaction(async (tx) => {
      await tx.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
      const events = await tx.query<EventRow>(this.#sql.readStreamForwards, [stream, null, null]);
      const head = await tx.query<{ revision: unknown; last_hash: string }>(this.#sql.streamHead, [
        stream,
      ]);
      const headRow = head.rows[0];
      return verifyChain(
        stream,
        events.rows.map(toRecordedEvent),
        headRow ? { revision: int8(headRow.revision), lastHash: headRow.last_hash } : null,
      );
    });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#appender.drain();
    await this.#subscriptions.stopAll();
    this.#appended.removeAllListeners();
    await this.#driver.close();
  }

  #assertOpen(): void {
    if (this.#closed) throw new EventStoreClosedError();
  }
}

/** The newest position a committed transaction wrote. */
function newestOf(written: readonly AppendedBatch[]): bigint {
  return written.reduce((newest, batch) => (batch.position > newest ? batch.position : newest), 0n);
}
