import { randomUUID } from 'node:crypto';
import { CommandHandler } from '@croupier/application';
import { streams, type RoundEvent, type RoundRules } from '@croupier/contracts';
import { MemoryEventStore, type EventStore, type RecordedEvent } from '@croupier/eventstore';
import { afterEach, describe, expect, it } from 'vitest';
import { startSettlementReactor } from './settlement-reactor.js';

const RULES: RoundRules = {
  bets: {
    player: { min: 10, max: 10_000, maxRound: null },
    banker: { min: 10, max: 10_000, maxRound: null },
    tie: { min: 10, max: 1_000, maxRound: null },
  },
  playerBankerDifferenceLimit: null,
  bankerModes: ['commission'],
  commission: 'deducted',
  tieOdds: 8,
  seats: null,
};
/** A round with one banker bet, dealt and completed: what settlement is woken for. */
function completedRound(roundId: string): RoundEvent[] {
  return [
    {
      type: 'RoundOpened',
      data: {
        roundId,
        tableId: 't1',
        shoeId: 't1.1',
        number: Number(roundId.split('.')[2]),
        cardSource: 'rng',
        currency: 'EUR',
        rules: RULES,
        paytableId: 'a'.repeat(64),
        dealer: { dealerId: null, shiftId: '00000000-0000-4000-8000-0000000000d1' },
      },
    },
    {
      type: 'BetPlaced',
      data: {
        roundId,
        betId: randomUUID(),
        playerId: 'alice',
        type: 'banker',
        amount: 100,
        bankerMode: 'commission',
        seat: null,
        rebetOf: null,
      },
    },
    {
      type: 'RoundCompleted',
      data: {
        roundId,
        player: { cards: ['2C', '3D'], total: 5, natural: false, pair: false, perfectPair: false },
        banker: { cards: ['4H', '4S'], total: 8, natural: true, pair: true, perfectPair: false },
        winner: 'banker',
      },
    },
  ];
}

async function append(store: EventStore, roundId: string, events: readonly RoundEvent[]) {
  const stream = streams.round(roundId);
  const head = (await store.readStream(stream)).length;
  return store.append(
    stream,
    events.map((event) => ({ id: randomUUID(), type: event.type, data: event.data })),
    { expectedVersion: head === 0 ? 'no-stream' : BigInt(head - 1) },
  );
}

/**
 * The store as the reactor sees it: the appends to one stream held at a gate, the streams read
 * noted.
 */
function gatedAppends(
  store: EventStore,
  held: string,
  gate: () => Promise<void>,
  read: string[] = [],
): EventStore {
  return {
    append: async (stream, events, options) => {
      if (stream === held) await gate();
      return store.append(stream, events, options);
    },
    readStream: (stream, options) => {
      read.push(stream);
      return store.readStream(stream, options);
    },
    readAll: (options) => store.readAll(options),
    head: () => store.head(),
    subscribe: (options) => store.subscribe(options),
    verifyStream: (stream) => store.verifyStream(stream),
    close: () => store.close(),
  };
}

const recordTypes = (events: readonly RecordedEvent[]) =>
  events
    .map((event) => event.type)
    .filter((type) => ['RoundSettled', 'RoundResettled', 'BetsRefunded'].includes(type));

async function eventually(check: () => Promise<boolean> | boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('the settlement reactor, a page of rounds at once', () => {
  const stops: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const stop of stops.splice(0)) await stop();
  });

  it('settles the other rounds of a page while one is slow, stores no checkpoint past that one, retries it when it fails, and after a restart settles every round once', async () => {
    const store = new MemoryEventStore();
    const slow = 't1.1.1';
    const others = ['t1.1.2', 't1.1.3', 't1.1.4'];
    // The slow round first in the log, then the others: one page.
    const slowCompleted = await append(store, slow, completedRound(slow));
    for (const roundId of others) await append(store, roundId, completedRound(roundId));
    let release!: (outcome: 'fail') => void;
    const gate = new Promise<'fail'>((resolve) => {
      release = resolve;
    });
    let slowAttempts = 0;
    const errors: unknown[] = [];
    const before = startSettlementReactor(
      new CommandHandler(
        gatedAppends(store, streams.round(slow), async () => {
          slowAttempts += 1;
          await gate;
          throw new Error('the store refuses the slow round');
        }),
      ),
      (error) => errors.push(error),
      { concurrentRounds: 4 },
    );
    stops.push(() => before.stop());
    await eventually(async () => {
      for (const roundId of others)
        if (recordTypes(await store.readStream(streams.round(roundId))).length === 0) return false;
      return true;
    }, 'the other rounds settled');
    expect(slowAttempts).toBe(1);
    expect(recordTypes(await store.readStream(streams.round(slow)))).toEqual([]);
    // Not past the slow round's completion, which is still in its task.
    expect(before.position() ?? 0n).toBeLessThan(slowCompleted.position);
    // The slow round now fails: retried, as any failed event, never skipped.
    release('fail');
    await eventually(() => slowAttempts >= 2, 'a retry of the slow round');
    await before.stop();
    expect(errors.length).toBeGreaterThanOrEqual(1);
    expect(before.position() ?? 0n).toBeLessThan(slowCompleted.position);

    // A restart (a new process: its own handler and cache) on a store that accepts the round.
    const readAfter: string[] = [];
    const after = startSettlementReactor(
      new CommandHandler(gatedAppends(store, '', () => Promise.resolve(), readAfter)),
      (error) => {
        throw error;
      },
      { concurrentRounds: 4 },
    );
    stops.push(() => after.stop());
    await after.caughtUp();
    await eventually(
      async () => recordTypes(await store.readStream(streams.round(slow))).length === 1,
      'the slow round settled',
    );
    expect(recordTypes(await store.readStream(streams.round(slow)))).toEqual(['RoundSettled']);
    // The other rounds were delivered again (they follow the slow one in the log, so the stored
    // checkpoint is before them) and decided on again: settled once all the same.
    for (const roundId of others) {
      expect(readAfter).toContain(streams.round(roundId));
      expect(recordTypes(await store.readStream(streams.round(roundId)))).toEqual(['RoundSettled']);
    }
  });
});
