import { AssertionError } from 'node:assert';
import { describe, expect, it } from 'vitest';
import { deciderSpecification, type DeciderLike } from './decider-specification.js';

type Command = { type: 'Deposit'; amount: number } | { type: 'Withdraw'; amount: number };
type Event = { type: 'Deposited'; amount: number } | { type: 'Withdrawn'; amount: number };

class InsufficientFunds extends Error {
  readonly code = 'INSUFFICIENT_FUNDS';
  constructor(readonly shortBy: number) {
    super(`short by ${shortBy}`);
  }
}

const wallet: DeciderLike<Command, Event, { balance: number }> = {
  initialState: () => ({ balance: 0 }),
  evolve: (state, event) => ({
    balance: state.balance + (event.type === 'Deposited' ? event.amount : -event.amount),
  }),
  decide: (command, state) => {
    if (command.type === 'Deposit') return [{ type: 'Deposited', amount: command.amount }];
    if (command.amount > state.balance) throw new InsufficientFunds(command.amount - state.balance);
    return [{ type: 'Withdrawn', amount: command.amount }];
  },
};

const spec = deciderSpecification(wallet);

describe('deciderSpecification', () => {
  it('passes when the command yields exactly the expected events', () => {
    spec
      .given([{ type: 'Deposited', amount: 10 }])
      .when({ type: 'Withdraw', amount: 4 })
      .then([{ type: 'Withdrawn', amount: 4 }]);
    spec.when({ type: 'Deposit', amount: 1 }).then([{ type: 'Deposited', amount: 1 }]);
  });

  it('fails when the events differ', () => {
    expect(() => {
      spec.when({ type: 'Deposit', amount: 1 }).then([{ type: 'Deposited', amount: 2 }]);
    }).toThrow(AssertionError);
  });

  it('matches rejections by class or by code and fields, and returns the error', () => {
    const when = spec
      .given([{ type: 'Deposited', amount: 3 }])
      .when({ type: 'Withdraw', amount: 5 });
    expect(when.thenThrows(InsufficientFunds)).toBeInstanceOf(InsufficientFunds);
    when.thenThrows({ code: 'INSUFFICIENT_FUNDS', shortBy: 2 });
    expect(() => when.thenThrows({ code: 'BET_LIMIT_EXCEEDED' })).toThrow(AssertionError);
    expect(() => when.thenThrows(TypeError)).toThrow(/expected TypeError, got Error: short by 2/);
  });

  it('fails when a rejection was expected but events were produced', () => {
    expect(() => spec.when({ type: 'Deposit', amount: 1 }).thenThrows(InsufficientFunds)).toThrow(
      /expected the command to be rejected/,
    );
  });

  it('folds history for state assertions', () => {
    expect(
      spec.stateAfter([
        { type: 'Deposited', amount: 7 },
        { type: 'Withdrawn', amount: 2 },
      ]),
    ).toEqual({ balance: 5 });
  });
});
