/**
 * What the SQL event store needs from a driver. The postgres (`pg`) and pglite adapters implement
 * it; all SQL text and logic is shared (`sql-event-store.ts`), only the connection differs.
 */

export interface QueryResult<Row> {
  readonly rows: Row[];
  readonly rowCount: number;
}

export interface SqlExecutor {
  /** One statement, with `$n` parameters. */
  query<Row = Record<string, unknown>>(
    text: string,
    params?: readonly unknown[],
  ): Promise<QueryResult<Row>>;
  /** A script of several statements, without parameters (migrations). */
  exec(script: string): Promise<void>;
}

/**
 * A connection dedicated to one subscription consumer: holds its single-active-consumer lease and
 * reports new events (NOTIFY, or an in-process wake-up).
 */
export interface SubscriptionSession extends SqlExecutor {
  /** Takes the lease for this subscription name if nobody holds it; true when held. */
  tryAcquire(): Promise<boolean>;
  /** Releases the lease (if held) and the connection. */
  close(): Promise<void>;
}

export interface SqlDriver extends SqlExecutor {
  /** Runs `work` in one transaction on one connection. */
  transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T>;
  /**
   * Opens a session for a subscription. `leaseKey` names the lease; `onWake` is called when new
   * events may have been committed, with the newest position another process says it committed
   * (absent when its signal does not say); `onBroken` when the connection fails.
   */
  openSubscriptionSession(
    leaseKey: string,
    onWake: (position?: bigint) => void,
    onBroken: (error: unknown) => void,
  ): Promise<SubscriptionSession>;
  /**
   * Called after each committed append with the position of its last event: tells other
   * processes' subscribers that events up to there are committed (PostgreSQL: a coalesced
   * NOTIFY naming the newest position). Local subscribers are woken by the store itself.
   */
  signalAppended(position: bigint): void;
  close(): Promise<void>;
}

/**
 * The one place where int8 values from either driver become bigints: `pg` returns them as strings,
 * PGlite as numbers (or bigints beyond 2^53); xid8 and numeric are selected as text.
 */
export function int8(value: unknown): bigint {
  switch (typeof value) {
    case 'bigint':
      return value;
    case 'number':
      if (!Number.isSafeInteger(value)) throw new TypeError(`int8 value ${value} lost precision`);
      return BigInt(value);
    case 'string':
      return BigInt(value);
    default:
      throw new TypeError(`expected an int8 value, got ${typeof value}`);
  }
}

/** A bigint as the text parameter the SQL casts (`$n::bigint`, `::xid8`, `::numeric`). */
export function int8Param(value: bigint): string {
  return value.toString();
}
