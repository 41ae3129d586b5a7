import { describe, expect, it } from 'vitest';
import {
  AesCtrStream,
  burnCount,
  cutCardIndex,
  fisherYates,
  lastRoundAfterCutCard,
  MIN_CARDS_AFTER_CUT,
  orderedShoe,
  ShoeDealer,
  parseCard,
  codeOf,
  cardOf,
  dealRound,
} from '../src/index.js';

describe('burn', () => {
  it('burns as many cards as the shown card is worth, ten for a ten or a face card', () => {
    expect(burnCount(parseCard('AS'))).toBe(1);
    expect(burnCount(parseCard('7H'))).toBe(7);
    for (const card of ['TD', 'JC', 'QH', 'KS']) expect(burnCount(parseCard(card))).toBe(10);
  });

  it('discards the shown card too', () => {
    const cards = Uint8Array.from(orderedShoe(1));
    cards[0] = codeOf(parseCard('4C'));
    const dealer = new ShoeDealer(cards, { burn: true, cutCard: 16 });
    expect(dealer.burn()).toBe(5);
    expect(dealer.cardsDealt).toBe(5);
  });

  it('burns nothing when the table does not burn', () => {
    const dealer = new ShoeDealer(Uint8Array.from(orderedShoe(1)), { burn: false, cutCard: 16 });
    expect(dealer.burn()).toBe(0);
  });
});

describe('cut card', () => {
  /** Deals rounds of the given sizes with no burn; returns the rounds dealt before the shoe closed. */
  const dealRounds = (cutCard: number, sizes: number[]) => {
    const dealer = new ShoeDealer(Uint8Array.from(orderedShoe(1)), { burn: false, cutCard });
    for (const size of sizes) {
      dealer.startRound();
      for (let i = 0; i < size; i++) dealer.draw();
      if (dealer.finished) return dealer.roundNumber;
    }
    return null;
  };

  it('sits the configured number of cards from the end', () => {
    expect(cutCardIndex(416, 16)).toBe(400);
  });

  it('coming out during a round: that round finishes and exactly one more is dealt', () => {
    // 52 cards, cut card 12 from the end: it comes out before card index 40.
    // Rounds of 4 cards: round 10 ends at index 39, round 11 starts at 40 -> first card -> last.
    expect(dealRounds(12, Array<number>(20).fill(4))).toBe(11);
    // Rounds of 5: round 8 deals 35-39, round 9 deals 40 first -> it is the last.
    expect(dealRounds(12, Array<number>(20).fill(5))).toBe(9);
    // Rounds of 6: round 7 deals 36-41, the cut card comes out at its 5th card -> round 8 is last.
    expect(dealRounds(12, Array<number>(20).fill(6))).toBe(8);
  });

  it('names the last round from where the cut card came out', () => {
    expect(lastRoundAfterCutCard(30, 0)).toBe(30);
    expect(lastRoundAfterCutCard(30, 1)).toBe(31);
    expect(lastRoundAfterCutCard(30, 5)).toBe(31);
  });

  it('never runs out at the closest allowed cut card, even in the worst case', () => {
    // 52 cards, cut card 11 from the end (before index 41). Ten 4-card rounds end at index 39;
    // round 11 takes index 40, then the cut card comes out before its second card: it takes six
    // cards and round 12, the last, takes six more: exactly the 52 cards.
    expect(dealRounds(MIN_CARDS_AFTER_CUT, [...Array<number>(10).fill(4), 6, 6])).toBe(12);
    // One card closer and the same worst case runs out.
    expect(() =>
      dealRounds(MIN_CARDS_AFTER_CUT - 1, [...Array<number>(9).fill(4), 5, 6, 6]),
    ).toThrow(/ran out of cards/);
  });

  it('deals real shoes to the cut card at the closest allowed position without running out', () => {
    const random = new AesCtrStream('cut-card');
    for (const decks of [1, 2, 8]) {
      const cards = Uint8Array.from(orderedShoe(decks));
      for (let shoe = 0; shoe < 500; shoe++) {
        fisherYates(cards, random);
        const dealer = new ShoeDealer(cards, { burn: true, cutCard: MIN_CARDS_AFTER_CUT });
        dealer.burn();
        while (!dealer.finished) {
          dealer.startRound();
          dealRound(() => cardOf(dealer.draw()));
        }
        expect(dealer.cardsDealt).toBeLessThanOrEqual(cards.length);
      }
    }
  });
});
