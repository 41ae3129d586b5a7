import { backoffs } from './backoff.js';
import { EventStoreError } from './errors.js';
import type { EventStore } from './port.js';

/** The first and the longest pause between two looks at the log's head (ms). */
const FIRST_LOOK_MS = 5;
const LAST_LOOK_MS = 100;

/** The log stayed held back below what was committed before the wait began. */
export class LogHeldBackError extends EventStoreError {
  readonly code = 'LOG_HELD_BACK';
  constructor(
    readonly readable: bigint,
    readonly committed: bigint,
    readonly timeoutMs: number,
  ) {
    super(
      `the log stayed readable only to position ${readable} of ${committed} committed for ${timeoutMs} ms: a transaction on the store's server holds it back`,
    );
    this.name = 'LogHeldBackError';
  }
}

/**
 * Waits until `readAll` reaches everything committed before the call, whichever process
 * committed it; answers how far the log is readable then. A reader of the log right after a
 * commit (an audit, a check, a read model's sync) needs this where the store holds back what
 * commits after a transaction still running (the SQL stores, ADR 0048); elsewhere it costs one
 * `head()`. Looks again after 5 ms, doubling up to 100 ms; throws `LogHeldBackError` after
 * `timeoutMs` (default 10 s).
 */
export async function untilReadable(
  store: Pick<EventStore, 'head'>,
  { timeoutMs = 10_000 }: { readonly timeoutMs?: number } = {},
): Promise<bigint> {
  const deadline = Date.now() + timeoutMs;
  const head = await store.head();
  const committed = head.committed;
  let readable = head.readable;
  const pauses = backoffs.exponential({ baseMs: FIRST_LOOK_MS, capMs: LAST_LOOK_MS, jitter: 0 });
  for (let look = 1; readable < committed; look++) {
    const left = deadline - Date.now();
    if (left <= 0) throw new LogHeldBackError(readable, committed, timeoutMs);
    await new Promise((resolve) => setTimeout(resolve, Math.min(pauses(look), left)));
    ({ readable } = await store.head());
  }
  return readable;
}
