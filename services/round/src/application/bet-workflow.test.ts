import type { RecordedEvent } from '@croupier/eventstore';
import { describe, expect, it } from 'vitest';
import { PendingDebits } from './bet-workflow.js';

const BET = '00000000-0000-4000-8000-0000000000a1';

const recorded = (type: string, data: unknown, at: number): RecordedEvent => ({
  id: '00000000-0000-4000-8000-0000000000e1',
  stream: 'wallet-alice',
  type,
  data,
  metadata: {},
  revision: 0n,
  position: 0n,
  recordedAt: new Date(at),
});

const debited = (at: number) =>
  recorded('StakeDebited', { playerId: 'alice', betId: BET, roundId: 't1.1.1', amount: 500 }, at);

describe('pending debits', () => {
  it("count the grace period from the store's record of the debit, not from when a process read it", () => {
    let now = 100_000;
    // A process that starts (or restarts) long after the debit: the debit is due at once.
    const restarted = new PendingDebits(() => now);
    restarted.apply(debited(100_000 - 60_000));
    expect(restarted.stale(10_000).map((debit) => debit.betId)).toEqual([BET]);
    // A fresh debit is due only once the grace period has passed since it was recorded.
    const live = new PendingDebits(() => now);
    live.apply(debited(100_000));
    expect(live.stale(10_000)).toEqual([]);
    now += 9_999;
    expect(live.stale(10_000)).toEqual([]);
    now += 1;
    expect(live.stale(10_000)).toHaveLength(1);
  });

  it('forget a debit once its bet is placed, refunded or paid, and only that debit', () => {
    for (const closing of ['BetPlaced', 'StakeRefunded', 'PayoutCredited']) {
      const pending = new PendingDebits(() => 0);
      pending.apply(debited(0));
      const data =
        closing === 'BetPlaced'
          ? {
              roundId: 't1.1.1',
              betId: BET,
              playerId: 'alice',
              type: 'banker',
              amount: 500,
              bankerMode: 'commission',
              seat: null,
              rebetOf: null,
            }
          : closing === 'StakeRefunded'
            ? { playerId: 'alice', betId: BET, roundId: 't1.1.1', amount: 500, reason: 'voided' }
            : {
                playerId: 'alice',
                betId: BET,
                roundId: 't1.1.1',
                settlementId: '00000000-0000-4000-8000-0000000000c1',
                amount: 0,
                result: 'lose',
              };
      pending.apply(recorded(closing, data, 0));
      expect(pending.size, closing).toBe(0);
    }
  });
});
