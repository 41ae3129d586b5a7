import { lastRoundAfterCutCard, type Card, type Hand } from '@croupier/baccarat';
import { DomainError, type DrawnCard, type RoundId, type ShoeEvent } from '@croupier/contracts';
import { available, requireDealing, requireNotSealed, requireRoundMayDraw } from '../shoe.rules.js';
import type { ShoeState } from '../shoe.state.js';

/** Cards a card reader scans out of a scanner shoe, one at a time, and its cut card. */
export interface DrawScannedCardCommand {
  type: 'DrawScannedCard';
  roundId: RoundId;
  roundNumber: number;
  /** The card's place in the round (0-5): a retried post of the same card is recognized. */
  index: number;
  card: Card;
  hand: Hand;
}

export interface ReportCutCardCommand {
  type: 'ReportCutCard';
  roundId: RoundId;
  roundNumber: number;
}

export function decideDrawScannedCard(
  command: DrawScannedCardCommand,
  state: ShoeState,
): ShoeEvent[] {
  requireDealing(state);
  if (state.cardSource !== 'scanner')
    throw new DomainError('WRONG_CARD_SOURCE', 'an rng shoe deals its own cards');
  requireNotSealed(state, command.roundId);
  const already = state.rounds.get(command.roundId)?.cards[command.index];
  if (already !== undefined) {
    if (already.card === command.card && already.hand === command.hand) return [];
    throw new DomainError(
      'INVALID_DEAL',
      `card ${command.index + 1} of round ${command.roundId} was ${already.card}`,
    );
  }
  if ((state.rounds.get(command.roundId)?.cards.length ?? 0) !== command.index) {
    throw new DomainError('INVALID_DEAL', `round ${command.roundId} expects another card first`);
  }
  requireRoundMayDraw(state, command.roundNumber);
  if (!available(state, command.card)) {
    throw new DomainError(
      'IMPOSSIBLE_CARD',
      `a ${state.decks}-deck shoe holds no more ${command.card}`,
      {
        card: command.card,
      },
    );
  }
  if (state.position >= state.decks * 52)
    throw new DomainError('SHOE_FINISHED', 'the shoe has no cards left');
  const drawn: DrawnCard = { position: state.position, card: command.card, hand: command.hand };
  return [
    {
      type: 'CardsDrawn',
      data: {
        shoeId: state.shoeId,
        roundId: command.roundId,
        roundNumber: command.roundNumber,
        cards: [drawn],
      },
    },
  ];
}

export function decideReportCutCard(command: ReportCutCardCommand, state: ShoeState): ShoeEvent[] {
  requireDealing(state);
  if (state.cardSource !== 'scanner')
    throw new DomainError('WRONG_CARD_SOURCE', 'an rng shoe places its own cut card');
  if (state.lastRoundNumber !== null) return [];
  requireRoundMayDraw(state, command.roundNumber);
  const inRound = state.rounds.get(command.roundId)?.cards.length ?? 0;
  return [
    {
      type: 'CutCardReached',
      data: {
        shoeId: state.shoeId,
        position: state.position,
        roundNumber: command.roundNumber,
        lastRoundNumber: lastRoundAfterCutCard(command.roundNumber, inRound),
      },
    },
  ];
}
