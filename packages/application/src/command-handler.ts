import { DomainError } from '@croupier/contracts';
import {
  DuplicateEventIdError,
  WrongExpectedVersionError,
  type Decider,
  type EventStore,
  type RecordedEvent,
} from '@croupier/eventstore';
import { metadataOf, type CommandContext } from './context.js';
import { randomId } from './ids.js';

/** A domain event as deciders produce it: a type and its data. */
export interface DomainEvent {
  readonly type: string;
  readonly data: unknown;
}

/** One stream kind: its decider and how to read its events back from the store. */
export interface Aggregate<Command, Event extends DomainEvent, State> {
  readonly decider: Decider<Command, Event, State>;
  /** Validates a stored event into the decider's event type (throws on a corrupt one). */
  readonly parse: (recorded: RecordedEvent) => Event;
}

export interface Loaded<State> {
  readonly state: State;
  /** Revision of the last event, or null when the stream does not exist. */
  readonly revision: bigint | null;
}

/**
 * The last folded state of recently used streams, per store and aggregate. Streams only grow,
 * so a cached state stays true up to its revision: a load reads just the events after it. This
 * keeps a long-lived stream (a player's wallet) as cheap to decide on as a new one.
 */
class StateCache {
  private readonly entries = new Map<string, { state: unknown; revision: bigint }>();

  constructor(private readonly capacity: number) {}

  get(key: string): { state: unknown; revision: bigint } | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry); // most recently used last
    return entry;
  }

  set(key: string, state: unknown, revision: bigint): void {
    const current = this.entries.get(key);
    if (current !== undefined && current.revision >= revision) return;
    this.entries.delete(key);
    this.entries.set(key, { state, revision });
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
  }
}

const caches = new WeakMap<EventStore, WeakMap<object, StateCache>>();
const STATE_CACHE_STREAMS = 20_000;

function cacheFor(store: EventStore, aggregate: object): StateCache {
  let byAggregate = caches.get(store);
  if (byAggregate === undefined) {
    byAggregate = new WeakMap();
    caches.set(store, byAggregate);
  }
  let cache = byAggregate.get(aggregate);
  if (cache === undefined) {
    cache = new StateCache(STATE_CACHE_STREAMS);
    byAggregate.set(aggregate, cache);
  }
  return cache;
}

/** Reads a stream and folds it through the decider (from the last state seen, when cached). */
export async function load<Command, Event extends DomainEvent, State>(
  store: EventStore,
  aggregate: Aggregate<Command, Event, State>,
  stream: string,
): Promise<Loaded<State>> {
  const cache = cacheFor(store, aggregate);
  // Entries are keyed by aggregate: a cached state is this decider's state.
  const cached = cache.get(stream) as { state: State; revision: bigint } | undefined;
  const recorded = await store.readStream(
    stream,
    cached === undefined ? {} : { from: cached.revision + 1n },
  );
  let state = cached?.state ?? aggregate.decider.initialState();
  for (const event of recorded) state = aggregate.decider.evolve(state, aggregate.parse(event));
  const revision = recorded.at(-1)?.revision ?? cached?.revision ?? null;
  if (revision !== null) cache.set(stream, state, revision);
  return { state, revision };
}

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
  /** How many times to re-read and re-decide after a concurrent append. Default 10. */
  readonly maxAttempts?: number;
}

/**
 * The one command handler: read the stream, fold, decide, append with the revision read, and on
 * a concurrent append read again and decide again, a bounded number of times. A domain error
 * from `decide` rejects the command with nothing appended. With deterministic event ids, a step
 * retried after a crash finds its events already stored and changes nothing.
 */
export function handle<Command, Event extends DomainEvent, State>(
  store: EventStore,
  aggregate: Aggregate<Command, Event, State>,
  stream: string,
  command: Command | ((state: State) => Command),
  context: CommandContext,
  options: HandleOptions<Event> = {},
): Promise<Handled<Event, State>> {
  return serialized(store, stream, () =>
    decideAndAppend(store, aggregate, stream, command, context, options),
  );
}

/**
 * Commands on one stream run one after another within a process: concurrent requests on a hot
 * stream (a player's wallet, a round taking bets) then never lose their work to a version
 * conflict they raised against each other. Across processes, the expected version still decides.
 */
const queues = new WeakMap<EventStore, Map<string, Promise<unknown>>>();

async function serialized<T>(
  store: EventStore,
  stream: string,
  work: () => Promise<T>,
): Promise<T> {
  let byStream = queues.get(store);
  if (byStream === undefined) {
    byStream = new Map();
    queues.set(store, byStream);
  }
  const previous = byStream.get(stream) ?? Promise.resolve();
  const current = previous.then(work, work);
  const tail = current.then(
    () => undefined,
    () => undefined,
  );
  byStream.set(stream, tail);
  try {
    return await current;
  } finally {
    if (byStream.get(stream) === tail) byStream.delete(stream);
  }
}

async function decideAndAppend<Command, Event extends DomainEvent, State>(
  store: EventStore,
  aggregate: Aggregate<Command, Event, State>,
  stream: string,
  command: Command | ((state: State) => Command),
  context: CommandContext,
  options: HandleOptions<Event>,
): Promise<Handled<Event, State>> {
  const attempts = options.maxAttempts ?? 10;
  for (let attempt = 1; ; attempt++) {
    const loaded = await load(store, aggregate, stream);
    const resolved =
      typeof command === 'function'
        ? (command as (state: State) => Command)(loaded.state)
        : command;
    const events = aggregate.decider.decide(resolved, loaded.state);
    if (events.length === 0) {
      return { events, state: loaded.state, revision: loaded.revision, position: null };
    }
    const ids = options.eventIds?.(events) ?? events.map(() => randomId());
    const metadata = metadataOf(context);
    try {
      const result = await store.append(
        stream,
        events.map((event, index) => ({
          id: ids[index]!,
          type: event.type,
          data: event.data,
          metadata,
        })),
        { expectedVersion: loaded.revision ?? 'no-stream' },
      );
      if (loaded.revision !== null && result.revision <= loaded.revision) {
        // The store recognized these event ids as already in the stream: a retried step.
        return { events: [], state: loaded.state, revision: loaded.revision, position: null };
      }
      let state = loaded.state;
      for (const event of events) state = aggregate.decider.evolve(state, event);
      cacheFor(store, aggregate).set(stream, state, result.revision);
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
        // Held by this stream: an earlier attempt of this step recorded it. The command is done;
        // report the stream as it now is.
        const current = await load(store, aggregate, stream);
        return { events: [], state: current.state, revision: current.revision, position: null };
      }
      if (!(error instanceof WrongExpectedVersionError)) throw error;
      if (attempt >= attempts) {
        throw new DomainError(
          'CONCURRENCY_CONFLICT',
          `${stream} kept changing while this command was decided (${attempts} attempts); try again`,
        );
      }
      // Another process appended first: back off a little, with jitter, and decide again.
      await new Promise((resolve) =>
        setTimeout(resolve, Math.random() * Math.min(200, 5 * 2 ** attempt)),
      );
    }
  }
}
