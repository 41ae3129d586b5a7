import { POINT_OF_CODE, pointsOf, type Card, type CardCode } from './cards.js';

/**
 * How many cards the burn discards after the shown card: its face value, Ace 1, 2-9 as marked,
 * and 10 for a ten or a face card (a point value of 0 burns ten).
 */
export function burnCount(shownCard: Card): number {
  const points = pointsOf(shownCard);
  return points === 0 ? 10 : points;
}

/** Index of the first card behind the cut card: the cut card comes out when this card is due. */
export function cutCardIndex(totalCards: number, cardsFromEnd: number): number {
  return totalCards - cardsFromEnd;
}

/**
 * Which round is the shoe's last once the cut card has come out: if it came out in place of a
 * round's first card, that round; otherwise the round after the one it came out in.
 */
export function lastRoundAfterCutCard(roundNumber: number, cardIndexInRound: number): number {
  return cardIndexInRound === 0 ? roundNumber : roundNumber + 1;
}

export interface ShoeOptions {
  readonly burn: boolean;
  /** Cards from the end; null for no cut card. */
  readonly cutCard: number | null;
}

/**
 * A shoe being dealt, over card codes: the burn, the cut card, round numbers and the last round.
 * Mutable and allocation-free so the simulator can deal millions of rounds with it; the shoe
 * service applies the same rules through the functions above.
 */
export class ShoeDealer {
  private position = 0;
  private cardInRound = 0;
  private round = 0;
  private last: number | null = null;
  private readonly cutIndex: number;

  constructor(
    private readonly cards: Uint8Array,
    private readonly options: ShoeOptions,
  ) {
    this.cutIndex =
      options.cutCard === null ? Infinity : cutCardIndex(cards.length, options.cutCard);
  }

  /** Resets to the top of the shoe (after its cards were reshuffled in place). */
  reset(): void {
    this.position = 0;
    this.cardInRound = 0;
    this.round = 0;
    this.last = null;
  }

  /** Burns per the rule; returns how many cards went, the shown one included (0 without a burn). */
  burn(): number {
    if (!this.options.burn) return 0;
    const shown = this.cards[this.position]!;
    const points = POINT_OF_CODE[shown]!;
    const burned = 1 + (points === 0 ? 10 : points);
    this.position += burned;
    return burned;
  }

  /** Starts the next round; returns its number in the shoe (1, 2, ...). */
  startRound(): number {
    this.cardInRound = 0;
    return ++this.round;
  }

  draw(): CardCode {
    if (this.position >= this.cutIndex && this.last === null) {
      this.last = lastRoundAfterCutCard(this.round, this.cardInRound);
    }
    const card = this.cards[this.position++];
    if (card === undefined) throw new RangeError('the shoe ran out of cards');
    this.cardInRound++;
    return card;
  }

  /** True once the round just dealt is the shoe's last one. */
  get finished(): boolean {
    return this.last !== null && this.round >= this.last;
  }

  get roundNumber(): number {
    return this.round;
  }

  get cardsDealt(): number {
    return this.position;
  }
}
