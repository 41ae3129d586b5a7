import { describe, expect, it } from 'vitest';
import {
  canonicalShuffleParameters,
  cardOf,
  fisherYates,
  HmacSha256Stream,
  orderedShoe,
  shuffleCommitment,
  shufflePrefix,
  shuffleShoe,
  SystemRandom,
  uniformInt,
  type RandomSource,
} from '../src/index.js';

const seed = (byte: number) => Uint8Array.from({ length: 32 }, (_, i) => (i + byte) & 255);

/** Pearson's chi-square statistic of observed counts against a uniform expectation. */
function chiSquare(counts: readonly number[], expected: number): number {
  return counts.reduce((sum, count) => sum + (count - expected) ** 2 / expected, 0);
}

/** A threshold the statistic of a fair process exceeds with negligible probability (mean + 6 sd). */
const threshold = (degreesOfFreedom: number) =>
  degreesOfFreedom + 6 * Math.sqrt(2 * degreesOfFreedom);

describe('committed shuffle', () => {
  const params = { shoeId: 'shoe-1', decks: 8 };

  it('gives the same order for the same seed and parameters', () => {
    expect(shuffleShoe(seed(1), params)).toEqual(shuffleShoe(seed(1), params));
  });

  it('gives another order for another seed, shoe or deck count', () => {
    const order = shuffleShoe(seed(1), params).join();
    expect(shuffleShoe(seed(2), params).join()).not.toBe(order);
    expect(shuffleShoe(seed(1), { ...params, shoeId: 'shoe-2' }).join()).not.toBe(order);
  });

  it('is a permutation of the full shoe', () => {
    const order = shuffleShoe(seed(3), params);
    expect(order).toHaveLength(416);
    expect([...order].sort()).toEqual(orderedShoe(8).map(cardOf).sort());
  });

  it('is reproducible on any machine: a known-answer vector', () => {
    // Any change to the algorithm would break every published commitment.
    const order = shuffleShoe(seed(0), { shoeId: 'kat', decks: 1 });
    expect(order.slice(0, 8)).toEqual(KNOWN_FIRST_CARDS);
    expect(shuffleCommitment(seed(0), { shoeId: 'kat', decks: 1 })).toBe(KNOWN_COMMITMENT);
  });

  it('commits to sha256(seed || canonical parameters)', () => {
    expect(canonicalShuffleParameters({ shoeId: 's', decks: 8 })).toBe(
      '{"algorithm":"croupier/fisher-yates/hmac-sha256/v1","decks":8,"shoeId":"s"}',
    );
    expect(shuffleCommitment(seed(1), params)).not.toBe(shuffleCommitment(seed(2), params));
    expect(shuffleCommitment(seed(1), params)).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('uniformity', () => {
  it('places every card in every position equally often (chi-square, 52 x 52 cells)', () => {
    const shuffles = 20_800; // 400 expected per cell
    const counts = new Array<number>(52 * 52).fill(0);
    for (let s = 0; s < shuffles; s++) {
      const deck = Array.from({ length: 52 }, (_, i) => i);
      const context = Buffer.from(`uniformity-${s}`);
      fisherYates(deck, new HmacSha256Stream(seed(7), context));
      deck.forEach((card, position) => counts[card * 52 + position]!++);
    }
    const statistic = chiSquare(counts, shuffles / 52);
    expect(statistic).toBeLessThan(threshold(51 * 51));
  });

  it('makes all 24 orders of four cards equally likely, with the system CSPRNG too', () => {
    const permutationCounts = (shuffle: (items: number[]) => void) => {
      const counts = new Map<string, number>();
      for (let s = 0; s < 48_000; s++) {
        const items = [0, 1, 2, 3];
        shuffle(items);
        const key = items.join('');
        counts.set(key, (counts.get(key) ?? 0) + 1);
      }
      return [...counts.values()];
    };
    const random = new SystemRandom();
    const fair = permutationCounts((items) => {
      fisherYates(items, random);
    });
    expect(fair).toHaveLength(24);
    expect(chiSquare(fair, 2000)).toBeLessThan(threshold(23));

    // The same statistic catches the classic bug (j drawn from the whole range every time).
    const naive = permutationCounts((items) => {
      for (let i = 0; i < items.length; i++) {
        const j = uniformInt(random, items.length);
        [items[i], items[j]] = [items[j]!, items[i]!];
      }
    });
    expect(chiSquare(naive, 2000)).toBeGreaterThan(threshold(23));
  });

  it('draws unbiased integers by rejection, never by scaling a float', () => {
    // 2^32 mod 3 = 1: the single draw 0 would make 0 more likely than 1 and 2, so it is rejected.
    const draws = [0, 7];
    const source: RandomSource = { nextUint32: () => draws.shift()! };
    expect(uniformInt(source, 3)).toBe(7 % 3);
    expect(draws).toHaveLength(0);
    expect(() => uniformInt(source, 0)).toThrow(RangeError);
    expect(() => uniformInt(source, 1.5)).toThrow(RangeError);
  });

  it('shuffles a prefix as uniformly as a whole shoe', () => {
    const counts = new Array<number>(10).fill(0);
    const random = new HmacSha256Stream(seed(9), Buffer.from('prefix'));
    for (let s = 0; s < 20_000; s++) {
      const items = Array.from({ length: 10 }, (_, i) => i);
      shufflePrefix(items, 1, random);
      counts[items[0]!]!++;
    }
    expect(chiSquare(counts, 2000)).toBeLessThan(threshold(9));
  });
});

// Computed independently by docs/verify-shuffle.py (Python's hmac and hashlib).
const KNOWN_FIRST_CARDS = ['KS', '5H', '7D', 'JS', '3D', 'JH', '2H', 'TH'];
const KNOWN_COMMITMENT = '7a37f7482babba9f8664764ec461f7a99c13781de1189ce7d078963349b0286b';
