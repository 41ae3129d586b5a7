import { createHash, createPublicKey, verify } from 'node:crypto';
import {
  checkpointSignerSchema,
  notaryEventSchema,
  NOTARY_STREAM,
  type Checkpoint,
  type StreamHead,
} from '@croupier/contracts';
import { canonicalJson, type RecordedEvent } from '@croupier/eventstore';
import { z } from 'zod';
import { locationOf } from './parse.js';
import { verdictSchema, type CheckId, type VerdictBuilder } from './verdict.js';

/** The head before the first checkpoint. */
export const GENESIS_HEAD = '0'.repeat(64);

const sha256 = (...parts: (string | Buffer)[]): Buffer => {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part);
  return hash.digest();
};

/** RFC 6962 Merkle tree hash of a list of entries: leaves hash as sha256(0x00 || entry). */
export function merkleRoot(entries: readonly Uint8Array[]): Buffer {
  return treeHash(entries.map((entry) => sha256(Buffer.from([0]), Buffer.from(entry))));
}

/** RFC 6962 section 2.1: split at the largest power of two below the size; nodes hash 0x01 || l || r. */
function treeHash(leaves: readonly Buffer[]): Buffer {
  if (leaves.length === 0) return sha256('');
  if (leaves.length === 1) return leaves[0]!;
  let split = 1;
  while (split * 2 < leaves.length) split *= 2;
  return sha256(Buffer.from([1]), treeHash(leaves.slice(0, split)), treeHash(leaves.slice(split)));
}

/** The heads in the order the tree takes them: by stream name, code unit order. */
export function sortedHeads(heads: readonly StreamHead[]): StreamHead[] {
  return [...heads].sort((a, b) => (a.stream < b.stream ? -1 : a.stream > b.stream ? 1 : 0));
}

/**
 * The Merkle root of a checkpoint's changed heads, in lowercase hex: each entry is the canonical
 * JSON (RFC 8785) of `{stream, revision, hash}`, sorted by stream.
 */
export function changedRootOf(heads: readonly StreamHead[]): string {
  return merkleRoot(
    sortedHeads(heads).map((head) =>
      Buffer.from(
        canonicalJson({ stream: head.stream, revision: head.revision, hash: head.hash }),
        'utf8',
      ),
    ),
  ).toString('hex');
}

/** What a checkpoint's head commits to (and its signature signs). */
export interface CheckpointHeadInput {
  readonly sequence: number;
  readonly position: string;
  readonly at: string;
  readonly count: number;
  readonly changedRoot: string;
  readonly previous: string;
}

export function checkpointHeadOf(input: CheckpointHeadInput): string {
  const { sequence, position, at, count, changedRoot, previous } = input;
  return sha256(canonicalJson({ sequence, position, at, count, changedRoot, previous })).toString(
    'hex',
  );
}

/** Whether `signature` (base64) is the signer's Ed25519 signature of `head`. */
export function signatureHolds(
  head: string,
  signature: string,
  signer: z.infer<typeof checkpointSignerSchema>,
): boolean {
  try {
    const raw = Buffer.from(signer.publicKey, 'base64');
    if (keyIdOf(raw) !== signer.keyId) return false;
    const key = createPublicKey({
      key: Buffer.concat([ED25519_SPKI_PREFIX, raw]),
      format: 'der',
      type: 'spki',
    });
    return verify(null, Buffer.from(head, 'hex'), key, Buffer.from(signature, 'base64'));
  } catch {
    return false;
  }
}

/** DER prefix of an Ed25519 SubjectPublicKeyInfo (RFC 8410): the raw 32-byte key follows. */
export const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/** A key's id: the first 16 hex digits of sha256 of the raw public key. */
export function keyIdOf(rawPublicKey: Buffer): string {
  return sha256(rawPublicKey).toString('hex').slice(0, 16);
}

/**
 * A checkpoint as the operator publishes it (and a regulator keeps): the signed head and what it
 * commits to, without the list of heads (which the store's notary stream holds).
 */
export const publishedCheckpointSchema = z
  .object({
    format: z.literal('croupier-checkpoint/1'),
    sequence: z.number().int().positive(),
    position: z.string().regex(/^(0|[1-9][0-9]*)$/),
    at: z.string(),
    count: z.number().int().positive(),
    changedRoot: z.string().regex(/^[0-9a-f]{64}$/),
    previous: z.string().regex(/^[0-9a-f]{64}$/),
    head: z.string().regex(/^[0-9a-f]{64}$/),
    signer: checkpointSignerSchema,
    signature: z.string().min(1),
  })
  .strict();
export type PublishedCheckpoint = z.infer<typeof publishedCheckpointSchema>;

/** What `casino verify --checkpoint` and its API report: the whole store against a checkpoint. */
export const checkpointVerificationSchema = z.object({
  checkpoint: publishedCheckpointSchema,
  /** Streams whose head the checkpoint recorded, all checked. */
  streamsChecked: z.number().int(),
  verdict: verdictSchema,
});
export type CheckpointVerification = z.infer<typeof checkpointVerificationSchema>;

/** The checks a whole-store verification runs. */
export const CHECKPOINT_CHECKS: readonly CheckId[] = ['hash-chain', 'anchored'];

/** The publishable form of a recorded checkpoint. */
export function publishedCheckpointOf(checkpoint: Checkpoint): PublishedCheckpoint {
  const { changed: _changed, ...signed } = checkpoint;
  return { format: 'croupier-checkpoint/1', ...signed };
}

/** The notary stream read up to a checkpoint: the heads it commits to, and its own soundness. */
export interface CheckpointChain {
  /** The checkpoint reached, or null when the stream does not hold that sequence. */
  readonly checkpoint: Checkpoint | null;
  /** Every stream's head as of that checkpoint. */
  readonly heads: ReadonlyMap<string, { readonly revision: bigint; readonly hash: string }>;
}

/**
 * Replays the notary stream up to checkpoint `sequence` (the last when omitted), recomputing each
 * checkpoint's Merkle root, head and signature and its link to the previous one; every break is a
 * finding of the `anchored` check. Returns the heads as of that checkpoint.
 */
export function replayCheckpoints(
  notary: readonly RecordedEvent[],
  verdict: VerdictBuilder,
  sequence?: number,
): CheckpointChain {
  const heads = new Map<string, { revision: bigint; hash: string }>();
  let previous = GENESIS_HEAD;
  let reached: Checkpoint | null = null;
  for (const recorded of notary) {
    const parsed = notaryEventSchema.safeParse({ type: recorded.type, data: recorded.data });
    const at = locationOf(recorded);
    if (!parsed.success || recorded.stream !== NOTARY_STREAM) {
      verdict.fail('anchored', 'SCHEMA_INVALID', at, `${recorded.type} is not a checkpoint`);
      continue;
    }
    const checkpoint = parsed.data.data;
    const expectedSequence = (reached?.sequence ?? 0) + 1;
    const problems: string[] = [];
    if (checkpoint.sequence !== expectedSequence)
      problems.push(`is numbered ${checkpoint.sequence}, expected ${expectedSequence}`);
    if (checkpoint.previous !== previous)
      problems.push(`links to ${checkpoint.previous.slice(0, 12)}…, not the previous head`);
    if (checkpoint.count !== checkpoint.changed.length)
      problems.push(`counts ${checkpoint.count} heads but lists ${checkpoint.changed.length}`);
    if (changedRootOf(checkpoint.changed) !== checkpoint.changedRoot)
      problems.push('lists heads whose Merkle root is not the recorded one');
    if (checkpointHeadOf(checkpoint) !== checkpoint.head)
      problems.push('has a head that does not recompute');
    if (!signatureHolds(checkpoint.head, checkpoint.signature, checkpoint.signer))
      problems.push(`is not signed by key ${checkpoint.signer.keyId}`);
    if (problems.length > 0) {
      verdict.fail(
        'anchored',
        'CHECKPOINT_INVALID',
        at,
        `checkpoint ${checkpoint.sequence} ${problems.join('; ')}`,
      );
    }
    for (const head of checkpoint.changed)
      heads.set(head.stream, { revision: BigInt(head.revision), hash: head.hash });
    previous = checkpoint.head;
    reached = checkpoint;
    if (sequence !== undefined && checkpoint.sequence >= sequence) break;
  }
  if (sequence !== undefined && reached?.sequence !== sequence) reached = null;
  return { checkpoint: reached, heads };
}

/**
 * Checks a published checkpoint: its signature, the key the regulator expects (when given), and
 * that the store's notary stream leads to exactly the published head.
 */
export function checkPublishedCheckpoint(
  published: PublishedCheckpoint,
  chain: CheckpointChain,
  verdict: VerdictBuilder,
  expectedKeyId?: string,
): boolean {
  const where = { stream: NOTARY_STREAM, revision: BigInt(published.sequence - 1) };
  let ok = true;
  if (checkpointHeadOf(published) !== published.head) {
    verdict.fail('anchored', 'CHECKPOINT_INVALID', null, 'the published head does not recompute');
    ok = false;
  }
  if (!signatureHolds(published.head, published.signature, published.signer)) {
    verdict.fail(
      'anchored',
      'CHECKPOINT_INVALID',
      null,
      `the published checkpoint is not signed by key ${published.signer.keyId}`,
    );
    ok = false;
  }
  if (expectedKeyId === undefined) {
    verdict.note(
      `the checkpoint's signature was checked against the key written in it (${published.signer.keyId}): give --key-id to pin the key the operator published`,
    );
  }
  if (expectedKeyId !== undefined && published.signer.keyId !== expectedKeyId) {
    verdict.fail(
      'anchored',
      'CHECKPOINT_INVALID',
      null,
      `the published checkpoint is signed by key ${published.signer.keyId}, not the operator's key ${expectedKeyId}`,
      { expected: expectedKeyId, found: published.signer.keyId },
    );
    ok = false;
  }
  if (chain.checkpoint === null) {
    verdict.fail(
      'anchored',
      'EVENT_MISSING',
      where,
      `the store's notary stream has no checkpoint ${published.sequence}: it was cut short or never written here`,
      { expected: published.head, found: null },
    );
    return false;
  }
  if (chain.checkpoint.head !== published.head) {
    verdict.fail(
      'anchored',
      'CHECKPOINT_INVALID',
      where,
      `checkpoint ${published.sequence} in the store has head ${chain.checkpoint.head}, not the published ${published.head}: the notary stream was rewritten`,
      { expected: published.head, found: chain.checkpoint.head },
    );
    return false;
  }
  return ok;
}

/** The event a stream holds at a revision, as far as an anchor check needs it. */
export interface HeldEvent {
  readonly type: string;
  readonly hash: string;
}

/**
 * Checks streams against the heads a checkpoint recorded: each stream the checkpoint covers must
 * still hold, at the recorded revision, an event with the recorded hash. A consistent rewrite
 * (every hash recomputed) of anything at or before that revision, a deleted event or a deleted
 * stream changes it. Events after the recorded revision are not covered by this checkpoint.
 * Returns how many streams the checkpoint covered.
 */
export function checkAnchoredStreams(
  heads: CheckpointChain['heads'],
  streams: Iterable<string>,
  held: (stream: string, revision: bigint) => HeldEvent | undefined,
  sequence: number,
  verdict: VerdictBuilder,
): number {
  let covered = 0;
  for (const stream of streams) {
    const head = heads.get(stream);
    if (head === undefined) continue;
    covered++;
    const event = held(stream, head.revision);
    if (event?.hash === head.hash) continue;
    verdict.fail(
      'anchored',
      event === undefined ? 'EVENT_MISSING' : 'ANCHOR_MISMATCH',
      { stream, revision: head.revision, type: event?.type ?? null },
      event === undefined
        ? `checkpoint ${sequence} recorded ${stream} at revision ${head.revision}, which the stream no longer holds: events were deleted or moved`
        : `checkpoint ${sequence} recorded ${stream}@${head.revision} with hash ${head.hash}; it now has ${event.hash}: the stream was rewritten up to there after the checkpoint`,
      { expected: head.hash, found: event?.hash ?? null },
    );
  }
  if (covered > 0)
    verdict.pass('anchored', `${covered} stream(s) checked against checkpoint ${sequence}`);
  return covered;
}

/** A checkpoint the operator published, and the store's notary stream to check it against. */
export interface AnchorEvidence {
  readonly published: PublishedCheckpoint;
  /** The store's notary stream (at least up to the published checkpoint). */
  readonly notary: readonly RecordedEvent[];
  /** The key id the operator published: the checkpoint must be signed with that key. */
  readonly keyId?: string;
}

/**
 * The `anchored` check of an audit: the whole streams it holds against a published checkpoint,
 * or skipped, saying what to supply. `excerpts` are the events it uses from streams it holds only
 * in part (a round's movements in its players' wallets): the checkpoint's head of such a stream
 * can only be compared when the excerpt holds that revision, but any of them written into the
 * past names itself, so an audit never relies on one the checkpoint says was not there.
 */
export function checkAnchor(
  anchor: AnchorEvidence | null | undefined,
  streams: ReadonlyMap<string, readonly RecordedEvent[]>,
  verdict: VerdictBuilder,
  excerpts: readonly RecordedEvent[] = [],
): void {
  if (anchor === null || anchor === undefined) {
    verdict.skip(
      'anchored',
      'no published checkpoint was given (--checkpoint FILE): a consistent rewrite since the last one is not excluded',
    );
    return;
  }
  const chain = replayCheckpoints(anchor.notary, verdict, anchor.published.sequence);
  if (!checkPublishedCheckpoint(anchor.published, chain, verdict, anchor.keyId)) return;
  const position = BigInt(anchor.published.position);
  const parts = excerpts.filter((event) => !streams.has(event.stream));
  let backdated = 0;
  for (const event of [...[...streams.values()].flat(), ...parts]) {
    if (event.position > position || !isBackdated(chain.heads, event)) continue;
    backdated++;
    failBackdated(event, anchor.published.sequence, verdict);
  }
  // Streams held in part are compared at the recorded head only where the excerpt holds it.
  const held = new Map(streams);
  for (const event of parts) {
    if (chain.heads.get(event.stream)?.revision === event.revision) held.set(event.stream, [event]);
  }
  const coveredAny = [...held.keys()].some((stream) => chain.heads.has(stream));
  if (!coveredAny && backdated === 0) {
    verdict.skip(
      'anchored',
      `checkpoint ${anchor.published.sequence} covers none of these streams (they came after it): give a later checkpoint`,
    );
    return;
  }
  checkAnchoredStreams(
    chain.heads,
    held.keys(),
    (stream, revision) => {
      const event = held.get(stream)?.find((e) => e.revision === revision);
      return event === undefined
        ? undefined
        : { type: event.type, hash: String(event.metadata['hash']) };
    },
    anchor.published.sequence,
    verdict,
  );
}

/**
 * Whether an event at or before a checkpoint's position is one the checkpoint does not cover: a
 * stream it never recorded, or a revision past the head it recorded. No append can produce one
 * (a transaction commits at a position past every checkpoint recorded before it, ADR 0002), so
 * it was written into the past.
 */
export function isBackdated(heads: CheckpointChain['heads'], event: RecordedEvent): boolean {
  if (event.stream === NOTARY_STREAM) return false;
  const head = heads.get(event.stream);
  return head === undefined || event.revision > head.revision;
}

export function failBackdated(
  event: RecordedEvent,
  sequence: number,
  verdict: VerdictBuilder,
): void {
  verdict.fail(
    'anchored',
    'ANCHOR_MISMATCH',
    locationOf(event),
    `${event.type} stands at position ${event.position}, inside what checkpoint ${sequence} covers, but the checkpoint does not hold it: it was written into the past`,
    { expected: 'no event the checkpoint does not hold', found: String(event.position) },
  );
}
