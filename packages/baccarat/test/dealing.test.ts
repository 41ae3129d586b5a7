import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  bankerDraws,
  dealRound,
  explainThirdCards,
  handTotal,
  InvalidDealError,
  nextCardRecipient,
  parseCard,
  playerDraws,
  type Card,
} from '../src/index.js';
import { cardArbitrary, cardsOf } from './arbitraries.js';

/**
 * The Banker table of docs/rules.md, transcribed row by row: for each Banker two-card
 * total, the Player third-card values on which the Banker draws.
 */
const BANKER_DRAWS_WHEN_PLAYER_DREW: Record<number, readonly number[]> = {
  0: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
  1: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
  2: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
  3: [0, 1, 2, 3, 4, 5, 6, 7, 9],
  4: [2, 3, 4, 5, 6, 7],
  5: [4, 5, 6, 7],
  6: [6, 7],
  7: [],
};

describe('third-card rule', () => {
  it('matches the Banker table for every Banker total and every Player third card', () => {
    let checked = 0;
    for (let banker = 0; banker <= 7; banker++) {
      for (let third = 0; third <= 9; third++) {
        expect(bankerDraws(banker, third), `Banker ${banker}, Player third ${third}`).toBe(
          BANKER_DRAWS_WHEN_PLAYER_DREW[banker]!.includes(third),
        );
        checked++;
      }
    }
    expect(checked).toBe(80);
  });

  it('Banker draws on 0-5 and stands on 6-7 when the Player stood', () => {
    for (let banker = 0; banker <= 7; banker++) expect(bankerDraws(banker, null)).toBe(banker <= 5);
  });

  it('Player draws on 0-5 and stands on 6-7', () => {
    for (let player = 0; player <= 7; player++) expect(playerDraws(player)).toBe(player <= 5);
  });

  it('deals Player, Banker, Player, Banker first', () => {
    const order: string[] = [];
    const cards = cardsOf('2C 3C 2D 3D 9H 9S');
    let next = 0;
    dealRound(() => {
      const card = cards[next++]!;
      order.push(card);
      return card;
    });
    expect(order.slice(0, 4)).toEqual(['2C', '3C', '2D', '3D']);
  });

  it('stops on a natural even when the other hand would draw (seed 001 worked example)', () => {
    // Player 6+4 = 0 would draw, but the Banker's 7+2 = 9 is a natural: nobody draws.
    expect(nextCardRecipient(cardsOf('6C 4C'), cardsOf('7C 2C'))).toBeNull();
  });

  it('gives the Banker its third card after the Player stood on 6', () => {
    expect(nextCardRecipient(cardsOf('6C KC'), cardsOf('2C 3C'))).toBe('banker');
    expect(nextCardRecipient(cardsOf('6C KC'), cardsOf('2C 3C 4C'))).toBeNull();
  });

  it('refuses hands the rules could not have dealt', () => {
    expect(() => nextCardRecipient(cardsOf('9C 9D 9H'), cardsOf('KC KD'))).toThrow(
      InvalidDealError,
    );
    expect(() => nextCardRecipient(cardsOf('6C KC 2C'), cardsOf('2C 3C'))).toThrow(
      InvalidDealError,
    );
    expect(() => nextCardRecipient(cardsOf('2C 3C'), cardsOf('6C KC 5D'))).toThrow(
      InvalidDealError,
    );
    expect(() => nextCardRecipient(cardsOf('2C'), cardsOf('3C 4C'))).toThrow(InvalidDealError);
    expect(() => nextCardRecipient(cardsOf('AC AD 2C'), cardsOf('7C KC 5D'))).toThrow(
      InvalidDealError,
    );
  });

  it('explains each decision in words an auditor can check', () => {
    expect(explainThirdCards(cardsOf('AC 3D 6H'), cardsOf('2S 3S 9C'))).toEqual([
      { hand: 'player', draws: true, reason: 'Player 4 draws' },
      { hand: 'banker', draws: true, reason: "Banker 5 draws: Player's third card was 6" },
    ]);
    expect(explainThirdCards(cardsOf('AC 3D 8H'), cardsOf('2S 3S'))[1]!.reason).toBe(
      "Banker 5 stands: Player's third card was 8",
    );
    // A natural is named once per hand, saying whose it is.
    expect(explainThirdCards(cardsOf('9C KD'), cardsOf('2S 3S')).map((d) => d.reason)).toEqual([
      'Player natural 9: stands',
      'Banker 5 stands: Player natural 9',
    ]);
    expect(explainThirdCards(cardsOf('4C 3D'), cardsOf('9S KS')).map((d) => d.reason)).toEqual([
      'Player 7 stands: Banker natural 9',
      'Banker natural 9: stands',
    ]);
  });
});

describe('dealing properties', () => {
  const deal = (cards: Card[]) => {
    let next = 0;
    return dealRound(() => cards[next++]!);
  };
  const sixCards = fc.array(cardArbitrary, { minLength: 6, maxLength: 6 });

  it('no hand ever holds more than three cards, and each holds at least two', () => {
    fc.assert(
      fc.property(sixCards, (cards) => {
        const { player, banker } = deal(cards);
        return player.length >= 2 && player.length <= 3 && banker.length >= 2 && banker.length <= 3;
      }),
    );
  });

  it('totals are always 0-9', () => {
    fc.assert(
      fc.property(sixCards, (cards) => {
        const { player, banker } = deal(cards);
        const totals = [handTotal(player), handTotal(banker)];
        return totals.every((total) => Number.isInteger(total) && total >= 0 && total <= 9);
      }),
    );
  });

  it('a natural stops all drawing', () => {
    fc.assert(
      fc.property(sixCards, (cards) => {
        const { player, banker } = deal(cards);
        const natural = handTotal(player.slice(0, 2)) >= 8 || handTotal(banker.slice(0, 2)) >= 8;
        return !natural || (player.length === 2 && banker.length === 2);
      }),
    );
  });

  it('consumes the cards in order, with no card skipped', () => {
    fc.assert(
      fc.property(sixCards, (cards) => {
        const { player, banker } = deal(cards);
        const used = player.length + banker.length;
        const expected = [player[0], banker[0], player[1], banker[1]];
        if (player.length === 3) expected.push(player[2]);
        if (banker.length === 3) expected.push(banker[2]);
        expect(expected).toEqual(cards.slice(0, used));
      }),
    );
  });

  it('parses 10 as T', () => {
    expect(parseCard('10h')).toBe('TH');
  });
});
