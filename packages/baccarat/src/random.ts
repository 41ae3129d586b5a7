import { createCipheriv, createHash, createHmac, randomFillSync } from 'node:crypto';

/**
 * Sources of uniformly distributed 32-bit integers. Every source here is cryptographically
 * strong; none uses `Math.random`.
 */
export interface RandomSource {
  /** A uniformly distributed integer in [0, 2^32). */
  nextUint32(): number;
}

const TWO_POW_32 = 0x1_0000_0000;

/**
 * A uniformly distributed integer in [0, bound), by rejection sampling: 32-bit draws at or above
 * the largest multiple of `bound` are discarded, so every result is exactly equally likely.
 * (`floor(float * n)` and a plain `% n` would both be biased.)
 */
export function uniformInt(source: RandomSource, bound: number): number {
  if (!Number.isInteger(bound) || bound < 1 || bound > TWO_POW_32) {
    throw new RangeError(`bound must be an integer in [1, 2^32], got ${bound}`);
  }
  return uniformBelow(source, bound);
}

/** `uniformInt` without the argument check, for shuffles whose bounds are right by construction. */
export function uniformBelow(source: RandomSource, bound: number): number {
  // Reject the lowest 2^32 mod bound draws, leaving a multiple of `bound` equally likely values.
  // (-bound >>> 0) is 2^32 - bound, so the threshold stays in 32-bit integer arithmetic.
  const threshold = (-bound >>> 0) % bound;
  for (;;) {
    const draw = source.nextUint32();
    if (draw >= threshold) return draw % bound;
  }
}

/** Reads a buffer refilled in chunks as 32-bit words. */
abstract class ChunkedSource implements RandomSource {
  private words: Uint32Array = new Uint32Array(0);
  private index = 0;

  protected abstract refill(): Uint32Array;

  nextUint32(): number {
    if (this.index >= this.words.length) {
      this.words = this.refill();
      this.index = 0;
    }
    return this.words[this.index++]!;
  }
}

/**
 * The verifiable stream: block k is HMAC-SHA256(seed, context || uint64be(k)), read as eight
 * big-endian 32-bit words. Anyone holding the seed and the context recomputes the same stream on
 * any machine, which is what makes a committed shuffle checkable once the seed is revealed.
 */
export class HmacSha256Stream extends ChunkedSource {
  private block = 0n;

  constructor(
    private readonly seed: Uint8Array,
    private readonly context: Uint8Array,
  ) {
    super();
    if (seed.length < 16) throw new RangeError('seed must be at least 16 bytes');
  }

  protected refill(): Uint32Array {
    const counter = Buffer.alloc(8);
    counter.writeBigUInt64BE(this.block++);
    const digest = createHmac('sha256', this.seed).update(this.context).update(counter).digest();
    const words = new Uint32Array(8);
    for (let i = 0; i < 8; i++) words[i] = digest.readUInt32BE(i * 4);
    return words;
  }
}

const AES_CHUNK_BYTES = 64 * 1024;
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/**
 * A fast deterministic stream for simulation: the AES-256-CTR keystream under a key derived
 * from a seed string. Strong and reproducible; HMAC per block would cap the simulator far below
 * its target rate (see docs/adr/0003-random-sources.md).
 */
export class AesCtrStream extends ChunkedSource {
  private readonly cipher;
  private readonly zeros = Buffer.alloc(AES_CHUNK_BYTES);

  constructor(seed: string) {
    super();
    const key = createHash('sha256').update('croupier/simulation/v1\0').update(seed).digest();
    this.cipher = createCipheriv('aes-256-ctr', key, Buffer.alloc(16));
  }

  protected refill(): Uint32Array {
    const bytes = this.cipher.update(this.zeros);
    // Words are little-endian on every machine, so a seed gives the same run everywhere.
    if (LITTLE_ENDIAN && bytes.byteOffset % 4 === 0) {
      return new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.length >>> 2);
    }
    const words = new Uint32Array(bytes.length >>> 2);
    for (let i = 0; i < words.length; i++) words[i] = bytes.readUInt32LE(i * 4);
    return words;
  }
}

/** The operating system's CSPRNG, read in chunks. */
export class SystemRandom extends ChunkedSource {
  protected refill(): Uint32Array {
    return randomFillSync(new Uint32Array(AES_CHUNK_BYTES >>> 2));
  }
}
