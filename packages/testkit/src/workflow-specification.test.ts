import { AssertionError } from 'node:assert';
import { describe, expect, it } from 'vitest';
import { workflowSpecification, type WorkflowLike } from './workflow-specification.js';

/** A transfer: debit one account, then credit the other; a refused credit reverses the debit. */
type Input =
  { type: 'TransferRequested'; amount: number } | { type: 'Debited' } | { type: 'CreditRefused' };
type Output = { type: 'Debit' | 'Credit' | 'Reverse'; amount: number };

const transfer: WorkflowLike<Input, Output, { amount: number }> = {
  initialState: () => ({ amount: 0 }),
  evolve: (state, message) =>
    message.type === 'TransferRequested' ? { amount: message.amount } : state,
  decide: (input, state) => {
    switch (input.type) {
      case 'TransferRequested':
        if (input.amount <= 0) throw Object.assign(new Error('nothing'), { code: 'NO_AMOUNT' });
        return [{ type: 'Debit', amount: input.amount }];
      case 'Debited':
        return [{ type: 'Credit', amount: state.amount }];
      case 'CreditRefused':
        return [{ type: 'Reverse', amount: state.amount }];
    }
  },
};

const spec = workflowSpecification(transfer);

describe('workflowSpecification', () => {
  it('folds the messages received and sent, and compares what the workflow sends next', () => {
    const history = [
      { type: 'TransferRequested', amount: 5 } as const,
      { type: 'Debit', amount: 5 } as const,
    ];
    spec
      .given(history)
      .when({ type: 'Debited' })
      .then([{ type: 'Credit', amount: 5 }]);
    spec
      .given(history)
      .when({ type: 'CreditRefused' })
      .then([{ type: 'Reverse', amount: 5 }]);
    expect(spec.stateAfter(history)).toEqual({ amount: 5 });
  });

  it('fails when the messages differ, or a refusal was expected and none came', () => {
    expect(() => {
      spec.when({ type: 'TransferRequested', amount: 5 }).then([{ type: 'Debit', amount: 4 }]);
    }).toThrow(AssertionError);
    expect(() =>
      spec.when({ type: 'TransferRequested', amount: 5 }).thenThrows({ code: 'NO_AMOUNT' }),
    ).toThrow(/expected the message to be refused/);
  });

  it('matches a refusal by its code', () => {
    spec.when({ type: 'TransferRequested', amount: 0 }).thenThrows({ code: 'NO_AMOUNT' });
    expect(() =>
      spec.when({ type: 'TransferRequested', amount: 0 }).thenThrows({ code: 'OTHER' }),
    ).toThrow(AssertionError);
  });
});
