import {
  CHECKPOINT_CHECKS,
  checkAnchoredStreams,
  checkPublishedCheckpoint,
  publishedCheckpointOf,
  replayCheckpoints,
  VerdictBuilder,
  type AnchorEvidence,
  type CheckpointVerification,
  type HeldEvent,
  type PublishedCheckpoint,
} from '@croupier/audit';
import { notaryEventSchema, NOTARY_STREAM } from '@croupier/contracts';
import type { EventStore } from '@croupier/eventstore';

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
    const last = BigInt(published.position);
    let after: bigint | undefined;
    for (let done = false; !done;) {
      const page = await store.readAll({ ...(after === undefined ? {} : { after }), limit: PAGE });
      for (const event of page) {
        if (event.position > last) {
          done = true;
          break;
        }
        if (chain.heads.get(event.stream)?.revision === event.revision)
          held.set(event.stream, { type: event.type, hash: String(event.metadata['hash']) });
      }
      if (page.length < PAGE) done = true;
      after = page.at(-1)?.position;
    }
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
