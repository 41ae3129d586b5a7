import { ProjectionRunner, randomId } from '@croupier/application';
import { MemoryEventStore, type ProjectionStorage } from '@croupier/eventstore';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  OperatorCallLedger,
  parseOperatorCallCursor,
  type OperatorCall,
  type OperatorCallQuery,
} from '../src/index.js';

const ROUND = 'seam.1.1';

/** The ledger of calls to the operator's wallet as a durable read model, on the memory store. */
describe('the operator-wallet call ledger', () => {
  let store: MemoryEventStore;
  let storage: ProjectionStorage;
  let runner: ProjectionRunner;
  let ledger: OperatorCallLedger;
  beforeEach(async () => {
    store = new MemoryEventStore();
    storage = await store.openProjectionStorage();
    runner = new ProjectionRunner(store, storage, { pollIntervalMs: 10_000 });
    ledger = runner.register(new OperatorCallLedger(storage));
  });
  afterEach(async () => {
    await runner.stop();
    await store.close();
  });

  /** Events of one player's trail, appended together (one recorded time). */
  const record = (playerId: string, ...events: { type: string; data: object }[]) =>
    store.append(
      `operator-wallet-${playerId}`,
      events.map(({ type, data }) => ({ id: randomId(), type, data: { playerId, ...data } })),
      { expectedVersion: 'any' },
    );
  const debit = (betId: string, key: string, amount = 500) => ({
    type: 'OperatorDebitRequested',
    data: { roundId: ROUND, betId, amount, currency: 'EUR', key, attempt: 1 },
  });
  const all = async (query: Omit<OperatorCallQuery, 'after' | 'limit'>, limit: number) => {
    const calls: OperatorCall[] = [];
    let after = '0';
    for (let pages = 0; pages < 50; pages++) {
      const page = await ledger.page({ ...query, after: parseOperatorCallCursor(after), limit });
      calls.push(...page.calls);
      expect(page.calls.length).toBeLessThanOrEqual(limit);
      if (!page.more) return calls;
      after = page.next;
    }
    throw new Error('paging does not end');
  };

  it('lists each call with where it stands, per player and period, every call once across pages', async () => {
    const [won, voided, lost, poor, owed] = [
      randomId(),
      randomId(),
      randomId(),
      randomId(),
      randomId(),
    ];
    const keys = {
      won: randomId(),
      credit: randomId(),
      voided: randomId(),
      back: randomId(),
      lost: randomId(),
      lostBack: randomId(),
      poor: randomId(),
      owed: randomId(),
      owedCredit: randomId(),
    };
    // ana: a debit confirmed then credited, and another confirmed then rolled back by a void,
    // all in one append (one recorded millisecond).
    await record(
      'ana',
      debit(won, keys.won),
      {
        type: 'OperatorDebitConfirmed',
        data: {
          roundId: ROUND,
          betId: won,
          amount: 500,
          key: keys.won,
          transactionId: 'tx-1',
          via: 'answer',
        },
      },
      debit(voided, keys.voided, 300),
      {
        type: 'OperatorDebitConfirmed',
        data: {
          roundId: ROUND,
          betId: voided,
          amount: 300,
          key: keys.voided,
          transactionId: 'tx-2',
          via: 'status',
        },
      },
      {
        type: 'OperatorCreditRequested',
        data: {
          roundId: ROUND,
          betId: won,
          amount: 1_000,
          currency: 'EUR',
          key: keys.credit,
          kind: 'settlement',
          settlementId: randomId(),
          stake: 500,
        },
      },
      {
        type: 'OperatorCallDelivered',
        data: { key: keys.credit, call: 'credit', transactionId: 'tx-3' },
      },
      {
        type: 'OperatorRollbackRequested',
        data: {
          roundId: ROUND,
          betId: voided,
          amount: 300,
          currency: 'EUR',
          key: keys.back,
          debitKey: keys.voided,
          reason: 'voided',
        },
      },
    );
    const between = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 5));
    // bob: a debit with no answer, given up and rolled back; no bet of his stands on the round.
    await record(
      'bob',
      debit(lost, keys.lost),
      {
        type: 'OperatorDebitFailed',
        data: {
          roundId: ROUND,
          betId: lost,
          amount: 500,
          key: keys.lost,
          outcome: 'unresolved',
          code: 'UNAVAILABLE',
        },
      },
      {
        type: 'OperatorRollbackRequested',
        data: {
          roundId: ROUND,
          betId: lost,
          amount: 500,
          currency: 'EUR',
          key: keys.lostBack,
          debitKey: keys.lost,
          reason: 'debit-unresolved',
        },
      },
    );
    // cal: a debit refused; then a credit the wallet refuses, parked by the outbox.
    await record(
      'cal',
      debit(poor, keys.poor),
      {
        type: 'OperatorDebitFailed',
        data: {
          roundId: ROUND,
          betId: poor,
          amount: 500,
          key: keys.poor,
          outcome: 'refused',
          code: 'INSUFFICIENT_FUNDS',
        },
      },
      debit(owed, keys.owed),
      {
        type: 'OperatorDebitConfirmed',
        data: {
          roundId: ROUND,
          betId: owed,
          amount: 500,
          key: keys.owed,
          transactionId: 'tx-4',
          via: 'answer',
        },
      },
      {
        type: 'OperatorCreditRequested',
        data: {
          roundId: ROUND,
          betId: owed,
          amount: 0,
          currency: 'EUR',
          key: keys.owedCredit,
          kind: 'settlement',
          settlementId: randomId(),
          stake: 500,
        },
      },
    );
    await store.append(
      `parked-operator-wallet-outbox.${keys.owedCredit}`,
      [
        {
          id: randomId(),
          type: 'MessageParked',
          data: {
            consumer: 'operator-wallet-outbox',
            messageId: keys.owedCredit,
            code: 'ACCOUNT_BLOCKED',
            detail: 'blocked',
            attempts: 1,
            playerId: 'cal',
            message: {},
          },
        },
      ],
      { expectedVersion: 'any' },
    );
    await runner.start();
    await runner.syncToHead();

    const stateOf = (calls: OperatorCall[]) =>
      Object.fromEntries(calls.map((c) => [c.key, `${c.call}:${c.state}:${c.code ?? ''}`]));
    const everything = await all({}, 100);
    expect(stateOf(everything)).toEqual({
      [keys.won]: 'debit:confirmed:',
      [keys.credit]: 'credit:confirmed:',
      [keys.voided]: 'debit:rolled-back:',
      [keys.back]: 'rollback:sent:',
      [keys.lost]: 'debit:unresolved:UNAVAILABLE',
      [keys.lostBack]: 'rollback:sent:',
      [keys.poor]: 'debit:refused:INSUFFICIENT_FUNDS',
      [keys.owed]: 'debit:confirmed:',
      [keys.owedCredit]: 'credit:parked:ACCOUNT_BLOCKED',
    });
    const lostDebit = everything.find((c) => c.key === keys.lost)!;
    expect(lostDebit).toMatchObject({ rollbackKey: keys.lostBack, roundId: ROUND, amount: 500 });
    expect(everything.find((c) => c.key === keys.credit)).toMatchObject({
      transactionId: 'tx-3',
      kind: 'settlement',
      amount: 1_000,
    });

    // Pages of one and of two list the same calls in the same order, each once, though four of
    // them share a recorded millisecond.
    expect((await all({}, 1)).map((c) => c.key)).toEqual(everything.map((c) => c.key));
    expect((await all({}, 2)).map((c) => c.key)).toEqual(everything.map((c) => c.key));

    // Per player, per period.
    // (calls recorded in one millisecond are listed in the order of their keys)
    expect((await all({ playerId: 'bob' }, 1)).map((c) => c.key)).toEqual(
      [keys.lost, keys.lostBack].sort((a, b) => (a < b ? -1 : 1)),
    );
    expect((await all({ to: between + 1 }, 3)).map((c) => c.playerId)).toEqual(
      Array(4).fill('ana'),
    );
    expect(new Set((await all({ from: between + 1 }, 3)).map((c) => c.playerId))).toEqual(
      new Set(['bob', 'cal']),
    );
    expect(await all({ playerId: 'nobody' }, 10)).toEqual([]);

    // The round's players include bob, whose only debit never became a bet.
    expect((await ledger.playersOf(ROUND)).sort()).toEqual(['ana', 'bob', 'cal']);

    // Rebuilt from the log, it is the live one.
    const live = await storage.list('operator-wallet-ledger');
    await runner.rebuild('operator-wallet-ledger');
    expect(await storage.list('operator-wallet-ledger')).toEqual(live);
  });

  it("refuses a cursor that is not 0 or a page's next", () => {
    expect(() => parseOperatorCallCursor('12')).toThrow(/cursor "12"/);
    expect(parseOperatorCallCursor('0')).toEqual({ at: 0, hex: null });
  });
});
