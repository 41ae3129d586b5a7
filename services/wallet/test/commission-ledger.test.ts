import { ProjectionRunner, randomId } from '@croupier/application';
import { MemoryEventStore, type ProjectionStorage } from '@croupier/eventstore';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CommissionLedger } from '../src/index.js';

const shift1 = randomId();
const shift2 = randomId();

/** The commission ledger as a durable read model, on the memory store (nothing about storage). */
describe('the commission ledger', () => {
  let store: MemoryEventStore;
  let storage: ProjectionStorage;
  let runner: ProjectionRunner;
  let ledger: CommissionLedger;
  beforeEach(async () => {
    store = new MemoryEventStore();
    storage = await store.openProjectionStorage();
    runner = new ProjectionRunner(store, storage, { pollIntervalMs: 10_000 });
    ledger = runner.register(new CommissionLedger(storage));
  });
  afterEach(async () => {
    await runner.stop();
    await store.close();
  });

  const record = (playerId: string, type: string, data: Record<string, unknown>) =>
    store.append(
      `wallet-${playerId}`,
      [{ id: randomId(), type, data: { playerId, tableId: 'court', ...data } }],
      { expectedVersion: 'any' },
    );
  const accrue = (playerId: string, shiftId: string, amount: number) =>
    record(playerId, 'CommissionAccrued', {
      seat: 1,
      shiftId,
      betId: randomId(),
      settlementId: randomId(),
      amount,
    });

  it('owes what was accrued less what was collected or given back, per table, player and shift', async () => {
    await accrue('bob', shift1, 50);
    await accrue('bob', shift1, 25);
    await accrue('amy', shift1, 10);
    await accrue('cal', shift2, 5);
    await record('amy', 'CommissionCollected', {
      shiftId: shift1,
      amount: 10,
      dealerChangeId: randomId(),
    });
    await record('bob', 'PayoutAdjusted', {
      betId: randomId(),
      roundId: 'court.1.1',
      resettlementId: randomId(),
      delta: -95,
      commissionDelta: -25,
      shiftId: shift1,
      reason: 'void',
    });
    await runner.start();
    expect(await ledger.playersOwing('court', shift2)).toEqual(['bob']);
    expect(await ledger.playersOwing('court', randomId())).toEqual(['bob', 'cal']);
    expect(await storage.get('commission-ledger', 'court')).toEqual({
      players: { bob: { [shift1]: 50 }, cal: { [shift2]: 5 } },
    });
    expect(await ledger.playersOwing('elsewhere', shift1)).toEqual([]);

    // Rebuilt from the log, it is the live one.
    const live = await storage.list('commission-ledger');
    await runner.rebuild('commission-ledger');
    expect(await storage.list('commission-ledger')).toEqual(live);
  });
});
