import { DomainError } from '@croupier/contracts';
import {
  DuplicateEventIdError,
  WrongExpectedVersionError,
  type Backoff,
  type EventStore,
} from '@croupier/eventstore';
import { metadataOf, type CommandContext } from '../context.js';
import { randomId } from '../ids.js';
import {
  checkDecided,
  type Aggregate,
  type DomainEvent,
  type Handled,
  type HandleOptions,
} from './aggregate.js';
import type { StreamStates } from './stream-states.js';

export interface RetryPolicy {
  /** Reads and decisions in all, the first included, before CONCURRENCY_CONFLICT. */
  readonly maxAttempts: number;
  /** The wait before each next attempt. */
  readonly backoff: Backoff;
}

/** What deciding and appending one command needs of the handler that composes it. */
export interface Appending {
  readonly store: EventStore;
  readonly states: StreamStates;
  readonly retry: RetryPolicy;
  readonly onAppended: ((position: bigint) => void) | undefined;
}

/**
 * Decides one command and appends what it decided, with the revision it was decided on as the
 * expected version. First on the cached state (no round trip); a refusal, a decision to do
 * nothing or a conflict on it is taken again on the stream as read (ADR 0020). After another
 * process appended first, it backs off and decides again, as the retry policy says.
 */
export async function decideAndAppend<Command, Event extends DomainEvent, State>(
  { store, states, retry, onAppended }: Appending,
  aggregate: Aggregate<Command, Event, State>,
  stream: string,
  command: Command | ((state: State) => Command),
  context: CommandContext,
  options: HandleOptions<Event>,
): Promise<Handled<Event, State>> {
  const { maxAttempts, backoff } = retry;
  for (let attempt = 1; ; attempt++) {
    // First from the cache (no round trip); after a conflict, from the store.
    // A stream expected to be new is decided on the initial state: `no-stream` confirms it.
    const cached =
      attempt === 1
        ? (states.cached<State>(aggregate, stream) ??
          (options.expectNew === true
            ? { state: aggregate.decider.initialState(), revision: null, snapshotAt: -1n }
            : undefined))
        : undefined;
    const loaded = cached ?? (await states.load(aggregate, stream));
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
    checkDecided(aggregate, events);
    if (events.length === 0) {
      if (cached !== undefined) continue; // nothing to do, as far as the cache knows: read
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
      onAppended?.(result.position);
      if (result.idempotent) {
        // The stream already held these events: an earlier attempt of this step recorded them,
        // and the stream may have moved on since. Report it as it now is.
        const current = await states.load(aggregate, stream);
        return { events: [], state: current.state, revision: current.revision, position: null };
      }
      let state = loaded.state;
      for (const event of events) state = aggregate.decider.evolve(state, event);
      states.keep(aggregate, stream, {
        state,
        revision: result.revision,
        snapshotAt: loaded.snapshotAt,
      });
      states.appended(aggregate, stream, loaded.revision, events, result.revision);
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
        const current = await states.load(aggregate, stream);
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
