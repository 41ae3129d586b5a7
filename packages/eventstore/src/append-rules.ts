/**
 * The port's append rules, for the adapters that check them in TypeScript (esdb, memory); the SQL
 * adapters check the expected version inside append_events and share the retry rule.
 */
import { DuplicateEventIdError } from './errors.js';
import type { AppendResult, ExpectedVersion, StreamState } from './port.js';
import type { EncodedEvent } from './validation.js';

/** True when a stream at `actual` may take an append that expects `expected`. */
export function satisfiesExpectedVersion(expected: ExpectedVersion, actual: StreamState): boolean {
  if (expected === 'any') return true;
  if (expected === 'no-stream') return actual === 'no-stream';
  if (expected === 'exists') return actual !== 'no-stream';
  return actual === expected;
}

/** Where an event is stored. */
export interface StoredEventLocation {
  readonly stream: string;
  readonly revision: bigint;
  readonly position: bigint;
}

/**
 * Answers an append some of whose ids are stored already. If `stream` holds exactly this batch at
 * consecutive revisions, it is a retry and gets the original result, whatever it expected;
 * otherwise it throws `DuplicateEventIdError` naming where the first stored id is.
 */
export function resolveStoredIds(
  stream: string,
  encoded: readonly EncodedEvent[],
  locate: (id: string) => StoredEventLocation | undefined,
): AppendResult {
  const located = encoded.map((event) => locate(event.id));
  const first = located[0];
  const last = located.at(-1);
  const isRetry =
    first !== undefined &&
    last !== undefined &&
    located.every(
      (location, index) =>
        location !== undefined &&
        location.stream === stream &&
        location.revision === first.revision + BigInt(index),
    );
  if (isRetry) return { revision: last.revision, position: last.position, idempotent: true };
  const index = located.findIndex((location) => location !== undefined);
  const stored = located[index];
  // Nothing found: the conflicting insert was rolled back meanwhile; report it rather than loop.
  if (!stored) throw new DuplicateEventIdError(stream, encoded[0]?.id ?? 'unknown');
  throw new DuplicateEventIdError(stream, encoded[index]!.id, {
    stream: stored.stream,
    revision: stored.revision,
  });
}
