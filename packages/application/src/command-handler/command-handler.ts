import { DomainError } from '@croupier/contracts';
import {
  backoffs,
  DuplicateEventIdError,
  WrongExpectedVersionError,
  type AppendResult,
  type Backoff,
  type EventStore,
  type RecordedEvent,
} from '@croupier/eventstore';
import { LRUCache } from 'lru-cache';
import { metadataOf, type CommandContext } from '../context.js';
import type { Decider } from '../decider.js';
import { randomId } from '../ids.js';
import {
  snapshotDigest,
  SnapshotWriter,
  type AggregateSnapshots,
  type SnapshotPolicy,
  type SnapshotRefusal,
} from '../snapshots.js';

/** A domain event as deciders produce it: a type and its data. */
export interface DomainEvent {
  readonly type: string;
  readonly data: unknown;
}

/** One stream kind: its decider and how to read its events back from the store. */
export interface Aggregate<Command, Event extends DomainEvent, State> {
  /** Names the writer in errors and in the test that every event type has exactly one. */
  readonly name: string;
  /**
   * The event types this decider writes, and no other aggregate does: one writer per event type
   * (ADR 0014). The handler refuses to append any other type its decider decides.
   */
  readonly writes: readonly Event['type'][];
  readonly decider: Decider<Command, Event, State>;
  /**
   * Validates an event into the decider's event type, throwing on one its schema refuses: each
   * stored event when it is read back, and each decided event before it is appended.
   */
  readonly parse: (event: Pick<RecordedEvent, 'type' | 'data'>) => Event;
  /**
   * Opts the aggregate into snapshots (docs/adr/0025): with a snapshot policy, a stream not cached
   * is loaded from its last snapshot and the events after it, checked against the hash chain.
   */
  readonly snapshot?: AggregateSnapshots<State>;
}

/** The most commands one append takes (see #drain). */
const MAX_BATCH = 64;

/** A command waiting for its stream, as `handle` received it. */
interface Queued {
  readonly aggregate: Aggregate<unknown, DomainEvent, unknown>;
  readonly command: unknown;
  readonly context: CommandContext;
  readonly options: HandleOptions<DomainEvent>;
  readonly resolve: (handled: Handled<DomainEvent, unknown>) => void;
  readonly reject: (error: unknown) => void;
}

export interface Loaded<State> {
  readonly state: State;
  /** Revision of the last event, or null when the stream does not exist. */
  readonly revision: bigint | null;
}

/** A loaded state and the revision of the stream's last snapshot known (-1n: none). */
interface Held<State> extends Loaded<State> {
  readonly snapshotAt: bigint;
}

interface CacheEntry {
  readonly state: unknown;
  readonly revision: bigint;
  readonly snapshotAt: bigint;
}

/** What the state caches counted, over all aggregates, since the handler was made. */
interface CacheCounts {
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
class StateCache {
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

  /** Keeps the state unless one of a later revision is held already (a slower reader's). */
  set(key: string, state: unknown, revision: bigint, snapshotAt: bigint): void {
    if (this.entries === null) return;
    const current = this.entries.peek(key);
    if (current !== undefined && current.revision >= revision) return;
    this.entries.set(key, { state, revision, snapshotAt });
  }
}

/** The handler's state cache and snapshots, as counted since it was made (for metrics). */
export interface CommandHandlerStats {
  readonly cache: {
    /** Streams held now, over all aggregates. */
    readonly size: number;
    /** The most held per aggregate. */
    readonly capacity: number;
    readonly hits: number;
    readonly misses: number;
    /** Streams dropped to make room (least recently used first). */
    readonly evictions: number;
  };
  readonly snapshots: {
    /** Loads that started from a snapshot. */
    readonly used: number;
    /** Snapshots found and refused, by reason (the load read the stream whole). */
    readonly refused: Readonly<Record<SnapshotRefusal['reason'], number>>;
    readonly written: number;
    /** Snapshots that could not be read or written. */
    readonly failures: number;
  };
}

export interface RetryPolicy {
  /** Reads and decisions in all, the first included, before CONCURRENCY_CONFLICT. */
  readonly maxAttempts: number;
  /** The wait before each next attempt. */
  readonly backoff: Backoff;
}

export interface CommandHandlerOptions {
  /**
   * After another process appended to the stream first. Default: 10 attempts, full-jitter
   * backoff of 10 ms, 20 ms… up to 200 ms (ADR 0007).
   */
  readonly retry?: RetryPolicy;
  /** Folded states kept per aggregate, least recently used out first. Default 20,000. */
  readonly cacheSize?: number;
  /**
   * Told the position of every append (an idempotent retry's too): the read models' runner waits
   * for it before a read, so the process reads its own writes (docs/adr/0023).
   */
  readonly onAppended?: (position: bigint) => void;
  /**
   * Snapshots of the aggregates that opt in (`Aggregate.snapshot`), docs/adr/0025. Without it,
   * a stream not cached is read whole.
   */
  readonly snapshots?: SnapshotPolicy;
}

export const DEFAULT_RETRY: RetryPolicy = {
  maxAttempts: 10,
  backoff: backoffs.fullJitter({ baseMs: 5, capMs: 200 }),
};

export interface Handled<Event, State> {
  /** The events this command appended (empty when it changed nothing, e.g. a retry). */
  readonly events: readonly Event[];
  readonly state: State;
  readonly revision: bigint | null;
  readonly position: bigint | null;
}

export interface HandleOptions<Event> {
  /** Event ids for the decided events; deterministic ids make a retried step a no-op. */
  readonly eventIds?: (events: readonly Event[]) => readonly string[];
  /**
   * The stream is expected not to exist yet (a round or shoe opened under its next number): when
   * it is not cached, decide on the initial state with no read and append with `no-stream`. If
   * the stream exists after all, the append conflicts and the command is decided again on the
   * stream as read, as for any stale cache (ADR 0020, 0022).
   */
  readonly expectNew?: boolean;
}

/**
 * The one command handler: fold the stream, decide, append with the revision folded, and on a
 * concurrent append read again and decide again, as its retry policy says. A domain error from
 * `decide` rejects the command with nothing appended. With deterministic event ids, a step retried
 * after a crash finds its events already stored and changes nothing.
 *
 * A stream this process has seen is decided on from its cached state, without a read. Only an
 * append can confirm such a decision (its expected version checks nobody appended since); a
 * conflict, a refusal or a decision to do nothing is taken again on the stream as read from the
 * store, so a stale cache can cost a round trip but never change an outcome (ADR 0020).
 *
 * One instance per process, made by the composition root with its policy and handed to every
 * service, so its cache and its queues are visible where the process is wired (ADR 0007):
 * commands on one stream run one after another within it, and each stream's last folded state
 * is kept, so a long-lived stream costs no more to decide on than a new one.
 */
export class CommandHandler {
  readonly #caches = new Map<object, StateCache>();
  /** Commands waiting per stream; the first is being run (see #drain). */
  readonly #queues = new Map<string, Queued[]>();
  readonly #retry: RetryPolicy;
  readonly #cacheSize: number;
  readonly #onAppended: ((position: bigint) => void) | undefined;
  readonly #cacheCounts: CacheCounts = { hits: 0, misses: 0, evictions: 0 };
  readonly #snapshots: SnapshotPolicy | null;
  readonly #snapshotWriter: SnapshotWriter | null;
  #snapshotsUsed = 0;
  #snapshotReadFailures = 0;
  readonly #snapshotsRefused: Record<SnapshotRefusal['reason'], number> = {
    'schema-version': 0,
    digest: 0,
    chain: 0,
    decode: 0,
  };

  constructor(
    readonly store: EventStore,
    options: CommandHandlerOptions = {},
  ) {
    this.#retry = options.retry ?? DEFAULT_RETRY;
    this.#cacheSize = options.cacheSize ?? 20_000;
    this.#onAppended = options.onAppended;
    this.#snapshots = options.snapshots ?? null;
    this.#snapshotWriter =
      this.#snapshots === null ? null : new SnapshotWriter(store, this.#snapshots);
    if (
      this.#snapshots !== null &&
      (!Number.isInteger(this.#snapshots.every) || this.#snapshots.every < 1)
    )
      throw new RangeError('snapshots.every must be a positive integer');
    if (!Number.isInteger(this.#retry.maxAttempts) || this.#retry.maxAttempts < 1)
      throw new RangeError('retry.maxAttempts must be a positive integer');
    if (!Number.isInteger(this.#cacheSize) || this.#cacheSize < 0)
      throw new RangeError('cacheSize must be a non-negative integer');
  }

  /** Folded states held in memory, over all aggregates (at most cacheSize per aggregate). */
  get cachedStates(): number {
    let held = 0;
    for (const cache of this.#caches.values()) held += cache.size;
    return held;
  }

  /** The state cache's and the snapshots' counters, for metrics. */
  stats(): CommandHandlerStats {
    const writer = this.#snapshotWriter;
    return {
      cache: { size: this.cachedStates, capacity: this.#cacheSize, ...this.#cacheCounts },
      snapshots: {
        used: this.#snapshotsUsed,
        refused: { ...this.#snapshotsRefused },
        written: writer?.written ?? 0,
        failures: (writer?.failures ?? 0) + this.#snapshotReadFailures,
      },
    };
  }

  /** Resolves once every snapshot queued so far is written (tests, shutdown). */
  flushSnapshots(): Promise<void> {
    return this.#snapshotWriter?.flush() ?? Promise.resolve();
  }

  /**
   * The state this process last saw of a stream, with no read: what a command decides on first.
   * The append's expected version then checks it is still the stream's head.
   */
  #cached<State>(aggregate: object, stream: string): Held<State> | undefined {
    return this.#cacheOf(aggregate).get(stream) as Held<State> | undefined;
  }

  /**
   * Asks a question of a stream's state before touching another stream (a guard of the decider,
   * ADR 0019), on the cached state when held, with no read. A refusal (a `DomainError`) on the
   * cached state is asked again on the stream as read, so a stale cache never refuses what the
   * stream allows. An answer the cache allows is confirmed later by the append on this stream,
   * with the cached revision as its expected version (ADR 0020, 0022): the caller must only use it
   * where that append comes, and where a refusal then is handled (the bet workflow's release).
   */
  async ask<Command, Event extends DomainEvent, State, Answer>(
    aggregate: Aggregate<Command, Event, State>,
    stream: string,
    question: (state: State) => Answer,
  ): Promise<Answer> {
    const cached = this.#cached<State>(aggregate, stream);
    if (cached !== undefined) {
      try {
        return question(cached.state);
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
      }
    }
    return question((await this.load(aggregate, stream)).state);
  }

  /**
   * Reads a stream and folds it through the decider: from the last state seen when cached, else
   * from the stream's last snapshot when the aggregate takes them, else from the first event.
   */
  async load<Command, Event extends DomainEvent, State>(
    aggregate: Aggregate<Command, Event, State>,
    stream: string,
  ): Promise<Loaded<State>> {
    const { state, revision } = await this.#load(aggregate, stream);
    return { state, revision };
  }

  async #load<Command, Event extends DomainEvent, State>(
    aggregate: Aggregate<Command, Event, State>,
    stream: string,
  ): Promise<Held<State>> {
    const cache = this.#cacheOf(aggregate);
    // Entries are keyed by aggregate: a cached state is this decider's state.
    const start =
      (cache.get(stream) as Held<State> | undefined) ??
      (await this.#fromSnapshot(aggregate, stream));
    const recorded = await this.store.readStream(
      stream,
      start?.revision == null ? {} : { from: start.revision + 1n },
    );
    let state = start?.state ?? aggregate.decider.initialState();
    for (const event of recorded) state = aggregate.decider.evolve(state, aggregate.parse(event));
    const revision = recorded.at(-1)?.revision ?? start?.revision ?? null;
    const held = { state, revision, snapshotAt: start?.snapshotAt ?? -1n };
    if (revision !== null) {
      const snapshotAt = this.#maybeSnapshot(
        aggregate,
        stream,
        held,
        recorded.at(-1)?.metadata['hash'],
      );
      cache.set(stream, state, revision, snapshotAt);
      return { ...held, snapshotAt };
    }
    return held;
  }

  /**
   * The stream's last snapshot, if the aggregate takes them and it agrees with the stream: the
   * event at its revision must still be stored with the hash it recorded, its digest must match
   * (an HMAC under the policy's key) and its version the aggregate's. Otherwise it is reported
   * and the stream is read whole. Costs one query, and the read of the events after it starts
   * at the snapshot's own event, which it checks.
   */
  async #fromSnapshot<Command, Event extends DomainEvent, State>(
    aggregate: Aggregate<Command, Event, State>,
    stream: string,
  ): Promise<Held<State> | undefined> {
    const policy = this.#snapshots;
    const encoding = aggregate.snapshot;
    if (policy === null || encoding === undefined) return undefined;
    let snapshot;
    try {
      snapshot = await policy.storage.latest(stream, aggregate.name);
    } catch (error) {
      this.#snapshotReadFailures++;
      policy.onError?.(error);
      return undefined;
    }
    if (snapshot === undefined) return undefined;
    let refusal: [SnapshotRefusal['reason'], string] | null = null;
    let state: State | undefined;
    if (snapshot.schemaVersion !== encoding.version)
      refusal = [
        'schema-version',
        `taken by version ${snapshot.schemaVersion} of the ${aggregate.name} snapshot, not ${encoding.version}`,
      ];
    else if (snapshotDigest(policy.key, snapshot) !== snapshot.digest)
      refusal = ['digest', 'the digest does not match the snapshot: it was changed'];
    else {
      const [event] = await this.store.readStream(stream, { from: snapshot.revision, limit: 1 });
      if (event?.revision !== snapshot.revision)
        refusal = ['chain', `the stream holds no event at revision ${snapshot.revision}`];
      else if (event.metadata['hash'] !== snapshot.eventHash)
        refusal = [
          'chain',
          `the event at revision ${snapshot.revision} has another hash than the snapshot recorded`,
        ];
      else {
        try {
          state = encoding.decode(snapshot.state);
        } catch (error) {
          refusal = ['decode', error instanceof Error ? error.message : String(error)];
        }
      }
    }
    if (refusal !== null || state === undefined) {
      const [reason, detail] = refusal ?? ['decode', 'decode answered no state'];
      this.#snapshotsRefused[reason]++;
      policy.onRefused?.({
        stream,
        aggregate: aggregate.name,
        revision: snapshot.revision,
        reason,
        detail,
      });
      return undefined;
    }
    this.#snapshotsUsed++;
    return { state, revision: snapshot.revision, snapshotAt: snapshot.revision };
  }

  /**
   * Queues a snapshot of the stream when it has moved `every` events past its last one (the
   * write happens off the command path); answers the revision of the last snapshot now known.
   */
  #maybeSnapshot<Command, Event extends DomainEvent, State>(
    aggregate: Aggregate<Command, Event, State>,
    stream: string,
    held: Held<State>,
    eventHash?: unknown,
  ): bigint {
    const policy = this.#snapshots;
    const encoding = aggregate.snapshot;
    if (
      policy === null ||
      encoding === undefined ||
      held.revision === null ||
      held.revision - held.snapshotAt < BigInt(policy.every)
    )
      return held.snapshotAt;
    this.#snapshotWriter!.queue({
      stream,
      aggregate: aggregate.name,
      schemaVersion: encoding.version,
      revision: held.revision,
      state: encoding.encode(held.state),
      eventHash: typeof eventHash === 'string' ? eventHash : undefined,
    });
    return held.revision;
  }

  /** Decides `command` on the stream's current state and appends what it decided. */
  handle<Command, Event extends DomainEvent, State>(
    aggregate: Aggregate<Command, Event, State>,
    stream: string,
    command: Command | ((state: State) => Command),
    context: CommandContext,
    options: HandleOptions<Event> = {},
  ): Promise<Handled<Event, State>> {
    return new Promise((resolve, reject) => {
      const queued: Queued = {
        aggregate,
        command,
        context,
        options: options as HandleOptions<DomainEvent>,
        resolve: resolve as Queued['resolve'],
        reject,
      };
      const queue = this.#queues.get(stream);
      if (queue !== undefined) {
        queue.push(queued);
        return;
      }
      this.#queues.set(stream, [queued]);
      void this.#drain(stream);
    });
  }
  #cacheOf(aggregate: object): StateCache {
    let cache = this.#caches.get(aggregate);
    if (cache === undefined) {
      cache = new StateCache(this.#cacheSize, this.#cacheCounts);
      this.#caches.set(aggregate, cache);
    }
    return cache;
  }

  /**
   * Commands on one stream run one after another within the process: concurrent requests on a
   * hot stream (a player's wallet, a round taking bets) then never lose their work to a version
   * conflict they raised against each other. Across processes the expected version decides.
   *
   * Commands that queued up while the stream was busy are decided together, each on the state the
   * ones before it leave, and appended as one batch (ADR 0022): seven players betting into a
   * round at once cost two appends, not seven. Only what the batch can confirm by its append is
   * taken in it; a command refused or deciding nothing there, and every command of a batch whose
   * append fails, is run again alone, as if it had never been batched (a failed append wrote
   * nothing).
   */
  async #drain(stream: string): Promise<void> {
    const queue = this.#queues.get(stream)!;
    try {
      while (queue.length > 0) {
        const first = queue[0]!;
        let size = 1;
        while (
          size < queue.length &&
          size < MAX_BATCH &&
          queue[size]!.aggregate === first.aggregate
        )
          size++;
        const batch = queue.splice(0, size);
        if (batch.length === 1) await this.#runAlone(stream, first);
        else {
          await this.#runBatch(stream, batch).catch((error: unknown) => {
            // Not a command's own failure (those are each command's answer): answer every one
            // still waiting with it; an answered promise ignores a second answer.
            for (const queued of batch) queued.reject(error);
          });
        }
      }
    } finally {
      this.#queues.delete(stream);
    }
  }

  async #runAlone(stream: string, queued: Queued): Promise<void> {
    try {
      queued.resolve(
        await this.#decideAndAppend(
          queued.aggregate,
          stream,
          queued.command,
          queued.context,
          queued.options,
        ),
      );
    } catch (error) {
      queued.reject(error);
    }
  }

  async #runBatch(stream: string, batch: readonly Queued[]): Promise<void> {
    const aggregate = batch[0]!.aggregate;
    const cached =
      this.#cached<unknown>(aggregate, stream) ??
      (batch[0]!.options.expectNew === true
        ? { state: aggregate.decider.initialState(), revision: null, snapshotAt: -1n }
        : undefined);
    if (cached === undefined) {
      // Nothing seen of the stream: the first command reads it, the rest batch after it.
      await this.#runAlone(stream, batch[0]!);
      return this.#runBatchOrAlone(stream, batch.slice(1));
    }
    // Decide each on the state the ones before it leave; keep only what an append confirms.
    let state = cached.state;
    const taken: { queued: Queued; events: readonly DomainEvent[]; state: unknown }[] = [];
    const alone: Queued[] = [];
    for (const queued of batch) {
      let events: readonly DomainEvent[];
      try {
        const command =
          typeof queued.command === 'function'
            ? (queued.command as (state: unknown) => unknown)(state)
            : queued.command;
        events = aggregate.decider.decide(command, state);
        this.#check(aggregate, events);
      } catch {
        alone.push(queued); // refused here: judged again alone, on the stream as read
        continue;
      }
      if (events.length === 0) {
        alone.push(queued); // nothing to do, as far as the cache knows: alone, it reads
        continue;
      }
      for (const event of events) state = aggregate.decider.evolve(state, event);
      taken.push({ queued, events, state });
    }
    if (taken.length > 0) {
      const total = taken.reduce((sum, t) => sum + t.events.length, 0);
      const records = taken.flatMap(({ queued, events }) => {
        const ids = queued.options.eventIds?.(events) ?? events.map(() => randomId());
        const metadata = metadataOf(queued.context);
        return events.map((event, index) => ({
          id: ids[index]!,
          type: event.type,
          data: event.data,
          metadata,
        }));
      });
      let result: AppendResult | null;
      try {
        result = await this.store.append(stream, records, {
          expectedVersion: cached.revision ?? 'no-stream',
        });
      } catch {
        result = null; // a conflict, an id stored already, the store away: each alone
      }
      if (result === null || result.idempotent) {
        alone.unshift(...taken.map((t) => t.queued));
      } else {
        const snapshotAt = this.#maybeSnapshot(aggregate, stream, {
          state,
          revision: result.revision,
          snapshotAt: cached.snapshotAt,
        });
        this.#cacheOf(aggregate).set(stream, state, result.revision, snapshotAt);
        let appended = 0;
        for (const { queued, events, state: after } of taken) {
          appended += events.length;
          queued.resolve({
            events,
            state: after,
            revision: result.revision - BigInt(total - appended),
            position: result.position,
          });
        }
      }
    }
    for (const queued of alone) await this.#runAlone(stream, queued);
  }

  #runBatchOrAlone(stream: string, batch: readonly Queued[]): Promise<void> {
    if (batch.length === 0) return Promise.resolve();
    if (batch.length === 1) return this.#runAlone(stream, batch[0]!);
    return this.#runBatch(stream, batch);
  }

  /** What a decider decided may be appended: its own event types, each one its schema reads. */
  #check(aggregate: Aggregate<unknown, DomainEvent, unknown>, events: readonly DomainEvent[]) {
    const foreign = events.find((event) => !aggregate.writes.includes(event.type));
    if (foreign !== undefined) {
      throw new Error(
        `${aggregate.name} decided ${foreign.type}, an event type it does not write (ADR 0014)`,
      );
    }
    // What is appended must read back: an event its own schema refuses would stop every
    // reader of the stream (a projection never skips an event), so it is never stored.
    for (const event of events) {
      try {
        aggregate.parse(event);
      } catch (error) {
        throw new Error(
          `${aggregate.name} decided a ${event.type} its schema refuses; nothing was appended`,
          { cause: error },
        );
      }
    }
  }

  async #decideAndAppend<Command, Event extends DomainEvent, State>(
    aggregate: Aggregate<Command, Event, State>,
    stream: string,
    command: Command | ((state: State) => Command),
    context: CommandContext,
    options: HandleOptions<Event>,
  ): Promise<Handled<Event, State>> {
    const { maxAttempts, backoff } = this.#retry;
    for (let attempt = 1; ; attempt++) {
      // First from the cache (no round trip); after a conflict, from the store.
      // A stream expected to be new is decided on the initial state: `no-stream` confirms it.
      const cached =
        attempt === 1
          ? (this.#cached<State>(aggregate, stream) ??
            (options.expectNew === true
              ? { state: aggregate.decider.initialState(), revision: null, snapshotAt: -1n }
              : undefined))
          : undefined;
      const loaded = cached ?? (await this.#load(aggregate, stream));
      let events: readonly Event[];
      try {
        const resolved =
          typeof command === 'function'
            ? (command as (state: State) => Command)(loaded.state)
            : command;
        events = aggregate.decider.decide(resolved, loaded.state);
      } catch (error) {
        if (cached !== undefined) continue; // refused on what this process saw: read, then judge
        throw error;
      }
      this.#check(aggregate, events);
      if (events.length === 0) {
        if (cached !== undefined) continue; // nothing to do, as far as the cache knows: read
        return { events, state: loaded.state, revision: loaded.revision, position: null };
      }
      const ids = options.eventIds?.(events) ?? events.map(() => randomId());
      const metadata = metadataOf(context);
      try {
        const result = await this.store.append(
          stream,
          events.map((event, index) => ({
            id: ids[index]!,
            type: event.type,
            data: event.data,
            metadata,
          })),
          { expectedVersion: loaded.revision ?? 'no-stream' },
        );
        this.#onAppended?.(result.position);
        if (result.idempotent) {
          // The stream already held these events: an earlier attempt of this step recorded them,
          // and the stream may have moved on since. Report it as it now is.
          const current = await this.load(aggregate, stream);
          return { events: [], state: current.state, revision: current.revision, position: null };
        }
        let state = loaded.state;
        for (const event of events) state = aggregate.decider.evolve(state, event);
        const snapshotAt = this.#maybeSnapshot(aggregate, stream, {
          state,
          revision: result.revision,
          snapshotAt: loaded.snapshotAt,
        });
        this.#cacheOf(aggregate).set(stream, state, result.revision, snapshotAt);
        return { events, state, revision: result.revision, position: result.position };
      } catch (error) {
        if (error instanceof DuplicateEventIdError) {
          // A deterministic id names one fact. Held by another stream, it is another fact: the
          // command reused an id (a bet id, a reference) that is not its own.
          if (error.storedIn !== undefined && error.storedIn.stream !== stream) {
            throw new DomainError(
              'ID_CONFLICT',
              'an id given with this command already names another record; nothing was changed',
              { eventId: error.eventId },
            );
          }
          // Held by this stream: an earlier attempt of this step recorded it. The command is
          // done; report the stream as it now is.
          const current = await this.load(aggregate, stream);
          return { events: [], state: current.state, revision: current.revision, position: null };
        }
        if (!(error instanceof WrongExpectedVersionError)) throw error;
        // The cache was behind (another process wrote): read what it missed, decide again now.
        if (cached !== undefined && attempt < maxAttempts) continue;
        if (attempt >= maxAttempts) {
          throw new DomainError(
            'CONCURRENCY_CONFLICT',
            `${stream} kept changing while this command was decided (${maxAttempts} attempts); try again`,
          );
        }
        // Another process appended first: back off a little, and decide again.
        await new Promise((resolve) => setTimeout(resolve, backoff(attempt)));
      }
    }
  }
}
