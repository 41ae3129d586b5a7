import assert from 'node:assert/strict';

/**
 * The decider shape (the same as `Decider` in @croupier/eventstore, declared structurally here so
 * testkit does not depend on the event store and the workspace graph has no cycle).
 */
export interface DeciderLike<Command, Event, State> {
  decide(command: Command, state: State): readonly Event[];
  evolve(state: State, event: Event): State;
  initialState(): State;
}

/** An error class, or the stable `code` (and optionally more fields) the thrown error must carry. */
export type ExpectedError =
  | (abstract new (...args: never[]) => Error)
  | ({ readonly code: string } & Readonly<Record<string, unknown>>);

export interface WhenClause<Event> {
  /** Asserts that the command produced exactly these events (deep, strict equality). */
  then(expected: readonly Event[]): void;
  /** Asserts that the command was rejected with that error class or `code`; returns the error. */
  thenThrows(expected: ExpectedError): Error;
}

export interface GivenClause<Command, Event> {
  when(command: Command): WhenClause<Event>;
}

export interface DeciderSpecification<Command, Event, State> {
  given(events: readonly Event[]): GivenClause<Command, Event>;
  /** Shorthand for `given([])`. */
  when(command: Command): WhenClause<Event>;
  /** The state the decider folds from these events (to assert on `evolve`). */
  stateAfter(events: readonly Event[]): State;
}

/**
 * `given(events).when(command).then(events)` / `.thenThrows(error)` for a decider, with
 * node:assert so it works under any test runner. `decide` runs lazily in `then`/`thenThrows`.
 */
export function deciderSpecification<Command, Event, State>(
  decider: DeciderLike<Command, Event, State>,
): DeciderSpecification<Command, Event, State> {
  const stateAfter = (events: readonly Event[]): State =>
    events.reduce((state, event) => decider.evolve(state, event), decider.initialState());
  const given = (history: readonly Event[]): GivenClause<Command, Event> => ({
    when: (command) => ({
      then(expected) {
        const produced = decider.decide(command, stateAfter(history));
        assert.deepStrictEqual(produced, expected);
      },
      thenThrows(expected) {
        let produced: readonly Event[];
        try {
          produced = decider.decide(command, stateAfter(history));
        } catch (error) {
          assertMatches(error, expected);
          return error as Error;
        }
        assert.fail(
          `expected the command to be rejected (${describeExpected(expected)}), but it produced ${JSON.stringify(produced)}`,
        );
      },
    }),
  });
  return { given, when: (command) => given([]).when(command), stateAfter };
}

export function describeExpected(expected: ExpectedError): string {
  return typeof expected === 'function' ? expected.name : JSON.stringify(expected);
}

export function assertMatches(error: unknown, expected: ExpectedError): void {
  if (typeof expected === 'function') {
    if (!(error instanceof expected)) {
      assert.fail(
        `expected ${expected.name}, got ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`,
      );
    }
    return;
  }
  if (error === null || typeof error !== 'object') {
    assert.fail(`expected an error with code ${expected.code}, got ${String(error)}`);
  }
  const actual = error as Record<string, unknown>;
  for (const [key, value] of Object.entries(expected)) {
    assert.deepStrictEqual(actual[key], value, `error.${key}`);
  }
}
