import type { Card } from '@croupier/baccarat';
import { DomainError, type RoundId } from '@croupier/contracts';
import type { ShoeState } from './shoe.state.js';

// The checks more than one of the shoe's capabilities makes before deciding.

export function requireDealing(state: ShoeState): void {
  if (state.status === 'none')
    throw new DomainError('SHOE_NOT_FOUND', 'the shoe has not been shuffled');
  if (state.status === 'closed')
    throw new DomainError('SHOE_CLOSED', `shoe ${state.shoeId} is closed`);
  if (state.status === 'awaiting-burn') {
    throw new DomainError('INVALID_DEAL', `shoe ${state.shoeId} must burn before its first round`);
  }
}

/** A round sealed for its void (ADR 0033) takes no more cards, whatever its number. */
export function requireNotSealed(state: ShoeState, roundId: RoundId): void {
  if (state.sealed.has(roundId))
    throw new DomainError(
      'ROUND_FINISHED',
      `round ${roundId} was voided: the shoe deals it no more`,
    );
}

/** Whether a round number may draw now: in order, and not past the last round. */
export function requireRoundMayDraw(state: ShoeState, roundNumber: number): void {
  if (roundNumber < state.lastRoundDrawn) {
    throw new DomainError(
      'INVALID_DEAL',
      `round ${roundNumber} comes before round ${state.lastRoundDrawn}, which has drawn`,
    );
  }
  if (state.lastRoundNumber !== null && roundNumber > state.lastRoundNumber) {
    throw new DomainError(
      'SHOE_FINISHED',
      `the cut card is out: round ${state.lastRoundNumber} was the shoe's last`,
    );
  }
  if (state.shufflePolicy === 'every-round' && roundNumber !== 1) {
    throw new DomainError('SHOE_FINISHED', 'a shoe shuffled for one round deals only round 1');
  }
}

export function available(state: ShoeState, card: Card): boolean {
  return (state.seen.get(card) ?? 0) < state.decks;
}
