/**
 * Cards. A card is written as two characters, rank then suit ("AS", "TD", "KH"), which is how it
 * appears in events and JSON. The hot paths (analysis, simulation) use `CardCode`, an integer
 * 0-51 with `rankIndex * 4 + suitIndex`, so that rank equality is `a >> 2 === b >> 2`.
 */

export const RANKS = ['A', '2', '3', '4', '5', '6', '7', '8', '9', 'T', 'J', 'Q', 'K'] as const;
export const SUITS = ['C', 'D', 'H', 'S'] as const;

export type Rank = (typeof RANKS)[number];
export type Suit = (typeof SUITS)[number];
export type Card = `${Rank}${Suit}`;
/** Integer card code 0-51: `rankIndex * 4 + suitIndex`. */
export type CardCode = number;

export const CARDS_PER_DECK = 52;
export const MIN_DECKS = 1;
export const MAX_DECKS = 8;

const CARD_PATTERN = /^[A2-9TJQK][CDHS]$/;

/** Baccarat point value of each rank index: Ace 1, 2-9 face value, 10/J/Q/K 0. */
const RANK_POINTS: readonly number[] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 0, 0, 0];

/** Point value of each card code, for the hot paths. */
export const POINT_OF_CODE: Uint8Array = Uint8Array.from({ length: CARDS_PER_DECK }, (_, code) =>
  rankPoints(code >> 2),
);

function rankPoints(rankIndex: number): number {
  const points = RANK_POINTS[rankIndex];
  if (points === undefined) throw new RangeError(`rank index out of range: ${rankIndex}`);
  return points;
}

export function isCard(value: unknown): value is Card {
  return typeof value === 'string' && CARD_PATTERN.test(value);
}

/** Parses a card written as rank + suit ("QH"); "10" is accepted for "T". */
export function parseCard(text: string): Card {
  const normalized = text.trim().toUpperCase().replace(/^10/, 'T');
  if (!isCard(normalized)) {
    throw new RangeError(`not a card: "${text}" (expected rank A,2-9,T,J,Q,K then suit C,D,H,S)`);
  }
  return normalized;
}

export function rankOf(card: Card): Rank {
  return card[0] as Rank;
}

export function suitOf(card: Card): Suit {
  return card[1] as Suit;
}

/** Baccarat point value: Ace 1, 2-9 face value, 10/J/Q/K 0. */
export function pointsOf(card: Card): number {
  return rankPoints(RANKS.indexOf(rankOf(card)));
}

export function codeOf(card: Card): CardCode {
  return RANKS.indexOf(rankOf(card)) * 4 + SUITS.indexOf(suitOf(card));
}

export function cardOf(code: CardCode): Card {
  const rank = RANKS[code >> 2];
  const suit = SUITS[code & 3];
  if (rank === undefined || suit === undefined || code < 0 || !Number.isInteger(code)) {
    throw new RangeError(`card code out of range: ${code}`);
  }
  return `${rank}${suit}`;
}

/** Hand total: sum of points modulo 10. */
export function handTotal(cards: readonly Card[]): number {
  let sum = 0;
  for (const card of cards) sum += pointsOf(card);
  return sum % 10;
}

/**
 * An unshuffled shoe of `decks` standard 52-card decks, in the canonical order every shuffle
 * starts from: deck by deck, suits C, D, H, S, ranks A to K within each suit.
 */
export function orderedShoe(decks: number): CardCode[] {
  assertDecks(decks);
  const shoe: CardCode[] = [];
  for (let deck = 0; deck < decks; deck++) {
    for (let suit = 0; suit < SUITS.length; suit++) {
      for (let rank = 0; rank < RANKS.length; rank++) shoe.push(rank * 4 + suit);
    }
  }
  return shoe;
}

/** How many copies of each card code a shoe of `decks` decks holds. */
export function shoeComposition(decks: number): Map<Card, number> {
  assertDecks(decks);
  const composition = new Map<Card, number>();
  for (let code = 0; code < CARDS_PER_DECK; code++) composition.set(cardOf(code), decks);
  return composition;
}

export function assertDecks(decks: number): void {
  if (!Number.isInteger(decks) || decks < MIN_DECKS || decks > MAX_DECKS) {
    throw new RangeError(
      `decks must be an integer from ${MIN_DECKS} to ${MAX_DECKS}, got ${decks}`,
    );
  }
}
