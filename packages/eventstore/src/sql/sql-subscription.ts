import type { EventEmitter } from 'node:events';
import type {
  ConsumerSession,
  LogPage,
  SessionSignals,
  SubscriptionTuning,
} from '../checkpointed-subscription.js';
import { decodePosition } from '../position.js';
import { matchesFilter, type NormalizedFilter } from '../validation.js';
import { int8Param, type SqlDriver } from './driver.js';
import type { AppendedBatch } from './group-append.js';
import { positionOf, toRecordedEvent } from './rows.js';
import type { PageRow, Statements } from './statements.js';

export type SqlSubscriptionTuning = SubscriptionTuning;

export interface SqlSessionInit {
  readonly driver: SqlDriver;
  readonly sql: Statements;
  /** The subscription's name: its checkpoint row. */
  readonly name: string;
  /** Names the advisory lock (postgres) or in-process lease (pglite). */
  readonly leaseKey: string;
  /**
   * The store's in-process wake-up, with what each committed append wrote; NOTIFY covers the
   * other processes.
   */
  readonly appended: EventEmitter;
}

/**
 * Which in-process appends wake a subscriber (ADR 0022): one that wrote an event its filter
 * takes, and any other while such an event is not yet visible to it. An event becomes visible
 * only once every older transaction has ended (ADR 0002), so the commit of an append the filter
 * skips may be what lets the awaited one through; once a read's head reaches the awaited
 * position, the event was in that read. Until the subscriber has read once (its filter not yet
 * known), and for a wake-up that names nothing, every append wakes it.
 */
export class WakeFilter {
  #filter: NormalizedFilter | null = null;
  /**
   * The newest position of an event this subscriber takes, learned from a wake-up; or, from
   * another process's NOTIFY, which names no stream, the newest position it committed.
   */
  #awaited: bigint | null = null;
  /** The head of the subscriber's last read. */
  #seen: bigint | null = null;
  /** Until when a wake-up that named no position may still be held back (ms since the epoch). */
  #uncertainUntil = 0;
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /**
   * Another process committed events up to `position` (its NOTIFY; absent: it did not say). A
   * position is awaited like an in-process one; without one, the subscriber keeps looking for
   * `UNCERTAIN_WAKE_MS`, as every wake-up made it look before ADR 0045.
   */
  heard(position: bigint | undefined): void {
    if (position === undefined) this.#uncertainUntil = this.#now() + UNCERTAIN_WAKE_MS;
    else if (this.#awaited === null || position > this.#awaited) this.#awaited = position;
  }

  /**
   * Whether an event committed is known not to be read yet: it is not visible below the log's
   * `xmin` (ADR 0002), and its transaction's end may have no wake-up of its own (another
   * transaction held it back), so the subscriber polls at its short interval until it has read
   * it; otherwise every commit it waits for wakes it, and the poll is a slow safety net.
   */
  awaiting(): boolean {
    return (
      (this.#awaited !== null && (this.#seen === null || this.#seen < this.#awaited)) ||
      this.#now() < this.#uncertainUntil
    );
  }

  /** Whether these appends should wake the subscriber. */
  wakes(written: readonly AppendedBatch[] | undefined): boolean {
    const filter = this.#filter;
    if (filter === null || written === undefined) return true;
    let wanted = false;
    for (const batch of written) {
      if (!batch.types.some((type) => matchesFilter(filter, batch.stream, type))) continue;
      wanted = true;
      if (this.#awaited === null || batch.position > this.#awaited) this.#awaited = batch.position;
    }
    return (
      wanted || (this.#awaited !== null && (this.#seen === null || this.#seen < this.#awaited))
    );
  }

  /** A read with `filter` saw the log up to `head`. */
  read(filter: NormalizedFilter, head: bigint | null): void {
    this.#filter = filter;
    if (head !== null && (this.#seen === null || head > this.#seen)) this.#seen = head;
  }
}

/** How long a wake-up that names no position keeps a subscriber polling at its short interval. */
export const UNCERTAIN_WAKE_MS = 2_000;

/**
 * A subscription consumer's session on the SQL log: a dedicated connection on PostgreSQL holding
 * the advisory lock, checkpoints in `subscription_checkpoints` moved with compare-and-swap, pages
 * read in (transaction_id, sequence) order below `xmin` (ADR 0002).
 */
export async function openSqlSession(
  init: SqlSessionInit,
  signals: SessionSignals,
): Promise<ConsumerSession> {
  const { driver, sql, name, appended } = init;
  const wakeFilter = new WakeFilter();
  const session = await driver.openSubscriptionSession(
    init.leaseKey,
    (position) => {
      wakeFilter.heard(position);
      signals.wake();
    },
    signals.broken,
  );
  const onAppended = (written?: readonly AppendedBatch[]): void => {
    if (wakeFilter.wakes(written)) signals.wake();
  };
  appended.on('appended', onAppended);
  return {
    tryAcquire: () => session.tryAcquire(),
    awaiting: () => wakeFilter.awaiting(),

    async loadCheckpoint(): Promise<bigint | null> {
      const { rows } = await session.query<{ position: string }>(sql.loadCheckpoint, [name]);
      const stored = rows[0];
      return stored ? BigInt(stored.position) : null;
    },

    async createCheckpoint(position: bigint): Promise<bigint> {
      await session.query(sql.createCheckpoint, [name, int8Param(position)]);
      const { rows } = await session.query<{ position: string }>(sql.loadCheckpoint, [name]);
      return BigInt(rows[0]?.position ?? position);
    },

    async storeCheckpoint(from: bigint, to: bigint): Promise<boolean> {
      const result = await session.query(sql.storeCheckpoint, [
        name,
        int8Param(from),
        int8Param(to),
      ]);
      return result.rowCount === 1;
    },

    async head(): Promise<bigint | null> {
      const { rows } = await session.query<{ transaction_id: string; sequence: unknown }>(sql.head);
      const row = rows[0];
      return row ? positionOf(row.transaction_id, row.sequence) : null;
    },

    async readPage(after: bigint, filter: NormalizedFilter, limit: number): Promise<LogPage> {
      const { transactionId, sequence } = decodePosition(after);
      const { rows } = await session.query<PageRow>(sql.readPage, [
        int8Param(transactionId),
        int8Param(sequence),
        filter.streamPrefix,
        filter.eventTypes,
        limit,
      ]);
      const first = rows[0];
      if (!first) {
        wakeFilter.read(filter, null);
        return { events: [], head: null };
      }
      const head = positionOf(first.head_transaction_id, first.head_sequence);
      wakeFilter.read(filter, head);
      return {
        // The head comes on every row; a page that matched nothing is one row without an event.
        events: rows
          .filter((row) => typeof row.event_id === 'string')
          .map((row) => toRecordedEvent(row as Required<PageRow>)),
        head,
      };
    },

    close(): Promise<void> {
      appended.off('appended', onAppended);
      return session.close();
    },
  };
}
