import type { WalletEvent } from '@croupier/contracts';
import { deciderSpecification } from '@croupier/testkit';
import { describe, it } from 'vitest';
import { walletDecider } from '../wallet.decider.js';
import { BET, debited, deposited, SETTLEMENT } from '../wallet.fixtures.js';

const spec = deciderSpecification(walletDecider);

describe('wallet: deposits and withdrawals', () => {
  it('counts a retried deposit or withdrawal once, and refuses its reference for another amount', () => {
    const deposit = (amount: number) =>
      ({
        type: 'Deposit',
        playerId: 'alice',
        amount,
        currency: 'EUR',
        reference: 'dep-1',
        maxBalance: 1_000_000,
      }) as const;
    spec.given([deposited]).when(deposit(1_000)).then([]);
    spec
      .given([deposited])
      .when(deposit(500))
      .thenThrows({ code: 'ID_CONFLICT', details: { field: 'reference' } });
    const withdrawn: WalletEvent = {
      type: 'FundsWithdrawn',
      data: { playerId: 'alice', amount: 300, reference: 'out-1' },
    };
    const withdraw = (amount: number) =>
      ({ type: 'Withdraw', amount, reference: 'out-1' }) as const;
    spec.given([deposited]).when(withdraw(300)).then([withdrawn]);
    spec.given([deposited, withdrawn]).when(withdraw(300)).then([]);
    spec.given([deposited, withdrawn]).when(withdraw(200)).thenThrows({ code: 'ID_CONFLICT' });
    // References of deposits and withdrawals are apart: one of each may share a name.
    spec
      .given([deposited])
      .when({ type: 'Withdraw', amount: 100, reference: 'dep-1' })
      .then([
        { type: 'FundsWithdrawn', data: { playerId: 'alice', amount: 100, reference: 'dep-1' } },
      ]);
  });

  it("refuses a deposit past the operator's maximum balance, and a credit past exact integers", () => {
    const deposit = (amount: number, maxBalance: number) =>
      ({
        type: 'Deposit',
        playerId: 'alice',
        amount,
        currency: 'EUR',
        reference: 'dep-2',
        maxBalance,
      }) as const;
    spec
      .given([deposited])
      .when(deposit(9_000, 10_000))
      .then([
        {
          type: 'FundsDeposited',
          data: { playerId: 'alice', amount: 9_000, currency: 'EUR', reference: 'dep-2' },
        },
      ]);
    spec
      .given([deposited])
      .when(deposit(9_001, 10_000))
      .thenThrows({
        code: 'BALANCE_LIMIT',
        details: { field: 'amount', maxBalance: 10_000, balance: 1_000 },
      });
    // A payout owed is never refused for the operator's limit, only where exactness ends.
    const rich: WalletEvent = {
      type: 'FundsDeposited',
      data: {
        playerId: 'alice',
        amount: Number.MAX_SAFE_INTEGER - 500,
        currency: 'EUR',
        reference: 'dep-1',
      },
    };
    spec
      .given([rich, { ...debited, data: { ...debited.data, amount: 100 } }])
      .when({
        type: 'CreditPayout',
        currency: 'EUR',
        settlementId: SETTLEMENT,
        roundId: 't1.1.1',
        betId: BET,
        amount: 700,
        result: 'win',
        accruedCommission: null,
      })
      .thenThrows({ code: 'BALANCE_LIMIT' });
  });
});
