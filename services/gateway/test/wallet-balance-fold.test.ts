import type { WalletEvent } from '@croupier/contracts';
import { walletDecider } from '@croupier/wallet';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { WalletBalanceFold } from '../src/wallet-balance-fold.js';

const PLAYER = 'pia';
const BET = '00000000-0000-4000-8000-000000000001';
const ID = '00000000-0000-4000-8000-000000000002';
const SHIFTS = [
  '00000000-0000-4000-8000-00000000000a',
  '00000000-0000-4000-8000-00000000000b',
] as const;
const TABLES = ['salon', 'lounge'] as const;

const amount = fc.integer({ min: 1, max: 10_000 });
const place = fc.record({
  tableId: fc.constantFrom(...TABLES),
  shiftId: fc.constantFrom(...SHIFTS),
});
const common = { playerId: PLAYER, betId: BET, roundId: 'salon.1.1' };

/** Any wallet event, in any order: the arithmetic must agree even where the wallet would refuse. */
const walletEvent: fc.Arbitrary<WalletEvent> = fc.oneof(
  amount.map((a) => ({
    type: 'FundsDeposited' as const,
    data: { playerId: PLAYER, amount: a, currency: 'EUR', reference: 'r' },
  })),
  amount.map((a) => ({
    type: 'FundsWithdrawn' as const,
    data: { playerId: PLAYER, amount: a, reference: 'w' },
  })),
  amount.map((a) => ({ type: 'StakeDebited' as const, data: { ...common, amount: a } })),
  fc.integer({ min: 0, max: 10_000 }).map((a) => ({
    type: 'PayoutCredited' as const,
    data: { ...common, settlementId: ID, amount: a, result: 'win' as const },
  })),
  amount.map((a) => ({
    type: 'StakeRefunded' as const,
    data: { ...common, amount: a, reason: 'voided' as const },
  })),
  fc.tuple(place, amount).map(([p, a]) => ({
    type: 'CommissionAccrued' as const,
    data: { playerId: PLAYER, ...p, seat: 3, betId: BET, settlementId: ID, amount: a },
  })),
  fc.tuple(place, amount).map(([p, a]) => ({
    type: 'CommissionCollected' as const,
    data: { playerId: PLAYER, ...p, amount: a, dealerChangeId: ID },
  })),
  fc
    .tuple(place, fc.integer({ min: -5_000, max: 5_000 }), fc.integer({ min: -500, max: 500 }))
    .map(([p, delta, commissionDelta]) => ({
      type: 'PayoutAdjusted' as const,
      data: {
        ...common,
        ...p,
        resettlementId: ID,
        delta,
        commissionDelta,
        reason: 'void' as const,
      },
    })),
);

describe('WalletBalanceFold', () => {
  it("adds up every balance as the wallet's own fold does, commission given back included", () => {
    fc.assert(
      fc.property(fc.array(walletEvent, { maxLength: 60 }), (events) => {
        const fold = new WalletBalanceFold();
        let wallet = walletDecider.initialState();
        for (const event of events) {
          const { before, after } = fold.apply(event);
          expect(before).toBe(wallet.balance);
          wallet = walletDecider.evolve(wallet, event);
          expect(after).toBe(wallet.balance);
        }
        expect(fold.balanceOf(PLAYER)).toBe(wallet.balance);
      }),
      { numRuns: 500 },
    );
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
