import { streams, walletEventSchema, type WalletEvent } from '@croupier/contracts';
import type { RecordedEvent } from '@croupier/eventstore';
import { describe, expect, it } from 'vitest';
import { checkMoneyKind, VerdictBuilder } from '../src/index.js';

/** Play money and real money kept apart (ADR 0030), on hand-made wallet records. */
const ROUND = 's1.1.1';
const BET = '00000000-0000-4000-8000-0000000000b1';
let position = 0n;

function movement(stream: string, type: string, data: object) {
  const recorded: RecordedEvent = {
    id: `00000000-0000-4000-8000-${String(++position).padStart(12, '0')}`,
    stream,
    revision: position,
    position,
    type,
    data,
    metadata: {},
    recordedAt: new Date(0),
  };
  const event: WalletEvent = walletEventSchema.parse({ type, data });
  return { recorded, event };
}

const fun = streams.funWallet('ana');
const real = streams.wallet('ana');
const grant = (amount: number, topUpTo: number, number: number, stream = fun) =>
  movement(stream, 'PlayMoneyGranted', {
    playerId: 'ana',
    amount,
    currency: 'FUN',
    topUpTo,
    grant: number,
    fun: true,
  });
const stake = (amount: number, stream = fun, mark = true) =>
  movement(stream, 'StakeDebited', {
    playerId: 'ana',
    roundId: ROUND,
    betId: BET,
    amount,
    ...(mark ? { fun: true } : {}),
  });

function check(money: 'real' | 'fun', records: ReturnType<typeof movement>[]) {
  const verdict = new VerdictBuilder();
  const justified = new Map<string, string>();
  checkMoneyKind(money, records, verdict, justified);
  return { findings: verdict.findings.map((f) => f.code), justified };
}

describe('play money in the wallet audit', () => {
  it('justifies grants that top the fun balance up exactly', () => {
    const records = [grant(10_000, 10_000, 1), stake(4_000), grant(4_000, 10_000, 2)];
    const { findings, justified } = check('fun', records);
    expect(findings).toEqual([]);
    expect(justified.get(records[2]!.recorded.id)).toBe('top-up from 6000 to 10000');
  });

  it('names a grant that makes play money from nothing, past its top-up', () => {
    expect(check('fun', [grant(10_000, 10_000, 1), grant(5_000, 10_000, 2)]).findings).toEqual([
      'MOVEMENT_UNJUSTIFIED',
    ]);
  });

  it('names real money in a fun wallet: a deposit, an unmarked stake', () => {
    const deposit = movement(fun, 'FundsDeposited', {
      playerId: 'ana',
      amount: 500,
      currency: 'EUR',
      reference: 'cash-1',
    });
    expect(
      check('fun', [grant(1_000, 1_000, 1), deposit, stake(100, fun, false)]).findings,
    ).toEqual(['WRONG_STREAM', 'WRONG_STREAM']);
  });

  it('names play money in a real wallet: a grant, a marked stake', () => {
    expect(check('real', [grant(1_000, 1_000, 1, real), stake(100, real)]).findings).toEqual([
      'WRONG_STREAM',
      'WRONG_STREAM',
    ]);
    expect(check('real', [stake(100, real, false)]).findings).toEqual([]);
  });
});
