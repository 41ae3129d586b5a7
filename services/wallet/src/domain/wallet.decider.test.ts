import type { WalletEvent } from '@croupier/contracts';
import { deciderSpecification } from '@croupier/testkit';
import { describe, expect, it } from 'vitest';
import type { StakeStanding } from './stake-standing.js';
import { available, walletDecider } from './wallet.decider.js';

const spec = deciderSpecification(walletDecider);
const BET = '00000000-0000-4000-8000-0000000000b1';
const SETTLEMENT = '00000000-0000-4000-8000-0000000000c1';
const SHIFT = '00000000-0000-4000-8000-0000000000d1';
const deposited: WalletEvent = {
  type: 'FundsDeposited',
  data: { playerId: 'alice', amount: 1_000, currency: 'EUR', reference: 'dep-1' },
};
const debited: WalletEvent = {
  type: 'StakeDebited',
  data: { playerId: 'alice', betId: BET, roundId: 't1.1.1', amount: 400 },
};
const debit = (amount: number, betId = BET) =>
  ({
    type: 'DebitStakes',
    playerId: 'alice',
    roundId: 't1.1.1',
    currency: 'EUR',
    stakes: [{ betId, amount }],
  }) as const;

describe('wallet decider', () => {
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

  it('debits a stake the balance covers', () => {
    spec.given([deposited]).when(debit(400)).then([debited]);
  });

  it('never goes below zero', () => {
    spec.given([deposited]).when(debit(1_001)).thenThrows({ code: 'INSUFFICIENT_FUNDS' });
    spec
      .given([deposited, debited])
      .when(debit(601, '00000000-0000-4000-8000-0000000000b2'))
      .thenThrows({
        code: 'INSUFFICIENT_FUNDS',
      });
  });

  it('debits a bet once however often it is asked', () => {
    spec.given([deposited, debited]).when(debit(400)).then([]);
  });

  it('refuses stakes in another currency, and amounts that are not positive integers', () => {
    spec
      .given([deposited])
      .when({ ...debit(100), currency: 'USD' })
      .thenThrows({ code: 'CURRENCY_MISMATCH' });
    spec.given([deposited]).when(debit(1.5)).thenThrows({ code: 'INVALID_AMOUNT' });
    spec
      .when({
        type: 'Deposit',
        playerId: 'a',
        amount: -5,
        currency: 'EUR',
        reference: 'x',
        maxBalance: 1_000_000,
      })
      .thenThrows({
        code: 'INVALID_AMOUNT',
      });
  });

  it('credits a payout once: a second credit for the same bet would pay twice', () => {
    const credit = {
      type: 'CreditPayout',
      currency: 'EUR',
      settlementId: SETTLEMENT,
      roundId: 't1.1.1',
      betId: BET,
      amount: 780,
      result: 'win',
      accruedCommission: null,
    } as const;
    const credited: WalletEvent = {
      type: 'PayoutCredited',
      data: {
        playerId: 'alice',
        betId: BET,
        roundId: 't1.1.1',
        settlementId: SETTLEMENT,
        amount: 780,
        result: 'win',
      },
    };
    spec.given([deposited, debited]).when(credit).then([credited]);
    spec.given([deposited, debited, credited]).when(credit).then([]);
    expect(spec.stateAfter([deposited, debited, credited]).balance).toBe(1_380);
  });

  it('refunds an open stake once, and never one already settled', () => {
    const refund = {
      type: 'RefundStake',
      betId: BET,
      roundId: 't1.1.1',
      amount: 400,
      reason: 'voided',
    } as const;
    const refunded: WalletEvent = {
      type: 'StakeRefunded',
      data: { playerId: 'alice', betId: BET, roundId: 't1.1.1', amount: 400, reason: 'voided' },
    };
    spec.given([deposited, debited]).when(refund).then([refunded]);
    spec.given([deposited, debited, refunded]).when(refund).then([]);
    spec.given([deposited]).when(refund).then([]);
  });

  it('refunds a stake refused before any bet only once its round released it (issue 24, defect 5)', () => {
    const refund = (standing?: StakeStanding) =>
      ({
        type: 'RefundStake',
        betId: BET,
        roundId: 't1.1.1',
        amount: 400,
        reason: 'bet-rejected',
        ...(standing === undefined ? {} : { standing }),
      }) as const;
    // The bet stands on the round (a concurrent request for the same bet placed it), or may
    // still come: its round closes the stake, never this refund.
    for (const standing of ['bet', 'not-released', undefined] as const)
      spec.given([deposited, debited]).when(refund(standing)).then([]);
    const refunded: WalletEvent = {
      type: 'StakeRefunded',
      data: {
        playerId: 'alice',
        betId: BET,
        roundId: 't1.1.1',
        amount: 400,
        reason: 'bet-rejected',
      },
    };
    spec.given([deposited, debited]).when(refund('released')).then([refunded]);
    spec
      .given([deposited, debited])
      .when({ ...refund('no-round'), reason: 'orphaned-debit' })
      .then([{ ...refunded, data: { ...refunded.data, reason: 'orphaned-debit' } }]);
  });

  it('refuses a bet id open for another round or amount, whatever the step, and moves nothing', () => {
    const other = { roundId: 't2.1.1' } as const;
    // A debit naming the open stake's id for another round, or another amount: ID_CONFLICT.
    spec
      .given([deposited, debited])
      .when({ ...debit(400), ...other })
      .thenThrows({ code: 'ID_CONFLICT', details: { field: 'betId', betIds: [BET] } });
    spec.given([deposited, debited]).when(debit(300)).thenThrows({ code: 'ID_CONFLICT' });
    // All or none: a fresh stake beside the conflicting one is not debited either.
    spec
      .given([deposited, debited])
      .when({
        ...debit(400),
        ...other,
        stakes: [
          { betId: '00000000-0000-4000-8000-0000000000b2', amount: 100 },
          { betId: BET, amount: 400 },
        ],
      })
      .thenThrows({ code: 'ID_CONFLICT' });
    // A refund or payout naming another round, or a refund of another amount: refused.
    const refund = {
      type: 'RefundStake',
      betId: BET,
      amount: 400,
      reason: 'bet-rejected',
    } as const;
    spec
      .given([deposited, debited])
      .when({ ...refund, ...other })
      .thenThrows({ code: 'ID_CONFLICT' });
    spec
      .given([deposited, debited])
      .when({ ...refund, roundId: 't1.1.1', amount: 1 })
      .thenThrows({ code: 'ID_CONFLICT' });
    spec
      .given([deposited, debited])
      .when({
        type: 'CreditPayout',
        currency: 'EUR',
        settlementId: SETTLEMENT,
        betId: BET,
        amount: 800,
        result: 'win',
        accruedCommission: null,
        ...other,
      })
      .thenThrows({ code: 'ID_CONFLICT' });
  });

  it('refuses the same bet id twice in one debit', () => {
    spec
      .given([deposited])
      .when({
        ...debit(100),
        stakes: [
          { betId: BET, amount: 100 },
          { betId: BET, amount: 100 },
        ],
      })
      .thenThrows({ code: 'VALIDATION_ERROR', details: { field: 'betId' } });
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

  it('owes commission per seat and collects each seat apart (002)', () => {
    const accruedAt = (seat: number, amount: number, betId: string): WalletEvent => ({
      type: 'CommissionAccrued',
      data: {
        playerId: 'alice',
        tableId: 'salon',
        seat,
        shiftId: SHIFT,
        betId,
        settlementId: SETTLEMENT,
        amount,
      },
    });
    const history = [deposited, accruedAt(3, 20, BET), accruedAt(6, 15, SETTLEMENT)];
    const collected = (seat: number, amount: number): WalletEvent => ({
      type: 'CommissionCollected',
      data: {
        playerId: 'alice',
        tableId: 'salon',
        shiftId: SHIFT,
        seat,
        amount,
        dealerChangeId: SETTLEMENT,
      },
    });
    spec
      .given(history)
      .when({
        type: 'CollectCommission',
        tableId: 'salon',
        currentShiftId: BET,
        endedBy: { dealerChangeId: SETTLEMENT },
      })
      .then([collected(3, 20), collected(6, 15)]);
    expect(available(spec.stateAfter([...history, collected(3, 20)]))).toBe(965);
    // A collection recorded before seats were owned took the whole shift.
    const legacy: WalletEvent = {
      type: 'CommissionCollected',
      data: {
        playerId: 'alice',
        tableId: 'salon',
        shiftId: SHIFT,
        amount: 35,
        dealerChangeId: SETTLEMENT,
      },
    };
    const after = spec.stateAfter([...history, legacy]);
    expect(after.commissionOwed.size).toBe(0);
    expect(after.balance).toBe(965);
  });

  it('holds accrued commission back until its dealer shift ends, then collects it', () => {
    // (The shift still running is not collected; BET stands in for a later shift's id.)
    const accrued: WalletEvent = {
      type: 'CommissionAccrued',
      data: {
        playerId: 'alice',
        tableId: 'salon',
        seat: 3,
        shiftId: SHIFT,
        betId: BET,
        settlementId: SETTLEMENT,
        amount: 20,
      },
    };
    const state = spec.stateAfter([deposited, accrued]);
    expect(state.balance).toBe(1_000);
    expect(available(state)).toBe(980);
    spec
      .given([deposited, accrued])
      .when({ type: 'Withdraw', amount: 981, reference: 'w' })
      .thenThrows({
        code: 'INSUFFICIENT_FUNDS',
      });
    spec
      .given([deposited, accrued])
      .when({
        type: 'CollectCommission',
        tableId: 'salon',
        currentShiftId: BET,
        endedBy: { dealerChangeId: SETTLEMENT },
      })
      .then([
        {
          type: 'CommissionCollected',
          data: {
            playerId: 'alice',
            tableId: 'salon',
            shiftId: SHIFT,
            seat: 3,
            amount: 20,
            dealerChangeId: SETTLEMENT,
          },
        },
      ]);
    spec
      .given([deposited, accrued])
      .when({
        type: 'CollectCommission',
        tableId: 'salon',
        currentShiftId: SHIFT,
        endedBy: { dealerChangeId: SETTLEMENT },
      })
      .then([]);
  });

  it('collects every shift, the one running too, when the table closes (its last shift ends)', () => {
    const accrued = (shiftId: string, amount: number): WalletEvent => ({
      type: 'CommissionAccrued',
      data: {
        playerId: 'alice',
        tableId: 'salon',
        seat: 3,
        shiftId,
        betId: BET,
        settlementId: SETTLEMENT,
        amount,
      },
    });
    const history = [deposited, accrued(SHIFT, 20), accrued(BET, 15)];
    const closed = (shiftId: string, amount: number): WalletEvent => ({
      type: 'CommissionCollected',
      data: {
        playerId: 'alice',
        tableId: 'salon',
        shiftId,
        seat: 3,
        amount,
        tableClosedId: SETTLEMENT,
      },
    });
    spec
      .given(history)
      .when({
        type: 'CollectCommission',
        tableId: 'salon',
        currentShiftId: null,
        endedBy: { tableClosedId: SETTLEMENT },
      })
      .then([closed(SHIFT, 20), closed(BET, 15)]);
    const after = spec.stateAfter([...history, closed(SHIFT, 20), closed(BET, 15)]);
    expect(after.commissionOwed.size).toBe(0);
    expect(available(after)).toBe(after.balance);
  });
});

describe('resettlement', () => {
  it('applies a payout adjustment, taking winnings back or paying more', () => {
    const adjust = (delta: number, commissionDelta = 0) =>
      ({
        type: 'AdjustPayout',
        currency: 'EUR',
        resettlementId: SETTLEMENT,
        roundId: 't1.1.1',
        betId: BET,
        delta,
        commissionDelta,
        tableId: 'salon',
        shiftId: SHIFT,
        reason: 'correction',
      }) as const;
    const [adjusted] = walletDecider.decide(adjust(-500), spec.stateAfter([deposited]));
    expect(adjusted).toMatchObject({
      type: 'PayoutAdjusted',
      data: { playerId: 'alice', delta: -500 },
    });
    expect(spec.stateAfter([deposited, adjusted!]).balance).toBe(500);
    spec.given([deposited]).when(adjust(0)).then([]);
    // Commission reduced after it was collected comes back to the balance.
    const [reduced] = walletDecider.decide(adjust(0, -20), spec.stateAfter([deposited]));
    expect(spec.stateAfter([deposited, reduced!]).balance).toBe(1_020);
  });

  it('adjusts nothing of a stake given back: it was never taken (issue 24, defect 5)', () => {
    const refunded: WalletEvent = {
      type: 'StakeRefunded',
      data: { playerId: 'alice', betId: BET, roundId: 't1.1.1', amount: 400, reason: 'voided' },
    };
    const adjust = {
      type: 'AdjustPayout',
      currency: 'EUR',
      resettlementId: SETTLEMENT,
      roundId: 't1.1.1',
      betId: BET,
      delta: 400,
      commissionDelta: 0,
      tableId: 'salon',
      shiftId: SHIFT,
      reason: 'void',
    } as const;
    spec.given([deposited, debited, refunded]).when(adjust).then([]);
    // A stake taken and lost: its void gives it back.
    const lost: WalletEvent = {
      type: 'PayoutCredited',
      data: {
        playerId: 'alice',
        betId: BET,
        roundId: 't1.1.1',
        settlementId: SETTLEMENT,
        amount: 0,
        result: 'lose',
      },
    };
    const [adjusted] = walletDecider.decide(adjust, spec.stateAfter([deposited, debited, lost]));
    expect(spec.stateAfter([deposited, debited, lost, adjusted!]).balance).toBe(1_000);
  });
});
