import fc from 'fast-check';
import { cardOf, parseCard, type Card } from '../src/index.js';

/** Any of the 52 cards. */
export const cardArbitrary: fc.Arbitrary<Card> = fc.integer({ min: 0, max: 51 }).map(cardOf);

/** Cards from a space-separated list: "AS TD 9H". */
export function cardsOf(list: string): Card[] {
  return list.split(/\s+/).filter(Boolean).map(parseCard);
}
