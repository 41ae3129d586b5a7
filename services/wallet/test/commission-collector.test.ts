import { CommandHandler, DEFAULT_RETRY, ProjectionRunner, randomId } from '@croupier/application';
import { MemoryEventStore, type Subscription } from '@croupier/eventstore';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CommissionLedger, startCommissionCollector, WalletService } from '../src/index.js';

const shift = randomId();

/**
 * The commission collector on the memory store: closing a table ends its last shift (ADR 0008,
 * addendum), and commission a round settled after the close accrues is collected as it accrues.
 */
describe('the commission collector', () => {
  let store: MemoryEventStore;
  let runner: ProjectionRunner;
  let collector: Subscription;
  let wallets: WalletService;
  beforeEach(async () => {
    store = new MemoryEventStore();
    const storage = await store.openProjectionStorage();
    runner = new ProjectionRunner(store, storage, { pollIntervalMs: 10 });
    const ledger = runner.register(new CommissionLedger(storage));
    await runner.start();
    wallets = new WalletService(new CommandHandler(store, { retry: DEFAULT_RETRY }));
    collector = startCommissionCollector(store, runner, ledger, wallets, (error) => {
      throw error;
    });
  });
  afterEach(async () => {
    await collector.stop();
    await runner.stop();
    await store.close();
  });

  const append = (stream: string, type: string, data: Record<string, unknown>) =>
    store.append(stream, [{ id: randomId(), type, data }], { expectedVersion: 'any' });
  const accrue = (playerId: string, amount: number) => {
    const ids = { betId: randomId(), settlementId: randomId() };
    return append(`wallet-${playerId}`, 'CommissionAccrued', {
      playerId,
      tableId: 'court',
      seat: 2,
      shiftId: shift,
      ...ids,
      amount,
    }).then(() => ids);
  };
  /** Waits until the collector has read the log up to its end as it is now. */
  const handled = async () => {
    const head = (await store.readAll()).at(-1)!.position;
    await vi.waitFor(
      () => {
        expect(collector.position()).toBeGreaterThanOrEqual(head);
      },
      { timeout: 20_000, interval: 20 },
    );
  };
  const collections = async (playerId: string) =>
    (await store.readStream(`wallet-${playerId}`))
      .filter((event) => event.type === 'CommissionCollected')
      .map((event) => event.data);

  it('collects at the close what is owed, and what accrues after it as it accrues', async () => {
    await append('wallet-bea', 'FundsDeposited', {
      playerId: 'bea',
      amount: 10_000,
      currency: 'EUR',
      reference: 'd1',
    });
    await accrue('bea', 50);
    // Owed while the table is open.
    await handled();
    expect(await collections('bea')).toEqual([]);
    await append('table-court', 'TableClosed', { tableId: 'court', reason: 'end of night' });
    await handled();
    const tableClosedId = (await store.readStream('table-court'))[0]!.id;
    expect(await collections('bea')).toEqual([
      { playerId: 'bea', tableId: 'court', shiftId: shift, seat: 2, amount: 50, tableClosedId },
    ]);

    // A round whose betting closed before the close settles after it: no shift ends again.
    const late = await accrue('bea', 25);
    await handled();
    expect((await collections('bea'))[1]).toEqual({
      playerId: 'bea',
      tableId: 'court',
      shiftId: shift,
      seat: 2,
      amount: 25,
      tableClosedId,
      accrued: late,
    });
    expect(await wallets.getWallet('bea')).toMatchObject({
      balance: 10_000 - 75,
      available: 10_000 - 75,
      commissionOwed: 0,
    });
  });

  it('leaves commission accrued at an open table owed until its shift ends', async () => {
    await append('table-court', 'TableOpened', { tableId: 'court' });
    await accrue('cal', 30);
    await handled();
    expect(await collections('cal')).toEqual([]);
  });
});
