import { digestValueOf, streams } from '@croupier/contracts';
import type { RecordedEvent } from '@croupier/eventstore';
import { locationOf } from './parse.js';
import type { ShoeReplay } from './reports.js';
import type { ShoeWalk } from './shoe-walk.js';
import type { VerdictBuilder } from './verdict.js';

const byPosition = (a: RecordedEvent, b: RecordedEvent) =>
  a.position < b.position ? -1 : a.position > b.position ? 1 : 0;

/** The streams a digest check can see, and which of their seals to judge. */
export interface DigestScope {
  /** The events of each stream at hand, by stream name (an empty list: the stream is missing). */
  readonly streams: ReadonlyMap<string, readonly RecordedEvent[]>;
  /**
   * A round audit sees one round of the shoe: only the entries of the streams at hand are
   * judged, and the digest need not seal rounds it was not given.
   */
  readonly partial?: boolean;
  /** The first event of the table's next shoe, when it was shuffled. */
  readonly nextShoe?: RecordedEvent | null;
}

/**
 * Recomputes the ShoeClosed digest: its value from its entries, each entry's hash from the
 * event at that revision of that stream, and that it covers the shoe stream (up to the event
 * before ShoeClosed) and every round stream of the shoe. A shoe without ShoeClosed whose table
 * has shuffled its next shoe lost its close: a shoe is closed, sealed and its seed revealed
 * before the next one is shuffled.
 */
export function checkDigest(
  shoeId: string,
  walk: ShoeWalk,
  scope: DigestScope,
  verdict: VerdictBuilder,
): ShoeReplay['digest'] {
  const closed = walk.closed;
  const closedAt = walk.closedAt;
  const shoeStream = streams.shoe(shoeId);
  const next = scope.nextShoe ?? null;
  if (closed === null || closedAt === null) {
    if (next !== null) {
      const shoeEvents = scope.streams.get(shoeStream) ?? [];
      verdict.fail(
        'digest',
        'EVENT_MISSING',
        { stream: shoeStream, revision: BigInt(shoeEvents.length), type: 'ShoeClosed' },
        `the table shuffled its next shoe (${next.stream}@${next.revision}), but shoe ${shoeId} has no ShoeClosed: a shoe is closed, its seed revealed and its streams sealed before the next is shuffled`,
        { expected: 'ShoeClosed', found: null },
      );
      return null;
    }
    verdict.skip('digest', 'the shoe is not closed: its digest is sealed when it closes');
    return null;
  }
  const at = locationOf(closedAt);
  if (next !== null && next.position >= 0n && next.position < closedAt.position) {
    verdict.fail(
      'digest',
      'POSITION_INVALID',
      at,
      `ShoeClosed stands after the next shoe was shuffled (${next.stream}@${next.revision}) in the global log`,
      { expected: `a position before ${next.position}`, found: String(closedAt.position) },
    );
  }
  const { digest } = closed;
  const recomputed = digestValueOf(digest.streams);
  if (recomputed !== digest.value) {
    verdict.fail(
      'digest',
      'DIGEST_MISMATCH',
      at,
      'the digest value is not sha256 of the canonical JSON of its entries',
      { expected: recomputed, found: digest.value },
    );
  }
  const covered = [...scope.streams]
    .filter(
      ([stream, events]) =>
        stream === shoeStream || events.some((e) => e.position < closedAt.position),
    )
    .map(([stream]) => stream);
  const sealed = digest.streams.map((entry) => entry.stream);
  for (const stream of covered) {
    if (!sealed.includes(stream)) {
      verdict.fail(
        'digest',
        'DIGEST_MISMATCH',
        at,
        `${stream} existed when the shoe closed but the digest does not seal it`,
        { expected: stream, found: null },
      );
    }
  }
  for (const entry of digest.streams) {
    const events = scope.streams.get(entry.stream);
    if (events === undefined) {
      if (scope.partial) continue;
      verdict.fail(
        'digest',
        'DIGEST_MISMATCH',
        { stream: entry.stream, revision: entry.revision, type: null },
        `the digest seals ${entry.stream}, which is missing`,
        { expected: entry.stream, found: null },
      );
      continue;
    }
    const revision = BigInt(entry.revision);
    const event = events.find((e) => e.revision === revision);
    if (event === undefined) {
      verdict.fail(
        'digest',
        'DIGEST_MISMATCH',
        { stream: entry.stream, revision, type: null },
        `the digest seals revision ${revision} of ${entry.stream}, which is missing`,
        { expected: entry.hash, found: null },
      );
      continue;
    }
    if (String(event.metadata['hash']) !== entry.hash) {
      verdict.fail(
        'digest',
        'DIGEST_MISMATCH',
        locationOf(event),
        `${entry.stream}@${revision} no longer has the hash the digest sealed`,
        { expected: entry.hash, found: String(event.metadata['hash']) },
      );
    }
    if (entry.stream === shoeStream && revision !== closedAt.revision - 1n) {
      verdict.fail(
        'digest',
        'DIGEST_MISMATCH',
        at,
        'the digest must seal the shoe stream up to the event before ShoeClosed',
        { expected: String(closedAt.revision - 1n), found: entry.revision },
      );
    }
    const later = events.filter((e) => e.revision > revision).sort(byPosition);
    if (later.length > 0 && entry.stream !== shoeStream) {
      const before = later.filter((e) => e.position < closedAt.position).length;
      verdict.note(
        `${entry.stream}: ${later.length} event(s) after the sealed revision ${revision}` +
          (before > 0
            ? ` (${before} recorded before the shoe closed)`
            : ' (recorded after the shoe closed)'),
      );
    }
  }
  verdict.pass('digest', `${digest.streams.length} stream head(s) sealed, value ${recomputed}`);
  return { value: digest.value, recomputed, streams: digest.streams.length };
}
