import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  BET_TYPES,
  cardOf,
  dealRound,
  evaluateRound,
  InvalidStakeError,
  PayoutOverflowError,
  settleBet,
  type BankerMode,
  type BetType,
  type RoundResult,
  type SettlementRules,
} from '../src/index.js';
import { cardsOf } from './arbitraries.js';

const RULES: SettlementRules = { tieOdds: 8, commission: 'deducted' };

const round = (player: string, banker: string): RoundResult =>
  evaluateRound(cardsOf(player), cardsOf(banker));

const payout = (
  type: BetType,
  outcome: RoundResult,
  stake = 100,
  bankerMode: BankerMode = 'commission',
  rules: SettlementRules = RULES,
) => settleBet({ type, stake, bankerMode }, outcome, rules);

// Hand-picked rounds; the first test checks each is what its name says.
const PLAYER_NATURAL_9 = round('9C KD', '3H 4S'); // Player natural 9 beats Banker 7
const TIE_SIX = round('KC 6D', 'QH 6S'); // both stand on 6
const BANKER_NATURAL_8 = round('2C 3D', '4H 4S'); // Banker natural 8 with a pair of fours
const PAIRS_BOTH = round('5C 5D 7H', 'KH KS 6C'); // Player 0 draws 7; Banker 0 draws 6: Player 7-6
const BANKER_SIX_TWO_CARDS = round('AC 4D KH', '3H 3S'); // Player 5 draws 0; Banker 6 stands: 6-5
const BANKER_SIX_THREE_CARDS = round('AC 2D 2H', 'KH 3S 3C'); // Player 3 draws 2 -> 5; Banker 3 draws 3 -> 6
const NATURAL_TIE = round('8C KD', '8H QS');

describe('settlement of hand-picked rounds', () => {
  it('evaluates the rounds as named', () => {
    expect(PLAYER_NATURAL_9).toMatchObject({
      winner: 'player',
      playerTotal: 9,
      playerNatural: true,
    });
    expect(TIE_SIX).toMatchObject({ winner: 'tie', playerTotal: 6, bankerTotal: 6 });
    expect(BANKER_NATURAL_8).toMatchObject({
      winner: 'banker',
      bankerNatural: true,
      bankerPair: true,
    });
    expect(PAIRS_BOTH).toMatchObject({ winner: 'player', playerPair: true, bankerPair: true });
    expect(BANKER_SIX_TWO_CARDS).toMatchObject({
      winner: 'banker',
      bankerTotal: 6,
      bankerCardCount: 2,
    });
    expect(BANKER_SIX_THREE_CARDS).toMatchObject({
      winner: 'banker',
      bankerTotal: 6,
      bankerCardCount: 3,
    });
    expect(NATURAL_TIE).toMatchObject({ winner: 'tie', playerNatural: true, bankerNatural: true });
  });

  it('player: 1:1, push on a tie, loses otherwise', () => {
    expect(payout('player', PLAYER_NATURAL_9)).toMatchObject({ result: 'win', payout: 200 });
    expect(payout('player', TIE_SIX)).toMatchObject({ result: 'push', payout: 100 });
    expect(payout('player', BANKER_NATURAL_8)).toMatchObject({ result: 'lose', payout: 0 });
  });

  it('banker in commission mode: 0.95:1 with the commission recorded', () => {
    expect(payout('banker', BANKER_NATURAL_8)).toEqual({
      result: 'win',
      stake: 100,
      payout: 195,
      commission: 5,
    });
    expect(payout('banker', TIE_SIX)).toMatchObject({ result: 'push', payout: 100 });
    expect(payout('banker', PLAYER_NATURAL_9)).toMatchObject({ result: 'lose', payout: 0 });
  });

  it('banker payouts are rounded down to the minor unit (seed 003 examples)', () => {
    // 0.10 returns 0.19, 0.20 returns 0.39, 0.30 returns 0.58: 1.95 x stake, floored.
    expect(payout('banker', BANKER_NATURAL_8, 10).payout).toBe(19);
    expect(payout('banker', BANKER_NATURAL_8, 20).payout).toBe(39);
    expect(payout('banker', BANKER_NATURAL_8, 30).payout).toBe(58);
    expect(payout('banker', BANKER_NATURAL_8, 10).commission).toBe(1);
    expect(payout('banker', BANKER_NATURAL_8, 30).commission).toBe(2);
  });

  it('a one-unit Banker win floors its winnings to nothing: the stake comes back', () => {
    expect(payout('banker', BANKER_NATURAL_8, 1)).toEqual({
      result: 'win',
      stake: 1,
      payout: 1,
      commission: 1,
    });
    expect(payout('banker', BANKER_SIX_TWO_CARDS, 1, 'no_commission').payout).toBe(1);
  });

  it('never pays an amount a number cannot hold exactly', () => {
    const fits = Math.floor(Number.MAX_SAFE_INTEGER / 51); // lucky six 3 pays 50:1
    expect(payout('lucky_six_3', BANKER_SIX_THREE_CARDS, fits).payout).toBe(fits * 51);
    expect(() => payout('lucky_six_3', BANKER_SIX_THREE_CARDS, fits + 1)).toThrow(
      PayoutOverflowError,
    );
    expect(() => payout('player', PLAYER_NATURAL_9, 2 ** 52)).toThrow(PayoutOverflowError);
    expect(payout('player', PLAYER_NATURAL_9, 2 ** 52 - 1).payout).toBe(2 ** 53 - 2);
  });

  it('accrued commission pays Banker 1:1 and records the same commission as owed', () => {
    const accrued = { ...RULES, commission: 'accrued' } as const;
    expect(payout('banker', BANKER_NATURAL_8, 30, 'commission', accrued)).toEqual({
      result: 'win',
      stake: 30,
      payout: 60,
      commission: 2,
    });
  });

  it('banker in no-commission mode: half on a Banker 6, even money otherwise', () => {
    expect(payout('banker', BANKER_SIX_TWO_CARDS, 100, 'no_commission')).toMatchObject({
      payout: 150,
      commission: 0,
    });
    expect(payout('banker', BANKER_SIX_THREE_CARDS, 100, 'no_commission').payout).toBe(150);
    expect(payout('banker', BANKER_SIX_TWO_CARDS, 15, 'no_commission').payout).toBe(22); // 15 + 7.5, floored
    expect(payout('banker', BANKER_NATURAL_8, 100, 'no_commission').payout).toBe(200);
  });

  it('tie pays the table tie odds; player and banker push', () => {
    expect(payout('tie', TIE_SIX).payout).toBe(900);
    expect(payout('tie', TIE_SIX, 100, 'commission', { ...RULES, tieOdds: 9 }).payout).toBe(1000);
    expect(payout('tie', PLAYER_NATURAL_9).payout).toBe(0);
  });

  it('pairs: 11:1 each, either pair 5:1 paid once', () => {
    expect(payout('player_pair', PAIRS_BOTH).payout).toBe(1200);
    expect(payout('banker_pair', PAIRS_BOTH).payout).toBe(1200);
    expect(payout('either_pair', PAIRS_BOTH).payout).toBe(600);
    expect(payout('either_pair', BANKER_NATURAL_8).payout).toBe(600);
    expect(payout('player_pair', BANKER_NATURAL_8).payout).toBe(0);
    expect(payout('either_pair', PLAYER_NATURAL_9).payout).toBe(0);
  });

  it('perfect pair: same rank and suit on either hand, 25:1 paid once', () => {
    const suited = round('QH QH 2C', 'KS KS 9D'); // Player 0 draws 2; Banker 0 draws 9
    expect(suited).toMatchObject({ playerPerfectPair: true, bankerPerfectPair: true });
    expect(payout('perfect_pair', suited).payout).toBe(2600);
    const oneSuited = round('QH QH 2C', 'KS KD 9D');
    expect(payout('perfect_pair', oneSuited).payout).toBe(2600);
    expect(payout('perfect_pair', PAIRS_BOTH).payout).toBe(0); // pairs, but of two suits
  });

  it('naturals pay 7:2 on the hand named, won or not', () => {
    expect(payout('player_natural', PLAYER_NATURAL_9).payout).toBe(450);
    expect(payout('banker_natural', BANKER_NATURAL_8).payout).toBe(450);
    expect(payout('banker_natural', PLAYER_NATURAL_9).payout).toBe(0);
    expect(payout('player_natural', BANKER_NATURAL_8).payout).toBe(0);
    expect(payout('player_natural', NATURAL_TIE).payout).toBe(450);
    expect(payout('player_natural', PLAYER_NATURAL_9, 3).payout).toBe(13); // 3 + 10.5, floored
  });

  it('bonus: natural win 1:1, natural tie push, non-natural win by 4-9 per the paytable', () => {
    expect(payout('player_bonus', PLAYER_NATURAL_9).payout).toBe(200);
    expect(payout('banker_bonus', BANKER_NATURAL_8).payout).toBe(200);
    expect(payout('player_bonus', NATURAL_TIE)).toMatchObject({ result: 'push', payout: 100 });
    expect(payout('banker_bonus', NATURAL_TIE)).toMatchObject({ result: 'push', payout: 100 });
    expect(payout('player_bonus', TIE_SIX).payout).toBe(0); // a non-natural tie loses
    expect(payout('banker_bonus', PLAYER_NATURAL_9).payout).toBe(0);
    // Player rounds with three cards against a Banker that drew: [player, banker, margin, payout].
    const margins: [string, string, number, number][] = [
      ['AC 3D 5H', 'KH QS TC', 9, 3100], // 9-0: 30:1
      ['AC 3D 4H', 'KH QS TC', 8, 1100], // 8-0: 10:1
      ['AC 3D 3H', 'KH QS TC', 7, 700], // 7-0: 6:1
      ['AC 3D 2H', 'KH QS TC', 6, 500], // 6-0: 4:1
      ['AC 3D 2H', 'KH AS KC', 5, 300], // 6-1: 2:1
      ['AC 3D 3H', 'KH AS 2C', 4, 200], // 7-3: 1:1
      ['AC 3D 3H', 'KH 2S 2C', 3, 0], // 7-4: loses
    ];
    for (const [player, banker, margin, expected] of margins) {
      const outcome = round(player, banker);
      expect(outcome.playerTotal - outcome.bankerTotal, `${player} / ${banker}`).toBe(margin);
      expect(outcome.playerNatural).toBe(false);
      expect(payout('player_bonus', outcome).payout, `margin ${margin}`).toBe(expected);
    }
  });

  it('lucky six: Banker wins with 6, 12:1 on two cards and 20:1 on three', () => {
    expect(payout('lucky_six', BANKER_SIX_TWO_CARDS).payout).toBe(1300);
    expect(payout('lucky_six_2', BANKER_SIX_TWO_CARDS).payout).toBe(2300);
    expect(payout('lucky_six_3', BANKER_SIX_TWO_CARDS).payout).toBe(0);
    expect(payout('lucky_six', BANKER_SIX_THREE_CARDS).payout).toBe(2100);
    expect(payout('lucky_six_2', BANKER_SIX_THREE_CARDS).payout).toBe(0);
    expect(payout('lucky_six_3', BANKER_SIX_THREE_CARDS).payout).toBe(5100);
    expect(payout('lucky_six', TIE_SIX).payout).toBe(0); // a 6-6 tie is no win
  });

  it('rejects stakes that are not positive integers', () => {
    for (const stake of [0, -5, 1.5, Number.NaN, 2 ** 60]) {
      expect(() => payout('player', PLAYER_NATURAL_9, stake)).toThrow(InvalidStakeError);
    }
  });
});

describe('settlement properties', () => {
  it('payouts are integers, never negative, and a loss returns nothing', () => {
    const complete = fc.array(fc.integer({ min: 0, max: 51 }), { minLength: 6, maxLength: 6 });
    fc.assert(
      fc.property(
        complete,
        fc.constantFrom(...BET_TYPES),
        fc.integer({ min: 1, max: 1_000_000_000 }),
        fc.constantFrom<BankerMode>('commission', 'no_commission'),
        fc.constantFrom<SettlementRules['commission']>('deducted', 'accrued'),
        (codes, type, stake, bankerMode, commission) => {
          const { player, banker } = dealFromCodes(codes);
          const outcome = evaluateRound(player, banker);
          const settled = settleBet({ type, stake, bankerMode }, outcome, {
            tieOdds: 8,
            commission,
          });
          expect(Number.isSafeInteger(settled.payout)).toBe(true);
          expect(Number.isSafeInteger(settled.commission)).toBe(true);
          expect(settled.payout).toBeGreaterThanOrEqual(0);
          expect(settled.commission).toBeGreaterThanOrEqual(0);
          if (settled.result === 'lose') expect(settled.payout).toBe(0);
          if (settled.result === 'push') expect(settled.payout).toBe(stake);
          // Floored winnings can be 0 (a 1-unit Banker win returns just the stake).
          if (settled.result === 'win') expect(settled.payout).toBeGreaterThanOrEqual(stake);
        },
      ),
    );
  });
});

function dealFromCodes(codes: number[]) {
  let next = 0;
  return dealRound(() => cardOf(codes[next++]!));
}
