/**
 * The shape of every service's domain: pure functions, no I/O. Commands carry time, ids and
 * randomness. With the application's other building blocks (the command handler that runs it),
 * not in the event store, which stores events whatever decided them; not in testkit either, so
 * services depend on it at runtime without test code.
 */
export interface Decider<Command, Event, State> {
  /** Turns a command into the events it causes; throws a typed domain error to reject it. */
  decide(command: Command, state: State): readonly Event[];
  /** Applies one event to the state. */
  evolve(state: State, event: Event): State;
  /** The state of a stream that has no event. */
  initialState(): State;
}

/** Folds events into the state a decider sees. */
export function fold<Command, Event, State>(
  decider: Decider<Command, Event, State>,
  events: Iterable<Event>,
): State {
  let state = decider.initialState();
  for (const event of events) state = decider.evolve(state, event);
  return state;
}
