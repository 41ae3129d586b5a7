import { z } from 'zod';
import { isoTimestampSchema } from '../ids.js';
import { eventSchema } from './common.js';

/** The notary's stream: every checkpoint of the stream heads, in order (ADR 0024). */
export const NOTARY_STREAM = 'notary';

const sha256Hex = z.string().regex(/^[0-9a-f]{64}$/, 'must be a sha256 in lowercase hex');
const decimal = z.string().regex(/^(0|[1-9][0-9]*)$/, 'must be a non-negative decimal integer');

/** A stream's head: its last revision and that event's chain hash, as the store recorded them. */
export const streamHeadSchema = z
  .object({ stream: z.string().min(1).max(512), revision: decimal, hash: sha256Hex })
  .strict();
export type StreamHead = z.infer<typeof streamHeadSchema>;

/** Who signs checkpoints: an Ed25519 public key (raw 32 bytes, base64) and its id. */
export const checkpointSignerSchema = z
  .object({
    /** First 16 hex digits of sha256 of the raw public key. */
    keyId: z.string().regex(/^[0-9a-f]{16}$/),
    publicKey: z.string().regex(/^[A-Za-z0-9+/]{43}=$/, 'must be 32 bytes in base64'),
  })
  .strict();

/**
 * A checkpoint of the log: the heads of every stream that moved since the previous checkpoint,
 * up to `position` (every event at or before it is covered), chained to the previous checkpoint
 * and signed. `head` commits to the whole history of heads: sha256 of the canonical JSON of
 * `{sequence, position, at, count, changedRoot, previous}`, where `changedRoot` is the Merkle
 * root (RFC 6962) of the changed heads sorted by stream. The signature is Ed25519 over `head`.
 */
export const streamHeadsCheckpointed = eventSchema(
  'StreamHeadsCheckpointed',
  z
    .object({
      sequence: z.number().int().positive(),
      position: decimal,
      at: isoTimestampSchema,
      count: z.number().int().positive(),
      changed: z.array(streamHeadSchema).min(1),
      changedRoot: sha256Hex,
      /** The previous checkpoint's head; 64 zeros before the first. */
      previous: sha256Hex,
      head: sha256Hex,
      signer: checkpointSignerSchema,
      signature: z.string().min(1).max(200),
    })
    .strict(),
);

export const notaryEventSchema = z.discriminatedUnion('type', [streamHeadsCheckpointed]);
export type NotaryEvent = z.infer<typeof notaryEventSchema>;
export type Checkpoint = Extract<NotaryEvent, { type: 'StreamHeadsCheckpointed' }>['data'];
