import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { QueryResult, SqlDriver, SqlExecutor, SubscriptionSession } from '../sql/driver.js';
import { notifyChannel } from '../sql/schema-name.js';

export interface PostgresDriverOptions {
  readonly connectionString: string;
  readonly schema: string;
  /** Pool size for appends and reads (subscriptions use their own connection each). */
  readonly maxConnections?: number;
  readonly applicationName?: string;
  /**
   * How long opening a connection may take before it fails (pool and subscriptions), ms.
   * Default 5 s: while PostgreSQL is away a request fails fast (503) instead of waiting.
   */
  readonly connectTimeoutMs?: number;
  /**
   * How long a statement may wait for its answer before it fails and its connection is
   * discarded, ms. Default 30 s: a connection whose peer vanished without a reset (a
   * partition) does not hold a request, or a subscription, for ever.
   */
  readonly queryTimeoutMs?: number;
  /**
   * The shortest time between two NOTIFYs of this driver, ms. Default 20: appends finishing
   * within it share one signal, and another process's subscribers learn of them at most this
   * much later (they also poll). 0 sends one as soon as the previous one is answered.
   */
  readonly notifyIntervalMs?: number;
}

/**
 * A NOTIFY's payload: the driver that sent it and the newest position it had committed, so a
 * listener knows what to wait for when that position is not yet visible to it (ADR 0046). A
 * payload of the driver's id alone (an older sender) names no position.
 */
export function notifyPayload(origin: string, position: bigint): string {
  return `${origin} ${position}`;
}

export function parseNotifyPayload(payload: string | undefined): {
  origin: string;
  position?: bigint;
} {
  const [origin = '', position] = (payload ?? '').split(' ');
  return position !== undefined && /^\d+$/.test(position)
    ? { origin, position: BigInt(position) }
    : { origin };
}

/** Connection settings every connection of the driver shares. */
function connectionSettings(options: PostgresDriverOptions) {
  return {
    connectionString: options.connectionString,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 5_000,
    query_timeout: options.queryTimeoutMs ?? 30_000,
    keepAlive: true,
  };
}

type Queryable = Pick<pg.ClientBase, 'query'>;

/**
 * Statements with parameters run as named prepared statements: each connection parses and plans
 * a statement once instead of on every append (the statement texts are a small fixed set).
 */
const statementNames = new Map<string, string>();
function statementName(text: string): string {
  let name = statementNames.get(text);
  if (name === undefined) {
    name = `croupier_${statementNames.size}`;
    statementNames.set(text, name);
  }
  return name;
}

async function run<Row>(
  client: Queryable,
  text: string,
  params?: readonly unknown[],
): Promise<QueryResult<Row>> {
  const result =
    params === undefined
      ? await client.query(text)
      : await client.query({ name: statementName(text), text, values: params as unknown[] });
  return { rows: result.rows as Row[], rowCount: result.rowCount ?? 0 };
}

function executor(client: Queryable): SqlExecutor {
  return {
    query: (text, params) => run(client, text, params),
    exec: async (script) => {
      // Without parameters pg uses the simple protocol, which runs several statements.
      await client.query(script);
    },
  };
}

/** The socket under a `pg` client, where it has one that can be corked (pg's own field). */
function socketOf(client: pg.PoolClient): { cork(): void; uncork(): void } | undefined {
  const stream = (
    client as unknown as { connection?: { stream?: Partial<Record<string, unknown>> } }
  ).connection?.stream;
  return typeof stream?.['cork'] === 'function' && typeof stream['uncork'] === 'function'
    ? (stream as unknown as { cork(): void; uncork(): void })
    : undefined;
}

/**
 * Whether the connection is still usable after `error`: an error the server answered with a
 * SQLSTATE, unless its severity is FATAL or PANIC (57P01 when the backend was terminated, for
 * one), after which the server closes the connection.
 */
function connectionSurvives(error: unknown): boolean {
  const { code, severity } = (error ?? {}) as { code?: unknown; severity?: unknown };
  return (
    typeof code === 'string' &&
    /^[0-9A-Z]{5}$/.test(code) &&
    !code.startsWith('E') &&
    severity !== 'FATAL' &&
    severity !== 'PANIC'
  );
}

/**
 * Advisory lock key of a lease: 64 bits of md5, so two subscription names practically never share
 * a lock (hashtext's 32 bits would collide at a few tens of thousands of names).
 */
const LEASE_KEY_SQL = `('x' || substr(md5($1::text), 1, 16))::bit(64)::bigint`;

/** The `pg` driver: a pool for appends and reads, one dedicated client per subscription. */
export class PostgresDriver implements SqlDriver {
  readonly #pool: pg.Pool;
  readonly #options: PostgresDriverOptions;
  readonly #sessions = new Set<PostgresSubscriptionSession>();
  /** The connection error of each pooled client whose connection broke. */
  readonly #broken = new WeakMap<pg.ClientBase, Error>();
  #notifying: Promise<void> | null = null;
  #notifyAgain = false;
  /** The newest position appended since the last NOTIFY was sent: what the next one names. */
  #notifyPosition = 0n;
  #closed = false;
  /**
   * The payload of this driver's NOTIFYs. Its own subscription sessions ignore it: the store
   * already woke them in-process when the append returned (ADR 0022).
   */
  readonly #origin = randomUUID();

  constructor(options: PostgresDriverOptions) {
    this.#options = options;
    this.#pool = new pg.Pool({
      ...connectionSettings(options),
      max: options.maxConnections ?? 10,
      application_name: options.applicationName ?? 'croupier-eventstore',
    });
    // An idle client that loses its connection is discarded by the pool; without a listener the
    // 'error' event would crash the process.
    this.#pool.on('error', () => undefined);
    // Each client listens for as long as it lives, from the moment it connects: the pool stops
    // listening when it hands a client out, which it may do while `pg` is still reading the
    // socket (a new connection's ReadyForQuery, or the answer that released it to a waiting
    // caller), and an error in that same read is emitted before the caller that awaited the
    // client runs again. A listener added after the await came too late and the process died of
    // an uncaught 57P01 during the chaos test's outage.
    this.#pool.on('connect', (client) => {
      client.on('error', (error) => {
        this.#broken.set(client, error);
      });
    });
  }

  /**
   * A statement on a pooled connection. Unlike `pool.query`, a connection is kept after an error
   * the server answered (a SQLSTATE: the connection is fine) and only discarded after a broken or
   * timed-out one, or a FATAL error (the server is closing it); and the statement's messages (bind, describe, execute, sync: four writes in
   * `pg`) leave in one write, the socket corked while `pg` writes them.
   */
  async query<Row>(text: string, params?: readonly unknown[]): Promise<QueryResult<Row>> {
    const client = await this.#pool.connect();
    let failed: Error | undefined;
    try {
      const socket = socketOf(client);
      socket?.cork();
      let pending: Promise<QueryResult<Row>>;
      try {
        pending = run<Row>(client, text, params);
      } finally {
        socket?.uncork();
      }
      return await pending;
    } catch (error) {
      if (!connectionSurvives(error))
        failed = error instanceof Error ? error : new Error(String(error));
      throw error;
    } finally {
      client.release(this.#broken.get(client) ?? failed);
    }
  }

  async exec(script: string): Promise<void> {
    await this.#pool.query(script);
  }

  async transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    const client = await this.#pool.connect();
    let rollbackFailed: unknown;
    try {
      await client.query('BEGIN');
      const result = await work(executor(client));
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch((rollbackError: unknown) => {
        rollbackFailed = rollbackError;
      });
      throw error;
    } finally {
      // A connection that broke (its client emitted 'error', or it could not roll back) is
      // discarded rather than handed to the next caller.
      client.release(
        this.#broken.get(client) ?? (rollbackFailed instanceof Error ? rollbackFailed : undefined),
      );
    }
  }

  /**
   * NOTIFY after the append committed, coalesced: at most one in flight and one queued, however
   * many appends finish meanwhile, and at most one per `notifyIntervalMs`. Inside the append's
   * transaction a NOTIFY would serialize all appending commits on a cluster-wide lock (ADR 0002).
   * It names the newest position appended so far, so a listener that does not see it yet keeps
   * looking (ADR 0046). Subscribers also poll, so a lost signal only costs latency.
   */
  signalAppended(position: bigint): void {
    if (this.#closed) return;
    if (position > this.#notifyPosition) this.#notifyPosition = position;
    if (this.#notifying) {
      this.#notifyAgain = true;
      return;
    }
    this.#notifyAgain = true;
    this.#notifying = (async () => {
      // Appends that finish while a NOTIFY is in flight set #notifyAgain (the flag is re-read
      // after each await, hence the method call: the compiler would narrow a field read).
      const interval = this.#options.notifyIntervalMs ?? 20;
      while (this.#takeNotifyRequest()) {
        const sent = Date.now();
        await this.#pool
          .query(`SELECT pg_notify($1, $2)`, [
            notifyChannel(this.#options.schema),
            notifyPayload(this.#origin, this.#notifyPosition),
          ])
          .catch(() => undefined);
        const wait = sent + interval - Date.now();
        if (wait > 0 && !this.#closed) await new Promise((resolve) => setTimeout(resolve, wait));
      }
      this.#notifying = null;
    })();
  }

  #takeNotifyRequest(): boolean {
    const requested = this.#notifyAgain && !this.#closed;
    this.#notifyAgain = false;
    return requested;
  }

  async openSubscriptionSession(
    leaseKey: string,
    onWake: (position?: bigint) => void,
    onBroken: (error: unknown) => void,
  ): Promise<SubscriptionSession> {
    const client = new pg.Client({
      ...connectionSettings(this.#options),
      application_name: `${this.#options.applicationName ?? 'croupier-eventstore'}:subscription`,
    });
    const session = new PostgresSubscriptionSession(client, leaseKey, () => {
      this.#sessions.delete(session);
    });
    client.on('error', (error) => {
      session.broken = true;
      onBroken(error);
    });
    client.on('notification', (message) => {
      // This driver's own signal: the store woke its subscribers in-process already.
      const { origin, position } = parseNotifyPayload(message.payload);
      if (origin !== this.#origin) onWake(position);
    });
    try {
      await client.connect();
      // Checkpoints are written after every event; losing the last few in a crash only means
      // redelivery (at least once), so they need not wait for the WAL flush.
      await client.query('SET synchronous_commit = off');
      await client.query(`LISTEN "${notifyChannel(this.#options.schema)}"`);
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
    this.#sessions.add(session);
    return session;
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#notifying;
    await Promise.allSettled([...this.#sessions].map((session) => session.close()));
    await this.#pool.end();
  }
}

class PostgresSubscriptionSession implements SubscriptionSession {
  broken = false;
  #closed = false;
  readonly #client: pg.Client;
  readonly #leaseKey: string;
  readonly #onClosed: () => void;

  constructor(client: pg.Client, leaseKey: string, onClosed: () => void) {
    this.#client = client;
    this.#leaseKey = leaseKey;
    this.#onClosed = onClosed;
  }

  query<Row>(text: string, params?: readonly unknown[]): Promise<QueryResult<Row>> {
    return run<Row>(this.#client, text, params);
  }

  async exec(script: string): Promise<void> {
    await this.#client.query(script);
  }

  /**
   * Session-level advisory lock: held while this connection lives, released by PostgreSQL if the
   * process or the connection dies, so a standby consumer takes over without any timeout.
   */
  async tryAcquire(): Promise<boolean> {
    const result = await this.#client.query<{ acquired: boolean }>(
      `SELECT pg_try_advisory_lock(${LEASE_KEY_SQL}) AS acquired`,
      [this.#leaseKey],
    );
    return result.rows[0]?.acquired === true;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#onClosed();
    // Ending the connection releases the advisory lock and the LISTEN.
    await this.#client.end();
  }
}
