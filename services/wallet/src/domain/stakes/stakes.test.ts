import type { WalletEvent } from '@croupier/contracts';
import { deciderSpecification } from '@croupier/testkit';
import { describe, expect, it } from 'vitest';
import type { StakeStanding } from '../stake-standing.js';
import { walletDecider } from '../wallet.decider.js';
import { BET, debit, debited, deposited, SETTLEMENT, SHIFT } from '../wallet.fixtures.js';

const spec = deciderSpecification(walletDecider);

describe('wallet: stakes', () => {
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
