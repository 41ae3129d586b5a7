import {
  isBetType,
  largestPayout,
  MAIN_BETS,
  settleBet,
  type RoundOutcome,
  type Winner,
} from '@croupier/baccarat';
import type { TableDocument } from './floor-figures.js';

export interface OutcomeExposure {
  /** What the main bets (player, banker, tie) return to players if the round ends so, minor units. */
  readonly returns: number;
  /** Their stakes less those returns: what the house keeps (negative: what it pays out net). */
  readonly houseNet: number;
}

export interface Exposure {
  readonly roundId: string;
  /** Stakes standing on the main bets, minor units. */
  readonly mainStaked: number;
  /**
   * Per winner: Banker wins priced at its best for the players (a total of 7: no-commission
   * Banker pays even), payouts rounded down as settlement pays them, accrued commission not
   * taken off (the seat owes it later).
   */
  readonly outcomes: Readonly<Record<Winner, OutcomeExposure>>;
  /** Side bets by type: their stakes and the most they can return together. */
  readonly sideBets: Readonly<
    Record<string, { readonly staked: number; readonly largestReturn: number }>
  >;
  /** The most the round can return: the worst outcome's main returns plus every side bet's largest. */
  readonly worstCaseReturns: number;
}

/** An outcome with this winner and nothing else: no pairs, no naturals, two cards each. */
const outcomeOf = (winner: Winner): RoundOutcome => ({
  winner,
  playerTotal: winner === 'player' ? 7 : winner === 'tie' ? 7 : 5,
  bankerTotal: winner === 'banker' ? 7 : winner === 'tie' ? 7 : 5,
  playerCardCount: 2,
  bankerCardCount: 2,
  playerNatural: false,
  bankerNatural: false,
  playerPair: false,
  bankerPair: false,
  playerPerfectPair: false,
  bankerPerfectPair: false,
});

const WINNERS: readonly Winner[] = ['banker', 'player', 'tie'];

/**
 * The open exposure of a table's round in play (issue 26): what the house pays for each
 * outcome, from the bets standing on it now, by the same paytable settlement pays by.
 */
export function exposureOf(round: NonNullable<TableDocument['round']>): Exposure {
  const rules = { tieOdds: round.tieOdds, commission: round.commission };
  const main = round.bets.filter((bet) => isBetType(bet.type) && MAIN_BETS.includes(bet.type));
  const mainStaked = main.reduce((sum, bet) => sum + bet.amount, 0);
  const outcomes = Object.fromEntries(
    WINNERS.map((winner) => {
      const returns = main.reduce((sum, bet) => {
        if (!isBetType(bet.type)) return sum;
        const settled = settleBet(
          {
            type: bet.type,
            stake: bet.amount,
            bankerMode: bet.bankerMode ?? undefined,
          },
          outcomeOf(winner),
          rules,
        );
        return sum + settled.payout;
      }, 0);
      return [winner, { returns, houseNet: mainStaked - returns }];
    }),
  ) as Record<Winner, OutcomeExposure>;
  const sideBets: Record<string, { staked: number; largestReturn: number }> = {};
  for (const bet of round.bets) {
    if (!isBetType(bet.type) || MAIN_BETS.includes(bet.type)) continue;
    const side = sideBets[bet.type] ?? { staked: 0, largestReturn: 0 };
    sideBets[bet.type] = {
      staked: side.staked + bet.amount,
      largestReturn: side.largestReturn + Number(largestPayout(bet.type, bet.amount, rules)),
    };
  }
  const worstMain = Math.max(...WINNERS.map((winner) => outcomes[winner].returns));
  const sideLargest = Object.values(sideBets).reduce((sum, side) => sum + side.largestReturn, 0);
  return {
    roundId: round.roundId,
    mainStaked,
    outcomes,
    sideBets,
    worstCaseReturns: worstMain + sideLargest,
  };
}
