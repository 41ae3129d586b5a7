import type { WalletEvent } from '@croupier/contracts';
import { deciderSpecification } from '@croupier/testkit';
import { describe, expect, it } from 'vitest';
import { walletDecider } from '../wallet.decider.js';

/** Fun mode (ADR 0030): play money and real money never meet in a wallet. */
const spec = deciderSpecification(walletDecider);
const BET = '00000000-0000-4000-8000-0000000000b1';
const SETTLEMENT = '00000000-0000-4000-8000-0000000000c1';
const SHIFT = '00000000-0000-4000-8000-0000000000d1';

const granted = (amount: number, grant = 1, topUpTo = 1_000): WalletEvent => ({
  type: 'PlayMoneyGranted',
  data: { playerId: 'alice', amount, currency: 'FUN', topUpTo, grant, fun: true },
});
const deposited: WalletEvent = {
  type: 'FundsDeposited',
  data: { playerId: 'alice', amount: 1_000, currency: 'EUR', reference: 'dep-1' },
};
const funDebited: WalletEvent = {
  type: 'StakeDebited',
  data: { playerId: 'alice', betId: BET, roundId: 'f1.1.1', amount: 400, fun: true },
};
const realDebited: WalletEvent = {
  type: 'StakeDebited',
  data: { playerId: 'alice', betId: BET, roundId: 't1.1.1', amount: 400 },
};
const grant = (topUpTo = 1_000) =>
  ({ type: 'GrantPlayMoney', playerId: 'alice', topUpTo }) as const;
const debit = (currency: string, roundId = 'f1.1.1') =>
  ({
    type: 'DebitStakes',
    playerId: 'alice',
    roundId,
    currency,
    stakes: [{ betId: BET, amount: 400 }],
  }) as const;
const credit = (currency: string, roundId: string) =>
  ({
    type: 'CreditPayout',
    currency,
    settlementId: SETTLEMENT,
    roundId,
    betId: BET,
    amount: 800,
    result: 'win',
    accruedCommission: null,
  }) as const;

describe('play money in the wallet decider', () => {
  it('a grant tops a fun wallet up to the fun balance, numbered, and not past it', () => {
    spec
      .given([])
      .when(grant())
      .then([granted(1_000)]);
    spec
      .given([granted(1_000)])
      .when(grant())
      .then([]);
    spec
      .given([granted(1_000), funDebited])
      .when(grant())
      .then([granted(400, 2)]);
    // A fun balance raised since: topped up to the new one.
    spec
      .given([granted(1_000)])
      .when(grant(5_000))
      .then([granted(4_000, 2, 5_000)]);
  });

  it('a fun wallet takes stakes in play money only, each marked fun', () => {
    spec
      .given([granted(1_000)])
      .when(debit('FUN'))
      .then([funDebited]);
    spec
      .given([granted(1_000)])
      .when(debit('EUR', 't1.1.1'))
      .thenThrows({ code: 'CURRENCY_MISMATCH' });
  });

  it('a real wallet never takes a play-money stake, grant or deposit', () => {
    spec.given([deposited]).when(debit('FUN')).thenThrows({ code: 'CURRENCY_MISMATCH' });
    spec.given([deposited]).when(grant()).thenThrows({ code: 'CURRENCY_MISMATCH' });
    const depositFun = {
      type: 'Deposit',
      playerId: 'alice',
      amount: 100,
      currency: 'FUN',
      reference: 'dep-fun',
      maxBalance: 1_000_000,
    } as const;
    spec.given([deposited]).when(depositFun).thenThrows({ code: 'CURRENCY_MISMATCH' });
    spec.given([]).when(depositFun).thenThrows({ code: 'CURRENCY_MISMATCH' });
  });

  it('no real money is deposited into a fun wallet, and no play money withdrawn from it', () => {
    spec
      .given([granted(1_000)])
      .when({
        type: 'Deposit',
        playerId: 'alice',
        amount: 100,
        currency: 'EUR',
        reference: 'dep-2',
        maxBalance: 1_000_000,
      })
      .thenThrows({ code: 'CURRENCY_MISMATCH' });
    spec
      .given([granted(1_000)])
      .when({ type: 'Withdraw', amount: 100, reference: 'out-1' })
      .thenThrows({ code: 'CURRENCY_MISMATCH' });
  });

  it('a play-money payout never reaches a real wallet, even naming an open real stake', () => {
    spec
      .given([deposited, realDebited])
      .when(credit('FUN', 't1.1.1'))
      .thenThrows({ code: 'CURRENCY_MISMATCH' });
    spec
      .given([deposited, realDebited])
      .when({
        type: 'RefundStake',
        currency: 'FUN',
        betId: BET,
        roundId: 't1.1.1',
        amount: 400,
        reason: 'voided',
      })
      .thenThrows({ code: 'CURRENCY_MISMATCH' });
    spec
      .given([deposited, realDebited])
      .when({
        type: 'AdjustPayout',
        currency: 'FUN',
        resettlementId: SETTLEMENT,
        roundId: 't1.1.1',
        betId: BET,
        delta: 500,
        commissionDelta: 0,
        tableId: 't1',
        shiftId: SHIFT,
        reason: 'correction',
      })
      .thenThrows({ code: 'CURRENCY_MISMATCH' });
  });

  it('a real payout or refund never reaches a fun wallet; play money comes back marked', () => {
    spec
      .given([granted(1_000), funDebited])
      .when(credit('EUR', 'f1.1.1'))
      .thenThrows({ code: 'CURRENCY_MISMATCH' });
    spec
      .given([granted(1_000), funDebited])
      .when({ type: 'RefundStake', betId: BET, roundId: 'f1.1.1', amount: 400, reason: 'voided' })
      .thenThrows({ code: 'CURRENCY_MISMATCH' });
    spec
      .given([granted(1_000), funDebited])
      .when(credit('FUN', 'f1.1.1'))
      .then([
        {
          type: 'PayoutCredited',
          data: {
            playerId: 'alice',
            betId: BET,
            roundId: 'f1.1.1',
            settlementId: SETTLEMENT,
            amount: 800,
            result: 'win',
            fun: true,
          },
        },
      ]);
    spec
      .given([granted(1_000), funDebited])
      .when({
        type: 'RefundStake',
        currency: 'FUN',
        betId: BET,
        roundId: 'f1.1.1',
        amount: 400,
        reason: 'cleared',
      })
      .then([
        {
          type: 'StakeRefunded',
          data: {
            playerId: 'alice',
            betId: BET,
            roundId: 'f1.1.1',
            amount: 400,
            reason: 'cleared',
            fun: true,
          },
        },
      ]);
  });

  it('a fun wallet holds FUN: its state says so', () => {
    const state = [granted(1_000), funDebited].reduce(
      (folded, event) => walletDecider.evolve(folded, event),
      walletDecider.initialState(),
    );
    expect(state).toMatchObject({ exists: true, currency: 'FUN', balance: 600 });
  });
});
