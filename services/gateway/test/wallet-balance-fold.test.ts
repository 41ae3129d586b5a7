import type { WalletEvent } from '@croupier/contracts';
import { describe, expect, it } from 'vitest';
import { WalletBalanceFold } from '../src/wallet-balance-fold.js';

const PLAYER = 'pia';
const BET = '00000000-0000-4000-8000-000000000001';
const ID = '00000000-0000-4000-8000-000000000002';
const SHIFTS = [
  '00000000-0000-4000-8000-00000000000a',
  '00000000-0000-4000-8000-00000000000b',
] as const;

const common = { playerId: PLAYER, betId: BET, roundId: 'salon.1.1' };

describe('WalletBalanceFold', () => {
  it("answers each player's balance before and after each movement, players apart", () => {
    const fold = new WalletBalanceFold();
    const deposit = (playerId: string, amount: number): WalletEvent => ({
      type: 'FundsDeposited',
      data: { playerId, amount, currency: 'EUR', reference: `r-${playerId}-${amount}` },
    });
    expect(fold.apply(deposit(PLAYER, 5_000))).toEqual({ before: 0, after: 5_000 });
    expect(fold.apply(deposit('quin', 700))).toEqual({ before: 0, after: 700 });
    expect(fold.apply({ type: 'StakeDebited', data: { ...common, amount: 1_000 } })).toEqual({
      before: 5_000,
      after: 4_000,
    });
    expect(
      fold.apply({
        type: 'PayoutCredited',
        data: { ...common, settlementId: ID, amount: 1_950, result: 'win' },
      }),
    ).toEqual({ before: 4_000, after: 5_950 });
    expect(fold.balanceOf(PLAYER)).toBe(5_950);
    expect(fold.balanceOf('quin')).toBe(700);
    fold.reset();
    expect(fold.balanceOf(PLAYER)).toBe(0);
  });

  it('returns commission collected and then reduced by a resettlement', () => {
    const fold = new WalletBalanceFold();
    const shift = { tableId: 'salon', shiftId: SHIFTS[0] };
    fold.apply({
      type: 'FundsDeposited',
      data: { playerId: PLAYER, amount: 10_000, currency: 'EUR', reference: 'r' },
    });
    fold.apply({
      type: 'CommissionAccrued',
      data: { playerId: PLAYER, ...shift, seat: 3, betId: BET, settlementId: ID, amount: 100 },
    });
    fold.apply({
      type: 'CommissionCollected',
      data: { playerId: PLAYER, ...shift, amount: 100, dealerChangeId: ID },
    });
    const adjusted = fold.apply({
      type: 'PayoutAdjusted',
      data: {
        ...common,
        ...shift,
        resettlementId: ID,
        delta: -2_000,
        commissionDelta: -100,
        reason: 'void',
      },
    });
    expect(adjusted).toEqual({ before: 9_900, after: 8_000 });
  });
});
