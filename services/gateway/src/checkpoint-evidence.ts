import {
  CHECKPOINT_CHECKS,
  checkAnchoredStreams,
  checkPublishedCheckpoint,
  failBackdated,
  isBackdated,
  publishedCheckpointOf,
  replayCheckpoints,
  VerdictBuilder,
  type AnchorEvidence,
  type CheckpointVerification,
  type HeldEvent,
  type PublishedCheckpoint,
} from '@croupier/audit';
import { notaryEventSchema, NOTARY_STREAM } from '@croupier/contracts';
import { chainHash, GENESIS_HASH, type EventStore, type RecordedEvent } from '@croupier/eventstore';

const PAGE = 1000;

/**
 * A recorded checkpoint in the form the operator publishes: `latest`, or by sequence number.
 * Null when there is none.
 */
export async function loadCheckpoint(
  store: EventStore,
  which: number | 'latest',
): Promise<PublishedCheckpoint | null> {
  const [event] =
    which === 'latest'
      ? await store.readStream(NOTARY_STREAM, { direction: 'backwards', limit: 1 })
      : await store.readStream(NOTARY_STREAM, { from: BigInt(which - 1), limit: 1 });
  if (event === undefined) return null;
  const parsed = notaryEventSchema.parse({ type: event.type, data: event.data });
  if (which !== 'latest' && parsed.data.sequence !== which) return null;
  return publishedCheckpointOf(parsed.data);
}

/** What an audit needs to check its streams against a published checkpoint. */
export async function anchorOf(
  store: EventStore,
  published: PublishedCheckpoint,
  keyId?: string,
): Promise<AnchorEvidence> {
  const notary = await store.readStream(NOTARY_STREAM, {
    limit: published.sequence,
  });
  return { published, notary, ...(keyId === undefined ? {} : { keyId }) };
}

/**
 * Checks the whole store against a published checkpoint, as a regulator holding it does: the
 * notary stream must lead to the published head (signed by the key the operator published), and
 * every stream head it recorded must still be in the log, with the hash recorded, at or before
 * the checkpoint's position. One pass over the log up to that position; memory holds one head per
 * stream.
 */
export async function verifyCheckpoint(
  store: EventStore,
  published: PublishedCheckpoint,
  keyId?: string,
): Promise<CheckpointVerification> {
  const verdict = new VerdictBuilder();
  const { notary } = await anchorOf(store, published, keyId);
  const chain = replayCheckpoints(notary, verdict, published.sequence);
  let streamsChecked = 0;
  if (checkPublishedCheckpoint(published, chain, verdict, keyId)) {
    const held = new Map<string, HeldEvent>();
    const chains = new StreamChains(verdict);
    const last = BigInt(published.position);
    let after: bigint | undefined;
    for (let done = false; !done;) {
      const page = await store.readAll({ ...(after === undefined ? {} : { after }), limit: PAGE });
      for (const event of page) {
        if (event.position > last) {
          done = true;
          break;
        }
        if (event.stream === NOTARY_STREAM) continue;
        // Every event is re-hashed from its content: a stored hash is what an insider rewrites.
        const hash = chains.next(event);
        if (isBackdated(chain.heads, event)) failBackdated(event, published.sequence, verdict);
        else if (chain.heads.get(event.stream)?.revision === event.revision)
          held.set(event.stream, { type: event.type, hash });
      }
      if (page.length < PAGE) done = true;
      after = page.at(-1)?.position;
    }
    verdict.pass('hash-chain', `${chains.streams} stream(s) re-hashed up to the checkpoint`);
    streamsChecked = checkAnchoredStreams(
      chain.heads,
      chain.heads.keys(),
      (stream) => held.get(stream),
      published.sequence,
      verdict,
    );
  }
  return { checkpoint: published, streamsChecked, verdict: verdict.verdict(CHECKPOINT_CHECKS) };
}

/**
 * Every stream's chain, followed one event at a time in log order: each event must be the next
 * revision, link to the previous one's hash, and hash to its stored hash from its content. Holds
 * one hash per stream. Returns the hash recomputed from the content, which is what a checkpoint's
 * recorded head is compared with.
 */
class StreamChains {
  readonly #last = new Map<string, { revision: bigint; hash: string }>();

  constructor(private readonly verdict: VerdictBuilder) {}

  get streams(): number {
    return this.#last.size;
  }

  next(event: RecordedEvent): string {
    const at = { stream: event.stream, revision: event.revision, type: event.type };
    const previous = this.#last.get(event.stream);
    const expected = previous === undefined ? 0n : previous.revision + 1n;
    const storedPrev = String(event.metadata['prevHash']);
    const stored = String(event.metadata['hash']);
    if (event.revision > expected) {
      // Named at the revision that is gone, as a stream audit names it: the event found after
      // the gap is intact, and pointing at it would send the reader to the wrong row.
      const last = event.revision - 1n;
      this.verdict.fail(
        'hash-chain',
        'EVENT_MISSING',
        { stream: event.stream, revision: expected, type: null },
        `${last === expected ? `revision ${expected} is missing` : `revisions ${expected} to ${last} are missing`}: ${event.stream} goes from revision ${previous?.revision ?? 'none'} to ${event.revision} in the log`,
        { expected: `revision ${expected}`, found: `next stored revision ${event.revision}` },
      );
    } else if (event.revision < expected) {
      this.verdict.fail(
        'hash-chain',
        'EVENT_REORDERED',
        at,
        `${event.stream} goes from revision ${previous?.revision ?? 'none'} to ${event.revision} in the log`,
        { expected: `revision ${expected}`, found: String(event.revision) },
      );
    } else if (storedPrev !== (previous?.hash ?? GENESIS_HASH)) {
      this.verdict.fail(
        'hash-chain',
        'CHAIN_BROKEN',
        at,
        `revision ${event.revision} does not link to the revision before it`,
        { expected: previous?.hash ?? GENESIS_HASH, found: storedPrev },
      );
    }
    let recomputed: string;
    try {
      recomputed = chainHash(storedPrev, event);
    } catch {
      recomputed = '';
    }
    if (recomputed !== stored) {
      this.verdict.fail(
        'hash-chain',
        'EVENT_EDITED',
        at,
        `revision ${event.revision} (${event.type}) no longer hashes to its stored hash: its content was changed`,
        { expected: recomputed, found: stored },
      );
    }
    this.#last.set(event.stream, { revision: event.revision, hash: stored });
    return recomputed;
  }
}
