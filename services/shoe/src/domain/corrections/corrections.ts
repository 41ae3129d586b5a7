import type { Card } from '@croupier/baccarat';
import { DomainError, type RoundId, type ShoeEvent } from '@croupier/contracts';
import { available } from '../shoe.rules.js';
import type { ShoeState } from '../shoe.state.js';

/** A misread scanned card, put right: the round's card at a position becomes another. */
export interface CorrectCardCommand {
  type: 'CorrectCard';
  roundId: RoundId;
  position: number;
  card: Card;
  reason: string;
}

export function decideCorrectCard(command: CorrectCardCommand, state: ShoeState): ShoeEvent[] {
  // Also after the shoe closed: a misread found in a settled round is corrected afterwards.
  if (state.status === 'none')
    throw new DomainError('SHOE_NOT_FOUND', 'the shoe has not been shuffled');
  if (state.cardSource !== 'scanner')
    throw new DomainError('WRONG_CARD_SOURCE', 'only scanned cards can be misread');
  const drawn = state.rounds
    .get(command.roundId)
    ?.cards.find((c) => c.position === command.position);
  if (drawn === undefined) {
    throw new DomainError(
      'INVALID_CORRECTION',
      `round ${command.roundId} drew no card at position ${command.position}`,
    );
  }
  if (drawn.card === command.card) return [];
  if (!available(state, command.card)) {
    throw new DomainError(
      'IMPOSSIBLE_CARD',
      `a ${state.decks}-deck shoe holds no more ${command.card}`,
    );
  }
  return [
    {
      type: 'CardCorrected',
      data: {
        shoeId: state.shoeId,
        roundId: command.roundId,
        position: command.position,
        previous: drawn.card,
        card: command.card,
        reason: command.reason,
      },
    },
  ];
}
