/**
 * What a request could not reach: the event store (PostgreSQL, PGlite, EventStoreDB), Redis (the
 * settlement bus), or another service. An outage answers 503 UNAVAILABLE with Retry-After: the
 * client retries, and the ids every command carries (bet ids, references) make a retry count
 * once. Everything else unexpected stays a 500.
 */
export interface Outage {
  /** `network`: a socket failure no driver error names (whose peer it was is not known). */
  readonly dependency: 'event store' | 'redis' | 'service' | 'network';
  /** The driver's own word for it (an errno, a SQLSTATE, a message), for the log and detail. */
  readonly reason: string;
}

/** Seconds a client is told to wait (Retry-After) before retrying after an outage. */
export const OUTAGE_RETRY_AFTER_SECONDS = 1;

/** Socket failures, as Node and undici report them: whoever the peer was, it is unreachable. */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'EAI_AGAIN',
]);

/**
 * SQLSTATEs of a server that is away or refusing: connection exceptions (class 08), shutdown
 * (57P01 admin, 57P02 crash, 57P03 cannot connect now), a statement cancelled by its timeout
 * (57014: the only cancel Croupier issues) and insufficient resources (class 53: too many
 * connections, out of memory, disk full).
 */
function isUnavailableSqlState(code: string): boolean {
  return (
    code.startsWith('08') ||
    code.startsWith('53') ||
    code === '57P01' ||
    code === '57P02' ||
    code === '57P03' ||
    code === '57014'
  );
}

/** Messages of pg, pg-pool, PGlite and ioredis that carry no code of their own. */
const STORE_MESSAGES: readonly RegExp[] = [
  /^Connection terminated/, // pg: the server or the network closed the connection
  /^timeout exceeded when trying to connect/, // pg-pool: no connection within connectionTimeoutMillis
  /^Query read timeout/, // pg: query_timeout passed without an answer
  /not queryable/, // pg: a client that already lost its connection
  /^Cannot use a pool after calling end on the pool/, // the process is shutting down
  /is not currently accepting connections/, // SQLSTATE 55000 of a database taken offline
  /^PGlite is clos(ed|ing)/,
];
const REDIS_MESSAGES: readonly RegExp[] = [
  /^Connection is closed\.?$/, // ioredis
  /enableOfflineQueue options is false/, // ioredis, disconnected without an offline queue
  /^Reached the max retries per request limit/, // ioredis MaxRetriesPerRequestError
];

/** EventStoreDB client (@eventstore/db-client) errors of an unreachable or leaderless cluster. */
const ESDB_CLASSES = new Set([
  'UnavailableError',
  'DeadlineExceededError',
  'TimeoutError',
  'CancelledError',
  'NotLeaderError',
]);
const ESDB_TYPES = new Set([
  'unavailable',
  'deadline-exceeded',
  'timeout',
  'cancelled',
  'not-leader',
]);

/** The name of an object's class, if it has one (`Object.create(null)` has none). */
function classNameOf(value: object): string | undefined {
  const constructor: unknown = Reflect.get(value, 'constructor');
  return typeof constructor === 'function' ? constructor.name : undefined;
}

/** The error itself, then its causes (`cause`, and the members of an AggregateError). */
function* chainOf(error: unknown): Generator<Record<string, unknown>> {
  const pending: unknown[] = [error];
  for (let seen = 0; pending.length > 0 && seen < 10; seen++) {
    const next = pending.shift();
    if (typeof next !== 'object' || next === null) continue;
    const record = next as Record<string, unknown>;
    yield record;
    if (record.cause !== undefined) pending.push(record.cause);
    if (Array.isArray(record.errors)) pending.push(...(record.errors as unknown[]));
  }
}

function classify(error: Record<string, unknown>): Outage | null {
  const code = typeof error.code === 'string' ? error.code : undefined;
  const name = typeof error.name === 'string' ? error.name : '';
  const className = classNameOf(error);
  const message = typeof error.message === 'string' ? error.message : '';
  // Croupier's own: a service client that found its peer away, a bus that could not publish,
  // a store already closed (the process is stopping).
  if (name === 'ServiceUnavailableError')
    return {
      dependency: 'service',
      reason: typeof error.reason === 'string' ? error.reason : message,
    };
  if (code === 'PUBLISH_FAILED') return { dependency: 'redis', reason: message };
  if (code === 'EVENT_STORE_CLOSED') return { dependency: 'event store', reason: 'closed' };
  if (name === 'MaxRetriesPerRequestError' || className === 'MaxRetriesPerRequestError')
    return { dependency: 'redis', reason: 'max retries per request' };
  if (REDIS_MESSAGES.some((pattern) => pattern.test(message)))
    return { dependency: 'redis', reason: message };
  if (code !== undefined && /^[0-9A-Z]{5}$/.test(code) && isUnavailableSqlState(code))
    return { dependency: 'event store', reason: `SQLSTATE ${code}` };
  if (STORE_MESSAGES.some((pattern) => pattern.test(message)))
    return { dependency: 'event store', reason: message };
  if (
    typeof className === 'string' &&
    ESDB_CLASSES.has(className) &&
    typeof error.type === 'string' &&
    ESDB_TYPES.has(error.type)
  )
    return { dependency: 'event store', reason: `EventStoreDB ${error.type}` };
  return null;
}

/**
 * Whether an error means a dependency is unreachable rather than a bug: the error or any of its
 * causes is a connection failure of pg, PGlite, ioredis, BullMQ, EventStoreDB or fetch (undici's
 * `fetch failed` with a UND_ERR_* or errno cause, or its deadline passing: another service).
 */
export function outageOf(error: unknown): Outage | null {
  let socket: string | null = null;
  for (const link of chainOf(error)) {
    const known = classify(link);
    if (known !== null) return known;
    const code = typeof link.code === 'string' ? link.code : '';
    const name = typeof link.name === 'string' ? link.name : '';
    if (socket === null && (SOCKET_CODES.has(code) || code.startsWith('UND_ERR_'))) socket = code;
    // fetch's own deadline (AbortSignal.timeout) rejects with a DOMException named TimeoutError.
    if (socket === null && name === 'TimeoutError' && classNameOf(link) === 'DOMException')
      socket = 'timeout';
  }
  if (socket === null) return null;
  const fromFetch =
    (error instanceof TypeError && error.message === 'fetch failed') ||
    socket.startsWith('UND_ERR_') ||
    socket === 'timeout';
  return { dependency: fromFetch ? 'service' : 'network', reason: socket };
}
