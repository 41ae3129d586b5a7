import {
  backoffs,
  LogHeldBackError,
  ProjectionOwnershipLostError,
  untilReadable,
  validateModelName,
  type Document,
  type DocumentWrite,
  type EventStore,
  type ModelCommit,
  type ProjectionLease,
  type ProjectionStorage,
  type RecordedEvent,
} from '@croupier/eventstore';
import type { EventType } from '@croupier/contracts';
import { CatchUpDocuments } from './catch-up-documents.js';
import { DocumentCache } from './document-cache.js';
import { ProjectionError } from './projection-error.js';

/** Where a document sits in its model's lists: a partition and an order within it. */
export interface DocumentIndex {
  readonly partition?: string | null;
  readonly sort?: bigint | null;
}

/**
 * The documents one event may read and write: those whose keys the projection named for it in
 * `keysOf`. `get` answers the batch's own document, not a copy (copies cost most of a catch-up,
 * docs/adr/0028): change it only to `put` it; `put` keeps the document it is given, so the
 * projection must not change it afterwards except to put it again.
 */
export interface DocumentSet<Doc> {
  get(key: string): Doc | undefined;
  put(key: string, doc: Doc, index?: DocumentIndex): void;
  delete(key: string): void;
}

/**
 * A read model kept in the projection storage (docs/adr/0023): documents by key, changed by
 * events in global order. `handles` declares the event types it reads; the runner gives it no
 * other. `keysOf` names, before any document is read, the keys an event reads or writes (empty:
 * this event does not concern the model), so a batch loads what it touches in one query. `apply`
 * must be deterministic and change nothing but the documents it is given.
 */
export interface DurableProjection<Doc = Document, Type extends string = EventType> {
  readonly name: string;
  /**
   * The event types the model handles, each of the log's union: what a model is made of is read
   * here, not found in a `default` branch. An event of another type is never given to `keysOf`;
   * a test holds each model's `keysOf` to it (no keys for a type left out, some for each named).
   */
  readonly handles: readonly Type[];
  keysOf(event: RecordedEvent): readonly string[];
  apply(event: RecordedEvent, docs: DocumentSet<Doc>): void;
}

/** A model stopped at an event it could not apply; it moves no further until restarted. */
export class ProjectionStoppedError extends Error {
  readonly code = 'PROJECTION_STOPPED';
  constructor(
    readonly projection: string,
    override readonly cause: ProjectionError | string,
  ) {
    super(`projection ${projection} is stopped: ${cause instanceof Error ? cause.message : cause}`);
    this.name = 'ProjectionStoppedError';
  }
}

/** A model did not reach a position within the time allowed: answered 503, retried later. */
export class ProjectionLagError extends Error {
  readonly code = 'PROJECTION_LAG';
  constructor(
    readonly projections: readonly string[],
    readonly position: bigint,
    readonly timeoutMs: number,
  ) {
    super(
      `read models ${projections.join(', ')} did not reach position ${position} within ${timeoutMs} ms`,
    );
    this.name = 'ProjectionLagError';
  }
}

export interface ProjectionRunnerOptions {
  /** Events per batch: one log read and one transaction. Default 500. */
  readonly batchSize?: number;
  /**
   * The largest batch while far behind (at start-up, in a rebuild): after each full batch the
   * next one doubles, up to this; once a batch is not full, batches are `batchSize` again.
   * Default 8000.
   */
  readonly catchUpBatchSize?: number;
  /**
   * Documents a catch-up keeps between its batches (the last ones its commits wrote or its loads
   * found), so that those every batch touches are not loaded again; dropped once caught up.
   * Default 50,000; 0 keeps none (docs/adr/0047).
   */
  readonly catchUpDocuments?: number;
  /**
   * Poll of the log while an event committed is known not to be read yet (not yet visible, ADR
   * 0002), and of a checkpoint another process moves (ms). Default 100.
   */
  readonly pollIntervalMs?: number;
  /**
   * Poll of the log when every event known to be committed has been read (ms). Default 5000:
   * the appends of this process and, by NOTIFY, of the others wake the runner and name their
   * position, so this only bounds a lost wake-up's delay (ADR 0045). Never below `pollIntervalMs`.
   */
  readonly idlePollIntervalMs?: number;
  /** How often a model another process runs is asked for (ms). Default 1000. */
  readonly lockRetryMs?: number;
  /** Cap of the backoff after a failed read or commit (ms). Default 5000. */
  readonly maxBackoffMs?: number;
  /** How often a reader waiting for a model another process runs looks at its checkpoint (ms). Default 25. */
  readonly checkpointPollMs?: number;
  /** How long `waitFor`/`sync` wait before a `ProjectionLagError` (ms). Default 5000. */
  readonly syncTimeoutMs?: number;
  /**
   * Documents of the models this process runs kept in memory for `documents` reads, most
   * recently read first; 0 (the default) keeps none. Each commit drops the keys it wrote.
   */
  readonly documentCacheSize?: number;
  /** A store or commit failure (retried) or a lost lease. */
  readonly onError?: (error: unknown) => void;
  /** A model stopped at an event it could not apply (counted as a metric by the caller). */
  readonly onStopped?: (error: ProjectionError) => void;
  /** After each committed batch: its events and duration, for metrics. */
  readonly onBatch?: (batch: { events: number; models: number; ms: number }) => void;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

interface Model {
  readonly projection: DurableProjection<Document, string>;
  /** Its `handles`, to skip the events of other types before `keysOf`. */
  readonly handles: ReadonlySet<string>;
  lease: ProjectionLease | null;
  held: boolean;
  generation: number;
  position: bigint;
  stopped: ProjectionError | null;
  nextLeaseAttempt: number;
}

/** The next page of the log, asked for while the current one is applied (docs/adr/0047). */
interface ReadAhead {
  readonly after: bigint;
  readonly limit: number;
  readonly page: Promise<RecordedEvent[]>;
}

/** Where one reader of the log (the loop, a rebuild) keeps the page it reads ahead. */
interface Reader {
  ahead: ReadAhead | null;
}

interface Waiter {
  readonly models: readonly Model[];
  readonly position: bigint;
  readonly resolve: () => void;
  readonly reject: (error: Error) => void;
}

export interface ProjectionStatus {
  readonly name: string;
  /** Whether this process runs it (holds its lease). */
  readonly held: boolean;
  readonly generation: number;
  readonly position: bigint;
  readonly stopped: string | null;
}

/** The first look again for a commit told of that an older transaction still holds back. */
const HELD_BACK_FIRST_MS = 5;

/** How long `start()` waits for a log held back by a transaction elsewhere (ADR 0048). */
const START_SYNC_TIMEOUT_MS = 60_000;

/** How long a wake-up that names no position keeps the runner polling at its short interval. */
const UNCERTAIN_WAKE_MS = 2_000;

/**
 * Runs durable read models: one reader of the log for every model this process holds the lease
 * of, one transaction per batch for all of them, each model's documents and checkpoint committed
 * together (compare-and-swap: a runner that lost its lease commits nothing). A model whose
 * `apply` throws stops at that event: what it applied before is committed, its checkpoint stays
 * just before the event, and the failure is stored, reported and answered to readers; it is
 * never skipped. Models another process holds are read from the storage as that process writes
 * them; this one stands by for their leases.
 */
export class ProjectionRunner {
  readonly #store: EventStore;
  readonly #storage: ProjectionStorage;
  readonly #models = new Map<string, Model>();
  readonly #options: Required<Omit<ProjectionRunnerOptions, 'onError' | 'onStopped' | 'onBatch'>> &
    ProjectionRunnerOptions;
  readonly #waiters: Waiter[] = [];
  #running = false;
  #loop: Promise<void> | null = null;
  #wake: (() => void) | null = null;
  #wakePending = false;
  #lastAppended = 0n;
  /** The newest position a wake-up said was committed, in this process or another. */
  #awaited = 0n;
  /** Until when a wake-up that named no position may still be held back (ms since the epoch). */
  #uncertainUntil = 0;
  /** The loop's step and a rebuild's swap run one at a time. */
  #lock: Promise<unknown> = Promise.resolve();
  #caughtUp: { resolve: () => void; reject: (e: unknown) => void } | null = null;
  readonly #cache: DocumentCache;
  readonly #documents: ProjectionStorage;
  readonly #catchUpDocs: CatchUpDocuments;
  readonly #reader: Reader = { ahead: null };

  constructor(
    store: EventStore,
    storage: ProjectionStorage,
    options: ProjectionRunnerOptions = {},
  ) {
    this.#store = store;
    this.#storage = storage;
    this.#options = {
      batchSize: 500,
      catchUpBatchSize: 8_000,
      pollIntervalMs: 100,
      idlePollIntervalMs: 5_000,
      lockRetryMs: 1_000,
      maxBackoffMs: 5_000,
      syncTimeoutMs: 5_000,
      checkpointPollMs: 25,
      documentCacheSize: 0,
      catchUpDocuments: 50_000,
      ...options,
    };
    this.#cache = new DocumentCache(this.#options.documentCacheSize);
    this.#catchUpDocs = new CatchUpDocuments(this.#options.catchUpDocuments);
    this.#documents = cachedReads(storage, this.#cache, (model) => this.#cacheable(model));
  }

  get storage(): ProjectionStorage {
    return this.#storage;
  }

  /**
   * The storage as the models' reads should see it: `get` and `getMany` of a model this process
   * runs are answered from the document cache where they can be (the runner's own commits keep
   * it current); everything else goes to the storage.
   */
  get documents(): ProjectionStorage {
    return this.#documents;
  }

  /** The document cache's size and use, for metrics. */
  get documentCache(): { size: number; hits: number; misses: number } {
    return { size: this.#cache.size, ...this.#cache.counts };
  }

  register<P extends DurableProjection<never, string>>(projection: P): P {
    if (this.#running) throw new Error('register projections before starting the runner');
    validateModelName(projection.name);
    if (this.#models.has(projection.name))
      throw new Error(`projection ${projection.name} is registered twice`);
    this.#models.set(projection.name, {
      projection,
      handles: new Set(projection.handles),
      lease: null,
      held: false,
      generation: 0,
      position: 0n,
      stopped: null,
      nextLeaseAttempt: 0,
    });
    return projection;
  }

  /**
   * Starts running; resolves once every model this process could take is caught up with the log
   * from its stored checkpoint (a store away at start-up is waited for): with everything
   * committed before the call, not only what was readable when it read (ADR 0048; a
   * transaction elsewhere holding the log back for more than a minute fails the start).
   */
  async start(): Promise<void> {
    if (this.#running) return;
    this.#running = true;
    for (const model of this.#models.values())
      await this.#storage.ensureModel(model.projection.name);
    const caughtUp = new Promise<void>((resolve, reject) => {
      this.#caughtUp = { resolve, reject };
    });
    this.#loop = this.#run();
    await caughtUp;
    // The models this process took; another process's are its own to run. A model that stops
    // at an event it cannot apply is told of as before (onError, its state), and the others
    // are synced without it.
    for (;;) {
      const taken = [...this.#models.values()].filter((m) => m.held && m.stopped === null);
      if (taken.length === 0) return;
      try {
        await this.syncToHead(
          taken.map((m) => m.projection.name),
          START_SYNC_TIMEOUT_MS,
        );
        return;
      } catch (error) {
        if (!(error instanceof ProjectionStoppedError)) throw error;
      }
    }
  }

  async stop(): Promise<void> {
    if (!this.#running) return;
    this.#running = false;
    this.wake();
    await this.#loop;
    this.#caughtUp?.reject(new Error('projection runner stopped'));
    for (const waiter of this.#waiters.splice(0))
      waiter.reject(new Error('projection runner stopped'));
    for (const model of this.#models.values()) {
      await model.lease?.close().catch(() => undefined);
      model.lease = null;
      model.held = false;
      this.#cache.clear(model.projection.name);
    }
    this.#catchUpDocs.clear();
    this.#reader.ahead = null;
  }

  /** Asks for a read now rather than at the next poll. */
  wake(): void {
    this.#wakePending = true;
    this.#wake?.();
  }

  /** Records a position this process appended: `sync()` waits for the models to pass it. */
  noteAppended(position: bigint): void {
    if (position > this.#lastAppended) this.#lastAppended = position;
    this.#heard(position);
  }

  /**
   * A wake-up from the store: events are committed up to `position`, or, when it does not say,
   * may be (they are then looked for at the short poll for a while, as before ADR 0045).
   */
  #heard(position: bigint | undefined): void {
    if (position === undefined) this.#uncertainUntil = Date.now() + UNCERTAIN_WAKE_MS;
    else if (position > this.#awaited) this.#awaited = position;
    this.wake();
  }

  /**
   * Whether a model being run has not yet read an event known to be committed: it is held back
   * below the log's `xmin` by an older transaction whose end may wake nobody, so the runner
   * polls at the short interval until it is read.
   */
  #awaiting(active: readonly Model[]): boolean {
    return (
      Date.now() < this.#uncertainUntil || active.some((model) => model.position < this.#awaited)
    );
  }

  /**
   * Read-your-writes: resolves once the named models (default: every model) have applied
   * everything this process appended before the call.
   */
  sync(models?: readonly string[], timeoutMs?: number): Promise<void> {
    return this.waitFor(this.#lastAppended, models, timeoutMs);
  }

  /**
   * Resolves once the named models have applied the log up to `position`, whichever process runs
   * them; rejects with `ProjectionStoppedError` for a stopped model and `ProjectionLagError`
   * after the timeout.
   */
  async waitFor(position: bigint, names?: readonly string[], timeoutMs?: number): Promise<void> {
    const models = (names ?? [...this.#models.keys()]).map((name) => {
      const model = this.#models.get(name);
      if (model === undefined) throw new Error(`projection ${name} is not registered`);
      return model;
    });
    const timeout = timeoutMs ?? this.#options.syncTimeoutMs;
    const deadline = Date.now() + timeout;
    for (;;) {
      const stopped = models.find((model) => model.stopped !== null);
      if (stopped) throw new ProjectionStoppedError(stopped.projection.name, stopped.stopped!);
      let behind = models.filter((model) => model.position < position);
      const remote = behind.filter((model) => !model.held);
      if (remote.length > 0) {
        // Run by another process: its checkpoint is in the storage.
        const states = await this.#storage.states();
        for (const model of remote) {
          const state = states.find((s) => s.model === model.projection.name && s.active);
          if (state === undefined || model.held) continue;
          if (state.failure !== null && state.position < position)
            throw new ProjectionStoppedError(
              model.projection.name,
              `stopped at position ${state.failure.position}: ${state.failure.error}`,
            );
          if (state.position > model.position) {
            model.position = state.position;
            model.generation = state.generation;
          }
        }
        behind = behind.filter((model) => model.position < position);
      }
      if (behind.length === 0) return;
      const left = deadline - Date.now();
      if (left <= 0)
        throw new ProjectionLagError(
          behind.map((model) => model.projection.name),
          position,
          timeout,
        );
      this.wake();
      // Held models are answered by the runner's own commits; others are looked up again.
      const wait = behind.some((model) => !model.held)
        ? Math.min(left, this.#options.checkpointPollMs)
        : left;
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          const index = this.#waiters.indexOf(waiter);
          if (index >= 0) this.#waiters.splice(index, 1);
          resolve();
        }, wait);
        const waiter: Waiter = {
          models: behind,
          position,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
          reject: (error) => {
            clearTimeout(timer);
            reject(error);
          },
        };
        this.#waiters.push(waiter);
      });
    }
  }

  /**
   * Read-your-writes across processes: resolves once the named models have applied everything
   * committed to the log before the call, whichever process appended it (docs/adr/0048). One
   * query for the log's two ends; where the models are behind, it reads on from their
   * checkpoints, so it costs what they lag behind, not the log.
   */
  async syncToHead(names?: readonly string[], timeoutMs?: number): Promise<void> {
    const models = this.#resolve(names);
    const timeout = timeoutMs ?? this.#options.syncTimeoutMs;
    const deadline = Date.now() + timeout;
    const readable = await this.#readableUpTo(models, deadline, timeout);
    await this.#refreshRemote(models);
    // Usually the models have read all that is readable: one query answered the GET.
    if (models.every((model) => model.position >= readable)) return;
    let head = models.reduce(
      (min, m) => (m.position < min ? m.position : min),
      models[0]?.position ?? 0n,
    );
    for (;;) {
      const page = await this.#store.readAll({ after: head, limit: this.#options.batchSize });
      if (page.length > 0) head = page[page.length - 1]!.position;
      if (page.length < this.#options.batchSize) break;
    }
    await this.waitFor(head, names, Math.max(1, deadline - Date.now()));
  }

  /**
   * Waits until the log is readable up to what was committed before the call; answers how far
   * it is readable. A transaction that began earlier and still runs, in any database of the
   * server, holds back what commits after it (ADR 0048): models synced to the readable end alone
   * would read as if a commit already answered to its writer had not happened. `untilReadable`
   * looks soon at first (mostly another short append), then less often, so that requests
   * waiting out a long transaction do not flood the database with looks.
   */
  async #readableUpTo(
    models: readonly Model[],
    deadline: number,
    timeout: number,
  ): Promise<bigint> {
    try {
      return await untilReadable(this.#store, { timeoutMs: Math.max(0, deadline - Date.now()) });
    } catch (error) {
      if (!(error instanceof LogHeldBackError)) throw error;
      throw new ProjectionLagError(
        models.map((model) => model.projection.name),
        error.committed,
        timeout,
      );
    }
  }

  /**
   * Rebuilds a model into a new generation from the first event while reads are served from the
   * live one; then swaps it in, in one transaction, and drops the old one. Where this process
   * runs the model, it holds its runner still for the last events and the swap. Where another
   * process does, the swap deletes the checkpoint that runner moves: its next commit finds it
   * gone and commits nothing, and it takes the model up again from the new generation's
   * checkpoint (no event lost or applied twice, the models behind for a moment). Answers the new
   * generation and the events it read.
   */
  async rebuild(name: string): Promise<{ generation: number; position: bigint; events: number }> {
    const rebuilt = await this.rebuildAll([name]);
    return {
      generation: rebuilt.generations[name]!,
      position: rebuilt.position,
      events: rebuilt.events,
    };
  }

  /**
   * Rebuilds several models (default: every registered one) as `rebuild` does one, in one pass
   * over the log: each page is read once for all of them and their documents are committed
   * together (docs/adr/0047). Answers each model's new generation, the position they reached
   * and the events read. A model that cannot apply an event fails the whole rebuild, and no
   * model is swapped.
   */
  async rebuildAll(
    names?: readonly string[],
  ): Promise<{ generations: Record<string, number>; position: bigint; events: number }> {
    const models = this.#resolve(names);
    if (models.length === 0) return { generations: {}, position: 0n, events: 0 };
    const shadows: { model: Model; shadow: Model }[] = [];
    for (const model of models) {
      const state = await this.#storage.createGeneration(model.projection.name);
      shadows.push({
        model,
        shadow: {
          projection: model.projection,
          handles: model.handles,
          lease: null,
          held: true,
          generation: state.generation,
          position: 0n,
          stopped: null,
          nextLeaseAttempt: 0,
        },
      });
    }
    const active = shadows.map((s) => s.shadow);
    let events = 0;
    const limit = Math.max(this.#options.batchSize, this.#options.catchUpBatchSize);
    const reader: Reader = { ahead: null };
    const reached = () =>
      active.reduce((min, m) => (m.position < min ? m.position : min), active[0]!.position);
    const catchUp = async (until: () => bigint) => {
      for (;;) {
        const read = await this.#step(active, limit, reader);
        events += read;
        const stopped = active.find((shadow) => shadow.stopped !== null);
        if (stopped) throw new ProjectionStoppedError(stopped.projection.name, stopped.stopped!);
        if (read < limit && reached() >= until()) return;
        if (read === 0) return;
      }
    };
    // Most of the log while the live generations go on; then, with the runner held still, the
    // last events up to where the live ones are, and the swaps.
    await catchUp(() => 0n);
    return this.#exclusive(async () => {
      await catchUp(() =>
        models.reduce((max, m) => (m.held && m.position > max ? m.position : max), 0n),
      );
      const generations: Record<string, number> = {};
      for (const { model, shadow } of shadows) {
        const name = model.projection.name;
        await this.#storage.activate(name, shadow.generation);
        this.#cache.clear(name);
        model.generation = shadow.generation;
        model.position = shadow.position;
        generations[name] = shadow.generation;
      }
      this.#catchUpDocs.clear();
      return { generations, position: reached(), events };
    });
  }

  status(): ProjectionStatus[] {
    return [...this.#models.values()].map((model) => ({
      name: model.projection.name,
      held: model.held,
      generation: model.generation,
      position: model.position,
      stopped: model.stopped?.message ?? null,
    }));
  }

  /** Whether reads of the model may be cached: this process runs it, so only it writes it. */
  #cacheable(name: string): boolean {
    const model = this.#models.get(name);
    return this.#running && model !== undefined && model.held && model.stopped === null;
  }

  /** Read through a method: `stop()` flips `#running` while the loop awaits. */
  #stopped(): boolean {
    return !this.#running;
  }

  #exclusive<T>(work: () => Promise<T>): Promise<T> {
    const result = this.#lock.then(work);
    this.#lock = result.catch(() => undefined);
    return result;
  }

  #resolve(names?: readonly string[]): Model[] {
    return (names ?? [...this.#models.keys()]).map((name) => {
      const model = this.#models.get(name);
      if (model === undefined) throw new Error(`projection ${name} is not registered`);
      return model;
    });
  }

  /** Positions of the models another process runs, as stored. */
  async #refreshRemote(models: readonly Model[]): Promise<void> {
    if (models.every((model) => model.held)) return;
    const states = await this.#storage.states();
    for (const model of models) {
      const state = states.find((s) => s.model === model.projection.name && s.active);
      if (model.held || state === undefined) continue;
      if (state.position > model.position) model.position = state.position;
      model.generation = state.generation;
    }
  }

  async #run(): Promise<void> {
    let failures = 0;
    let limit = this.#options.batchSize;
    let heldBackLooks = 0;
    const largest = Math.max(this.#options.batchSize, this.#options.catchUpBatchSize);
    while (this.#running) {
      let pause: number;
      try {
        const { active, read } = await this.#exclusive(async () => {
          await this.#takeLeases();
          const held = [...this.#models.values()].filter((m) => m.held && m.stopped === null);
          return { active: held, read: held.length === 0 ? 0 : await this.#step(held, limit) };
        });
        failures = 0;
        const caughtUp = read < limit;
        // Far behind, a batch's fixed costs (a log read, a load, a transaction) are shared by
        // more events; caught up, a batch holds what arrived since the last one.
        limit = caughtUp ? this.#options.batchSize : Math.min(limit * 2, largest);
        if (caughtUp && this.#caughtUp) {
          this.#caughtUp.resolve();
          this.#caughtUp = null;
        }
        this.#settleWaiters();
        const { pollIntervalMs, idlePollIntervalMs, lockRetryMs } = this.#options;
        const awaiting = caughtUp && this.#awaiting(active);
        // A commit told of and not readable yet is mostly held back by another short append:
        // looked for again soon, then less and less often, up to the short poll.
        heldBackLooks = awaiting ? heldBackLooks + 1 : 0;
        // The slow poll only where every append wakes the runner (ADR 0045).
        pause = !caughtUp
          ? 0
          : awaiting
            ? backoffs.exponential({
                baseMs: HELD_BACK_FIRST_MS,
                capMs: pollIntervalMs,
                jitter: 0,
              })(heldBackLooks)
            : this.#storage.wakesOnAppends !== true
              ? pollIntervalMs
              : Math.max(pollIntervalMs, idlePollIntervalMs);
        // Standing by for a lease another process holds: asked for every lockRetryMs.
        if ([...this.#models.values()].some((model) => !model.held))
          pause = Math.min(pause, lockRetryMs);
      } catch (error) {
        this.#report(error);
        if (error instanceof ProjectionOwnershipLostError) await this.#dropLeases(error.models);
        failures += 1;
        pause = backoffs.exponential({ capMs: this.#options.maxBackoffMs })(failures);
      }
      if (this.#stopped()) break;
      await this.#sleep(pause);
    }
  }

  /**
   * Reads a batch of at most `limit` events from the oldest held checkpoint and commits it;
   * answers the events read. A full batch (far behind: a start on a long log, a rebuild) reads
   * the next page ahead while it is applied and committed, and keeps the documents it leaves for
   * the next batch (docs/adr/0047); a batch that is not full drops them.
   */
  async #step(
    active: readonly Model[],
    limit: number,
    reader: Reader = this.#reader,
  ): Promise<number> {
    const from = active.reduce(
      (min, m) => (m.position < min ? m.position : min),
      active[0]!.position,
    );
    const events = await this.#read(reader, from, limit);
    const slotOf = (model: Model) => `${model.projection.name}#${model.generation}`;
    const full = events.length === limit;
    if (events.length === 0) {
      for (const model of active) this.#catchUpDocs.clear(slotOf(model));
      return 0;
    }
    const started = Date.now();
    const last = events[events.length - 1]!.position;
    if (full) {
      // The page after this one, read while this one is applied and committed: the log's read
      // (the server's work) and the models' (this process's) overlap. Used only if the next
      // batch starts where this one ends, with the same size.
      const largest = Math.max(this.#options.batchSize, this.#options.catchUpBatchSize);
      const next = Math.min(limit * 2, largest);
      const page = this.#store.readAll({ after: last, limit: next });
      page.catch(() => undefined); // a page read ahead and never used must not fail the process
      reader.ahead = { after: last, limit: next, page };
    }

    // The keys every model's events name, loaded in one query. A model whose `keysOf` throws
    // stops at that event, as if `apply` had.
    const plans = active.map((model) => {
      const relevant: { event: RecordedEvent; keys: readonly string[] }[] = [];
      const keys = new Set<string>();
      let failed: { event: RecordedEvent; cause: unknown } | null = null;
      for (const event of events) {
        if (event.position <= model.position || !model.handles.has(event.type)) continue;
        let named: readonly string[];
        try {
          named = model.projection.keysOf(event);
        } catch (cause) {
          failed = { event, cause };
          break;
        }
        if (named.length === 0) continue;
        relevant.push({ event, keys: named });
        for (const key of named) keys.add(key);
      }
      // What the previous batches of a catch-up left is known; only the rest is loaded.
      const base = new Map<string, Document>();
      const missing = keys.size === 0 ? [] : this.#catchUpDocs.take(slotOf(model), keys, base);
      return { model, relevant, keys, failed, base, missing };
    });
    const requestOf = (plan: (typeof plans)[number], keys: readonly string[]) => ({
      model: plan.model.projection.name,
      generation: plan.model.generation,
      keys,
    });
    const toLoad = plans.filter((plan) => plan.missing.length > 0);
    const loaded =
      toLoad.length === 0
        ? new Map<string, Map<string, Document>>()
        : await this.#storage.load(toLoad.map((plan) => requestOf(plan, plan.missing)));
    for (const plan of plans)
      for (const [key, doc] of loaded.get(slotOf(plan.model)) ?? []) plan.base.set(key, doc);

    const commits: { model: Model; commit: ModelCommit; stopped: ProjectionError | null }[] = [];
    const bases = new Map<Model, ReadonlyMap<string, Document>>();
    for (const plan of plans) {
      const { model, relevant, failed } = plan;
      const name = model.projection.name;
      // The loaded documents are this batch's own (each load answers new objects, and the
      // catch-up's are the last batch's): the events change them in place, with no copy.
      let base: Map<string, Document> = plan.base;
      let overlay = new Overlay(base);
      let stoppedAt: { event: RecordedEvent; cause: unknown } | null = null;
      for (let i = 0; i < relevant.length; i++) {
        const { event, keys } = relevant[i]!;
        try {
          model.projection.apply(event, overlay.scope(name, event, keys));
        } catch (cause) {
          // What the events before it did is kept; the failed event's partial changes are not:
          // the documents are loaded again, as stored, and the events before it applied again.
          this.#catchUpDocs.clear(slotOf(model));
          const reloaded =
            plan.keys.size === 0
              ? new Map<string, Map<string, Document>>()
              : await this.#storage.load([requestOf(plan, [...plan.keys])]);
          base = reloaded.get(slotOf(model)) ?? new Map<string, Document>();
          overlay = new Overlay(base);
          for (const done of relevant.slice(0, i))
            model.projection.apply(done.event, overlay.scope(name, done.event, done.keys));
          stoppedAt = { event, cause };
          break;
        }
      }
      bases.set(model, base);
      stoppedAt ??= failed;
      const stopped =
        stoppedAt === null ? null : new ProjectionError(name, stoppedAt.event, stoppedAt.cause);
      const to =
        stoppedAt === null ? last : positionBefore(events, stoppedAt.event, model.position);
      const writes = overlay.writes();
      if (to <= model.position && writes.length === 0 && stopped === null) continue;
      commits.push({
        model,
        stopped,
        commit: {
          model: name,
          generation: model.generation,
          from: model.position,
          to,
          writes,
          failure:
            stopped === null
              ? null
              : { position: stoppedAt!.event.position, error: stopped.message },
        },
      });
    }
    try {
      await this.#storage.commit(commits.map((c) => c.commit));
    } catch (error) {
      // The documents kept may be this batch's, never committed.
      this.#catchUpDocs.clear();
      throw error;
    }
    for (const { model, commit, stopped } of commits) {
      // Before the position moves: a reader that waited for it finds no older document cached.
      this.#cache.invalidate(
        commit.model,
        commit.writes.map((write) => write.key),
      );
      model.position = commit.to;
      if (stopped !== null) {
        model.stopped = stopped;
        this.#options.onStopped?.(stopped);
      }
    }
    // Caught up (a batch that is not full), the documents are dropped: a live batch holds a few
    // events and loads what they name.
    const written = new Map(commits.map((c) => [c.model, c.commit.writes]));
    for (const plan of plans) {
      const slot = slotOf(plan.model);
      if (!full || plan.model.stopped !== null) this.#catchUpDocs.clear(slot);
      else
        this.#catchUpDocs.committed(
          slot,
          plan.keys,
          bases.get(plan.model)!,
          written.get(plan.model) ?? [],
        );
    }
    this.#options.onBatch?.({
      events: events.length,
      models: commits.length,
      ms: Date.now() - started,
    });
    return events.length;
  }

  /** The page after `from`: the one read ahead when it is that page, else read now. */
  #read(reader: Reader, from: bigint, limit: number): Promise<RecordedEvent[]> {
    const ahead = reader.ahead;
    reader.ahead = null;
    if (ahead !== null && ahead.after === from && ahead.limit === limit) return ahead.page;
    return this.#store.readAll({ after: from, limit });
  }

  /**
   * Stands by for the leases of models no process is known to run here, every lockRetryMs. A
   * lease's connection may break at any await here (its `broken` runs outside the runner's
   * lock): a model is marked held only while the lease it acquired is still its own, and a
   * broken lease drops only itself, never one opened after it.
   */
  async #takeLeases(): Promise<void> {
    const now = Date.now();
    for (const model of this.#models.values()) {
      if (model.held || now < model.nextLeaseAttempt) continue;
      model.nextLeaseAttempt = now + this.#options.lockRetryMs;
      const name = model.projection.name;
      let lease = model.lease;
      if (lease === null) {
        // Its connection may break before the lease is handed back to be kept.
        const opening: { lease: ProjectionLease | null; broken: boolean } = {
          lease: null,
          broken: false,
        };
        const opened = await this.#storage.openLease(name, {
          wake: (position) => {
            this.#heard(position);
          },
          broken: (error) => {
            this.#report(error);
            if (opening.lease === null) opening.broken = true;
            else void this.#dropLeases([name], opening.lease);
          },
        });
        opening.lease = opened;
        if (opening.broken) {
          await opened.close().catch(() => undefined);
          continue;
        }
        model.lease = opened;
        lease = opened;
      }
      if (!(await lease.tryAcquire()) || model.lease !== lease) continue;
      const state = await this.#storage.ensureModel(name);
      // Broken while the state was read: dropped already, taken again at the next attempt.
      if (model.lease !== lease) continue;
      this.#cache.clear(name);
      this.#catchUpDocs.clear();
      model.held = true;
      model.generation = state.generation;
      model.position = state.position;
      // A model stopped in an earlier run is tried again: the code may have been fixed.
      model.stopped = null;
    }
  }

  /**
   * Lets the models go (their leases lost or broken). With `only`, a model lets go only if that
   * is still its lease: a lease that broke after it was replaced is just closed.
   */
  async #dropLeases(names: readonly string[], only?: ProjectionLease): Promise<void> {
    for (const name of names) {
      const model = this.#models.get(name);
      if (model === undefined) continue;
      if (only !== undefined && model.lease !== only) {
        await only.close().catch(() => undefined);
        continue;
      }
      model.held = false;
      this.#cache.clear(name);
      this.#catchUpDocs.clear();
      const lease = model.lease;
      model.lease = null;
      await lease?.close().catch((error: unknown) => {
        this.#report(error);
      });
    }
  }

  #settleWaiters(): void {
    for (let i = this.#waiters.length - 1; i >= 0; i--) {
      const waiter = this.#waiters[i]!;
      const stopped = waiter.models.find((model) => model.stopped !== null);
      if (stopped) {
        this.#waiters.splice(i, 1);
        waiter.reject(new ProjectionStoppedError(stopped.projection.name, stopped.stopped!));
      } else if (waiter.models.every((model) => model.position >= waiter.position)) {
        this.#waiters.splice(i, 1);
        waiter.resolve();
      }
    }
  }

  async #sleep(ms: number): Promise<void> {
    if (this.#wakePending) {
      this.#wakePending = false;
      return;
    }
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.#wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.#wake = null;
    this.#wakePending = false;
  }

  #report(error: unknown): void {
    try {
      this.#options.onError?.(error);
    } catch {
      // a failing reporter must not stop the runner
    }
  }
}

/** The storage with `get` and `getMany` answered from the cache for models that allow it. */
function cachedReads(
  storage: ProjectionStorage,
  cache: DocumentCache,
  cacheable: (model: string) => boolean,
): ProjectionStorage {
  return {
    ...(storage.wakesOnAppends === undefined ? {} : { wakesOnAppends: storage.wakesOnAppends }),
    ensureModel: (model) => storage.ensureModel(model),
    states: (model) => storage.states(model),
    openLease: (model, signals) => storage.openLease(model, signals),
    load: (requests) => storage.load(requests),
    commit: (commits) => storage.commit(commits),
    list: (model, options) => storage.list(model, options),
    createGeneration: (model) => storage.createGeneration(model),
    activate: (model, generation) => storage.activate(model, generation),
    close: () => storage.close(),
    async get(model, key) {
      if (!cacheable(model)) return storage.get(model, key);
      const cached = cache.lookup(model, key);
      if (cached !== 'miss') return cached.doc;
      const epoch = cache.epoch(model);
      const doc = await storage.get(model, key);
      if (cacheable(model)) cache.store(model, key, doc, epoch);
      return doc;
    },
    async getMany(model, keys) {
      if (!cacheable(model)) return storage.getMany(model, keys);
      const found = new Map<string, Document>();
      const missing: string[] = [];
      for (const key of keys) {
        const cached = cache.lookup(model, key);
        if (cached === 'miss') missing.push(key);
        else if (cached.doc !== undefined) found.set(key, cached.doc);
      }
      if (missing.length === 0) return found;
      const epoch = cache.epoch(model);
      const read = await storage.getMany(model, missing);
      for (const key of missing) {
        const doc = read.get(key);
        if (doc !== undefined) found.set(key, doc);
        if (cacheable(model)) cache.store(model, key, doc, epoch);
      }
      return found;
    },
  };
}

/** The position just before `event` in the batch, or the model's own when it is the first. */
function positionBefore(
  events: readonly RecordedEvent[],
  event: RecordedEvent,
  from: bigint,
): bigint {
  const index = events.indexOf(event);
  const previous = index > 0 ? events[index - 1]!.position : from;
  return previous > from ? previous : from;
}

/**
 * A model's documents during one batch: as loaded, plus what the batch changed. The documents
 * are the batch's own, handed to `apply` and taken back from it without copies; only one object
 * put under two keys is copied, so that changing one cannot change the other.
 */
class Overlay {
  readonly #base: ReadonlyMap<string, Document>;
  readonly #changed = new Map<string, Mutable<DocumentWrite>>();
  /** The key each object put is held under. */
  readonly #heldUnder = new WeakMap<object, string>();

  constructor(base: ReadonlyMap<string, Document>) {
    this.#base = base;
  }

  scope(model: string, event: RecordedEvent, keys: readonly string[]): DocumentSet<unknown> {
    return new EventScope(this, model, event, keys);
  }

  get(key: string): unknown {
    const changed = this.#changed.get(key);
    if (changed !== undefined) return changed.doc === null ? undefined : changed.doc;
    const doc = this.#base.get(key);
    if (typeof doc === 'object' && doc !== null && !this.#heldUnder.has(doc))
      this.#heldUnder.set(doc, key);
    return doc;
  }

  put(model: string, key: string, doc: unknown, index: DocumentIndex): void {
    if (doc === undefined || doc === null)
      throw new Error(`projection ${model} put an empty document at ${JSON.stringify(key)}`);
    let held: unknown = doc;
    if (typeof doc === 'object') {
      const under = this.#heldUnder.get(doc);
      if (under !== undefined && under !== key) held = structuredClone(doc);
      this.#heldUnder.set(held as object, key);
    }
    this.#changed.set(key, {
      key,
      doc: held,
      partition: index.partition ?? null,
      sort: index.sort ?? null,
    });
  }

  delete(key: string): void {
    this.#changed.set(key, { key, doc: null, partition: null, sort: null });
  }

  writes(): DocumentWrite[] {
    return [...this.#changed.values()];
  }
}

/**
 * The documents one event may use: those its `keysOf` named. A class rather than closures made
 * per event: a catch-up makes one for each event of each model (docs/adr/0047).
 */
class EventScope implements DocumentSet<unknown> {
  constructor(
    private readonly overlay: Overlay,
    private readonly model: string,
    private readonly event: RecordedEvent,
    private readonly keys: readonly string[],
  ) {}

  get(key: string): unknown {
    this.#check(key);
    return this.overlay.get(key);
  }

  put(key: string, doc: unknown, index: DocumentIndex = {}): void {
    this.#check(key);
    this.overlay.put(this.model, key, doc, index);
  }

  delete(key: string): void {
    this.#check(key);
    this.overlay.delete(key);
  }

  #check(key: string): void {
    if (!this.keys.includes(key))
      throw new Error(
        `projection ${this.model} used document ${JSON.stringify(key)} for ${this.event.type} at ${this.event.stream}@${this.event.revision} without naming it in keysOf`,
      );
  }
}
