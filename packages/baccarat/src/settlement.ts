import {
  betVerdict,
  type BankerMode,
  type BetType,
  type CommissionMode,
  type Odds,
  type PaytableOptions,
} from './bets.js';
import type { RoundOutcome } from './outcome.js';

export interface BetToSettle {
  readonly type: BetType;
  /** Integer minor units, > 0. */
  readonly stake: number;
  /** Recorded on every Banker bet; ignored by the others. Defaults to commission. */
  readonly bankerMode?: BankerMode | undefined;
}

export interface SettlementRules extends PaytableOptions {
  readonly commission: CommissionMode;
}

/** One bet's result in integer minor units. */
export interface BetSettlement {
  readonly result: 'win' | 'lose' | 'push';
  readonly stake: number;
  /** Returned to the player now: stake plus winnings on a win, the stake on a push, 0 on a loss. */
  readonly payout: number;
  /** Commission on a Banker win: withheld from `payout` (deducted) or owed by the seat (accrued). */
  readonly commission: number;
}

export class InvalidStakeError extends RangeError {
  readonly code = 'INVALID_AMOUNT';
  constructor(stake: unknown) {
    super(`stake must be a positive integer number of minor units, got ${String(stake)}`);
    this.name = 'InvalidStakeError';
  }
}

export function isValidStake(stake: unknown): stake is number {
  return typeof stake === 'number' && Number.isSafeInteger(stake) && stake > 0;
}

/** floor(amount * num / den), exact for any safe integer amount. */
export function multiplyDown(amount: number, odds: Odds): number {
  return Number((BigInt(amount) * BigInt(odds.num)) / BigInt(odds.den));
}

/**
 * Settles one bet: the payout is rounded down to the minor unit (a 0.10 Banker win returns 0.19,
 * 0.30 returns 0.58), so the house never pays a fraction of a cent.
 */
export function settleBet(
  bet: BetToSettle,
  outcome: RoundOutcome,
  rules: SettlementRules,
): BetSettlement {
  if (!isValidStake(bet.stake)) throw new InvalidStakeError(bet.stake);
  const verdict = betVerdict(bet.type, outcome, bet.bankerMode ?? 'commission', rules);
  const { stake } = bet;
  if (verdict.result === 'lose') return { result: 'lose', stake, payout: 0, commission: 0 };
  if (verdict.result === 'push') return { result: 'push', stake, payout: stake, commission: 0 };
  const gross = multiplyDown(stake, verdict.odds);
  if (verdict.commissionRate === undefined) {
    return { result: 'win', stake, payout: stake + gross, commission: 0 };
  }
  const rate = verdict.commissionRate;
  const net = multiplyDown(stake, {
    num: verdict.odds.num * (rate.den - rate.num),
    den: verdict.odds.den * rate.den,
  });
  const commission = gross - net;
  const winnings = rules.commission === 'deducted' ? net : gross;
  return { result: 'win', stake, payout: stake + winnings, commission };
}
