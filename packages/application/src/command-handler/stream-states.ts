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

  #cacheOf(aggregate: object): StateCache {
    let cache = this.#caches.get(aggregate);
    if (cache === undefined) {
      cache = new StateCache(this.capacity, this.counts);
      this.#caches.set(aggregate, cache);
    }
    return cache;
  }
}
