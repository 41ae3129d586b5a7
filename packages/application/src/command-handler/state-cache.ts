import { LRUCache } from 'lru-cache';

export interface CacheEntry {
  readonly state: unknown;
  readonly revision: bigint;
  readonly snapshotAt: bigint;
}

/** What the state caches counted, over all aggregates, since the handler was made. */
export interface CacheCounts {
  hits: number;
  misses: number;
  evictions: number;
}

/**
 * The last folded state of recently used streams, per store and aggregate. Streams only grow,
 * so a cached state stays true up to its revision: a load reads just the events after it. This
 * keeps a long-lived stream (a player's wallet) as cheap to decide on as a new one. Bounded:
 * at most `capacity` streams, the least recently used evicted first.
 */
export class StateCache {
  /** `lru-cache` keeps the recency order (ADR 0018); null when the cache size is 0. */
  private readonly entries: LRUCache<string, CacheEntry> | null;

  constructor(
    capacity: number,
    private readonly counts: CacheCounts,
  ) {
    this.entries =
      capacity === 0
        ? null
        : new LRUCache({
            max: capacity,
            dispose: (_value, _key, reason) => {
              if (reason === 'evict') counts.evictions++;
            },
          });
  }

  get size(): number {
    return this.entries?.size ?? 0;
  }

  get(key: string): CacheEntry | undefined {
    const entry = this.entries?.get(key);
    if (entry === undefined) this.counts.misses++;
    else this.counts.hits++;
    return entry;
  }

  /** The entry held, without counting a hit or a miss or making it recently used. */
  peek(key: string): CacheEntry | undefined {
    return this.entries?.peek(key);
  }

  /** Keeps the state unless one of a later revision is held already (a slower reader's). */
  set(key: string, state: unknown, revision: bigint, snapshotAt: bigint): void {
    if (this.entries === null) return;
    const current = this.entries.peek(key);
    if (current !== undefined && current.revision >= revision) return;
    this.entries.set(key, { state, revision, snapshotAt });
  }
}
