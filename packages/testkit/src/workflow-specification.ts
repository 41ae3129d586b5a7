import assert from 'node:assert/strict';
import { assertMatches, describeExpected, type ExpectedError } from './decider-specification.js';

/**
 * The workflow shape: `decide` answers a message (what a step's recipient said) on the
 * workflow's state with the next messages to send; `evolve` folds every message, received or
 * sent, into the state. Pure, so a workflow is tested without a store, a wallet or a clock.
 */
export interface WorkflowLike<Input, Output, State> {
  decide(input: Input, state: State): readonly Output[];
  evolve(state: State, message: Input | Output): State;
  initialState(): State;
}

export interface WorkflowWhenClause<Output> {
  /** Asserts that the workflow sends exactly these messages (deep, strict equality). */
  then(expected: readonly Output[]): void;
  /** Asserts that the workflow refused the message with that error class or `code`. */
  thenThrows(expected: ExpectedError): Error;
}

export interface WorkflowSpecification<Input, Output, State> {
  /** The messages received and sent so far, in order. */
  given(history: readonly (Input | Output)[]): {
    when(input: Input): WorkflowWhenClause<Output>;
  };
  when(input: Input): WorkflowWhenClause<Output>;
  /** The state these messages leave (to assert on `evolve`). */
  stateAfter(history: readonly (Input | Output)[]): State;
}

/** `given(messages).when(input).then(outputs)` / `.thenThrows(error)` for a workflow. */
export function workflowSpecification<Input, Output, State>(
  workflow: WorkflowLike<Input, Output, State>,
): WorkflowSpecification<Input, Output, State> {
  const stateAfter = (history: readonly (Input | Output)[]): State =>
    history.reduce((state, message) => workflow.evolve(state, message), workflow.initialState());
  const given = (history: readonly (Input | Output)[]) => ({
    when: (input: Input): WorkflowWhenClause<Output> => ({
      then(expected) {
        assert.deepStrictEqual(workflow.decide(input, stateAfter(history)), expected);
      },
      thenThrows(expected) {
        let sent: readonly Output[];
        try {
          sent = workflow.decide(input, stateAfter(history));
        } catch (error) {
          assertMatches(error, expected);
          return error as Error;
        }
        assert.fail(
          `expected the message to be refused (${describeExpected(expected)}), but the workflow sent ${JSON.stringify(sent)}`,
        );
      },
    }),
  });
  return { given, when: (input) => given([]).when(input), stateAfter };
}
