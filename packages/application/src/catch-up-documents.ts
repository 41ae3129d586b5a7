import type { Document, DocumentWrite } from '@croupier/eventstore';

/** A model's documents as the storage holds them after a commit: present, or known absent. */
type Known = { readonly doc: Document } | null;

/**
 * The documents a catch-up's batches left behind, by model slot and key, kept for its next batch
 * so that the documents every batch touches (a table's board, a player's balance) are not loaded
 * and parsed again each time (docs/adr/0047). At most `maxEntries`, those used longest ago
 * dropped first. Correct only because the runner that fills it is the only writer of those slots (it
 * holds their leases) and fills it after each commit with what that commit left in the storage;
 * a commit that fails, or a batch whose events throw, clears it. The documents are handed to the
 * next batch as they are, without copies (the batch's own, ADR 0028).
 */
export class CatchUpDocuments {
  /**
   * Two generations instead of a least-recently-used order (no delete and insert per use): a
   * document used is put in the young one; when the young one holds half the entries, the old
   * one is dropped and the young one becomes old. What any batch uses is kept for the next.
   */
  #young = new Map<string, Known>();
  #old = new Map<string, Known>();

  constructor(readonly maxEntries: number) {}

  get size(): number {
    return this.#young.size + this.#old.size;
  }

  /**
   * Puts the known documents of `keys` in `into` and answers the keys it does not know, to be
   * loaded. Known-absent keys are in neither.
   */
  take(slot: string, keys: Iterable<string>, into: Map<string, Document>): string[] {
    const missing: string[] = [];
    for (const key of keys) {
      const id = entryKey(slot, key);
      let known = this.#young.get(id);
      if (known === undefined) {
        known = this.#old.get(id);
        if (known === undefined) {
          missing.push(key);
          continue;
        }
        this.#put(id, known);
      }
      if (known !== null) into.set(key, known.doc);
    }
    return missing;
  }

  /**
   * After a commit: the batch's documents as the storage now holds them, those it read (`base`,
   * absent where a key it named was not there) overridden by those it wrote.
   */
  committed(
    slot: string,
    named: Iterable<string>,
    base: ReadonlyMap<string, Document>,
    writes: readonly DocumentWrite[],
  ): void {
    if (this.maxEntries <= 0) return;
    for (const key of named) {
      const doc = base.get(key);
      this.#put(entryKey(slot, key), doc === undefined ? null : { doc });
    }
    for (const write of writes)
      this.#put(entryKey(slot, write.key), write.doc === null ? null : { doc: write.doc });
  }

  /** Forgets a slot's documents (or every slot's). */
  clear(slot?: string): void {
    if (slot === undefined) {
      this.#young = new Map();
      this.#old = new Map();
      return;
    }
    const prefix = entryKey(slot, '');
    for (const entries of [this.#young, this.#old])
      for (const id of entries.keys()) if (id.startsWith(prefix)) entries.delete(id);
  }

  #put(id: string, known: Known): void {
    this.#young.set(id, known);
    if (this.#young.size * 2 >= this.maxEntries) {
      this.#old = this.#young;
      this.#young = new Map();
    }
  }
}

// A model name has no NUL (validateModelName), so the slot ends where the first NUL is.
const entryKey = (slot: string, key: string) => `${slot}\u0000${key}`;
