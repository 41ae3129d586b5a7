import { betCombinationsOf, validateBets, validateBetSet } from '@croupier/baccarat';
import { DomainError, funMarkOf, type RoundEvent } from '@croupier/contracts';
import {
  activeBets,
  releaseKey,
  type ActiveBet,
  type BetRequest,
  type RoundCommand,
  type RoundState,
} from '../domain/round.state.js';
import { judged, requireNotPaused, requireOpen } from '../domain/round-guards.js';

/** The round's decisions on bets: placed, cleared, and stakes released that it will never hold. */
export function decideBets(
  command: Extract<RoundCommand, { type: 'PlaceBets' | 'ClearBets' | 'ReleaseStakes' }>,
  state: RoundState,
): RoundEvent[] {
  switch (command.type) {
    case 'PlaceBets':
      return placeBets(command, state);
    case 'ClearBets': {
      requireOpen(state);
      requireNotPaused(state);
      if (state.status !== 'betting')
        throw new DomainError('BETTING_CLOSED', `betting on round ${state.roundId} is closed`);
      const mine = activeBets(state, command.playerId);
      const bets =
        command.betIds === undefined
          ? mine
          : mine.filter((bet) => command.betIds!.includes(bet.betId));
      if (
        bets.length === 0 ||
        (command.betIds !== undefined && bets.length < command.betIds.length)
      )
        throw new DomainError(
          'NO_BETS_TO_CLEAR',
          command.betIds === undefined
            ? `${command.playerId} has no bets on round ${state.roundId}`
            : `${command.playerId} has no standing bet ${command.betIds.join(', ')} on round ${state.roundId}`,
        );
      // Removing chips must leave the rest a set the rules accept (a hedge kept, a spot at its
      // minimum); clearing everything always does.
      const removed = new Set(bets.map((bet) => bet.betId));
      judged(() => {
        validateBetSet(
          state.rules!,
          state.number,
          mine.filter((bet) => !removed.has(bet.betId)),
        );
      });
      return [
        {
          type: 'BetsCleared',
          data: {
            roundId: state.roundId,
            playerId: command.playerId,
            betIds: bets.map((b) => b.betId),
          },
        },
      ];
    }
    case 'ReleaseStakes':
      requireOpen(state);
      return command.stakes
        .filter(
          (stake) =>
            // A stake that became this player's bet is the round's to close (settle or void).
            state.bets.get(stake.betId)?.playerId !== command.playerId &&
            !state.releasedStakes.has(releaseKey(stake.betId, command.playerId)),
        )
        .map((stake) => ({
          type: 'StakeReleased',
          data: {
            roundId: state.roundId,
            playerId: command.playerId,
            betId: stake.betId,
            amount: stake.amount,
            reason: command.reason,
            ...funMarkOf(state.currency),
          },
        }));
  }
}

/** Whether a request repeats a bet on the round: same player and stake, and mode/seat if given. */
function repeats(bet: ActiveBet, playerId: string, request: BetRequest): boolean {
  return (
    bet.status === 'active' &&
    bet.playerId === playerId &&
    bet.type === request.type &&
    bet.amount === request.amount &&
    (request.bankerMode === undefined || request.bankerMode === bet.bankerMode) &&
    (request.seat === undefined || request.seat === bet.seat)
  );
}

/**
 * A bet id names one bet. The same bet submitted again (a double submit) is refused and the first
 * one stands; an id that names another bet (another stake, another player, a cleared bet) is a
 * conflict. Either way nothing is appended and no wallet is touched.
 */
function requireFreshBetIds(
  command: Extract<RoundCommand, { type: 'PlaceBets' }>,
  state: RoundState,
): void {
  const ids = command.bets.map((bet) => bet.betId);
  const twice = ids.find((id, index) => ids.indexOf(id) !== index);
  if (twice !== undefined) {
    throw new DomainError('VALIDATION_ERROR', `betId ${twice} appears twice in one request`, {
      field: 'betId',
    });
  }
  const released = command.bets.filter((bet) =>
    state.releasedStakes.has(releaseKey(bet.betId, command.playerId)),
  );
  if (released.length > 0) {
    const betIds = released.map((bet) => bet.betId);
    throw new DomainError(
      'ID_CONFLICT',
      `betId ${betIds.join(', ')} was refused on round ${state.roundId} and its stake returned; a new bet needs a new id`,
      { field: 'betId', betIds },
    );
  }
  const known = command.bets.filter((bet) => state.bets.has(bet.betId));
  if (known.length === 0) return;
  const betIds = known.map((bet) => bet.betId);
  if (known.every((bet) => repeats(state.bets.get(bet.betId)!, command.playerId, bet))) {
    throw new DomainError(
      'DUPLICATE_BET',
      `betId ${betIds.join(', ')} ${betIds.length === 1 ? 'is' : 'are'} already placed on round ${state.roundId}: a double submit; the first stands and nothing changed`,
      { field: 'betId', betIds },
    );
  }
  throw new DomainError(
    'ID_CONFLICT',
    `betId ${betIds.join(', ')} already names another bet on round ${state.roundId}; a new bet needs a new id`,
    { field: 'betId', betIds },
  );
}

function placeBets(
  command: Extract<RoundCommand, { type: 'PlaceBets' }>,
  state: RoundState,
): RoundEvent[] {
  requireOpen(state);
  requireNotPaused(state);
  if (state.status !== 'betting')
    throw new DomainError('BETTING_CLOSED', `betting on round ${state.roundId} is closed`);
  requireFreshBetIds(command, state);
  const combinations = betCombinationsOf(state.rules!);
  if (command.bets.length > combinations) {
    throw new DomainError(
      'VALIDATION_ERROR',
      `body.bets: at most ${combinations} bets in one request, one for each bet (and banker mode${state.rules!.seats === null ? '' : ', seat'}) this table offers; got ${command.bets.length}`,
      { field: 'body.bets' },
    );
  }
  const standing = activeBets(state, command.playerId);
  // Rebet repeats the previous round's spots as the round's bets (003: "the same bets as the
  // previous round", then the round is dealt); on top of chips already down it would deal
  // something else. Asked after the ids, so a retried rebet is still a double submit.
  if (command.rebetOf !== null && standing.length > 0) {
    throw new DomainError(
      'BETS_ALREADY_PLACED',
      `${command.playerId} has bets on round ${state.roundId}: deal them, or clear them before a rebet`,
    );
  }
  const valid = judged(() => validateBets(state.rules!, state.number, standing, command.bets));
  return valid.map((bet, index) => ({
    type: 'BetPlaced',
    data: {
      roundId: state.roundId,
      betId: command.bets[index]!.betId,
      playerId: command.playerId,
      type: bet.type,
      amount: bet.amount,
      bankerMode: bet.bankerMode ?? null,
      seat: bet.seat,
      rebetOf: command.rebetOf,
      ...funMarkOf(state.currency),
    },
  }));
}
