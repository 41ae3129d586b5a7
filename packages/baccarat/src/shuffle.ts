import { createHash, randomBytes } from 'node:crypto';
import { assertDecks, cardOf, orderedShoe, type Card } from './cards.js';
import { HmacSha256Stream, uniformBelow, type RandomSource } from './random.js';

/** Anything indexable and writable: arrays and typed arrays. */
export interface Shufflable<T> {
  readonly length: number;
  [index: number]: T;
}

/**
 * Fisher-Yates shuffle in place: for i from n-1 down to 1, swap item i with item j, j drawn
 * uniformly from [0, i] inclusive. Every permutation is equally likely.
 */
export function fisherYates<T>(items: Shufflable<T>, source: RandomSource): void {
  for (let i = items.length - 1; i > 0; i--) {
    const j = uniformBelow(source, i + 1);
    const item = items[i]!;
    items[i] = items[j]!;
    items[j] = item;
  }
}

/**
 * Shuffles only the first `count` positions (the forward form of Fisher-Yates): position i takes
 * an item drawn uniformly from positions [i, n). The prefix has exactly the distribution of the
 * first `count` cards of a full shuffle, for a round that needs only those.
 */
export function shufflePrefix<T>(items: Shufflable<T>, count: number, source: RandomSource): void {
  const n = items.length;
  for (let i = 0; i < count && i < n - 1; i++) {
    const j = i + uniformBelow(source, n - i);
    const item = items[i]!;
    items[i] = items[j]!;
    items[j] = item;
  }
}

/** Identifies the shuffle procedure; part of every commitment so it can never change silently. */
export const SHUFFLE_ALGORITHM = 'croupier/fisher-yates/hmac-sha256/v1';
export const SEED_BYTES = 32;

/** What a shuffle commitment binds besides the seed. */
export interface ShuffleParameters {
  readonly shoeId: string;
  readonly decks: number;
}

/**
 * The canonical text of the parameters: JSON with keys in alphabetical order and no spaces,
 * e.g. `{"algorithm":"croupier/fisher-yates/hmac-sha256/v1","decks":8,"shoeId":"s-1"}`.
 */
export function canonicalShuffleParameters(params: ShuffleParameters): string {
  assertDecks(params.decks);
  if (params.shoeId.length === 0) throw new RangeError('shoeId must not be empty');
  return JSON.stringify({
    algorithm: SHUFFLE_ALGORITHM,
    decks: params.decks,
    shoeId: params.shoeId,
  });
}

/** `sha256(seed || canonical parameters)`, hex: published before the first card is dealt. */
export function shuffleCommitment(seed: Uint8Array, params: ShuffleParameters): string {
  return createHash('sha256')
    .update(seed)
    .update(canonicalShuffleParameters(params), 'utf8')
    .digest('hex');
}

/** A fresh secret seed from the operating system's CSPRNG. */
export function generateSeed(): Uint8Array {
  return new Uint8Array(randomBytes(SEED_BYTES));
}

/**
 * The committed shuffle: the canonical ordered shoe shuffled by Fisher-Yates with the HMAC-SHA256
 * stream keyed by the seed over the canonical parameters. Same seed and parameters, same order,
 * on any machine.
 */
export function shuffleShoe(seed: Uint8Array, params: ShuffleParameters): Card[] {
  const stream = new HmacSha256Stream(
    seed,
    Buffer.from(canonicalShuffleParameters(params), 'utf8'),
  );
  const shoe = orderedShoe(params.decks);
  fisherYates(shoe, stream);
  return shoe.map(cardOf);
}
