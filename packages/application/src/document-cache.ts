import type { Document } from '@croupier/eventstore';

/** A document as cached: present, or known to be absent. */
type Entry = { readonly doc: Document } | { readonly doc?: undefined; readonly absent: true };

/**
 * The most recently read documents of the models a runner holds, by model and key, at most
 * `maxEntries` of them (least recently used dropped first). It is only correct because the runner
 * that fills it is the only writer of those models: each of its commits drops the keys it wrote,
 * and a read that overlapped a commit of its model does not store what it read (it may be older).
 */
export class DocumentCache {
  readonly #entries = new Map<string, Entry>();
  /** Commits (and clears) seen per model: a read stores its answer only if none came meanwhile. */
  readonly #epochs = new Map<string, number>();
  #hits = 0;
  #misses = 0;

  constructor(readonly maxEntries: number) {}

  /** Documents held now. */
  get size(): number {
    return this.#entries.size;
  }

  /** Reads answered from the cache, and those that went to the storage. */
  get counts(): { hits: number; misses: number } {
    return { hits: this.#hits, misses: this.#misses };
  }

  epoch(model: string): number {
    return this.#epochs.get(model) ?? 0;
  }

  /** The cached document (a copy), `undefined` when known absent, or `miss`. */
  lookup(model: string, key: string): { doc: Document } | 'miss' {
    const id = cacheKey(model, key);
    const entry = this.#entries.get(id);
    if (entry === undefined) {
      this.#misses++;
      return 'miss';
    }
    this.#hits++;
    // Most recently used last: the Map's order is the eviction order.
    this.#entries.delete(id);
    this.#entries.set(id, entry);
    return { doc: entry.doc === undefined ? undefined : structuredClone(entry.doc) };
  }

  /** Keeps what a read found, unless the model changed since `epoch` (the read may be older). */
  store(model: string, key: string, doc: Document, epoch: number): void {
    if (this.maxEntries <= 0 || this.epoch(model) !== epoch) return;
    const id = cacheKey(model, key);
    this.#entries.delete(id);
    this.#entries.set(
      id,
      doc === undefined ? { absent: true } : { doc: structuredClone(doc) as Document },
    );
    while (this.#entries.size > this.maxEntries) {
      const oldest = this.#entries.keys().next().value as string;
      this.#entries.delete(oldest);
    }
  }

  /** A commit of the model wrote these keys. */
  invalidate(model: string, keys: readonly string[]): void {
    this.#epochs.set(model, this.epoch(model) + 1);
    for (const key of keys) this.#entries.delete(cacheKey(model, key));
  }

  /** Forgets every document of the model (a new generation, a lease lost or taken). */
  clear(model: string): void {
    this.#epochs.set(model, this.epoch(model) + 1);
    const prefix = cacheKey(model, '');
    for (const id of [...this.#entries.keys()]) if (id.startsWith(prefix)) this.#entries.delete(id);
  }
}

const cacheKey = (model: string, key: string) => `${model}\u0000${key}`;
