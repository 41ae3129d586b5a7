import type { EventStore } from '@croupier/eventstore';
import type { Aggregate, DomainEvent, Held } from './aggregate.js';
import type { StreamSnapshots } from './snapshotting.js';
import { StateCache, type CacheCounts } from './state-cache.js';

/**
 * The folded state of each stream, as this process last saw it: from the state cache when held,
 * else from the stream's last snapshot when the aggregate takes them, else from the first event;
 * each state kept after a load or an append, and snapshotted when due.
 */
export class StreamStates {
  readonly #caches = new Map<object, StateCache>();
  /** Aggregates whose states follow what other aggregates append (`follow`). */
  readonly #followers: {
    readonly aggregate: Aggregate<unknown, DomainEvent, unknown>;
    readonly streamPrefix: string;
  }[] = [];
  readonly counts: CacheCounts = { hits: 0, misses: 0, evictions: 0 };

  constructor(
    private readonly store: EventStore,
    /** Folded states kept per aggregate. */
    readonly capacity: number,
    private readonly snapshots: StreamSnapshots | null,
  ) {}

  /** Folded states held in memory, over all aggregates (at most `capacity` per aggregate). */
  get size(): number {
    let held = 0;
    for (const cache of this.#caches.values()) held += cache.size;
    return held;
  }

  /**
   * The state this process last saw of a stream, with no read: what a command decides on first.
   * The append's expected version then checks it is still the stream's head.
   */
  cached<State>(aggregate: object, stream: string): Held<State> | undefined {
    return this.#cacheOf(aggregate).get(stream) as Held<State> | undefined;
  }

  /**
   * Reads a stream and folds it through the decider: from the last state seen when cached, else
   * from the stream's last snapshot when the aggregate takes them, else from the first event.
   */
  async load<Command, Event extends DomainEvent, State>(
    aggregate: Aggregate<Command, Event, State>,
    stream: string,
  ): Promise<Held<State>> {
    // Entries are keyed by aggregate: a cached state is this decider's state.
    const start =
      this.cached<State>(aggregate, stream) ?? (await this.snapshots?.latest(aggregate, stream));
    const recorded = await this.store.readStream(
      stream,
      start?.revision == null ? {} : { from: start.revision + 1n },
    );
    let state = start?.state ?? aggregate.decider.initialState();
    for (const event of recorded) state = aggregate.decider.evolve(state, aggregate.parse(event));
    const revision = recorded.at(-1)?.revision ?? start?.revision ?? null;
    const held = { state, revision, snapshotAt: start?.snapshotAt ?? -1n };
    if (revision !== null) {
      const snapshotAt = this.keep(
        aggregate,
        stream,
        { ...held, revision },
        recorded.at(-1)?.metadata['hash'],
      );
      return { ...held, snapshotAt };
    }
    return held;
  }

  /**
   * Keeps a stream's state at a revision (after a load or an append), queueing a snapshot when
   * it has moved far enough past its last; answers the revision of its last snapshot now known.
   */
  keep<Command, Event extends DomainEvent, State>(
    aggregate: Aggregate<Command, Event, State>,
    stream: string,
    held: Held<State> & { readonly revision: bigint },
    eventHash?: unknown,
  ): bigint {
    const snapshotAt =
      this.snapshots?.maybeTake(aggregate, stream, held, eventHash) ?? held.snapshotAt;
    this.#cacheOf(aggregate).set(stream, held.state, held.revision, snapshotAt);
    return snapshotAt;
  }

  /**
   * Keeps `aggregate`'s state of every stream named with `streamPrefix` current as other
   * aggregates of this process append to it, so that its first command there needs no read
   * (settlement on the rounds the round service writes here). Each state is still confirmed by
   * the follower's own append, as any cached state (ADR 0020).
   */
  follow<Command, Event extends DomainEvent, State>(
    aggregate: Aggregate<Command, Event, State>,
    streamPrefix: string,
  ): void {
    if (this.#followers.some((f) => f.aggregate === aggregate && f.streamPrefix === streamPrefix))
      return;
    this.#followers.push({
      aggregate,
      streamPrefix,
    });
  }

  /**
   * `writer` appended `events` to `stream` at the expected version `expected` (null: the stream
   * was new), confirmed by the store, ending at `revision`. A follower holding the stream at
   * exactly `expected` (or any follower, for a new stream) folds them in: its state then is the
   * fold of the stream up to `revision`, as a read would give it. One holding another revision,
   * or nothing of an older stream, is left alone: it reads when it needs the stream.
   */
  appended(
    writer: object,
    stream: string,
    expected: bigint | null,
    events: readonly DomainEvent[],
    revision: bigint,
  ): void {
    for (const { aggregate, streamPrefix } of this.#followers) {
      if (aggregate === writer || !stream.startsWith(streamPrefix)) continue;
      const cache = this.#cacheOf(aggregate);
      const held =
        expected === null
          ? { state: aggregate.decider.initialState(), revision: null, snapshotAt: -1n }
          : cache.peek(stream);
      if (held === undefined || held.revision !== expected) continue;
      let state = held.state;
      try {
        // Parsed as a read of the stream would parse them: the follower's own schema.
        for (const event of events) state = aggregate.decider.evolve(state, aggregate.parse(event));
      } catch {
        // The writer's append stands whatever a follower makes of it: this one reads instead.
        continue;
      }
      cache.set(stream, state, revision, held.snapshotAt);
    }
  }

  #cacheOf(aggregate: object): StateCache {
    let cache = this.#caches.get(aggregate);
    if (cache === undefined) {
      cache = new StateCache(this.capacity, this.counts);
      this.#caches.set(aggregate, cache);
    }
    return cache;
  }
}
