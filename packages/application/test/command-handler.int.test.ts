import { DomainError } from '@croupier/contracts';
import { createEventStore, type EventStore } from '@croupier/eventstore';
import { isolatedPostgres, type IsolatedPostgres } from '@croupier/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CommandHandler, deterministicId, type Aggregate } from '../src/index.js';
import { add, aggregate, context, type Command, type Event } from './counter.js';

describe('the command handler on PostgreSQL', () => {
  let postgres: IsolatedPostgres;
  let store: EventStore;
  let other: EventStore; // a second process on the same database
  let commands: CommandHandler;
  let otherCommands: CommandHandler;
  beforeAll(async () => {
    postgres = await isolatedPostgres('app');
    const config = {
      kind: 'postgres',
      connectionString: postgres.connectionString,
      schema: postgres.schema,
    } as const;
    store = await createEventStore(config);
    other = await createEventStore(config);
    commands = new CommandHandler(store);
    otherCommands = new CommandHandler(other);
  });
  afterAll(async () => {
    await store.close();
    await other.close();
    await postgres.drop();
  });

  it('appends what the decider decides and refuses what it refuses, appending nothing', async () => {
    const handled = await commands.handle(aggregate, 'counter-a', add(5), context);
    expect(handled).toMatchObject({ state: 5, revision: 0n });
    await expect(
      commands.handle(aggregate, 'counter-a', add(10, 10), context),
    ).rejects.toMatchObject({ code: 'INSUFFICIENT_FUNDS' });
    expect(await store.readStream('counter-a')).toHaveLength(1);
    const [event] = await store.readStream('counter-a');
    expect(event!.metadata).toMatchObject({
      actor: { id: 'test', role: 'system' },
      schemaVersion: 1,
    });
  });

  it('runs concurrent commands on one stream one after another: none lost, the limit holds', async () => {
    const results = await Promise.allSettled(
      Array.from({ length: 60 }, () =>
        commands.handle(aggregate, 'counter-b', add(1, 50), context),
      ),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(50);
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(refused.every((r) => (r.reason as DomainError).code === 'INSUFFICIENT_FUNDS')).toBe(
      true,
    );
    expect((await commands.load(aggregate, 'counter-b')).state).toBe(50);
  });

  it('settles conflicts between processes by deciding again on the newer state', async () => {
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        (i % 2 === 0 ? commands : otherCommands)
          .handle(aggregate, 'counter-c', add(1, 15), context)
          .catch(() => 'refused'),
      ),
    );
    expect((await commands.load(aggregate, 'counter-c')).state).toBe(15);
    expect((await otherCommands.load(aggregate, 'counter-c')).state).toBe(15);
  });

  it('sees what another process appended after it cached a state', async () => {
    await commands.handle(aggregate, 'counter-d', add(1), context);
    expect((await commands.load(aggregate, 'counter-d')).state).toBe(1);
    await otherCommands.handle(aggregate, 'counter-d', add(2), context);
    expect(await commands.load(aggregate, 'counter-d')).toEqual({ state: 3, revision: 1n });
  });

  it('records a step with a deterministic id once, however often it is retried', async () => {
    const ids = () => [deterministicId('add', 'counter-e', 'step-1')];
    await commands.handle(aggregate, 'counter-e', add(7), context, { eventIds: ids });
    await commands.handle(aggregate, 'counter-e', add(1), context);
    // The same step again, after another event: the store recognizes its id.
    const retried = await commands.handle(aggregate, 'counter-e', add(7), context, {
      eventIds: ids,
    });
    expect(retried.events).toHaveLength(0);
    expect((await commands.load(aggregate, 'counter-e')).state).toBe(8);
  });

  it('refuses to append an event type its aggregate does not write, appending nothing', async () => {
    const rogue: Aggregate<Command, Event, number> = { ...aggregate, name: 'rogue', writes: [] };
    await expect(commands.handle(rogue, 'counter-h', add(1), context)).rejects.toThrow(
      /rogue decided Added, an event type it does not write/,
    );
    expect(await store.readStream('counter-h')).toHaveLength(0);
  });

  it('refuses an id another stream already holds: another fact, not a retry', async () => {
    const ids = () => [deterministicId('add', 'bet-7')];
    await commands.handle(aggregate, 'counter-f', add(3), context, { eventIds: ids });
    await expect(
      commands.handle(aggregate, 'counter-g', add(3), context, { eventIds: ids }),
    ).rejects.toMatchObject({ code: 'ID_CONFLICT' });
    expect(await store.readStream('counter-g')).toHaveLength(0);
    expect((await commands.load(aggregate, 'counter-f')).state).toBe(3);
  });
});

describe('deterministic ids', () => {
  it('are RFC 9562 version-5 UUIDs that any implementation reproduces', () => {
    // Python: uuid.uuid5(UUID('3f4c3a52-8c1e-4f8e-9d5b-2b0d8e6c7a11'), 'settlement\x1fround-1')
    expect(deterministicId('settlement', 'round-1')).toBe('431708b4-a66d-5c9b-9cd5-1acd042fa71b');
    expect(deterministicId('a')).toBe('8c5fb265-6eab-5ddc-b2bf-0581fc24b980');
    expect(deterministicId('a', 'b')).not.toBe(deterministicId('ab'));
  });
});
