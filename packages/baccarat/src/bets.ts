import type { RoundOutcome } from './outcome.js';

/** Every bet of docs/rules.md, by its stable id. */
export const BET_TYPES = [
  'player',
  'banker',
  'tie',
  'player_pair',
  'banker_pair',
  'either_pair',
  'perfect_pair',
  'player_natural',
  'banker_natural',
  'player_bonus',
  'banker_bonus',
  'lucky_six',
  'lucky_six_2',
  'lucky_six_3',
] as const;

export type BetType = (typeof BET_TYPES)[number];

/** The main bets; everything else is a side bet. */
export const MAIN_BETS: readonly BetType[] = ['player', 'banker', 'tie'];

/** Traditional baccarat (5% commission on Banker wins) or no-commission (Banker 6 pays half). */
export type BankerMode = 'commission' | 'no_commission';
export const BANKER_MODES: readonly BankerMode[] = ['commission', 'no_commission'];

/** Where the 5% commission goes: withheld from the payout, or recorded per seat and collected later. */
export type CommissionMode = 'deducted' | 'accrued';

export function isBetType(value: unknown): value is BetType {
  return typeof value === 'string' && (BET_TYPES as readonly string[]).includes(value);
}

/** Odds "to one" as an exact fraction: a win returns the stake plus stake * num / den. */
export interface Odds {
  readonly num: number;
  readonly den: number;
}

/**
 * How one bet fares in one outcome. `commissionRate` is the share of a Banker win the house
 * keeps in commission mode (1/20); the win itself is then priced at 1 - rate.
 */
export type BetVerdict =
  | { readonly result: 'win'; readonly odds: Odds; readonly commissionRate?: Odds }
  | { readonly result: 'push' }
  | { readonly result: 'lose' };

export interface PaytableOptions {
  /** Tie pays this to one: 8 (the seeds' standard) or 9. */
  readonly tieOdds: number;
}

const EVEN: Odds = { num: 1, den: 1 };
const HALF: Odds = { num: 1, den: 2 };
const BANKER_COMMISSION: Odds = { num: 1, den: 20 };
const PUSH: BetVerdict = { result: 'push' };
const LOSE: BetVerdict = { result: 'lose' };

const toOne = (num: number): Odds => ({ num, den: 1 });
const winAt = (odds: Odds): BetVerdict => ({ result: 'win', odds });

/** Bonus paytable: non-natural win by margin 4-9. */
const BONUS_BY_MARGIN: Readonly<Record<number, number>> = { 4: 1, 5: 2, 6: 4, 7: 6, 8: 10, 9: 30 };

function bonusVerdict(won: boolean, natural: boolean, tie: boolean, margin: number): BetVerdict {
  if (won && natural) return winAt(EVEN);
  if (tie && natural) return PUSH;
  const odds = won ? BONUS_BY_MARGIN[margin] : undefined;
  return odds === undefined ? LOSE : winAt(toOne(odds));
}

function luckySixVerdict(outcome: RoundOutcome, twoCards: number, threeCards: number): BetVerdict {
  if (outcome.winner !== 'banker' || outcome.bankerTotal !== 6) return LOSE;
  const odds = outcome.bankerCardCount === 2 ? twoCards : threeCards;
  return odds > 0 ? winAt(toOne(odds)) : LOSE;
}

const when = (condition: boolean, odds: Odds): BetVerdict => (condition ? winAt(odds) : LOSE);

/** The paytable of docs/rules.md: how a bet of `type` fares in `outcome`. */
export function betVerdict(
  type: BetType,
  outcome: RoundOutcome,
  bankerMode: BankerMode,
  options: PaytableOptions,
): BetVerdict {
  const { winner } = outcome;
  const tie = winner === 'tie';
  switch (type) {
    case 'player':
      return tie ? PUSH : when(winner === 'player', EVEN);
    case 'banker':
      if (tie) return PUSH;
      if (winner !== 'banker') return LOSE;
      if (bankerMode === 'no_commission') return winAt(outcome.bankerTotal === 6 ? HALF : EVEN);
      return { result: 'win', odds: EVEN, commissionRate: BANKER_COMMISSION };
    case 'tie':
      return when(tie, toOne(options.tieOdds));
    case 'player_pair':
      return when(outcome.playerPair, toOne(11));
    case 'banker_pair':
      return when(outcome.bankerPair, toOne(11));
    case 'either_pair':
      return when(outcome.playerPair || outcome.bankerPair, toOne(5));
    case 'perfect_pair':
      return when(outcome.playerPerfectPair || outcome.bankerPerfectPair, toOne(25));
    case 'player_natural':
      return when(outcome.playerNatural, { num: 7, den: 2 });
    case 'banker_natural':
      return when(outcome.bankerNatural, { num: 7, den: 2 });
    case 'player_bonus':
      return bonusVerdict(
        winner === 'player',
        outcome.playerNatural,
        tie,
        outcome.playerTotal - outcome.bankerTotal,
      );
    case 'banker_bonus':
      return bonusVerdict(
        winner === 'banker',
        outcome.bankerNatural,
        tie,
        outcome.bankerTotal - outcome.playerTotal,
      );
    case 'lucky_six':
      return luckySixVerdict(outcome, 12, 20);
    case 'lucky_six_2':
      return luckySixVerdict(outcome, 22, 0);
    case 'lucky_six_3':
      return luckySixVerdict(outcome, 0, 50);
  }
}

/**
 * The exact expected total return per unit stake of a verdict, as a fraction (win: 1 + odds less
 * commission; push: 1; lose: 0). Used by the analyzer; settlement floors to minor units instead.
 */
export function verdictReturn(verdict: BetVerdict): Odds {
  if (verdict.result === 'lose') return { num: 0, den: 1 };
  if (verdict.result === 'push') return { num: 1, den: 1 };
  const { odds, commissionRate } = verdict;
  const rate = commissionRate ?? { num: 0, den: 1 };
  // 1 + odds * (1 - rate)
  const den = odds.den * rate.den;
  return { num: den + odds.num * (rate.den - rate.num), den };
}
