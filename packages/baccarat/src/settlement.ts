import {
  BANKER_MODES,
  betVerdict,
  type BankerMode,
  type BetType,
  type CommissionMode,
  type Odds,
  type PaytableOptions,
} from './bets.js';
import { decodeOutcome, isPlausibleOutcome, OUTCOME_CODES } from './outcome-code.js';
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

/**
 * A payout (or commission) that would not be a safe integer: a Number cannot hold it exactly, so
 * settlement refuses it rather than pay an amount rounded in floating point.
 */
export class PayoutOverflowError extends RangeError {
  readonly code = 'PAYOUT_OVERFLOW';
  constructor(amount: bigint) {
    super(`payout ${amount} minor units is beyond the exact integer range of a number`);
    this.name = 'PayoutOverflowError';
  }
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

function exactNumber(amount: bigint): number {
  if (amount > MAX_SAFE || amount < -MAX_SAFE) throw new PayoutOverflowError(amount);
  return Number(amount);
}

/**
 * floor(amount * num / den) for a safe integer amount; throws `PayoutOverflowError` when the
 * result is not a safe integer (it could not be represented exactly).
 */
export function multiplyDown(amount: number, odds: Odds): number {
  return exactNumber((BigInt(amount) * BigInt(odds.num)) / BigInt(odds.den));
}

const topOddsCache = new Map<string, Odds>();

/** The highest odds a winning bet of `type` is paid in any outcome and banker mode. */
function topOdds(type: BetType, options: PaytableOptions): Odds {
  const key = `${type}:${options.tieOdds}`;
  let best = topOddsCache.get(key);
  if (best !== undefined) return best;
  best = { num: 0, den: 1 };
  for (let code = 0; code < OUTCOME_CODES; code++) {
    if (!isPlausibleOutcome(code)) continue;
    const outcome = decodeOutcome(code);
    for (const mode of BANKER_MODES) {
      const verdict = betVerdict(type, outcome, mode, options);
      if (verdict.result === 'win' && verdict.odds.num * best.den > best.num * verdict.odds.den) {
        best = verdict.odds;
      }
    }
  }
  topOddsCache.set(key, best);
  return best;
}

/**
 * The most a bet of `stake` on `type` can return (stake plus winnings, before any commission),
 * exactly. Bet validation keeps this within `Number.MAX_SAFE_INTEGER`, so settlement never fails.
 */
export function largestPayout(type: BetType, stake: number, options: PaytableOptions): bigint {
  const odds = topOdds(type, options);
  return BigInt(stake) + (BigInt(stake) * BigInt(odds.num)) / BigInt(odds.den);
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
    return {
      result: 'win',
      stake,
      payout: exactNumber(BigInt(stake) + BigInt(gross)),
      commission: 0,
    };
  }
  const rate = verdict.commissionRate;
  const net = multiplyDown(stake, {
    num: verdict.odds.num * (rate.den - rate.num),
    den: verdict.odds.den * rate.den,
  });
  const commission = gross - net;
  const winnings = rules.commission === 'deducted' ? net : gross;
  return {
    result: 'win',
    stake,
    payout: exactNumber(BigInt(stake) + BigInt(winnings)),
    commission,
  };
}
