import { DomainError, type CommandContext } from '@croupier/contracts';
import { MemoryEventStore, type ReadStreamOptions, type RecordedEvent } from '@croupier/eventstore';
import { beforeEach, describe, expect, it } from 'vitest';
import { CommandHandler, systemContext, type Aggregate, type Decider } from '../src/index.js';

/** A balance that refuses to go below zero: a refusal depends on the state decided on. */
type Event = { type: 'Moved'; data: { amount: number; ref: string } };
type Command = { type: 'Move'; amount: number; ref: string };
const balance: Decider<Command, Event, { total: number; refs: string[] }> = {
  initialState: () => ({ total: 0, refs: [] }),
  evolve: (state, event) => ({
    total: state.total + event.data.amount,
    refs: [...state.refs, event.data.ref],
  }),
  decide: (command, state) => {
    if (state.refs.includes(command.ref)) return []; // done already
    if (state.total + command.amount < 0)
      throw new DomainError('INSUFFICIENT_FUNDS', `${state.total} + ${command.amount} < 0`);
    return [{ type: 'Moved', data: { amount: command.amount, ref: command.ref } }];
  },
};
const aggregate: Aggregate<Command, Event, { total: number; refs: string[] }> = {
  name: 'balance',
  writes: ['Moved'],
  decider: balance,
  parse: (recorded) => recorded as unknown as Event,
};
/** A lamp: "switch it on" does nothing when it is on, so a stale "on" could hide a step. */
type LampEvent = { type: 'SwitchedOn' | 'SwitchedOff'; data: Record<string, never> };
const lamp: Aggregate<{ on: boolean }, LampEvent, boolean> = {
  name: 'lamp',
  writes: ['SwitchedOn', 'SwitchedOff'],
  decider: {
    initialState: () => false,
    evolve: (_, event) => event.type === 'SwitchedOn',
    decide: (command, on) =>
      command.on === on ? [] : [{ type: command.on ? 'SwitchedOn' : 'SwitchedOff', data: {} }],
  },
  parse: (recorded) => recorded as unknown as LampEvent,
};
const context: CommandContext = systemContext('test');
const move = (amount: number, ref: string): Command => ({ type: 'Move', amount, ref });

/** The memory store, counting the stream reads a command makes. */
class CountingStore extends MemoryEventStore {
  reads = 0;
  override readStream(stream: string, options?: ReadStreamOptions): Promise<RecordedEvent[]> {
    this.reads++;
    return super.readStream(stream, options);
  }
}

describe('the command handler deciding on its cached state (ADR 0020)', () => {
  let store: CountingStore;
  let commands: CommandHandler;
  let otherProcess: CommandHandler; // a second process writing the same streams
  beforeEach(() => {
    store = new CountingStore();
    commands = new CommandHandler(store);
    otherProcess = new CommandHandler(store);
  });

  it('decides on a stream it holds without reading it', async () => {
    await commands.handle(aggregate, 'b-1', move(10, 'a'), context);
    const before = store.reads;
    const handled = await commands.handle(aggregate, 'b-1', move(-4, 'b'), context);
    expect(store.reads).toBe(before);
    expect(handled).toMatchObject({ state: { total: 6 }, revision: 1n });
  });

  it('reads what another process appended and decides again when its append conflicts', async () => {
    await commands.handle(aggregate, 'b-2', move(10, 'a'), context);
    await otherProcess.handle(aggregate, 'b-2', move(5, 'b'), context);
    const handled = await commands.handle(aggregate, 'b-2', move(-12, 'c'), context);
    expect(handled).toMatchObject({ state: { total: 3, refs: ['a', 'b', 'c'] }, revision: 2n });
    expect(await store.readStream('b-2')).toHaveLength(3);
  });

  it('does not refuse on a stale cache: a refusal is judged again on the stream as read', async () => {
    await commands.handle(aggregate, 'b-3', move(1, 'a'), context);
    // Another process funds the balance; this one still holds a total of 1.
    await otherProcess.handle(aggregate, 'b-3', move(100, 'b'), context);
    const handled = await commands.handle(aggregate, 'b-3', move(-50, 'c'), context);
    expect(handled.state.total).toBe(51);
  });

  it('still refuses what the stream as read refuses, appending nothing', async () => {
    await commands.handle(aggregate, 'b-4', move(1, 'a'), context);
    await expect(commands.handle(aggregate, 'b-4', move(-2, 'b'), context)).rejects.toMatchObject({
      code: 'INSUFFICIENT_FUNDS',
    });
    expect(await store.readStream('b-4')).toHaveLength(1);
  });

  it('does not skip a step on a stale cache: "nothing to do" is judged again on the stream as read', async () => {
    await commands.handle(lamp, 'lamp-1', { on: true }, context);
    await otherProcess.handle(lamp, 'lamp-1', { on: false }, context);
    // This process still holds "on", where nothing is to be done; the lamp is off.
    const handled = await commands.handle(lamp, 'lamp-1', { on: true }, context);
    expect(handled).toMatchObject({ state: true, revision: 2n });
    expect((await store.readStream('lamp-1')).map((event) => event.type)).toEqual([
      'SwitchedOn',
      'SwitchedOff',
      'SwitchedOn',
    ]);
  });

  it('reports the stream as it now is when its append turns out to be a retry of stored events', async () => {
    const ids = () => ['00000000-0000-4000-8000-000000000001'];
    await commands.handle(aggregate, 'b-6', move(1, 'a'), context);
    // An earlier attempt of the next step was stored by another process, which then moved on.
    await otherProcess.handle(aggregate, 'b-6', move(2, 'b'), context, { eventIds: ids });
    await otherProcess.handle(aggregate, 'b-6', move(3, 'c'), context);
    const handled = await commands.handle(aggregate, 'b-6', move(2, 'b'), context, {
      eventIds: ids,
    });
    expect(handled).toMatchObject({
      events: [],
      state: { total: 6, refs: ['a', 'b', 'c'] },
      revision: 2n,
    });
  });
});

/** Reads the balance's stream and records what it saw: another aggregate of the same streams. */
type AuditEvent = Event | { type: 'Audited'; data: { total: number } };
const auditor: Aggregate<{ type: 'Audit' }, AuditEvent, { total: number; audited: number | null }> =
  {
    name: 'auditor',
    writes: ['Audited'],
    decider: {
      initialState: () => ({ total: 0, audited: null }),
      evolve: (state, event) =>
        event.type === 'Moved'
          ? { ...state, total: state.total + event.data.amount }
          : { ...state, audited: event.data.total },
      decide: (_, state) => [{ type: 'Audited', data: { total: state.total } }],
    },
    parse: (recorded) => recorded as unknown as AuditEvent,
  };

describe('an aggregate following what another appends in this process (ADR 0046)', () => {
  let store: CountingStore;
  let commands: CommandHandler;
  let otherProcess: CommandHandler;
  beforeEach(() => {
    store = new CountingStore();
    commands = new CommandHandler(store);
    otherProcess = new CommandHandler(store);
    commands.follow(auditor, 'b-');
  });

  it('decides with no read on a stream this process opened and wrote, alone and in batches', async () => {
    await commands.handle(aggregate, 'b-1', move(10, 'a'), context);
    // Queued together: decided and appended as one batch.
    await Promise.all([
      commands.handle(aggregate, 'b-1', move(5, 'b'), context),
      commands.handle(aggregate, 'b-1', move(-3, 'c'), context),
      commands.handle(aggregate, 'b-1', move(1, 'd'), context),
    ]);
    const before = store.reads;
    const handled = await commands.handle(auditor, 'b-1', { type: 'Audit' }, context);
    expect(store.reads).toBe(before);
    expect(handled).toMatchObject({ state: { total: 13, audited: 13 }, revision: 4n });
  });

  it('is confirmed by its append: behind another process, it reads and decides again', async () => {
    await commands.handle(aggregate, 'b-2', move(10, 'a'), context);
    await otherProcess.handle(aggregate, 'b-2', move(5, 'b'), context);
    const handled = await commands.handle(auditor, 'b-2', { type: 'Audit' }, context);
    expect(handled).toMatchObject({ state: { total: 15, audited: 15 }, revision: 2n });
    expect((await store.readStream('b-2')).at(-1)).toMatchObject({ data: { total: 15 } });
  });

  it('follows only the streams named with its prefix, and only from a state it holds', async () => {
    await commands.handle(aggregate, 'other-1', move(10, 'a'), context);
    // A stream written before this process followed it: nothing held, so it is read.
    await otherProcess.handle(aggregate, 'b-3', move(7, 'a'), context);
    await commands.handle(aggregate, 'b-3', move(1, 'b'), context);
    for (const stream of ['other-1', 'b-3']) {
      const before = store.reads;
      await commands.handle(auditor, stream, { type: 'Audit' }, context);
      expect(store.reads, stream).toBeGreaterThan(before);
    }
    expect((await store.readStream('b-3')).at(-1)).toMatchObject({ data: { total: 8 } });
  });
});
