import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  evaluateRound,
  settleBet,
  settleChips,
  splitOverChips,
  spotKeyOf,
  spotsOf,
  type Chip,
  type SettlementRules,
  type Spot,
} from '../src/index.js';
import { cardsOf } from './arbitraries.js';

const RULES: SettlementRules = { tieOdds: 8, commission: 'deducted' };
const BANKER: Spot = { type: 'banker', bankerMode: 'commission', seat: null };
const TIE: Spot = { type: 'tie', bankerMode: null, seat: null };
const BANKER_WINS = evaluateRound(cardsOf('2C 3D'), cardsOf('4H 4S')); // Banker natural 8
const TIE_SIX = evaluateRound(cardsOf('KC 6D'), cardsOf('QH 6S'));

const chips = (spot: Spot, ...amounts: number[]): Chip[] =>
  amounts.map((amount, i) => ({ betId: `${spotKeyOf(spot)}#${i}`, playerId: 'p', spot, amount }));

const paid = (list: readonly Chip[], outcome = BANKER_WINS) =>
  settleChips(list, outcome, RULES).chips.reduce((sum, c) => sum + c.settlement.payout, 0);

describe('spots: chips on one spot are one stake (issue 24)', () => {
  it('pays three 0.10 Banker chips as one 0.30 bet: 0.58 (seed 003), not 3 x 0.19', () => {
    expect(paid(chips(BANKER, 10, 10, 10))).toBe(58);
    expect(3 * settleBet({ type: 'banker', stake: 10 }, BANKER_WINS, RULES).payout).toBe(57);
  });

  it('pays chips totalling 0.45 on Banker 0.87, rounded down once', () => {
    expect(paid(chips(BANKER, 10, 10, 10, 15))).toBe(87);
    const { spots, chips: each } = settleChips(chips(BANKER, 10, 10, 10, 15), BANKER_WINS, RULES);
    expect(spots).toHaveLength(1);
    expect(spots[0]!.settlement).toMatchObject({ stake: 45, payout: 87, commission: 3 });
    // Each chip keeps its id and stake; shares of 87 sum to it, the unit left over to the first.
    expect(each.map((c) => [c.chip.betId, c.settlement.stake, c.settlement.payout])).toEqual([
      ['banker/commission/-#0', 10, 20],
      ['banker/commission/-#1', 10, 19],
      ['banker/commission/-#2', 10, 19],
      ['banker/commission/-#3', 15, 29],
    ]);
  });

  it('groups per player and spot: banker modes and seats are spots of their own', () => {
    const noCommission: Spot = { ...BANKER, bankerMode: 'no_commission' };
    const seat3: Spot = { ...BANKER, seat: 3 };
    const list = [
      ...chips(BANKER, 10, 10),
      ...chips(noCommission, 20),
      ...chips(seat3, 30),
      { betId: 'q', playerId: 'q', spot: BANKER, amount: 40 },
      ...chips(TIE, 11, 5),
    ];
    expect(spotsOf(list).map((s) => [s.playerId, spotKeyOf(s.spot), s.stake])).toEqual([
      ['p', 'banker/commission/-', 20],
      ['p', 'banker/no_commission/-', 20],
      ['p', 'banker/commission/3', 30],
      ['q', 'banker/commission/-', 40],
      ['p', 'tie/-/-', 16],
    ]);
  });

  it('returns each chip exactly on a push and nothing on a loss', () => {
    const { chips: pushed } = settleChips(chips(BANKER, 10, 15, 1), TIE_SIX, RULES);
    expect(pushed.map((c) => [c.settlement.result, c.settlement.payout])).toEqual([
      ['push', 10],
      ['push', 15],
      ['push', 1],
    ]);
    const { chips: lost } = settleChips(chips(TIE, 11, 5), BANKER_WINS, RULES);
    expect(lost.map((c) => c.settlement.payout)).toEqual([0, 0]);
  });

  it('shares any amount over any chips exactly, no chip below its floor share', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 1_000_000 }), { minLength: 1, maxLength: 12 }),
        fc.integer({ min: 0, max: 100_000_000 }),
        (amounts, amount) => {
          const shares = splitOverChips(
            amount,
            amounts.map((a) => ({ amount: a })),
          );
          const total = amounts.reduce((s, a) => s + a, 0);
          expect(shares.reduce((s, a) => s + a, 0)).toBe(amount);
          shares.forEach((share, i) => {
            const floor = Math.floor((amount * amounts[i]!) / total);
            expect(share - floor).toBeGreaterThanOrEqual(0);
            expect(share - floor).toBeLessThanOrEqual(1);
          });
        },
      ),
    );
  });

  it('settles a spot of one chip exactly as settleBet does', () => {
    for (const outcome of [BANKER_WINS, TIE_SIX]) {
      for (const stake of [1, 10, 45, 12_345]) {
        const [one] = settleChips(chips(BANKER, stake), outcome, RULES).chips;
        expect(one!.settlement).toEqual(settleBet({ type: 'banker', stake }, outcome, RULES));
      }
    }
  });
});
