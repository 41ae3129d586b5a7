import { DomainError, type RoundEvent } from '@croupier/contracts';
import {
  type RoundCommand,
  type RoundState,
  type StallObservation,
} from '../domain/round.state.js';
import {
  dealUnderWay,
  requireNotFinished,
  requireOpen,
  waitsForCard,
} from '../domain/round-guards.js';

/** The round's decisions on faults: paused (by a dealer, or the watchdog as it saw it), resumed, voided. */
export function decideFaults(
  command: Extract<RoundCommand, { type: 'PauseRound' | 'ResumeRound' | 'VoidRound' }>,
  state: RoundState,
): RoundEvent[] {
  switch (command.type) {
    case 'PauseRound':
      requireOpen(state);
      if (command.stalled !== undefined && !stillStalled(state, command.stalled)) return [];
      requireNotFinished(state);
      if (state.paused) return [];
      return [{ type: 'RoundPaused', data: { roundId: state.roundId, reason: command.reason } }];
    case 'ResumeRound':
      requireOpen(state);
      requireNotFinished(state);
      if (!state.paused)
        throw new DomainError('ROUND_NOT_PAUSED', `round ${state.roundId} is not paused`);
      return [{ type: 'RoundResumed', data: { roundId: state.roundId } }];
    case 'VoidRound':
      return voidRound(command, state);
  }
}

/** The round still waits for a card exactly as the watchdog saw it. */
function stillStalled(state: RoundState, seen: StallObservation): boolean {
  return (
    waitsForCard(state) &&
    state.player.length + state.banker.length === seen.cards &&
    state.pauses === seen.pauses
  );
}

/**
 * A void of a round whose deal is under way records the cards its shoe drew for it and it never
 * dealt (`discarded`), as the shoe sealed them: the round and the shoe agree on every card. Without
 * the sealed cards it is refused DEAL_IN_PROGRESS (the deal started since the caller looked).
 * A completed (even settled) round may be voided too: settlement refunds its bets if it was not
 * settled yet, or takes every bet back to its stake with compensating records if it was
 * (ADR 0009, 0033).
 */
function voidRound(
  command: Extract<RoundCommand, { type: 'VoidRound' }>,
  state: RoundState,
): RoundEvent[] {
  requireOpen(state);
  if (state.status === 'voided') return [];
  const { sealed, pausedAs } = command;
  if (
    sealed === undefined &&
    pausedAs !== undefined &&
    !(state.paused && state.pauses === pausedAs.pauses)
  )
    return [];
  if (sealed === undefined && dealUnderWay(state)) {
    throw new DomainError(
      'DEAL_IN_PROGRESS',
      `the deal of round ${state.roundId} is under way: it is voided with the cards its shoe sealed for it`,
    );
  }
  const dealt = new Set([...state.player, ...state.banker].map((c) => c.shoePosition));
  const discarded = sealed?.filter((drawn) => !dealt.has(drawn.position));
  return [
    {
      type: 'RoundVoided',
      data: {
        roundId: state.roundId,
        reason: command.reason,
        ...(discarded === undefined ? {} : { discarded: [...discarded] }),
      },
    },
  ];
}
