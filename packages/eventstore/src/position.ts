/**
 * Global positions of the SQL adapters. An event row is ordered by (transaction_id xid8, sequence
 * bigint): the transaction id makes late commits sort where readers can still see them, the
 * sequence orders events inside a transaction. Neither column alone is monotonic in that order, so
 * the exported position packs both: `position = (transaction_id << 64) | sequence`. Comparing two
 * positions as bigints compares the pairs lexicographically. See docs/adr/0002.
 */

const UINT64_LIMIT = 1n << 64n;
const UINT64_MASK = UINT64_LIMIT - 1n;

/** Packs (transaction id, sequence) into one bigint that sorts like the pair. */
export function encodePosition(transactionId: bigint, sequence: bigint): bigint {
  if (transactionId < 0n || transactionId >= UINT64_LIMIT) {
    throw new RangeError(`transaction id ${transactionId} is outside 0..2^64-1`);
  }
  if (sequence < 0n || sequence >= UINT64_LIMIT) {
    throw new RangeError(`sequence ${sequence} is outside 0..2^64-1`);
  }
  return (transactionId << 64n) | sequence;
}

/** Splits a position into the (transaction id, sequence) pair it was made of. */
export function decodePosition(position: bigint): { transactionId: bigint; sequence: bigint } {
  if (position < 0n || position >= UINT64_LIMIT << 64n) {
    throw new RangeError(`position ${position} is outside 0..2^128-1`);
  }
  return { transactionId: position >> 64n, sequence: position & UINT64_MASK };
}
