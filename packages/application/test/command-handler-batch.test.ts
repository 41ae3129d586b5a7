import { DomainError, type CommandContext } from '@croupier/contracts';
import {
  MemoryEventStore,
  type AppendOptions,
  type AppendResult,
  type NewEvent,
  type ReadStreamOptions,
  type RecordedEvent,
} from '@croupier/eventstore';
import { beforeEach, describe, expect, it } from 'vitest';
import { CommandHandler, systemContext, type Aggregate, type Decider } from '../src/index.js';

/** A balance that refuses to go below zero: whether a command stands depends on the ones before. */
type Event = { type: 'Moved'; data: { amount: number; ref: string } };
type Command = { type: 'Move'; amount: number; ref: string };
type State = { total: number; refs: string[] };
const balance: Decider<Command, Event, State> = {
  initialState: () => ({ total: 0, refs: [] }),
  evolve: (state, event) => ({
    total: state.total + event.data.amount,
    refs: [...state.refs, event.data.ref],
  }),
  decide: (command, state) => {
    if (state.refs.includes(command.ref)) return [];
    if (state.total + command.amount < 0)
      throw new DomainError('INSUFFICIENT_FUNDS', `${state.total} + ${command.amount} < 0`);
    return [{ type: 'Moved', data: { amount: command.amount, ref: command.ref } }];
  },
};
const aggregate: Aggregate<Command, Event, State> = {
  name: 'balance',
  writes: ['Moved'],
  decider: balance,
  parse: (recorded) => recorded as unknown as Event,
};
const context: CommandContext = systemContext('test');
const move = (amount: number, ref: string): Command => ({ type: 'Move', amount, ref });

/** The memory store, counting appends and stream reads. */
class CountingStore extends MemoryEventStore {
  appends = 0;
  reads = 0;
  override append(
    stream: string,
    events: readonly NewEvent[],
    options: AppendOptions,
  ): Promise<AppendResult> {
    this.appends++;
    return super.append(stream, events, options);
  }
  override readStream(stream: string, options?: ReadStreamOptions): Promise<RecordedEvent[]> {
    this.reads++;
    return super.readStream(stream, options);
  }
}

describe('commands queued on one stream, appended as one batch (ADR 0022)', () => {
  let store: CountingStore;
  let commands: CommandHandler;
  beforeEach(() => {
    store = new CountingStore();
    commands = new CommandHandler(store);
  });

  it('appends the commands that queued while the stream was busy in one append, each answered with its own events', async () => {
    await commands.handle(aggregate, 'b-1', move(100, 'fund'), context);
    const before = store.appends;
    const handled = await Promise.all(
      ['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((ref) =>
        commands.handle(aggregate, 'b-1', move(-1, ref), context),
      ),
    );
    // At most the first runs alone (if the stream was idle when it came); the rest queued behind
    // it and go in one append.
    expect(store.appends - before).toBeLessThanOrEqual(2);
    expect(handled.map((h) => h.events.map((e) => e.data.ref))).toEqual([
      ['a'],
      ['b'],
      ['c'],
      ['d'],
      ['e'],
      ['f'],
      ['g'],
    ]);
    expect(handled.map((h) => h.revision)).toEqual([1n, 2n, 3n, 4n, 5n, 6n, 7n]);
    expect(handled.map((h) => h.state.total)).toEqual([99, 98, 97, 96, 95, 94, 93]);
    const stored = await store.readStream('b-1');
    expect(stored.map((e) => (e.data as { ref: string }).ref)).toEqual([
      'fund',
      ...'abcdefg'.split(''),
    ]);
  });

  it('refuses, alone and on the stream as read, a command the ones before it in the batch make impossible', async () => {
    await commands.handle(aggregate, 'b-2', move(2, 'fund'), context);
    const results = await Promise.allSettled(
      ['a', 'b', 'c', 'd'].map((ref) => commands.handle(aggregate, 'b-2', move(-1, ref), context)),
    );
    expect(results.map((r) => r.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'rejected',
      'rejected',
    ]);
    expect(results[2]).toMatchObject({ reason: { code: 'INSUFFICIENT_FUNDS' } });
    expect((await store.readStream('b-2')).map((e) => e.type)).toHaveLength(3);
  });

  it('runs every command of a batch again alone when its append conflicts with another process', async () => {
    const otherProcess = new CommandHandler(store);
    await commands.handle(aggregate, 'b-3', move(10, 'fund'), context);
    // Another process moves the stream on; this one's cache is behind.
    await otherProcess.handle(aggregate, 'b-3', move(5, 'other'), context);
    const handled = await Promise.all(
      ['a', 'b', 'c'].map((ref) => commands.handle(aggregate, 'b-3', move(-5, ref), context)),
    );
    expect(handled.at(-1)?.state).toEqual({ total: 0, refs: ['fund', 'other', 'a', 'b', 'c'] });
    expect(await store.readStream('b-3')).toHaveLength(5);
  });

  it('keeps a command with an id stored already from failing the others of its batch', async () => {
    const id = '00000000-0000-4000-8000-0000000000b4';
    await commands.handle(aggregate, 'b-4', move(10, 'fund'), context);
    await commands.handle(aggregate, 'elsewhere', move(1, 'x'), context, { eventIds: () => [id] });
    const results = await Promise.allSettled([
      commands.handle(aggregate, 'b-4', move(-1, 'a'), context),
      commands.handle(aggregate, 'b-4', move(-1, 'b'), context),
      commands.handle(aggregate, 'b-4', move(-1, 'c'), context, { eventIds: () => [id] }),
      commands.handle(aggregate, 'b-4', move(-1, 'd'), context),
    ]);
    expect(results.map((r) => r.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'rejected',
      'fulfilled',
    ]);
    expect(results[2]).toMatchObject({ reason: { code: 'ID_CONFLICT' } });
    expect((await store.readStream('b-4')).map((e) => (e.data as { ref: string }).ref)).toEqual([
      'fund',
      'a',
      'b',
      'd',
    ]);
  });

  it('decides a stream expected to be new without reading it, and decides again when it exists', async () => {
    const before = store.reads;
    await commands.handle(aggregate, 'new-1', move(3, 'a'), context, { expectNew: true });
    expect(store.reads).toBe(before);
    // Written by another process: the `no-stream` append conflicts, the stream is read.
    await new CommandHandler(store).handle(aggregate, 'new-2', move(7, 'x'), context);
    const handled = await commands.handle(aggregate, 'new-2', move(3, 'a'), context, {
      expectNew: true,
    });
    expect(handled).toMatchObject({ state: { total: 10, refs: ['x', 'a'] }, revision: 1n });
  });

  it('asks a question on the cached state with no read, and a refusal again on the stream as read', async () => {
    const otherProcess = new CommandHandler(store);
    await commands.handle(aggregate, 'b-5', move(1, 'a'), context);
    const question = (state: State) => {
      if (state.total < 10) throw new DomainError('INSUFFICIENT_FUNDS', 'under 10');
      return state.total;
    };
    await otherProcess.handle(aggregate, 'b-5', move(20, 'b'), context);
    const reads = store.reads;
    // The cache says 1 (refused): the stream as read says 21.
    expect(await commands.ask(aggregate, 'b-5', question)).toBe(21);
    expect(store.reads).toBe(reads + 1);
    // Now held at 21: answered with no read.
    expect(await commands.ask(aggregate, 'b-5', question)).toBe(21);
    expect(store.reads).toBe(reads + 1);
  });
});
