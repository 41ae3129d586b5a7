import { EventEmitter } from 'node:events';
import {
  ProjectionOwnershipLostError,
  validateModelName,
  type Document,
  type LeaseSignals,
  type ListOptions,
  type ModelCommit,
  type ModelSlot,
  type ModelState,
  type ProjectionLease,
  type ProjectionStorage,
  type StoredDocument,
} from './projection-storage.js';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

interface Slot {
  state: Mutable<ModelState>;
  readonly docs: Map<string, StoredDocument>;
}

/** A document as jsonb would give it back: a fresh copy, JSON values only. */
const stored = (doc: Document): Document => JSON.parse(JSON.stringify(doc)) as Document;

const slotKey = (slot: ModelSlot) => `${slot.model}#${slot.generation}`;

/**
 * Projection storage in this process's memory, for tests that are not about storage: the same
 * runner and models as on PostgreSQL, the same compare-and-swap and leases; not durable. Each
 * commit checks every checkpoint, then writes, in one synchronous step.
 */
export class MemoryProjectionStorage implements ProjectionStorage {
  readonly #slots = new Map<string, Slot>();
  readonly #leases = new Set<string>();
  readonly #appended: EventEmitter;
  /**
   * Given the memory store's wake-up, its appends wake the leases (and nothing in that log is
   * committed but unseen); standing alone, nothing does.
   */
  readonly wakesOnAppends: boolean;

  /** `appended`: the memory store's wake-up, emitted after each append. */
  constructor(appended?: EventEmitter) {
    this.#appended = appended ?? new EventEmitter();
    this.wakesOnAppends = appended !== undefined;
  }

  async ensureModel(model: string): Promise<ModelState> {
    validateModelName(model);
    await Promise.resolve();
    let active = this.#active(model);
    if (active === undefined) {
      active = {
        state: { model, generation: 1, position: 0n, active: true, failure: null },
        docs: new Map(),
      };
      this.#slots.set(slotKey(active.state), active);
    }
    return { ...active.state };
  }

  async states(model?: string): Promise<ModelState[]> {
    await Promise.resolve();
    return [...this.#slots.values()]
      .map((slot) => ({ ...slot.state }))
      .filter((state) => model === undefined || state.model === model)
      .sort((a, b) =>
        a.model === b.model ? a.generation - b.generation : a.model < b.model ? -1 : 1,
      );
  }

  openLease(model: string, signals: LeaseSignals): Promise<ProjectionLease> {
    validateModelName(model);
    const leases = this.#leases;
    const appended = this.#appended;
    // The memory log has nothing that is committed but not yet visible: a wake-up names nothing.
    const wake = () => {
      signals.wake();
    };
    appended.on('appended', wake);
    let held = false;
    return Promise.resolve({
      tryAcquire: () => {
        if (!held && !leases.has(model)) {
          leases.add(model);
          held = true;
        }
        return Promise.resolve(held);
      },
      close: () => {
        appended.off('appended', wake);
        if (held) leases.delete(model);
        held = false;
        return Promise.resolve();
      },
    });
  }

  async load(
    requests: readonly (ModelSlot & { readonly keys: readonly string[] })[],
  ): Promise<Map<string, Map<string, Document>>> {
    await Promise.resolve();
    const result = new Map<string, Map<string, Document>>();
    for (const request of requests) {
      const docs = new Map<string, Document>();
      const slot = this.#slots.get(slotKey(request));
      for (const key of request.keys) {
        const found = slot?.docs.get(key);
        if (found !== undefined) docs.set(key, stored(found.doc));
      }
      result.set(slotKey(request), docs);
    }
    return result;
  }

  async commit(commits: readonly ModelCommit[]): Promise<void> {
    await Promise.resolve();
    const lost = commits.filter((c) => this.#slots.get(slotKey(c))?.state.position !== c.from);
    if (lost.length > 0) throw new ProjectionOwnershipLostError(lost.map((c) => c.model));
    for (const commit of commits) {
      const slot = this.#slots.get(slotKey(commit))!;
      for (const write of commit.writes) {
        if (write.doc === null) slot.docs.delete(write.key);
        else
          slot.docs.set(write.key, {
            key: write.key,
            doc: stored(write.doc),
            partition: write.partition,
            sort: write.sort,
          });
      }
      slot.state = { ...slot.state, position: commit.to, failure: commit.failure ?? null };
    }
  }

  async get(model: string, key: string): Promise<Document> {
    await Promise.resolve();
    const found = this.#active(model)?.docs.get(key);
    return found === undefined ? undefined : stored(found.doc);
  }

  async getMany(model: string, keys: readonly string[]): Promise<Map<string, Document>> {
    await Promise.resolve();
    const docs = this.#active(model)?.docs;
    const found = new Map<string, Document>();
    for (const key of keys) {
      const doc = docs?.get(key);
      if (doc !== undefined) found.set(key, stored(doc.doc));
    }
    return found;
  }

  async list(model: string, options: ListOptions = {}): Promise<StoredDocument[]> {
    await Promise.resolve();
    const docs = [...(this.#active(model)?.docs.values() ?? [])].filter(
      (doc) =>
        (options.partition === undefined || doc.partition === options.partition) &&
        (options.sortAtMost === undefined ||
          (doc.sort !== null && doc.sort <= options.sortAtMost)) &&
        (options.sortAtLeast === undefined ||
          (doc.sort !== null && doc.sort >= options.sortAtLeast)),
    );
    // As PostgreSQL orders them: by sort (nulls first), then by key.
    docs.sort((a, b) => {
      if (a.sort !== b.sort) {
        if (a.sort === null) return -1;
        if (b.sort === null) return 1;
        return a.sort < b.sort ? -1 : 1;
      }
      return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
    });
    if (options.order === 'desc') docs.reverse();
    return docs
      .slice(0, options.limit ?? docs.length)
      .map((doc) => ({ ...doc, doc: stored(doc.doc) }));
  }

  async createGeneration(model: string): Promise<ModelState> {
    validateModelName(model);
    await Promise.resolve();
    const generation =
      Math.max(
        0,
        ...[...this.#slots.values()]
          .filter((s) => s.state.model === model)
          .map((s) => s.state.generation),
      ) + 1;
    const slot: Slot = {
      state: { model, generation, position: 0n, active: false, failure: null },
      docs: new Map(),
    };
    this.#slots.set(slotKey(slot.state), slot);
    return { ...slot.state };
  }

  async activate(model: string, generation: number): Promise<void> {
    await Promise.resolve();
    const chosen = this.#slots.get(slotKey({ model, generation }));
    if (chosen === undefined)
      throw new Error(`projection ${model} has no generation ${generation}`);
    for (const [key, slot] of this.#slots)
      if (slot.state.model === model && slot !== chosen) this.#slots.delete(key);
    chosen.state = { ...chosen.state, active: true };
  }

  close(): Promise<void> {
    return Promise.resolve();
  }

  #active(model: string): Slot | undefined {
    return [...this.#slots.values()].find(
      (slot) => slot.state.model === model && slot.state.active,
    );
  }
}
