import { DomainError, type CommandContext } from '@croupier/contracts';
import { systemContext, type Aggregate, type Decider } from '../src/index.js';

/** A counter that refuses to go above a limit: enough to exercise the command handler. */
export type Event = { type: 'Added'; data: { amount: number } };
export type Command = { type: 'Add'; amount: number; limit: number };

export const counter: Decider<Command, Event, number> = {
  initialState: () => 0,
  evolve: (total, event) => total + event.data.amount,
  decide: (command, total) => {
    if (total + command.amount > command.limit) {
      throw new DomainError(
        'INSUFFICIENT_FUNDS',
        `${total} + ${command.amount} is over ${command.limit}`,
      );
    }
    return [{ type: 'Added', data: { amount: command.amount } }];
  },
};

export const aggregate: Aggregate<Command, Event, number> = {
  name: 'counter',
  writes: ['Added'],
  decider: counter,
  parse: (recorded) => recorded as unknown as Event,
};

export const context: CommandContext = systemContext('test');

export const add = (amount: number, limit = 1_000_000): Command => ({
  type: 'Add',
  amount,
  limit,
});
