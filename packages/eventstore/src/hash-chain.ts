import { createHash } from 'node:crypto';
import { canonicalJson } from './canonical-json.js';
import type { RecordedEvent, StreamVerification } from './port.js';

/** `prevHash` of a stream's first event. */
export const GENESIS_HASH = '0'.repeat(64);

/** What the chain covers of an event: its type, data and metadata without the chain fields. */
export interface ChainedContent {
  readonly type: string;
  readonly data: unknown;
  readonly metadata?: Readonly<Record<string, unknown>>;
}

/** The metadata keys the store owns. */
export const CHAIN_KEYS = ['prevHash', 'hash'] as const;

/** Metadata as it is hashed: without `prevHash` and `hash`. */
export function metadataWithoutChain(
  metadata: Readonly<Record<string, unknown>> | undefined,
): Record<string, unknown> {
  const { prevHash: _prevHash, hash: _hash, ...rest } = metadata ?? {};
  return rest;
}

/** `canonicalJson({type, data, metadata})` with the chain fields removed from metadata. */
export function chainContent(event: ChainedContent): string {
  return canonicalJson({
    type: event.type,
    data: event.data,
    metadata: metadataWithoutChain(event.metadata),
  });
}

/**
 * `hex(sha256(utf8(prevHash) || utf8(canonicalJson({type, data, metadata without prevHash/hash}))))`.
 * The SQL adapters compute the same digest inside the database from the same canonical text.
 */
export function chainHash(prevHash: string, event: ChainedContent): string {
  return sha256Hex(prevHash + chainContent(event));
}

/** Hex sha256 of a string's UTF-8 bytes. */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** What the store says the stream's head is, when it keeps that apart from the events. */
export interface StreamHead {
  readonly revision: bigint;
  readonly lastHash: string;
}

/**
 * Recomputes a stream's chain from its events in revision order and reports the first event that
 * does not verify: a revision out of sequence (deleted or reordered event), a `prevHash` that does
 * not link to the previous event, or a `hash` that does not match the content (edited event). With
 * `head`, also detects events missing at the end.
 */
export function verifyChain(
  stream: string,
  events: readonly RecordedEvent[],
  head?: StreamHead | null,
): StreamVerification {
  let prevHash = GENESIS_HASH;
  for (const [index, event] of events.entries()) {
    const revision = BigInt(index);
    if (event.revision !== revision) {
      return {
        ok: false,
        stream,
        brokenAt: revision,
        reason:
          event.revision > revision
            ? `revision ${revision} is missing (next stored revision is ${event.revision})`
            : `revision ${event.revision} is out of order`,
        expected: `${revision}`,
        found: `${event.revision}`,
      };
    }
    const storedPrev = event.metadata['prevHash'];
    if (storedPrev !== prevHash) {
      return {
        ok: false,
        stream,
        brokenAt: revision,
        reason: 'prevHash does not link to the previous event',
        expected: prevHash,
        found: String(storedPrev),
      };
    }
    let recomputed: string;
    try {
      recomputed = chainHash(prevHash, event);
    } catch (error) {
      return {
        ok: false,
        stream,
        brokenAt: revision,
        reason: `content cannot be hashed: ${error instanceof Error ? error.message : String(error)}`,
      };
    }
    const storedHash = event.metadata['hash'];
    if (storedHash !== recomputed) {
      return {
        ok: false,
        stream,
        brokenAt: revision,
        reason: 'hash does not match the event content',
        expected: recomputed,
        found: String(storedHash),
      };
    }
    prevHash = recomputed;
  }
  const count = BigInt(events.length);
  if (head) {
    if (head.revision !== count - 1n) {
      return {
        ok: false,
        stream,
        brokenAt: count,
        reason: `the stream head is at revision ${head.revision} but only ${count} event(s) are stored`,
        expected: `${head.revision}`,
        found: `${count - 1n}`,
      };
    }
    if (head.lastHash !== prevHash) {
      return {
        ok: false,
        stream,
        brokenAt: count - 1n,
        reason: 'the stream head hash does not match the last event',
        expected: head.lastHash,
        found: prevHash,
      };
    }
  }
  return { ok: true, stream, events: events.length, lastHash: events.length ? prevHash : null };
}
