import {
  burnCount,
  cutCardIndex,
  SHUFFLE_ALGORITHM,
  shuffleCommitment,
  shuffleShoe,
  type Card,
} from '@croupier/baccarat';
import {
  DomainError,
  type CardSource,
  type ShoeEvent,
  type ShoeId,
  type TableId,
} from '@croupier/contracts';
import { available } from '../shoe.rules.js';
import type { ShoeState } from '../shoe.state.js';

/**
 * Shuffling or loading a shoe: an rng shoe commits to its secret seed and burns from it; a
 * scanner shoe waits for its burn card to be scanned.
 */
export interface ShuffleShoeCommand {
  type: 'ShuffleShoe';
  shoeId: ShoeId;
  tableId: TableId;
  number: number;
  decks: number;
  cardSource: CardSource;
  shufflePolicy: 'shoe' | 'every-round';
  burn: boolean;
  /** Cut card, in cards from the end; null for none. */
  cutCard: number | null;
  /** rng shoes: the secret seed (hex) and the same seed sealed for storage. */
  rng: { seed: string; sealedSeed: string } | null;
}

export interface BurnScannedCardCommand {
  type: 'BurnScannedCard';
  shownCard: Card;
}

export function decideShuffleShoe(command: ShuffleShoeCommand, state: ShoeState): ShoeEvent[] {
  if (state.status !== 'none')
    throw new DomainError('ALREADY_EXISTS', `shoe ${command.shoeId} exists`);
  const totalCards = command.decks * 52;
  const params = { shoeId: command.shoeId, decks: command.decks };
  const rng = command.cardSource === 'rng';
  if (rng !== (command.rng !== null)) {
    throw new DomainError('WRONG_CARD_SOURCE', 'an rng shoe needs a seed and a scanner shoe none');
  }
  const seed = command.rng === null ? null : Buffer.from(command.rng.seed, 'hex');
  const events: ShoeEvent[] = [
    {
      type: 'ShoeShuffled',
      data: {
        shoeId: command.shoeId,
        tableId: command.tableId,
        number: command.number,
        decks: command.decks,
        cardSource: command.cardSource,
        shufflePolicy: command.shufflePolicy,
        burn: command.burn,
        cutCardIndex: command.cutCard === null ? null : cutCardIndex(totalCards, command.cutCard),
        algorithm: seed === null ? null : SHUFFLE_ALGORITHM,
        commitment: seed === null ? null : shuffleCommitment(seed, params),
        sealedSeed: command.rng?.sealedSeed ?? null,
      },
    },
  ];
  if (seed !== null && command.burn) {
    const order = shuffleShoe(seed, params);
    const shown = order[0]!;
    events.push({
      type: 'CardBurned',
      data: { shoeId: command.shoeId, position: 0, card: shown, shown: true },
    });
    for (let position = 1; position <= burnCount(shown); position++) {
      events.push({
        type: 'CardBurned',
        data: { shoeId: command.shoeId, position, card: order[position]!, shown: false },
      });
    }
  }
  return events;
}

export function decideBurnScannedCard(
  command: BurnScannedCardCommand,
  state: ShoeState,
): ShoeEvent[] {
  if (state.status === 'none')
    throw new DomainError('SHOE_NOT_FOUND', 'the shoe has not been shuffled');
  if (state.status !== 'awaiting-burn') {
    throw new DomainError('INVALID_DEAL', `shoe ${state.shoeId} is not waiting for its burn card`);
  }
  if (!available(state, command.shownCard)) {
    throw new DomainError(
      'IMPOSSIBLE_CARD',
      `a ${state.decks}-deck shoe holds no more ${command.shownCard}`,
    );
  }
  const events: ShoeEvent[] = [
    {
      type: 'CardBurned',
      data: { shoeId: state.shoeId, position: 0, card: command.shownCard, shown: true },
    },
  ];
  for (let position = 1; position <= burnCount(command.shownCard); position++) {
    events.push({
      type: 'CardBurned',
      data: { shoeId: state.shoeId, position, card: null, shown: false },
    });
  }
  return events;
}
