import type { Aggregate, CommandHandler } from '@croupier/application';
import { betPlaced, stakeReleased, streams, type RoundId } from '@croupier/contracts';
import type { RefundReason, StakeStanding } from '../domain/stake-standing.js';

/** The round events a wallet reads to know a stake's standing; the others only say it exists. */
type RoundStakeEvent =
  | { type: 'BetPlaced'; data: { betId: string; playerId: string } }
  | { type: 'StakeReleased'; data: { betId: string; playerId: string; amount: number } }
  | { type: 'Other'; data: null };

interface RoundStakes {
  readonly exists: boolean;
  /** The player of each bet the round holds, by bet id. */
  readonly bets: ReadonlyMap<string, string>;
  /** The amount of each stake the round released, by `betId/playerId`. */
  readonly released: ReadonlyMap<string, number>;
}

const releaseKey = (betId: string, playerId: string) => `${betId}/${playerId}`;

/**
 * A round's bets and released stakes as the wallet reads them, through the command handler
 * (cached, then each time read past the cache to the stream's end). It decides nothing: the
 * round's own decider writes these events.
 */
const roundStakesAggregate: Aggregate<never, RoundStakeEvent, RoundStakes> = {
  name: 'round-stakes',
  writes: [],
  decider: {
    decide: () => [],
    evolve: (state, event) => {
      if (event.type === 'BetPlaced') {
        const bets = new Map(state.bets).set(event.data.betId, event.data.playerId);
        return { ...state, exists: true, bets };
      }
      if (event.type === 'StakeReleased') {
        const { betId, playerId, amount } = event.data;
        const released = new Map(state.released).set(releaseKey(betId, playerId), amount);
        return { ...state, exists: true, released };
      }
      return { ...state, exists: true };
    },
    initialState: () => ({ exists: false, bets: new Map(), released: new Map() }),
  },
  parse: (recorded) => {
    const event = { type: recorded.type, data: recorded.data };
    if (event.type === 'BetPlaced') return betPlaced.parse(event);
    if (event.type === 'StakeReleased') return stakeReleased.parse(event);
    return { type: 'Other', data: null };
  },
};

/**
 * What the stake's round records of it, read now (see `StakeStanding`). A release, once
 * recorded, stays true: the round refuses any bet under a released id, and never releases a
 * stake it holds as a bet, so a refund that reads `released` can never leave a bet standing.
 */
export async function stakeStandingOf(
  commands: CommandHandler,
  stake: { roundId: RoundId; playerId: string; betId: string; amount: number },
): Promise<StakeStanding> {
  const { state } = await commands.load(roundStakesAggregate, streams.round(stake.roundId));
  if (!state.exists) return 'no-round';
  if (state.bets.get(stake.betId) === stake.playerId) return 'bet';
  return state.released.get(releaseKey(stake.betId, stake.playerId)) === stake.amount
    ? 'released'
    : 'not-released';
}

/** A refund of a stake that never became a bet: the wallet reads its round's release first. */
export const beforeBet = (reason: RefundReason): boolean =>
  reason === 'bet-rejected' || reason === 'orphaned-debit';
