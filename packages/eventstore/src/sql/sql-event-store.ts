import { EventEmitter } from 'node:events';
import { resolveStoredIds } from '../append-rules.js';
import { RunningSubscriptions } from '../checkpointed-subscription.js';
import {
  DuplicateEventIdError,
  EventStoreClosedError,
  WrongExpectedVersionError,
} from '../errors.js';
import { verifyChain } from '../hash-chain.js';
import type {
  AppendOptions,
  AppendResult,
  EventStore,
  ExpectedVersion,
  NewEvent,
  ReadAllOptions,
  ReadStreamOptions,
  RecordedEvent,
  StreamState,
  StreamVerification,
  SubscribeOptions,
  Subscription,
} from '../port.js';
import { decodePosition, encodePosition } from '../position.js';
import {
  type EncodedEvent,
  validateAppend,
  validateReadAllOptions,
  validateReadStreamOptions,
  validateStreamName,
  validateSubscribeOptions,
} from '../validation.js';
import { int8, int8Param, type SqlDriver } from './driver.js';
import { migrate } from './migrations.js';
import { SqlProjectionStorage } from '../projections/sql-projection-storage.js';
import type { ProjectionStorage } from '../projections/projection-storage.js';
import { toRecordedEvent } from './rows.js';
import { statements, type EventRow, type Statements } from './statements.js';
import {
  openSqlSession,
  type SqlSessionInit,
  type SqlSubscriptionTuning,
} from './sql-subscription.js';

/** Sentinels of append_events' p_expected parameter. */
const EXPECTED_CODES: Record<Exclude<ExpectedVersion, bigint>, bigint> = {
  'no-stream': -1n,
  any: -2n,
  exists: -3n,
};

export interface SqlEventStoreOptions {
  readonly schema: string;
  readonly subscriptions?: Partial<SqlSubscriptionTuning>;
}

interface AppendRow {
  out_revision: unknown;
  out_transaction_id: string;
  out_sequence: unknown;
  out_idempotent: boolean;
}

interface EventLocationRow {
  event_id: string;
  stream_name: string;
  stream_revision: unknown;
  transaction_id: string;
  sequence: unknown;
}

interface DatabaseError {
  code?: string;
  detail?: string;
  constraint?: string;
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
  #closed = false;

  private constructor(driver: SqlDriver, options: SqlEventStoreOptions) {
    this.#driver = driver;
    this.#schema = options.schema;
    this.#sql = statements(options.schema);
    this.#subscriptions = new RunningSubscriptions({
      pollIntervalMs: 250,
      lockRetryMs: 1_000,
      maxBackoffMs: 5_000,
      pageSize: 500,
      ...options.subscriptions,
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

  async append(
    stream: string,
    events: readonly NewEvent[],
    options: AppendOptions,
  ): Promise<AppendResult> {
    this.#assertOpen();
    const { expected, encoded } = validateAppend(stream, events, options);
    let rows: AppendRow[];
    try {
      ({ rows } = await this.#driver.query<AppendRow>(this.#sql.append, [
        stream,
        int8Param(typeof expected === 'bigint' ? expected : EXPECTED_CODES[expected]),
        encoded.map((event) => event.id),
        encoded.map((event) => event.type),
        encoded.map((event) => event.dataJson),
        encoded.map((event) => event.metadataJson),
        encoded.map((event) => event.chainContent),
        false,
      ]));
    } catch (error) {
      if (isDuplicateIdViolation(error)) return this.#resolveDuplicate(stream, encoded);
      throw translateAppendError(error, stream, expected);
    }
    const row = rows[0];
    if (!row) throw new Error('append_events returned no row');
    if (!row.out_idempotent) {
      this.#appended.emit('appended');
      this.#driver.signalAppended();
    }
    return {
      revision: int8(row.out_revision),
      position: encodePosition(BigInt(row.out_transaction_id), int8(row.out_sequence)),
      idempotent: row.out_idempotent,
    };
  }

  /**
   * An id of the batch is stored already (the unique index fired, on the fast path that checks
   * no ids up front): a retry gets the original result, anything else is a duplicate. A second
   * round trip, on retries only.
   */
  async #resolveDuplicate(stream: string, encoded: readonly EncodedEvent[]): Promise<AppendResult> {
    const { rows } = await this.#driver.query<EventLocationRow>(this.#sql.findEvents, [
      encoded.map((event) => event.id),
    ]);
    const byId = new Map(
      rows.map((row) => [
        row.event_id,
        {
          stream: row.stream_name,
          revision: int8(row.stream_revision),
          position: encodePosition(BigInt(row.transaction_id), int8(row.sequence)),
        },
      ]),
    );
    return resolveStoredIds(stream, encoded, (id) => byId.get(id));
  }

  async readStream(stream: string, options?: ReadStreamOptions): Promise<RecordedEvent[]> {
    this.#assertOpen();
    validateStreamName(stream);
    const { from, direction, limit } = validateReadStreamOptions(options);
    const { rows } = await this.#driver.query<EventRow>(
      direction === 'forwards' ? this.#sql.readStreamForwards : this.#sql.readStreamBackwards,
      [stream, from === null ? null : int8Param(from), limit],
    );
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
    await this.#subscriptions.stopAll();
    this.#appended.removeAllListeners();
    await this.#driver.close();
  }

  #assertOpen(): void {
    if (this.#closed) throw new EventStoreClosedError();
  }
}

function isDuplicateIdViolation(error: unknown): boolean {
  const { code, constraint } = (error ?? {}) as DatabaseError;
  return code === '23505' && constraint === 'events_event_id_key';
}

/** Maps the database's errors of append_events to the port's typed errors. */
function translateAppendError(error: unknown, stream: string, expected: ExpectedVersion): unknown {
  const { code, detail } = (error ?? {}) as DatabaseError;
  if (code === 'CS409') {
    const actual: StreamState =
      detail === undefined || detail === 'no-stream' ? 'no-stream' : BigInt(detail);
    return new WrongExpectedVersionError(stream, expected, actual);
  }
  if (code === 'CS422' && detail !== undefined) {
    const where = JSON.parse(detail) as { id: string; stream: string; revision: number | string };
    return new DuplicateEventIdError(stream, where.id, {
      stream: where.stream,
      revision: BigInt(where.revision),
    });
  }
  return error;
}
