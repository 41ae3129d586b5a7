import { BANKER_MODES, isBetType, type BankerMode, type BetType } from './bets.js';
import { isValidStake, largestPayout } from './settlement.js';
import { spotKeyOf } from './spots.js';
import type { TableRules } from './table.js';

/** Stable codes of every reason a bet can be refused. */
export type BetRejectionCode =
  | 'UNKNOWN_BET'
  | 'BET_NOT_OFFERED'
  | 'BET_PAST_MAX_ROUND'
  | 'INVALID_AMOUNT'
  | 'BET_BELOW_MIN'
  | 'BET_ABOVE_MAX'
  | 'BET_DIFFERENCE_LIMIT'
  | 'INVALID_SEAT'
  | 'BANKER_MODE_NOT_OFFERED';

export class BetRejectedError extends Error {
  constructor(
    readonly code: BetRejectionCode,
    message: string,
    /** The field of the bet that was wrong. */
    readonly field: 'type' | 'amount' | 'seat' | 'bankerMode',
  ) {
    super(message);
    this.name = 'BetRejectedError';
  }
}

/** A bet as a player proposes it: nothing in it is trusted yet. */
export interface ProposedBet {
  readonly type: string;
  readonly amount: unknown;
  readonly bankerMode?: string | undefined;
  readonly seat?: number | null | undefined;
}

/** A bet that passed validation. */
export interface ValidBet {
  readonly type: BetType;
  readonly amount: number;
  /** Present on Banker bets only. */
  readonly bankerMode?: BankerMode;
  readonly seat: number | null;
}

/** The part of a table's rules that bets are validated against. */
export type BettingRules = Pick<
  TableRules,
  'bets' | 'playerBankerDifferenceLimit' | 'bankerModes' | 'seats' | 'tieOdds'
>;

function describe(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}

/**
 * Why a bet of `type` is not offered in round `roundNumber` of a shoe (the table does not offer
 * it, or the round is past its max round), or null when it is.
 */
export function notOfferedReason(
  rules: Pick<BettingRules, 'bets'>,
  roundNumber: number,
  type: BetType,
): BetRejectedError | null {
  const limit = rules.bets[type];
  if (limit === undefined)
    return new BetRejectedError('BET_NOT_OFFERED', `this table does not offer "${type}"`, 'type');
  if (limit.maxRound !== null && roundNumber > limit.maxRound) {
    return new BetRejectedError(
      'BET_PAST_MAX_ROUND',
      `"${type}" is offered up to round ${limit.maxRound} of a shoe; this is round ${roundNumber}`,
      'type',
    );
  }
  return null;
}

function validateOne(rules: BettingRules, roundNumber: number, bet: ProposedBet): ValidBet {
  if (!isBetType(bet.type)) {
    throw new BetRejectedError('UNKNOWN_BET', `unknown bet type "${bet.type}"`, 'type');
  }
  const type = bet.type;
  const notOffered = notOfferedReason(rules, roundNumber, type);
  if (notOffered !== null) throw notOffered;
  if (!isValidStake(bet.amount)) {
    throw new BetRejectedError(
      'INVALID_AMOUNT',
      `amount must be a positive integer number of minor units, got ${describe(bet.amount)}`,
      'amount',
    );
  }
  const seat = bet.seat ?? null;
  if (rules.seats === null) {
    if (seat !== null)
      throw new BetRejectedError('INVALID_SEAT', 'this table has no seats', 'seat');
  } else if (seat === null || !Number.isInteger(seat) || seat < 1 || seat > rules.seats) {
    throw new BetRejectedError(
      'INVALID_SEAT',
      `seat must be a number from 1 to ${rules.seats}`,
      'seat',
    );
  }
  if (type !== 'banker') return { type, amount: bet.amount, seat };
  const bankerMode = bet.bankerMode ?? rules.bankerModes[0];
  if (
    bankerMode === undefined ||
    !(BANKER_MODES as readonly string[]).includes(bankerMode) ||
    !rules.bankerModes.includes(bankerMode as BankerMode)
  ) {
    throw new BetRejectedError(
      'BANKER_MODE_NOT_OFFERED',
      `banker mode "${String(bet.bankerMode)}" is not offered; this table offers ${rules.bankerModes.join(', ')}`,
      'bankerMode',
    );
  }
  return { type, amount: bet.amount, bankerMode: bankerMode as BankerMode, seat };
}

/**
 * Validates a change to a player's bets in a round: `added` (one bet, or a rebet's set; none for a
 * removal) on top of the bets still `standing` after the change. Each added bet is judged alone
 * (type, availability in round `roundNumber` of the shoe, amount, seat, banker mode); then the
 * player's WHOLE resulting set is judged, so no change (place, remove one chip, rebet) can leave
 * it invalid: every spot (docs/rules.md "Spots": chips on one bet type, banker mode and seat are
 * one stake) at least the table minimum, every bet type's total at most the maximum, and with a
 * Player/Banker difference limit the gap between the Player and Banker totals within it (that
 * limit replaces the `player` and `banker` maximum). Throws `BetRejectedError` with a stable
 * code; returns the added bets, validated, otherwise.
 */
export function validateBets(
  rules: BettingRules,
  roundNumber: number,
  standing: readonly StandingBet[],
  added: readonly ProposedBet[],
): ValidBet[] {
  const valid = added.map((bet) => validateOne(rules, roundNumber, bet));
  validateBetSet(rules, roundNumber, [...standing, ...valid]);
  return valid;
}

/** A bet already on the round (or about to be): what the set rules read of it. */
export interface StandingBet {
  readonly type: BetType;
  readonly amount: number;
  readonly bankerMode?: BankerMode | null | undefined;
  readonly seat: number | null;
}

/**
 * Judges a player's whole set of bets in one round against the table rules (see
 * `validateBets`); an empty set (every chip taken off) is valid. Throws `BetRejectedError`.
 */
export function validateBetSet(
  rules: BettingRules,
  roundNumber: number,
  bets: readonly StandingBet[],
): void {
  const totals: Partial<Record<BetType, number>> = {};
  const spots = new Map<string, { type: BetType; stake: number }>();
  for (const bet of bets) {
    const notOffered = notOfferedReason(rules, roundNumber, bet.type);
    if (notOffered !== null) throw notOffered;
    totals[bet.type] = (totals[bet.type] ?? 0) + bet.amount;
    const key = spotKeyOf({ type: bet.type, bankerMode: bet.bankerMode ?? null, seat: bet.seat });
    const spot = spots.get(key) ?? { type: bet.type, stake: 0 };
    spot.stake += bet.amount;
    spots.set(key, spot);
  }

  for (const { type, stake } of spots.values()) {
    const limit = rules.bets[type]!;
    if (stake < limit.min) {
      throw new BetRejectedError(
        'BET_BELOW_MIN',
        `"${type}" total ${stake} would be below the table minimum ${limit.min}`,
        'amount',
      );
    }
  }
  const difference = rules.playerBankerDifferenceLimit;
  for (const [type, total] of Object.entries(totals) as [BetType, number][]) {
    const limit = rules.bets[type]!;
    const hedged = difference !== null && (type === 'player' || type === 'banker');
    if (!hedged && total > limit.max) {
      throw new BetRejectedError(
        'BET_ABOVE_MAX',
        `"${type}" total ${total} would exceed the table maximum ${limit.max}`,
        'amount',
      );
    }
    // With a Player/Banker difference limit nothing else caps these totals: a win must still
    // be payable as an exact integer number of minor units.
    if (largestPayout(type, total, rules) > BigInt(Number.MAX_SAFE_INTEGER)) {
      throw new BetRejectedError(
        'BET_ABOVE_MAX',
        `"${type}" total ${total} could win more than ${Number.MAX_SAFE_INTEGER} minor units`,
        'amount',
      );
    }
  }
  if (difference !== null) {
    const gap = Math.abs((totals.player ?? 0) - (totals.banker ?? 0));
    if (gap > difference) {
      throw new BetRejectedError(
        'BET_DIFFERENCE_LIMIT',
        `the difference between Player (${totals.player ?? 0}) and Banker (${totals.banker ?? 0}) stakes would be ${gap}, over the limit ${difference}`,
        'amount',
      );
    }
  }
}
