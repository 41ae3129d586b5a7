import type { RecordedEvent } from '@croupier/eventstore';
import type { Decider } from '../decider.js';
import type { AggregateSnapshots } from '../snapshots.js';

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

export interface Loaded<State> {
  readonly state: State;
  /** Revision of the last event, or null when the stream does not exist. */
  readonly revision: bigint | null;
}

/** A loaded state and the revision of the stream's last snapshot known (-1n: none). */
export interface Held<State> extends Loaded<State> {
  readonly snapshotAt: bigint;
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
  /**
   * The stream is expected not to exist yet (a round or shoe opened under its next number): when
   * it is not cached, decide on the initial state with no read and append with `no-stream`. If
   * the stream exists after all, the append conflicts and the command is decided again on the
   * stream as read, as for any stale cache (ADR 0020, 0022).
   */
  readonly expectNew?: boolean;
}

/** What a decider decided may be appended: its own event types, each one its schema reads. */
export function checkDecided(
  aggregate: Aggregate<unknown, DomainEvent, unknown>,
  events: readonly DomainEvent[],
): void {
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
