import type { EventEmitter } from 'node:events';
import type {
  ConsumerSession,
  LogPage,
  SessionSignals,
  SubscriptionTuning,
} from '../checkpointed-subscription.js';
import { decodePosition, encodePosition } from '../position.js';
import type { NormalizedFilter } from '../validation.js';
import { int8, int8Param, type SqlDriver } from './driver.js';
import { toRecordedEvent } from './rows.js';
import type { PageRow, Statements } from './statements.js';

export type SqlSubscriptionTuning = SubscriptionTuning;

export interface SqlSessionInit {
  readonly driver: SqlDriver;
  readonly sql: Statements;
  /** The subscription's name: its checkpoint row. */
  readonly name: string;
  /** Names the advisory lock (postgres) or in-process lease (pglite). */
  readonly leaseKey: string;
  /** The store's in-process wake-up; NOTIFY covers the other processes. */
  readonly appended: EventEmitter;
}

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
  const session = await driver.openSubscriptionSession(init.leaseKey, signals.wake, signals.broken);
  appended.on('appended', signals.wake);
  return {
    tryAcquire: () => session.tryAcquire(),

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
      return row ? encodePosition(BigInt(row.transaction_id), int8(row.sequence)) : null;
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
      if (!first) return { events: [], head: null };
      return {
        // The head comes on every row; a page that matched nothing is one row without an event.
        events: rows
          .filter((row) => typeof row.event_id === 'string')
          .map((row) => toRecordedEvent(row as Required<PageRow>)),
        head: encodePosition(BigInt(first.head_transaction_id), int8(first.head_sequence)),
      };
    },

    close(): Promise<void> {
      appended.off('appended', signals.wake);
      return session.close();
    },
  };
}
