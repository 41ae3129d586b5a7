import {
  dealRound,
  lastRoundAfterCutCard,
  shuffleCommitment,
  shuffleShoe,
} from '@croupier/baccarat';
import { DomainError, type DrawnCard, type RoundId, type ShoeEvent } from '@croupier/contracts';
import { requireDealing, requireNotSealed, requireRoundMayDraw } from '../shoe.rules.js';
import type { ShoeState } from '../shoe.state.js';

/** Drawing a round from an rng shoe: its next cards in the committed order, once. */
export interface DrawRoundCommand {
  type: 'DrawRound';
  roundId: RoundId;
  roundNumber: number;
  seed: string;
}

/** The CutCardReached event if the cut card came out while this round drew these cards. */
function cutCardEvent(
  state: ShoeState,
  roundNumber: number,
  cards: readonly DrawnCard[],
  alreadyInRound: number,
): ShoeEvent[] {
  const cut = state.cutCardIndex;
  if (cut === null || state.lastRoundNumber !== null) return [];
  const index = cards.findIndex((drawn) => drawn.position >= cut);
  if (index < 0) return [];
  return [
    {
      type: 'CutCardReached',
      data: {
        shoeId: state.shoeId,
        position: cut,
        roundNumber,
        lastRoundNumber: lastRoundAfterCutCard(roundNumber, alreadyInRound + index),
      },
    },
  ];
}

export function decideDrawRound(command: DrawRoundCommand, state: ShoeState): ShoeEvent[] {
  requireDealing(state);
  if (state.cardSource !== 'rng')
    throw new DomainError('WRONG_CARD_SOURCE', 'cards of a scanner shoe are scanned');
  requireNotSealed(state, command.roundId);
  if (state.rounds.has(command.roundId)) return []; // drawn already: a retried deal
  requireRoundMayDraw(state, command.roundNumber);
  const seed = Buffer.from(command.seed, 'hex');
  const params = { shoeId: state.shoeId, decks: state.decks };
  if (shuffleCommitment(seed, params) !== state.commitment) {
    throw new DomainError(
      'SEED_MISMATCH',
      `the seed does not match shoe ${state.shoeId}'s commitment`,
    );
  }
  const order = shuffleShoe(seed, params);
  let position = state.position;
  const dealt = dealRound(() => {
    const card = order[position++];
    if (card === undefined) throw new DomainError('SHOE_FINISHED', 'the shoe ran out of cards');
    return card;
  });
  const cards: DrawnCard[] = dealt.sequence.map(({ hand, card }, index) => ({
    position: state.position + index,
    card,
    hand,
  }));
  return [
    {
      type: 'CardsDrawn',
      data: {
        shoeId: state.shoeId,
        roundId: command.roundId,
        roundNumber: command.roundNumber,
        cards,
      },
    },
    ...cutCardEvent(state, command.roundNumber, cards, 0),
  ];
}
