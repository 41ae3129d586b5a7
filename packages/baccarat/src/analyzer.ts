import {
  BET_TYPES,
  betVerdict,
  verdictReturn,
  type BankerMode,
  type BetType,
  type CommissionMode,
  type Odds,
} from './bets.js';
import { assertDecks, CARDS_PER_DECK, RANKS } from './cards.js';
import { bankerDraws, playerDraws } from './dealing.js';
import { decodeOutcome } from './outcome-code.js';
import { InvalidStakeError, isValidStake, settleBet } from './settlement.js';

/** Bets the analyzer prices: every bet of section 3, plus Banker in no-commission mode. */
export type AnalyzedBet = BetType | 'banker_no_commission';
export const ANALYZED_BETS: readonly AnalyzedBet[] = [...BET_TYPES, 'banker_no_commission'];

export interface BetAnalysis {
  /** Expected return per unit staked, pushes returning the stake (1 - houseEdge). */
  readonly rtp: number;
  readonly houseEdge: number;
  /** The exact RTP as a reduced fraction "numerator/denominator". */
  readonly exactRtp: string;
  /**
   * Variance of the return per unit staked, off the top of a full shoe: how far an observed RTP
   * strays from `rtp` by chance (over n equal independent bets, a standard deviation of
   * sqrt(variance / n)), which the floor's charts draw as the expected band.
   */
  readonly variance: number;
  /**
   * With `stake`: the expected return per unit staked of a bet of exactly that many minor units,
   * every payout rounded down to the minor unit as settlement pays it (a 10-unit Banker win
   * returns 19, not 19.5), and accrued commission counted as paid. At most `rtp`.
   */
  readonly effectiveRtp?: number;
  /** `effectiveRtp` as a reduced fraction. */
  readonly exactEffectiveRtp?: string;
}

export interface Analysis {
  readonly decks: number;
  readonly tieOdds: number;
  /** The stake the effective RTPs are for, minor units; absent without one. */
  readonly stake?: number;
  /** Probabilities of each winner, off the top of a full shoe. */
  readonly probabilities: {
    readonly banker: number;
    readonly player: number;
    readonly tie: number;
  };
  readonly bets: Readonly<Record<AnalyzedBet, BetAnalysis>>;
}

export interface AnalyzeOptions {
  /** Tie pays this to one; default 8. */
  readonly tieOdds?: number;
  /** A stake in minor units: adds the effective RTP at that stake to every bet. */
  readonly stake?: number;
  /**
   * Where Banker's commission goes (the effective RTP only): the same either way, since an
   * accrued commission is the one a deducted payout withholds (ADR 0004). Default deducted.
   */
  readonly commission?: CommissionMode;
}

/**
 * The number of ordered deals of every outcome, off the top of a full shoe of `decks` decks,
 * by packed outcome code (perfect-pair bits clear: suits are counted separately). Each deal is
 * counted as a sequence of six cards, so a round that used four counts once for each way of
 * drawing the two unused cards; every count is then an exact integer (< 2^53 for 8 decks).
 */
export interface OutcomeCounts {
  readonly counts: Float64Array;
  /** N(N-1)(N-2)(N-3)(N-4)(N-5) for N cards: the sum of all counts. */
  readonly total: number;
}

const RANK_COUNT = RANKS.length;
const POINTS_BY_RANK = [1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 0, 0, 0];

/** Enumerates every deal: ranks for the first four cards (pairs need them), points after. */
export function countOutcomes(decks: number): OutcomeCounts {
  assertDecks(decks);
  const cards = CARDS_PER_DECK * decks;
  const byRank = new Array<number>(RANK_COUNT).fill(4 * decks);
  const byPoints = new Array<number>(10).fill(4 * decks);
  byPoints[0] = 16 * decks;
  const counts = new Float64Array(1 << 12);
  const n4 = cards - 4;
  const n5 = cards - 5;

  const take = (rank: number): void => {
    byRank[rank]!--;
    byPoints[POINTS_BY_RANK[rank]!]!--;
  };
  const give = (rank: number): void => {
    byRank[rank]!++;
    byPoints[POINTS_BY_RANK[rank]!]!++;
  };

  for (let p1 = 0; p1 < RANK_COUNT; p1++) {
    const w1 = byRank[p1]!;
    take(p1);
    for (let b1 = 0; b1 < RANK_COUNT; b1++) {
      const w2 = w1 * byRank[b1]!;
      if (w2 === 0) continue;
      take(b1);
      for (let p2 = 0; p2 < RANK_COUNT; p2++) {
        const w3 = w2 * byRank[p2]!;
        if (w3 === 0) continue;
        take(p2);
        for (let b2 = 0; b2 < RANK_COUNT; b2++) {
          const w4 = w3 * byRank[b2]!;
          if (w4 === 0) continue;
          take(b2);
          const player = (POINTS_BY_RANK[p1]! + POINTS_BY_RANK[p2]!) % 10;
          const banker = (POINTS_BY_RANK[b1]! + POINTS_BY_RANK[b2]!) % 10;
          const pairs = (p1 === p2 ? 1 << 10 : 0) | (b1 === b2 ? 1 << 11 : 0);
          if (player >= 8 || banker >= 8) {
            counts[player | (banker << 4) | pairs]! += w4 * n4 * n5;
          } else if (playerDraws(player)) {
            for (let third = 0; third < 10; third++) {
              const w5 = w4 * byPoints[third]!;
              if (w5 === 0) continue;
              const playerFinal = (player + third) % 10;
              if (bankerDraws(banker, third)) {
                byPoints[third]!--;
                for (let bankerThird = 0; bankerThird < 10; bankerThird++) {
                  const w6 = w5 * byPoints[bankerThird]!;
                  counts[playerFinal | (((banker + bankerThird) % 10) << 4) | (3 << 8) | pairs]! +=
                    w6;
                }
                byPoints[third]!++;
              } else {
                counts[playerFinal | (banker << 4) | (1 << 8) | pairs]! += w5 * n5;
              }
            }
          } else if (bankerDraws(banker, null)) {
            for (let bankerThird = 0; bankerThird < 10; bankerThird++) {
              const w5 = w4 * byPoints[bankerThird]!;
              counts[player | (((banker + bankerThird) % 10) << 4) | (1 << 9) | pairs]! += w5 * n5;
            }
          } else {
            counts[player | (banker << 4) | pairs]! += w4 * n4 * n5;
          }
          give(b2);
        }
        give(p2);
      }
      give(b1);
    }
    give(p1);
  }
  let total = 1;
  for (let i = 0; i < 6; i++) total *= cards - i;
  return { counts, total };
}

/**
 * Ordered draws of the first four cards (Player 1, Banker 1, Player 2, Banker 2) in which at least
 * one hand's two cards are identical in rank and suit, out of N(N-1)(N-2)(N-3). With D copies of
 * each of the 52 cards: one hand suited, A = N(D-1)(N-2)(N-3); both, of different cards,
 * N(N-D)(D-1)^2, of the same card, N(D-1)(D-2)(D-3); the union is 2A - both.
 */
export function countPerfectPairDeals(decks: number): { wins: bigint; total: bigint } {
  assertDecks(decks);
  const d = BigInt(decks);
  const n = BigInt(CARDS_PER_DECK * decks);
  const one = n * (d - 1n) * (n - 2n) * (n - 3n);
  const both = n * (n - d) * (d - 1n) * (d - 1n) + n * (d - 1n) * (d - 2n) * (d - 3n);
  return { wins: 2n * one - both, total: n * (n - 1n) * (n - 2n) * (n - 3n) };
}

function gcd(a: bigint, b: bigint): bigint {
  while (b !== 0n) [a, b] = [b, a % b];
  return a < 0n ? -a : a;
}

const SCALE = 10n ** 18n;

function fractionToNumber(num: bigint, den: bigint): number {
  return Number((num * SCALE) / den) / 1e18;
}

const reduced = (num: bigint, den: bigint): string => {
  const divisor = gcd(num, den);
  return `${num / divisor}/${den / divisor}`;
};

/**
 * A bet's analysis from Σ count·return = num over den = deals·unit, and Σ count·return² =
 * squares (returns in the same units): the variance E[X²] - E[X]², with X per unit staked, is
 * (squares·deals - num²) / (deals·unit)².
 */
function betAnalysis(num: bigint, den: bigint, squares: bigint, unit = 1n): BetAnalysis {
  const deals = den / unit;
  return {
    rtp: fractionToNumber(num, den),
    houseEdge: fractionToNumber(den - num, den),
    exactRtp: reduced(num, den),
    variance: fractionToNumber(squares * deals - num * num, den * den),
  };
}

const countsByDecks = new Map<number, OutcomeCounts>();

/** countOutcomes, computed once per shoe size in a process (a few tens of milliseconds). */
function outcomeCountsOf(decks: number): OutcomeCounts {
  let counts = countsByDecks.get(decks);
  if (counts === undefined) {
    counts = countOutcomes(decks);
    countsByDecks.set(decks, counts);
  }
  return counts;
}

/**
 * Exact combinatorial analysis of every bet for a shoe of `decks` decks, off the top of a full
 * shoe: no sampling, every deal counted once with its exact multiplicity.
 */
export function analyze(decks: number, options: AnalyzeOptions = {}): Analysis {
  const tieOdds = options.tieOdds ?? 8;
  const { stake } = options;
  if (stake !== undefined && !isValidStake(stake)) throw new InvalidStakeError(stake);
  const rules = { tieOdds, commission: options.commission ?? 'deducted' } as const;
  const { counts, total } = outcomeCountsOf(decks);
  const outcomes: { code: number; count: bigint }[] = [];
  let banker = 0;
  let player = 0;
  let tie = 0;
  for (let code = 0; code < counts.length; code++) {
    const count = counts[code]!;
    if (count === 0) continue;
    if (!Number.isSafeInteger(count)) throw new Error(`count for outcome ${code} lost precision`);
    outcomes.push({ code, count: BigInt(count) });
    const totals = decodeOutcome(code);
    if (totals.winner === 'banker') banker += count;
    else if (totals.winner === 'player') player += count;
    else tie += count;
  }
  if (!Number.isSafeInteger(banker + player + tie) || banker + player + tie !== total) {
    throw new Error('outcome counts do not add up to the number of deals');
  }

  /**
   * What a bet of `stake` returns in `outcome` as settlement pays it, floored to the minor unit;
   * an accrued commission is owed on the spot, so it is taken off like a deducted one.
   */
  const returnAt = (type: BetType, bankerMode: BankerMode, code: number, at: number): bigint => {
    const settled = settleBet({ type, stake: at, bankerMode }, decodeOutcome(code), rules);
    return BigInt(settled.payout - (rules.commission === 'accrued' ? settled.commission : 0));
  };
  /** The exact effective RTP at `stake`, from the same counts as the RTP. */
  const effectiveOf = (type: BetType, bankerMode: BankerMode, at: number) => {
    let num = 0n;
    for (const { code, count } of outcomes) num += count * returnAt(type, bankerMode, code, at);
    const den = BigInt(total) * BigInt(at);
    return { effectiveRtp: fractionToNumber(num, den), exactEffectiveRtp: reduced(num, den) };
  };

  const rtpOf = (type: BetType, bankerMode: BankerMode): BetAnalysis => {
    if (type === 'perfect_pair') {
      const { wins, total: deals } = countPerfectPairDeals(decks);
      const ret = verdictReturn({ result: 'win', odds: { num: 25, den: 1 } });
      const won = BigInt(ret.num / ret.den);
      const analysis = betAnalysis(wins * won, deals, wins * won * won);
      if (stake === undefined) return analysis;
      // 25 to 1 pays whole minor units: the win returns 26 stakes exactly, at any stake.
      const paid = BigInt(stake) * won;
      const den = deals * BigInt(stake);
      return {
        ...analysis,
        effectiveRtp: fractionToNumber(wins * paid, den),
        exactEffectiveRtp: reduced(wins * paid, den),
      };
    }
    let num = 0n;
    let squares = 0n;
    const den = 40n; // a common multiple of every paytable denominator (2, 20, 40)
    for (const { code, count } of outcomes) {
      const ret: Odds = verdictReturn(
        betVerdict(type, decodeOutcome(code), bankerMode, { tieOdds }),
      );
      if (40 % ret.den !== 0) throw new Error(`denominator ${ret.den} does not divide 40`);
      const fortieths = BigInt(ret.num * (40 / ret.den));
      num += count * fortieths;
      squares += count * fortieths * fortieths;
    }
    const analysis = betAnalysis(num, BigInt(total) * den, squares, den);
    return stake === undefined
      ? analysis
      : { ...analysis, ...effectiveOf(type, bankerMode, stake) };
  };

  const bets = {} as Record<AnalyzedBet, BetAnalysis>;
  for (const type of BET_TYPES) bets[type] = rtpOf(type, 'commission');
  bets.banker_no_commission = rtpOf('banker', 'no_commission');
  return {
    decks,
    tieOdds,
    ...(stake === undefined ? {} : { stake }),
    probabilities: { banker: banker / total, player: player / total, tie: tie / total },
    bets,
  };
}
