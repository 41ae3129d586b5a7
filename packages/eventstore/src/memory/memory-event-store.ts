import { resolveStoredIds, satisfiesExpectedVersion } from '../append-rules.js';
import { RunningSubscriptions } from '../checkpointed-subscription.js';
import { EventStoreClosedError, WrongExpectedVersionError } from '../errors.js';
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
import {
  validateAppend,
  validateReadAllOptions,
  validateReadStreamOptions,
  validateStreamName,
  validateSubscribeOptions,
} from '../validation.js';
import { EventEmitter } from 'node:events';
import { MemoryProjectionStorage } from '../projections/memory-projection-storage.js';
import type { ProjectionStorage } from '../projections/projection-storage.js';
import { MemorySnapshotStorage } from '../snapshots/memory-snapshot-storage.js';
import { MEMORY_SUBSCRIPTION_TUNING, MemoryConsumers } from './memory-consumers.js';
import { MemoryLog } from './memory-log.js';

/**
 * The EventStore in this process's memory: for fast tests of code that is not about storage, and
 * the port's reference implementation. Same validation, append rules, hash chain, position shape
 * and subscription algorithm as the SQL stores; not durable, not shared between processes.
 *
 * Every call checks its input at once and lands after a round trip (a microtask), as with a
 * database: the caller's code runs on before the effect, so tests here do not come to rely on an
 * append being visible during the call. Each append then checks and writes in one synchronous
 * step, which is what makes it atomic.
 */
export class MemoryEventStore implements EventStore {
  readonly #log = new MemoryLog();
  readonly #consumers = new MemoryConsumers(this.#log);
  readonly #subscriptions = new RunningSubscriptions(MEMORY_SUBSCRIPTION_TUNING);
  readonly #appended = new EventEmitter().setMaxListeners(0);
  #projections: MemoryProjectionStorage | null = null;
  #snapshots: MemorySnapshotStorage | null = null;
  #closed = false;

  async append(
    stream: string,
    events: readonly NewEvent[],
    options: AppendOptions,
  ): Promise<AppendResult> {
    this.#assertOpen();
    const { expected, encoded } = validateAppend(stream, events, options);
    await this.#roundTrip();
    // Ids first: a retry gets its original result whatever it expected, as in every store. (Where
    // the version is wrong too and only a later id of the batch is stored, PostgreSQL reports the
    // version instead; the port leaves that order open.)
    if (encoded.some((event) => this.#log.locate(event.id) !== undefined)) {
      return resolveStoredIds(stream, encoded, (id) => this.#log.locate(id));
    }
    const actual = this.#log.streamState(stream);
    if (!satisfiesExpectedVersion(expected, actual)) {
      throw new WrongExpectedVersionError(stream, expected, actual);
    }
    const result = this.#log.write(stream, encoded);
    this.#consumers.appended();
    this.#appended.emit('appended');
    return result;
  }

  async readStream(stream: string, options?: ReadStreamOptions): Promise<RecordedEvent[]> {
    this.#assertOpen();
    validateStreamName(stream);
    const { from, direction, limit } = validateReadStreamOptions(options);
    await this.#roundTrip();
    return this.#log.readStream(stream, from, direction, limit);
  }

  async readAll(options?: ReadAllOptions): Promise<RecordedEvent[]> {
    this.#assertOpen();
    const { after, limit, filter } = validateReadAllOptions(options);
    await this.#roundTrip();
    return this.#log.readAll(after, filter, limit);
  }

  /** Every commit is readable at once here: both heads are the newest position. */
  async head(): Promise<LogHead> {
    this.#assertOpen();
    await this.#roundTrip();
    const newest = this.#log.head() ?? 0n;
    return { readable: newest, committed: newest };
  }

  subscribe(options: SubscribeOptions): Subscription {
    this.#assertOpen();
    validateSubscribeOptions(options);
    return this.#subscriptions.start(options, (signals) =>
      this.#consumers.openSession(options.name, signals),
    );
  }

  /** Durable read models' storage beside this log (in memory too): one per store. */
  openProjectionStorage(): Promise<ProjectionStorage> {
    this.#projections ??= new MemoryProjectionStorage(this.#appended);
    return Promise.resolve(this.#projections);
  }

  /** Aggregate snapshots beside this log (in memory too): one per store. */
  openSnapshotStorage(): Promise<MemorySnapshotStorage> {
    this.#snapshots ??= new MemorySnapshotStorage();
    return Promise.resolve(this.#snapshots);
  }

  async verifyStream(stream: string): Promise<StreamVerification> {
    this.#assertOpen();
    validateStreamName(stream);
    await this.#roundTrip();
    return verifyChain(stream, this.#log.readStream(stream, null, 'forwards', null));
  }

  /** Stops every subscription (each finishes its handler in flight); then every call refuses. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#subscriptions.stopAll();
  }

  /** Stands where the database's answer would arrive; a store closed meanwhile refuses. */
  async #roundTrip(): Promise<void> {
    await Promise.resolve();
    this.#assertOpen();
  }

  #assertOpen(): void {
    if (this.#closed) throw new EventStoreClosedError();
  }
}
