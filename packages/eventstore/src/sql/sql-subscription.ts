import type { EventEmitter } from 'node:events';
import { backoffs, Deferred, WakeSignal } from '../backoff.js';
import { SubscriptionOwnershipLostError, SubscriptionStoppedError } from '../errors.js';
import type { RecordedEvent, SubscribeOptions, Subscription } from '../port.js';
import { decodePosition, encodePosition } from '../position.js';
import { normalizeFilter, type NormalizedFilter } from '../validation.js';
import { int8, int8Param, type SqlDriver, type SubscriptionSession } from './driver.js';
import { toRecordedEvent } from './rows.js';
import type { PageRow, Statements } from './statements.js';

export interface SqlSubscriptionTuning {
  /** Fallback poll when no notification arrives (ms). */
  readonly pollIntervalMs: number;
  /** How often a standby consumer tries to take the lease (ms). */
  readonly lockRetryMs: number;
  /** Cap of the exponential backoff after an error (ms). */
  readonly maxBackoffMs: number;
  /** Events read per query. */
  readonly pageSize: number;
}

interface SqlSubscriptionInit {
  readonly driver: SqlDriver;
  readonly sql: Statements;
  readonly leaseKey: string;
  readonly appended: EventEmitter;
  readonly tuning: SqlSubscriptionTuning;
  readonly options: SubscribeOptions;
  readonly onStopped: (subscription: SqlSubscription) => void;
}

interface Page {
  readonly events: RecordedEvent[];
  /** Everything up to here has been seen (matched or filtered out). */
  readonly scannedTo: bigint;
  readonly reachedEnd: boolean;
}

/**
 * A checkpointed consumer of the SQL log. Life cycle: open a session (a dedicated connection on
 * PostgreSQL), stand by until it holds the subscription's lease (advisory lock), load the
 * checkpoint, then read pages in (transaction_id, sequence) order and call the handler one event at
 * a time, storing the checkpoint after each with compare-and-swap. Any failure other than the
 * handler's is reported, backed off, and the whole cycle restarts from the stored checkpoint.
 */
export class SqlSubscription implements Subscription {
  readonly name: string;
  readonly #init: SqlSubscriptionInit;
  readonly #filter: NormalizedFilter;
  readonly #signal = new WakeSignal();
  readonly #caughtUp = new Deferred<void>();
  readonly #done: Promise<void>;
  readonly #onAppended = (): void => {
    this.#signal.wake();
  };
  #stopping = false;
  /** A method, not a field read: the flag changes while this object awaits. */
  #stopped(): boolean {
    return this.#stopping;
  }
  #position: bigint | null = null;

  constructor(init: SqlSubscriptionInit) {
    this.#init = init;
    this.name = init.options.name;
    this.#filter = normalizeFilter(init.options.filter);
    init.appended.on('appended', this.#onAppended);
    this.#done = this.#run();
  }

  position(): bigint | null {
    return this.#position;
  }

  caughtUp(): Promise<void> {
    return this.#caughtUp.promise;
  }

  async stop(): Promise<void> {
    this.#stopping = true;
    this.#signal.wake();
    await this.#done;
  }

  async #run(): Promise<void> {
    let failures = 0;
    try {
      while (!this.#stopped()) {
        let session: SubscriptionSession | null = null;
        try {
          session = await this.#init.driver.openSubscriptionSession(
            this.#init.leaseKey,
            () => {
              this.#signal.wake();
            },
            (error) => {
              this.#report(error);
              this.#signal.wake();
            },
          );
          if (!(await this.#acquire(session))) break;
          failures = 0;
          await this.#consume(session);
        } catch (error) {
          this.#report(error);
          if (this.#stopped()) break;
          failures += 1;
          await this.#pause(
            backoffs.exponential({ capMs: this.#init.tuning.maxBackoffMs })(failures),
          );
        } finally {
          await session?.close().catch((error: unknown) => {
            this.#report(error);
          });
        }
      }
    } finally {
      this.#init.appended.off('appended', this.#onAppended);
      this.#caughtUp.reject(new SubscriptionStoppedError(this.name));
      this.#init.onStopped(this);
    }
  }

  /** Stands by until this consumer holds the lease; false when stopped meanwhile. */
  async #acquire(session: SubscriptionSession): Promise<boolean> {
    while (!this.#stopped()) {
      if (await session.tryAcquire()) return true;
      await this.#pause(this.#init.tuning.lockRetryMs);
    }
    return false;
  }

  async #consume(session: SubscriptionSession): Promise<void> {
    let checkpoint = await this.#loadCheckpoint(session);
    this.#position = checkpoint;
    while (!this.#stopped()) {
      const page = await this.#readPage(session, checkpoint);
      for (const event of page.events) {
        if (!(await this.#handle(event))) return;
        await this.#storeCheckpoint(session, checkpoint, event.position);
        checkpoint = event.position;
        if (this.#stopped()) return;
      }
      // Events the filter skipped still move the checkpoint, so they are not scanned again.
      if (page.scannedTo > checkpoint) {
        await this.#storeCheckpoint(session, checkpoint, page.scannedTo);
        checkpoint = page.scannedTo;
      }
      if (page.reachedEnd) {
        this.#caughtUp.resolve();
        await this.#signal.wait(this.#init.tuning.pollIntervalMs);
      }
    }
  }

  /** Calls the handler until it succeeds (the event is never skipped); false when stopped. */
  async #handle(event: RecordedEvent): Promise<boolean> {
    for (let failures = 1; ; failures += 1) {
      try {
        await this.#init.options.handler(event);
        return true;
      } catch (error) {
        this.#report(error);
        if (this.#stopped()) return false;
        await this.#pause(
          backoffs.exponential({ capMs: this.#init.tuning.maxBackoffMs })(failures),
        );
        if (this.#stopped()) return false;
      }
    }
  }

  async #loadCheckpoint(session: SubscriptionSession): Promise<bigint> {
    const { sql } = this.#init;
    const stored = await session.query<{ position: string }>(sql.loadCheckpoint, [this.name]);
    const existing = stored.rows[0];
    if (existing) return BigInt(existing.position);
    const from = this.#init.options.from ?? 'start';
    let start: bigint;
    if (from === 'start') start = 0n;
    else if (from === 'end') {
      const head = await session.query<{ transaction_id: string; sequence: unknown }>(sql.head);
      const row = head.rows[0];
      start = row ? encodePosition(BigInt(row.transaction_id), int8(row.sequence)) : 0n;
    } else start = from;
    // Stored at once: a restart before the first event must not re-resolve 'end' later.
    await session.query(sql.createCheckpoint, [this.name, int8Param(start)]);
    const created = await session.query<{ position: string }>(sql.loadCheckpoint, [this.name]);
    return BigInt(created.rows[0]?.position ?? start);
  }

  async #storeCheckpoint(session: SubscriptionSession, from: bigint, to: bigint): Promise<void> {
    const result = await session.query(this.#init.sql.storeCheckpoint, [
      this.name,
      int8Param(from),
      int8Param(to),
    ]);
    if (result.rowCount !== 1) throw new SubscriptionOwnershipLostError(this.name);
    this.#position = to;
  }

  async #readPage(session: SubscriptionSession, after: bigint): Promise<Page> {
    const { transactionId, sequence } = decodePosition(after);
    const { pageSize } = this.#init.tuning;
    const { rows } = await session.query<PageRow>(this.#init.sql.readPage, [
      int8Param(transactionId),
      int8Param(sequence),
      this.#filter.streamPrefix,
      this.#filter.eventTypes,
      pageSize,
    ]);
    const first = rows[0];
    if (!first) return { events: [], scannedTo: after, reachedEnd: true };
    const events = rows
      .filter((row) => typeof row.event_id === 'string')
      .map((row) => toRecordedEvent(row as Required<PageRow>));
    const reachedEnd = events.length < pageSize;
    const last = events.at(-1)?.position ?? after;
    const head = encodePosition(BigInt(first.head_transaction_id), int8(first.head_sequence));
    return { events, scannedTo: reachedEnd && head > last ? head : last, reachedEnd };
  }

  /** Sleeps, waking early only when stopped. */
  async #pause(ms: number): Promise<void> {
    const deadline = Date.now() + ms;
    while (!this.#stopped() && Date.now() < deadline) {
      await this.#signal.wait(deadline - Date.now());
    }
  }

  #report(error: unknown): void {
    try {
      this.#init.options.onError?.(error);
    } catch {
      // A failing error reporter must not stop the consumer.
    }
  }
}
