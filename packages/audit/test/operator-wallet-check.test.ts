import { streams } from '@croupier/contracts';
import type { RecordedEvent } from '@croupier/eventstore';
import { describe, expect, it } from 'vitest';
import { checkOperatorStakes, VerdictBuilder } from '../src/index.js';

/** Seamless mode's `debits` check on hand-made records: what each forgery is named. */
const ROUND = 't1.1.1';
const BET = '00000000-0000-4000-8000-0000000000b1';
const KEY = '00000000-0000-4000-8000-0000000000a1';
const SETTLEMENT = '00000000-0000-4000-8000-0000000000c1';
const SHIFT = '00000000-0000-4000-8000-0000000000d1';
let position = 0n;
const recorded = (stream: string, revision: number, type: string, data: object): RecordedEvent => ({
  id: `00000000-0000-4000-8000-${String(++position).padStart(12, '0')}`,
  stream,
  revision: BigInt(revision),
  position,
  type,
  data,
  metadata: {},
  recordedAt: new Date(0),
});
const wallet = streams.operatorWallet('ana');
const round = streams.round(ROUND);
const stake = { playerId: 'ana', roundId: ROUND, betId: BET, amount: 1_000, key: KEY };
const confirmed = () =>
  recorded(wallet, 1, 'OperatorDebitConfirmed', { ...stake, transactionId: 'tx', via: 'answer' });
const placed = () =>
  recorded(round, 1, 'BetPlaced', {
    betId: BET,
    playerId: 'ana',
    type: 'player',
    amount: 1_000,
    bankerMode: null,
    seat: null,
    roundId: ROUND,
    rebetOf: null,
  });
const settledRecord = (payout: number) =>
  recorded(round, 2, 'RoundSettled', {
    roundId: ROUND,
    tableId: 't1',
    shoeId: 't1.1',
    currency: 'EUR',
    shiftId: SHIFT,
    settlementId: SETTLEMENT,
    lines: [
      {
        betId: BET,
        playerId: 'ana',
        type: 'player',
        bankerMode: null,
        seat: null,
        stake: 1_000,
        result: payout > 0 ? 'win' : 'lose',
        payout,
        commission: 0,
        commissionMode: 'deducted',
      },
    ],
    totals: { staked: 1_000, paidOut: payout, commission: 0 },
  });
const creditRequested = (amount: number) =>
  recorded(wallet, 2, 'OperatorCreditRequested', {
    playerId: 'ana',
    roundId: ROUND,
    betId: BET,
    amount,
    currency: 'EUR',
    key: '00000000-0000-4000-8000-0000000000e1',
    kind: 'settlement',
    settlementId: SETTLEMENT,
    stake: 1_000,
  });

function findings(roundEvents: RecordedEvent[], operator: RecordedEvent[]): string[] {
  const verdict = new VerdictBuilder();
  checkOperatorStakes(ROUND, roundEvents, operator, verdict);
  return verdict.findings.map((f) => `${f.check}/${f.code}`);
}

describe('seamless mode: stakes against the operator wallet records', () => {
  it('passes a bet on a confirmed debit, paid by one credit of its payout', () => {
    const debit = confirmed();
    const bet = placed();
    expect(findings([bet, settledRecord(2_000)], [debit, creditRequested(2_000)])).toEqual([]);
  });

  it('names a bet accepted without a confirmed debit', () => {
    expect(findings([placed(), settledRecord(2_000)], [creditRequested(2_000)])).toContain(
      'debits/DEBIT_UNMATCHED',
    );
  });

  it('names a bet placed before its debit was confirmed', () => {
    const bet = placed();
    const debit = confirmed();
    expect(findings([bet], [debit])).toEqual(['debits/POSITION_INVALID']);
  });

  it('names a payout without a credit request, and a credit of another amount', () => {
    const debit = confirmed();
    const bet = placed();
    expect(findings([bet, settledRecord(2_000)], [debit])).toContain('debits/DEBIT_UNMATCHED');
    expect(findings([bet, settledRecord(2_000)], [debit, creditRequested(5_000)])).toEqual([
      'debits/CREDIT_MISMATCH',
    ]);
  });

  it('names a credit requested for a line the round never settled', () => {
    const debit = confirmed();
    const bet = placed();
    expect(findings([bet], [debit, creditRequested(2_000)])).toContain('debits/DEBIT_UNMATCHED');
  });
});
