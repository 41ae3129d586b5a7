import {
  BANKER_MODES,
  BET_TYPES,
  MAIN_BETS,
  type BankerMode,
  type BetType,
  type CommissionMode,
} from './bets.js';
import { CARDS_PER_DECK, MAX_DECKS, MIN_DECKS } from './cards.js';
import { largestPayout } from './settlement.js';

/** `shoe`: shuffle once, deal to the cut card. `every-round`: a fresh shuffle before every round. */
export type ShufflePolicy = 'shoe' | 'every-round';
export const SHUFFLE_POLICIES: readonly ShufflePolicy[] = ['shoe', 'every-round'];

export interface BetLimit {
  /** Minimum total stake of one player on this bet in a round, minor units. */
  readonly min: number;
  /** Maximum total stake of one player on this bet in a round, minor units. */
  readonly max: number;
  /** Last round number of the shoe on which the bet is offered; null for no limit. */
  readonly maxRound: number | null;
}

/** The rules a table plays by. The zod schema in `@croupier/contracts` produces this shape. */
export interface TableRules {
  readonly decks: number;
  readonly shufflePolicy: ShufflePolicy;
  /** Burn on a new shoe (000): show one card, burn as many more as its value (10 for 10/J/Q/K). */
  readonly burn: boolean;
  /** Cut card position in cards from the end of the shoe; null when there is none. */
  readonly cutCard: number | null;
  /** Offered bets and their limits; a bet absent here is not offered. */
  readonly bets: Readonly<Partial<Record<BetType, BetLimit>>>;
  /** When set, the `player` and `banker` maximum is this limit on |Player stake - Banker stake|. */
  readonly playerBankerDifferenceLimit: number | null;
  readonly bankerModes: readonly BankerMode[];
  readonly commission: CommissionMode;
  readonly tieOdds: number;
  /** Numbered seats (land-based tables); null for an unseated online table. */
  readonly seats: number | null;
}

/** The most cards a burn can take: the shown card plus ten more for a 10-value card. */
export const MAX_BURN_CARDS = 11;
/** The most cards a round can take. */
export const MAX_CARDS_PER_ROUND = 6;
/**
 * The fewest cards that must follow the cut card: it can come out before a round's second card,
 * which then needs five more, and one more round of up to six follows.
 */
export const MIN_CARDS_AFTER_CUT = MAX_CARDS_PER_ROUND - 1 + MAX_CARDS_PER_ROUND;
export const TIE_ODDS: readonly number[] = [8, 9];
export const MAX_SEATS = 9;

/**
 * The distinct bets a table offers: each offered bet type, a Banker bet once per banker mode,
 * on each seat of a seated table. One request may carry a bet for each of them.
 */
export function betCombinationsOf(
  rules: Pick<TableRules, 'bets' | 'bankerModes' | 'seats'>,
): number {
  let combinations = 0;
  for (const type of BET_TYPES) {
    if (rules.bets[type] === undefined) continue;
    combinations += type === 'banker' ? Math.max(1, rules.bankerModes.length) : 1;
  }
  return combinations * (rules.seats ?? 1);
}

/** The most distinct bets any valid table offers (every bet, both banker modes, every seat). */
export const MAX_BET_COMBINATIONS = (BET_TYPES.length + BANKER_MODES.length - 1) * MAX_SEATS;

/** Default side-bet availability (000): pairs to round 60, the other limited side bets to 50. */
export const DEFAULT_MAX_ROUND: Readonly<Record<BetType, number | null>> = {
  player: null,
  banker: null,
  tie: null,
  player_pair: 60,
  banker_pair: 60,
  either_pair: 50,
  perfect_pair: 50,
  player_natural: 50,
  banker_natural: 50,
  player_bonus: null,
  banker_bonus: null,
  lucky_six: 50,
  lucky_six_2: 50,
  lucky_six_3: 50,
};

/** A problem with a configuration, named by the path of the offending field. */
export interface ConfigProblem {
  readonly path: readonly (string | number)[];
  readonly message: string;
}

const isPositiveInteger = (value: number): boolean => Number.isSafeInteger(value) && value > 0;

/**
 * The rule-level checks a table configuration must pass beyond its types: a shoe that can never
 * run out of cards, limits that make sense, bets that can be won. Empty when the rules are valid.
 */
export function tableRulesProblems(rules: TableRules): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const problem = (path: (string | number)[], message: string): void => {
    problems.push({ path, message });
  };

  if (!Number.isInteger(rules.decks) || rules.decks < MIN_DECKS || rules.decks > MAX_DECKS) {
    problem(['decks'], `must be an integer from ${MIN_DECKS} to ${MAX_DECKS}`);
  }
  const totalCards = rules.decks * CARDS_PER_DECK;

  if (rules.shufflePolicy === 'every-round') {
    if (rules.burn)
      problem(['burn'], 'must be false when every round is dealt from a fresh shuffle');
    if (rules.cutCard !== null) {
      problem(['cutCard'], 'must be null when every round is dealt from a fresh shuffle');
    }
  } else if (rules.cutCard === null) {
    problem(['cutCard'], 'is required for a shoe dealt round after round');
  } else {
    const burnReach = rules.burn ? MAX_BURN_CARDS : 1;
    const latest = totalCards - burnReach;
    if (
      !Number.isInteger(rules.cutCard) ||
      rules.cutCard < MIN_CARDS_AFTER_CUT ||
      rules.cutCard > latest
    ) {
      problem(
        ['cutCard'],
        `must be from ${MIN_CARDS_AFTER_CUT} to ${latest} cards from the end of a ${totalCards}-card shoe` +
          ` (so the last round never runs out of cards${rules.burn ? ' and the burn never reaches the cut card' : ''})`,
      );
    }
  }

  const offered = Object.keys(rules.bets);
  if (offered.length === 0) problem(['bets'], 'the table must offer at least one bet');
  for (const type of offered) {
    if (!(BET_TYPES as readonly string[]).includes(type)) {
      problem(['bets', type], `unknown bet; known bets: ${BET_TYPES.join(', ')}`);
      continue;
    }
    const limit = rules.bets[type as BetType];
    if (limit === undefined) continue;
    if (!isPositiveInteger(limit.min))
      problem(['bets', type, 'min'], 'must be a positive integer (minor units)');
    if (!isPositiveInteger(limit.max))
      problem(['bets', type, 'max'], 'must be a positive integer (minor units)');
    if (limit.max < limit.min)
      problem(['bets', type, 'max'], `must be at least min (${limit.min})`);
    if (
      isPositiveInteger(limit.max) &&
      TIE_ODDS.includes(rules.tieOdds) &&
      largestPayout(type as BetType, limit.max, rules) > BigInt(Number.MAX_SAFE_INTEGER)
    ) {
      problem(
        ['bets', type, 'max'],
        `a winning ${type} bet of max would pay more than ${Number.MAX_SAFE_INTEGER} minor units`,
      );
    }
    if (limit.maxRound !== null && !isPositiveInteger(limit.maxRound)) {
      problem(['bets', type, 'maxRound'], 'must be a positive integer or null');
    }
  }
  if (rules.bets.perfect_pair !== undefined && rules.decks < 2) {
    problem(
      ['bets', 'perfect_pair'],
      'can never win with a single deck; it needs at least 2 decks',
    );
  }
  if (!MAIN_BETS.some((type) => rules.bets[type] !== undefined)) {
    problem(['bets'], 'the table must offer at least one of player, banker, tie');
  }

  if (
    rules.playerBankerDifferenceLimit !== null &&
    !isPositiveInteger(rules.playerBankerDifferenceLimit)
  ) {
    problem(['playerBankerDifferenceLimit'], 'must be a positive integer (minor units) or null');
  }
  if (rules.bankerModes.length === 0)
    problem(['bankerModes'], 'at least one banker mode is required');
  if (new Set(rules.bankerModes).size !== rules.bankerModes.length) {
    problem(['bankerModes'], 'must not repeat a mode');
  }
  if (!TIE_ODDS.includes(rules.tieOdds))
    problem(['tieOdds'], `must be one of ${TIE_ODDS.join(', ')} (to one)`);
  if (
    rules.seats !== null &&
    (!Number.isInteger(rules.seats) || rules.seats < 1 || rules.seats > MAX_SEATS)
  ) {
    problem(['seats'], `must be an integer from 1 to ${MAX_SEATS}, or null for an unseated table`);
  }
  if (rules.commission === 'accrued') {
    if (rules.seats === null)
      problem(['commission'], 'accrued commission is kept per seat; the table needs seats');
    if (rules.bankerModes.includes('no_commission')) {
      problem(
        ['bankerModes'],
        'a no-commission mode makes no sense on an accrued-commission table',
      );
    }
  }
  return problems;
}

/** Throws a `RangeError` listing every problem, each prefixed by its field path. */
export function assertValidTableRules(rules: TableRules): void {
  const problems = tableRulesProblems(rules);
  if (problems.length > 0) {
    throw new RangeError(
      `invalid table rules: ${problems.map((p) => `${p.path.join('.')}: ${p.message}`).join('; ')}`,
    );
  }
}
