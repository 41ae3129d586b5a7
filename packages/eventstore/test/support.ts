import { randomUUID } from 'node:crypto';
import type {
  EventStore,
  NewEvent,
  RecordedEvent,
  SubscribeOptions,
  Subscription,
} from '../src/index.js';

/** A new event with a fresh id. */
export function event(
  type: string,
  data: unknown = {},
  metadata?: Record<string, unknown>,
): NewEvent {
  return metadata === undefined
    ? { id: randomUUID(), type, data }
    : { id: randomUUID(), type, data, metadata };
}

export function events(count: number, type = 'Counted'): NewEvent[] {
  return Array.from({ length: count }, (_, index) => event(type, { index }));
}

/** A stream (or prefix) name no other test uses. */
export function uniqueName(label: string): string {
  return `${label}-${randomUUID().slice(0, 8)}`;
}

/** What a promise rejects with; fails when it resolves. */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection, but the promise resolved');
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Polls until `check` returns a value that `done` accepts. readAll only shows transactions older
 * than every running one, so another test file's open transaction can delay visibility briefly.
 */
export async function eventually<T>(
  check: () => Promise<T> | T,
  done: (value: T) => boolean,
  { timeoutMs = 10_000, intervalMs = 20, what = 'condition' } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (done(value)) return value;
    if (Date.now() > deadline) {
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}; last value: ${describe(value)}`,
      );
    }
    await sleep(intervalMs);
  }
}

function describe(value: unknown): string {
  try {
    return (
      (JSON.stringify(value, (_, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v)) as
        string | undefined) ?? String(value)
    ).slice(0, 500);
  } catch {
    return String(value);
  }
}

/** A subscription that records what its handler saw. */
export interface Recorder {
  readonly subscription: Subscription;
  readonly received: RecordedEvent[];
  readonly errors: unknown[];
}

export function record(
  store: EventStore,
  options: Omit<SubscribeOptions, 'handler' | 'onError'> & {
    handler?: (event: RecordedEvent) => Promise<void>;
  },
): Recorder {
  const received: RecordedEvent[] = [];
  const errors: unknown[] = [];
  const subscription = store.subscribe({
    ...options,
    handler: async (recorded) => {
      if (options.handler) await options.handler(recorded);
      received.push(recorded);
    },
    onError: (error) => errors.push(error),
  });
  return { subscription, received, errors };
}

/** Reads every event of the store whose stream starts with `prefix` (after visibility settles). */
export async function readAllWithPrefix(
  store: EventStore,
  prefix: string,
  count: number,
): Promise<RecordedEvent[]> {
  return eventually(
    () => store.readAll({ filter: { streamPrefix: prefix } }),
    (read) => read.length >= count,
    { what: `${count} events under ${prefix}` },
  );
}
