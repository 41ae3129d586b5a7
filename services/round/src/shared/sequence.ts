import type { EventStore } from '@croupier/eventstore';

/**
 * Finds the highest number n such that `streamOf(n)` exists, for streams numbered 1, 2, ...
 * without gaps (shoes of a table, rounds of a shoe). Starts from a hint, so the usual cost is
 * one or two reads; a stale hint only costs a few more.
 */
export async function latestNumber(
  store: EventStore,
  streamOf: (n: number) => string,
  hint = 0,
): Promise<number> {
  const exists = async (n: number) =>
    (await store.readStream(streamOf(n), { direction: 'backwards', limit: 1 })).length > 0;
  let n = Math.max(0, hint);
  while (n > 0 && !(await exists(n))) n--;
  while (await exists(n + 1)) n++;
  return n;
}

/** Remembers the last number seen per key, as the hint for the next search. */
export class SequenceHints {
  private readonly hints = new Map<string, number>();

  get(key: string): number {
    return this.hints.get(key) ?? 0;
  }

  set(key: string, value: number): void {
    if (value > this.get(key)) this.hints.set(key, value);
  }
}
