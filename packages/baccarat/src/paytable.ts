import type { BankerMode, BetType, Odds, PaytableOptions } from './bets.js';

/**
 * One line of a bet's payout schedule as a player reads it: when it applies and what it pays.
 * `odds` is "to one" (the winnings per unit staked); a push returns the stake; `commission` is
 * the share of the win the house keeps (Banker in commission mode).
 */
export type PayoutLine =
  | {
      readonly when: string;
      readonly result: 'win';
      readonly odds: Odds;
      readonly commissionRate?: Odds;
    }
  | { readonly when: string; readonly result: 'push' };

const toOne = (num: number, den = 1): Odds => ({ num, den });
const win = (when: string, odds: Odds): PayoutLine => ({ when, result: 'win', odds });
const push = (when: string): PayoutLine => ({ when, result: 'push' });
const COMMISSION: Odds = { num: 1, den: 20 };

const BONUS_LINES = (side: 'Player' | 'Banker'): PayoutLine[] => [
  win(`${side} wins with a natural`, toOne(1)),
  push('a tie of two naturals'),
  win(`${side} wins by 9, not a natural`, toOne(30)),
  win(`${side} wins by 8, not a natural`, toOne(10)),
  win(`${side} wins by 7, not a natural`, toOne(6)),
  win(`${side} wins by 6, not a natural`, toOne(4)),
  win(`${side} wins by 5, not a natural`, toOne(2)),
  win(`${side} wins by 4, not a natural`, toOne(1)),
];

/**
 * The payout schedule of a bet (docs/rules.md), line by line: every way it can win or push.
 * Anything not listed loses. The same paytable `betVerdict` settles by (a test holds them equal).
 * An accrued-commission table pays the Banker line 1 to 1 and owes the same commission.
 */
export function payoutSchedule(
  type: BetType,
  bankerMode: BankerMode,
  options: PaytableOptions,
): PayoutLine[] {
  switch (type) {
    case 'player':
      return [win('Player wins', toOne(1)), push('a tie')];
    case 'banker':
      if (bankerMode === 'no_commission') {
        return [
          win('Banker wins with 6', toOne(1, 2)),
          win('Banker wins with any other total', toOne(1)),
          push('a tie'),
        ];
      }
      return [
        { when: 'Banker wins', result: 'win', odds: toOne(1), commissionRate: COMMISSION },
        push('a tie'),
      ];
    case 'tie':
      return [win('Player and Banker totals are equal', toOne(options.tieOdds))];
    case 'player_pair':
      return [win("Player's first two cards are a pair", toOne(11))];
    case 'banker_pair':
      return [win("Banker's first two cards are a pair", toOne(11))];
    case 'either_pair':
      return [win("Player's or Banker's first two cards are a pair (paid once)", toOne(5))];
    case 'perfect_pair':
      return [
        win(
          "Player's or Banker's first two cards are a pair of the same suit (paid once)",
          toOne(25),
        ),
      ];
    case 'player_natural':
      return [win("Player's first two cards total 8 or 9", toOne(7, 2))];
    case 'banker_natural':
      return [win("Banker's first two cards total 8 or 9", toOne(7, 2))];
    case 'player_bonus':
      return BONUS_LINES('Player');
    case 'banker_bonus':
      return BONUS_LINES('Banker');
    case 'lucky_six':
      return [
        win('Banker wins with 6 on two cards', toOne(12)),
        win('Banker wins with 6 on three cards', toOne(20)),
      ];
    case 'lucky_six_2':
      return [win('Banker wins with 6 on two cards', toOne(22))];
    case 'lucky_six_3':
      return [win('Banker wins with 6 on three cards', toOne(50))];
  }
}

/** A decimal of an exact fraction, as short as it is exact (0.95, 3.5, 8). */
function decimal(num: number, den: number): string {
  const value = num / den;
  return Number.isInteger(value) ? String(value) : String(Number(value.toFixed(4)));
}

/**
 * Odds as the table writes them "to one": the winnings per stake ("8 to 1", "7 to 2", "1 to 2";
 * a commission-mode Banker win is "0.95 to 1").
 */
export function oddsToOne(odds: Odds, commissionRate?: Odds): string {
  if (commissionRate === undefined) return `${odds.num} to ${odds.den}`;
  const num = odds.num * (commissionRate.den - commissionRate.num);
  const den = odds.den * commissionRate.den;
  return `${decimal(num, den)} to 1`;
}

/**
 * The same odds "for one", as seed 003 writes them: what a winning stake returns in all, the
 * stake included ("PAYS 9 FOR 1" is a tie at 8 to 1; even money is "2 for 1").
 */
export function oddsForOne(odds: Odds, commissionRate?: Odds): string {
  const rate = commissionRate ?? { num: 0, den: 1 };
  const num = odds.num * (rate.den - rate.num) + odds.den * rate.den;
  return `${decimal(num, odds.den * rate.den)} for 1`;
}
