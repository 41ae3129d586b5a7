import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodePosition, encodePosition } from './position.js';

const uint64 = fc.bigInt({ min: 0n, max: (1n << 64n) - 1n });

describe('global position encoding', () => {
  it('packs (transaction id, sequence) as (xid << 64) | sequence', () => {
    expect(encodePosition(0n, 0n)).toBe(0n);
    expect(encodePosition(1n, 0n)).toBe(18446744073709551616n);
    expect(encodePosition(755n, 42n)).toBe(755n * 2n ** 64n + 42n);
    expect(decodePosition(755n * 2n ** 64n + 42n)).toEqual({ transactionId: 755n, sequence: 42n });
  });

  it('round-trips', () => {
    fc.assert(
      fc.property(uint64, uint64, (transactionId, sequence) => {
        expect(decodePosition(encodePosition(transactionId, sequence))).toEqual({
          transactionId,
          sequence,
        });
      }),
    );
  });

  it('orders exactly like the (transaction id, sequence) pair', () => {
    fc.assert(
      fc.property(uint64, uint64, uint64, uint64, (t1, s1, t2, s2) => {
        const pairOrder = t1 === t2 ? Math.sign(Number(s1 - s2)) : Math.sign(Number(t1 - t2));
        const a = encodePosition(t1, s1);
        const b = encodePosition(t2, s2);
        expect(a === b ? 0 : a < b ? -1 : 1).toBe(pairOrder);
      }),
    );
    // A later transaction with a smaller sequence (a late commit) still sorts after.
    expect(encodePosition(101n, 5n)).toBeGreaterThan(encodePosition(100n, 900n));
  });

  it('rejects values outside 64 bits', () => {
    expect(() => encodePosition(-1n, 0n)).toThrow(RangeError);
    expect(() => encodePosition(0n, 1n << 64n)).toThrow(RangeError);
    expect(() => decodePosition(-1n)).toThrow(RangeError);
    expect(() => decodePosition(1n << 128n)).toThrow(RangeError);
  });
});
