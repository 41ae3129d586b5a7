import type { OperatorWalletEvent } from '@croupier/contracts';
import { deciderSpecification } from '@croupier/testkit';
import { describe, it } from 'vitest';
import type { StakeStanding } from '../domain/stake-standing.js';
import { debitKeyOf, operatorWalletDecider, rollbackKeyOf } from './operator-wallet.decider.js';

const spec = deciderSpecification(operatorWalletDecider);
const BET = '00000000-0000-4000-8000-0000000000b1';
const SETTLEMENT = '00000000-0000-4000-8000-0000000000c1';
const ROUND = 't1.1.1';
const KEY = debitKeyOf({ playerId: 'alice', roundId: ROUND, betId: BET, attempt: 1 });
const request = (roundId = ROUND, amount = 400) =>
  ({
    type: 'RequestDebits',
    playerId: 'alice',
    roundId,
    currency: 'EUR',
    stakes: [{ betId: BET, amount }],
  }) as const;
const requested = (attempt = 1): OperatorWalletEvent => ({
  type: 'OperatorDebitRequested',
  data: {
    playerId: 'alice',
    roundId: ROUND,
    betId: BET,
    amount: 400,
    currency: 'EUR',
    key: debitKeyOf({ playerId: 'alice', roundId: ROUND, betId: BET, attempt }),
    attempt,
  },
});
const common = { playerId: 'alice', roundId: ROUND, betId: BET, amount: 400, key: KEY };
const confirmed: OperatorWalletEvent = {
  type: 'OperatorDebitConfirmed',
  data: { ...common, transactionId: 'tx-1', via: 'answer' },
};
const credit = (amount: number) =>
  ({
    type: 'RequestCredit',
    roundId: ROUND,
    betId: BET,
    amount,
    currency: 'EUR',
    key: '00000000-0000-4000-8000-0000000000e1',
    kind: 'settlement',
    settlementId: SETTLEMENT,
    stake: 400,
  }) as const;
const credited: OperatorWalletEvent = {
  type: 'OperatorCreditRequested',
  data: {
    playerId: 'alice',
    roundId: ROUND,
    betId: BET,
    amount: 800,
    currency: 'EUR',
    key: '00000000-0000-4000-8000-0000000000e1',
    kind: 'settlement',
    settlementId: SETTLEMENT,
    stake: 400,
  },
};

describe('operator wallet decider (seamless mode)', () => {
  it('asks for a new stake under the key of its first attempt, and not again while it is asked', () => {
    spec
      .given([])
      .when(request())
      .then([requested(1)]);
    spec
      .given([requested(1)])
      .when(request())
      .then([]);
    spec
      .given([requested(1), confirmed])
      .when(request())
      .then([]);
  });

  it('asks again under a new key once a debit failed', () => {
    const failed: OperatorWalletEvent = {
      type: 'OperatorDebitFailed',
      data: { ...common, outcome: 'refused', code: 'INSUFFICIENT_FUNDS' },
    };
    spec
      .given([requested(1), failed])
      .when(request())
      .then([requested(2)]);
  });

  it('refuses a bet id used on another round or for another amount, or already closed', () => {
    spec
      .given([requested(1), confirmed])
      .when(request('t1.1.2'))
      .thenThrows({ code: 'ID_CONFLICT' });
    spec
      .given([requested(1), confirmed])
      .when(request(ROUND, 500))
      .thenThrows({ code: 'ID_CONFLICT' });
    spec
      .given([requested(1), confirmed, credited])
      .when(request())
      .thenThrows({ code: 'ID_CONFLICT' });
  });

  it('gives up a debit with no answer and rolls it back by its key in the same decision', () => {
    spec
      .given([requested(1)])
      .when({ type: 'FailDebit', betId: BET, key: KEY, outcome: 'unresolved', code: 'UNAVAILABLE' })
      .then([
        {
          type: 'OperatorDebitFailed',
          data: { ...common, outcome: 'unresolved', code: 'UNAVAILABLE' },
        },
        {
          type: 'OperatorRollbackRequested',
          data: {
            ...common,
            currency: 'EUR',
            key: rollbackKeyOf(KEY),
            debitKey: KEY,
            reason: 'debit-unresolved',
          },
        },
      ]);
    // Resolved once: a late confirmation after it was given up changes nothing.
    spec
      .given([requested(1), confirmed])
      .when({ type: 'FailDebit', betId: BET, key: KEY, outcome: 'unresolved', code: 'UNAVAILABLE' })
      .then([]);
  });

  it('credits a confirmed stake once, never one unconfirmed or already rolled back', () => {
    spec
      .given([requested(1), confirmed])
      .when(credit(800))
      .then([credited]);
    spec
      .given([requested(1), confirmed, credited])
      .when(credit(800))
      .then([]);
    spec
      .given([requested(1)])
      .when(credit(800))
      .then([]);
    const rolledBack: OperatorWalletEvent = {
      type: 'OperatorRollbackRequested',
      data: {
        ...common,
        currency: 'EUR',
        key: rollbackKeyOf(KEY),
        debitKey: KEY,
        reason: 'voided',
      },
    };
    spec
      .given([requested(1), confirmed, rolledBack])
      .when(credit(800))
      .then([]);
  });

  it('rolls back only a confirmed open stake of the named round and amount', () => {
    const rollback = (roundId: string, amount: number) =>
      ({ type: 'RequestRollback', roundId, betId: BET, amount, reason: 'voided' }) as const;
    spec
      .given([requested(1), confirmed])
      .when(rollback(ROUND, 400))
      .then([
        {
          type: 'OperatorRollbackRequested',
          data: {
            ...common,
            currency: 'EUR',
            key: rollbackKeyOf(KEY),
            debitKey: KEY,
            reason: 'voided',
          },
        },
      ]);
    spec
      .given([requested(1), confirmed])
      .when(rollback('t1.1.2', 400))
      .thenThrows({ code: 'ID_CONFLICT' });
    spec
      .given([requested(1), confirmed, credited])
      .when(rollback(ROUND, 400))
      .then([]);
    spec.given([]).when(rollback(ROUND, 400)).then([]);
  });

  it('rolls back a stake refused before any bet only once its round released it (issue 24, defect 5)', () => {
    const rollback = (standing?: StakeStanding) =>
      ({
        type: 'RequestRollback',
        roundId: ROUND,
        betId: BET,
        amount: 400,
        reason: 'bet-rejected',
        ...(standing === undefined ? {} : { standing }),
      }) as const;
    const rolledBack: OperatorWalletEvent = {
      type: 'OperatorRollbackRequested',
      data: {
        ...common,
        currency: 'EUR',
        key: rollbackKeyOf(KEY),
        debitKey: KEY,
        reason: 'bet-rejected',
      },
    };
    // A concurrent request for the same bet shares the debit and placed the bet: its round
    // closes it. Not released yet: the bet may still come. Neither is rolled back.
    for (const standing of ['bet', 'not-released', undefined] as const)
      spec
        .given([requested(1), confirmed])
        .when(rollback(standing))
        .then([]);
    spec
      .given([requested(1), confirmed])
      .when(rollback('released'))
      .then([rolledBack]);
    // No such round: it can never hold the bet (the sweep's orphan of a round never opened).
    spec
      .given([requested(1), confirmed])
      .when({ ...rollback('no-round'), reason: 'orphaned-debit' })
      .then([{ ...rolledBack, data: { ...rolledBack.data, reason: 'orphaned-debit' } }]);
  });

  it('credits an adjustment only for a stake that was taken (issue 24, defect 5)', () => {
    const adjustment = {
      ...credit(400),
      key: '00000000-0000-4000-8000-0000000000e2',
      kind: 'adjustment',
      settlementId: '00000000-0000-4000-8000-0000000000c2',
    } as const;
    const adjusted: OperatorWalletEvent = {
      type: 'OperatorCreditRequested',
      data: {
        ...credited.data,
        amount: 400,
        key: adjustment.key,
        kind: 'adjustment',
        settlementId: adjustment.settlementId,
      },
    };
    const lost: OperatorWalletEvent = { ...credited, data: { ...credited.data, amount: 0 } };
    // A loss, then a void: the stake comes back.
    spec
      .given([requested(1), confirmed, lost])
      .when(adjustment)
      .then([adjusted]);
    // Its stake rolled back already, or never confirmed: nothing of it is the wallet's to return.
    const rolledBack: OperatorWalletEvent = {
      type: 'OperatorRollbackRequested',
      data: {
        ...common,
        currency: 'EUR',
        key: rollbackKeyOf(KEY),
        debitKey: KEY,
        reason: 'bet-rejected',
      },
    };
    // (Its loss asked no credit: a rolled-back stake's payout is withheld.)
    spec
      .given([requested(1), confirmed, rolledBack])
      .when(adjustment)
      .then([]);
    spec
      .given([requested(1)])
      .when(adjustment)
      .then([]);
    spec.given([]).when(adjustment).then([]);
  });

  it('records a delivery once', () => {
    const deliver = {
      type: 'MarkDelivered',
      key: credited.data.key,
      call: 'credit',
      transactionId: 'tx-2',
    } as const;
    const delivered: OperatorWalletEvent = {
      type: 'OperatorCallDelivered',
      data: { playerId: 'alice', key: credited.data.key, call: 'credit', transactionId: 'tx-2' },
    };
    spec
      .given([requested(1), confirmed, credited])
      .when(deliver)
      .then([delivered]);
    spec
      .given([requested(1), confirmed, credited, delivered])
      .when(deliver)
      .then([]);
  });
});
