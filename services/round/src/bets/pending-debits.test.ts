import { ProjectionRunner, randomId } from '@croupier/application';
import { MemoryEventStore, type ProjectionStorage } from '@croupier/eventstore';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PendingDebits } from './pending-debits.js';

const BET = '00000000-0000-4000-8000-0000000000a1';
const OTHER_BET = '00000000-0000-4000-8000-0000000000a2';

/** Pending debits as a durable read model, on the memory store (nothing here is about storage). */
describe('pending debits', () => {
  let store: MemoryEventStore;
  let storage: ProjectionStorage;
  let runner: ProjectionRunner;
  let now: number;
  let pending: PendingDebits;
  beforeEach(async () => {
    store = new MemoryEventStore();
    storage = await store.openProjectionStorage();
    runner = new ProjectionRunner(store, storage, { pollIntervalMs: 10_000 });
    now = 0;
    pending = runner.register(new PendingDebits(storage, () => now));
    await runner.start();
  });
  afterEach(async () => {
    await runner.stop();
    await store.close();
  });

  const record = async (stream: string, type: string, data: object) => {
    const { position } = await store.append(stream, [{ id: randomId(), type, data }], {
      expectedVersion: 'any',
    });
    await runner.waitFor(position);
    const [event] = await store.readAll({ after: position - 1n, limit: 1 });
    return event!.recordedAt.getTime();
  };
  const debit = (betId = BET) =>
    record('wallet-alice', 'StakeDebited', {
      playerId: 'alice',
      betId,
      roundId: 't1.1.1',
      amount: 500,
    });

  it("counts the grace period from the store's record of the debit, not from when a process read it", async () => {
    const debitedAt = await debit();
    // A process that starts (or restarts) long after the debit: the debit is due at once.
    now = debitedAt + 60_000;
    expect((await pending.stale(10_000)).map((d) => d.betId)).toEqual([BET]);
    // A fresh debit is due only once the grace period has passed since it was recorded.
    now = debitedAt;
    expect(await pending.stale(10_000)).toEqual([]);
    now += 9_999;
    expect(await pending.stale(10_000)).toEqual([]);
    now += 1;
    expect(await pending.stale(10_000)).toEqual([
      { playerId: 'alice', roundId: 't1.1.1', betId: BET, amount: 500, debitedAt },
    ]);
  });

  it('forgets a debit once its bet is placed, refunded or paid, and only that debit', async () => {
    const closings = {
      BetPlaced: {
        roundId: 't1.1.1',
        betId: BET,
        playerId: 'alice',
        type: 'banker',
        amount: 500,
        bankerMode: 'commission',
        seat: null,
        rebetOf: null,
      },
      StakeRefunded: {
        playerId: 'alice',
        betId: BET,
        roundId: 't1.1.1',
        amount: 500,
        reason: 'voided',
      },
      PayoutCredited: {
        playerId: 'alice',
        betId: BET,
        roundId: 't1.1.1',
        settlementId: '00000000-0000-4000-8000-0000000000c1',
        amount: 0,
        result: 'lose',
      },
    };
    await debit(OTHER_BET);
    for (const [closing, data] of Object.entries(closings)) {
      await debit();
      now = Date.now() + 60_000;
      expect(await pending.stale(0), closing).toHaveLength(2);
      await record(closing === 'BetPlaced' ? 'round-t1.1.1' : 'wallet-alice', closing, data);
      expect(
        (await pending.stale(0)).map((d) => d.betId),
        closing,
      ).toEqual([OTHER_BET]);
    }
    // Rebuilt from the log, it is the live one.
    const live = await storage.list('pending-debits');
    await runner.rebuild('pending-debits');
    expect(await storage.list('pending-debits')).toEqual(live);
  });
});
