import type { BankerMode, BetType } from './bets.js';
import type { RoundOutcome } from './outcome.js';
import {
  InvalidStakeError,
  isValidStake,
  settleBet,
  type BetSettlement,
  type SettlementRules,
} from './settlement.js';

/**
 * A place on the table a player puts chips on: a bet type, the banker mode of a Banker bet, and
 * the seat on a seated table. Chips a player stacks on one spot in one round are one stake
 * (docs/rules.md "Spots"): limited, and paid by the paytable, on their total.
 */
export interface Spot {
  readonly type: BetType;
  /** Banker bets only; null on every other bet. */
  readonly bankerMode: BankerMode | null;
  readonly seat: number | null;
}

/** One chip (one placed bet, with its own id): a player's amount on a spot. */
export interface Chip {
  readonly betId: string;
  readonly playerId: string;
  readonly spot: Spot;
  /** Integer minor units, > 0. */
  readonly amount: number;
}

/** A player's chips on one spot, with their total: the stake the spot is paid on. */
export interface SpotStake {
  readonly playerId: string;
  readonly spot: Spot;
  readonly stake: number;
  /** In the order given (the order they were placed). */
  readonly chips: readonly Chip[];
}

/** A stable name of a spot: bet type, banker mode and seat (never the player). */
export function spotKeyOf(spot: Spot): string {
  return `${spot.type}/${spot.bankerMode ?? '-'}/${spot.seat ?? '-'}`;
}

/**
 * Groups chips into spots, per player: one entry per player and spot, in the order each spot
 * got its first chip, with the chips' total as its stake.
 */
export function spotsOf(chips: readonly Chip[]): SpotStake[] {
  const spots = new Map<string, { playerId: string; spot: Spot; stake: number; chips: Chip[] }>();
  for (const chip of chips) {
    if (!isValidStake(chip.amount)) throw new InvalidStakeError(chip.amount);
    const key = `${chip.playerId}\u0000${spotKeyOf(chip.spot)}`;
    const found = spots.get(key);
    if (found === undefined) {
      spots.set(key, {
        playerId: chip.playerId,
        spot: chip.spot,
        stake: chip.amount,
        chips: [chip],
      });
    } else {
      found.stake += chip.amount;
      found.chips.push(chip);
    }
  }
  return [...spots.values()];
}

/** A spot paid by the paytable once, on its total, rounded down once (seed 003: 0.30 → 0.58). */
export function settleSpot(
  spot: Pick<SpotStake, 'spot' | 'stake'>,
  outcome: RoundOutcome,
  rules: SettlementRules,
): BetSettlement {
  return settleBet(
    { type: spot.spot.type, stake: spot.stake, bankerMode: spot.spot.bankerMode ?? undefined },
    outcome,
    rules,
  );
}

/**
 * Shares `amount` (a spot's payout or commission) over its chips in proportion to their amounts:
 * each chip floor(amount * chip / total), then the minor units left over one each to the earliest
 * chips. The shares sum to `amount` exactly, so per-chip lines and credits pay the spot's payout,
 * never the sum of per-chip roundings; a push returns each chip exactly.
 */
export function splitOverChips(amount: number, chips: readonly Pick<Chip, 'amount'>[]): number[] {
  const total = chips.reduce((sum, chip) => sum + BigInt(chip.amount), 0n);
  if (chips.length === 0) {
    if (amount !== 0) throw new RangeError(`cannot share ${amount} over no chips`);
    return [];
  }
  const shares = chips.map((chip) => (BigInt(amount) * BigInt(chip.amount)) / total);
  let left = BigInt(amount) - shares.reduce((sum, share) => sum + share, 0n);
  // Fewer than one unit per chip is left (each share lost less than one to the floor).
  for (let i = 0; left > 0n; i++, left--) shares[i] = shares[i]! + 1n;
  return shares.map(Number);
}

export interface SettledSpot extends SpotStake {
  readonly settlement: BetSettlement;
}

/** A chip's share of its spot's settlement: its own stake, the spot's result, its share of it. */
export interface SettledChip {
  readonly chip: Chip;
  readonly settlement: BetSettlement;
}

/**
 * Settles chips spot by spot: each spot by the paytable on its total, then each chip its share of
 * the spot's payout and commission (`splitOverChips`). Chips come back in the order given.
 */
export function settleChips(
  chips: readonly Chip[],
  outcome: RoundOutcome,
  rules: SettlementRules,
): { spots: SettledSpot[]; chips: SettledChip[] } {
  const spots = spotsOf(chips).map((spot) => ({
    ...spot,
    settlement: settleSpot(spot, outcome, rules),
  }));
  const byChip = new Map<Chip, BetSettlement>();
  for (const spot of spots) {
    const payouts = splitOverChips(spot.settlement.payout, spot.chips);
    const commissions = splitOverChips(spot.settlement.commission, spot.chips);
    spot.chips.forEach((chip, i) => {
      byChip.set(chip, {
        result: spot.settlement.result,
        stake: chip.amount,
        payout: payouts[i]!,
        commission: commissions[i]!,
      });
    });
  }
  return { spots, chips: chips.map((chip) => ({ chip, settlement: byChip.get(chip)! })) };
}
