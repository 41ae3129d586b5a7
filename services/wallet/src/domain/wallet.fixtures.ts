import type { WalletEvent } from '@croupier/contracts';

// What the wallet's tests (one per capability folder) start from: alice's deposit and a stake of
// hers, open for round t1.1.1. Test data only.

export const BET = '00000000-0000-4000-8000-0000000000b1';
export const SETTLEMENT = '00000000-0000-4000-8000-0000000000c1';
export const SHIFT = '00000000-0000-4000-8000-0000000000d1';
export const deposited: Extract<WalletEvent, { type: 'FundsDeposited' }> = {
  type: 'FundsDeposited',
  data: { playerId: 'alice', amount: 1_000, currency: 'EUR', reference: 'dep-1' },
};
export const debited: Extract<WalletEvent, { type: 'StakeDebited' }> = {
  type: 'StakeDebited',
  data: { playerId: 'alice', betId: BET, roundId: 't1.1.1', amount: 400 },
};
export const debit = (amount: number, betId = BET) =>
  ({
    type: 'DebitStakes',
    playerId: 'alice',
    roundId: 't1.1.1',
    currency: 'EUR',
    stakes: [{ betId, amount }],
  }) as const;
