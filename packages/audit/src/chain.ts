import { chainHash, GENESIS_HASH, type RecordedEvent } from '@croupier/eventstore';
import type { VerdictBuilder } from './verdict.js';

export interface ChainOptions {
  /**
   * The events are an excerpt of the stream (a wallet's movements for one round): only the
   * content hashes and the links between consecutive revisions present can be checked.
   */
  readonly excerpt?: boolean;
}

const storedHash = (event: RecordedEvent): string => String(event.metadata['hash']);
const storedPrev = (event: RecordedEvent): string => String(event.metadata['prevHash']);

/**
 * Recomputes a stream's hash chain with the event store's own chain function and names the
 * first sign of each kind of tampering: an event whose content no longer hashes to its stored
 * hash (edited), a revision with no event (deleted), events stored out of revision order or
 * whose `prevHash` points at another revision of the stream (reordered), links to nothing in the
 * stream (broken), a revision that stands before its predecessor in the global log (moved or
 * inserted: positions are not hashed, but appends make them follow revisions), and an event
 * that names another stream than the one it is listed in. Returns whether the chain is intact.
 */
export function verifyStreamChain(
  stream: string,
  events: readonly RecordedEvent[],
  verdict: VerdictBuilder,
  options: ChainOptions = {},
): boolean {
  const before = verdict.findings.length;
  const at = (event: RecordedEvent) => ({ stream, revision: event.revision, type: event.type });

  for (const event of events) {
    if (event.stream === stream) continue;
    verdict.fail(
      'event-schema',
      'WRONG_STREAM',
      at(event),
      `revision ${event.revision} (${event.type}) is listed in ${stream} but names stream ${event.stream}`,
      { expected: stream, found: event.stream },
    );
  }

  for (const [index, event] of events.entries()) {
    const previous = events[index - 1];
    if (previous !== undefined && event.revision <= previous.revision) {
      verdict.fail(
        'hash-chain',
        event.revision === previous.revision ? 'EVENT_DUPLICATED' : 'EVENT_REORDERED',
        at(event),
        event.revision === previous.revision
          ? `revision ${event.revision} is stored twice`
          : `revision ${event.revision} is stored after revision ${previous.revision}`,
        { expected: `a revision after ${previous.revision}`, found: String(event.revision) },
      );
    }
  }

  const byRevision = new Map<bigint, RecordedEvent>();
  for (const event of events)
    if (!byRevision.has(event.revision)) byRevision.set(event.revision, event);
  const sorted = [...byRevision.values()].sort((a, b) =>
    a.revision < b.revision ? -1 : a.revision > b.revision ? 1 : 0,
  );
  const revisionOfHash = new Map(sorted.map((event) => [storedHash(event), event.revision]));

  if (!options.excerpt) {
    let expected = 0n;
    for (const event of sorted) {
      if (event.revision > expected) {
        const last = event.revision - 1n;
        verdict.fail(
          'hash-chain',
          'EVENT_MISSING',
          { stream, revision: expected, type: null },
          last === expected
            ? `revision ${expected} is missing`
            : `revisions ${expected} to ${last} are missing`,
          { expected: `revision ${expected}`, found: `next stored revision ${event.revision}` },
        );
      }
      expected = event.revision + 1n;
    }
  }

  // The global position is the store's, outside the hash; but every append reads the stream
  // first and appends at the revision it read, so a later revision is always later in the log.
  // A row moved in the log, or inserted after the fact and re-hashed into place, breaks that.
  for (const [index, event] of sorted.entries()) {
    const previous = sorted[index - 1];
    if (previous === undefined || previous.position < 0n || event.position < 0n) continue;
    if (event.position > previous.position) continue;
    verdict.fail(
      'hash-chain',
      'POSITION_INVALID',
      at(event),
      `revision ${event.revision} (${event.type}) stands before revision ${previous.revision} (${previous.type}) in the global log: a row was moved in the log or inserted after the fact`,
      {
        expected: `a position after ${previous.position}`,
        found: String(event.position),
      },
    );
  }

  for (const event of sorted) {
    let recomputed: string;
    try {
      recomputed = chainHash(storedPrev(event), event);
    } catch (error) {
      verdict.fail(
        'hash-chain',
        'EVENT_EDITED',
        at(event),
        `the content of revision ${event.revision} cannot be hashed: ${error instanceof Error ? error.message : String(error)}`,
      );
      continue;
    }
    if (recomputed !== storedHash(event)) {
      verdict.fail(
        'hash-chain',
        'EVENT_EDITED',
        at(event),
        `revision ${event.revision} (${event.type}) was changed after it was recorded: its content no longer hashes to its stored hash`,
        { expected: recomputed, found: storedHash(event) },
      );
    }

    const predecessor = byRevision.get(event.revision - 1n);
    const isFirst = event.revision === 0n;
    if (!isFirst && predecessor === undefined) continue; // a gap or an excerpt: nothing to link
    const expectedPrev = predecessor === undefined ? GENESIS_HASH : storedHash(predecessor);
    if (storedPrev(event) === expectedPrev) continue;
    const linkedTo = revisionOfHash.get(storedPrev(event));
    if (linkedTo !== undefined) {
      verdict.fail(
        'hash-chain',
        'EVENT_REORDERED',
        at(event),
        `the event stored at revision ${event.revision} follows revision ${linkedTo} in the chain: events were reordered`,
        {
          expected: `prevHash of revision ${isFirst ? 'genesis' : event.revision - 1n}: ${expectedPrev}`,
          found: storedPrev(event),
        },
      );
    } else {
      verdict.fail(
        'hash-chain',
        'CHAIN_BROKEN',
        at(event),
        `revision ${event.revision} does not link to ${isFirst ? 'the genesis hash' : `revision ${event.revision - 1n}`}`,
        { expected: expectedPrev, found: storedPrev(event) },
      );
    }
  }
  return verdict.findings.length === before;
}
