import { describe, expect, it } from 'vitest';
import {
  BANKER_MODES,
  BET_TYPES,
  betVerdict,
  decodeOutcome,
  isPlausibleOutcome,
  OUTCOME_CODES,
  oddsForOne,
  oddsToOne,
  payoutSchedule,
  type BetVerdict,
} from '../src/index.js';

/** A verdict as a comparable key: the result and its exact odds (net of commission). */
const keyOf = (verdict: BetVerdict): string =>
  verdict.result === 'win'
    ? `win ${verdict.odds.num}/${verdict.odds.den}${verdict.commissionRate === undefined ? '' : ` less ${verdict.commissionRate.num}/${verdict.commissionRate.den}`}`
    : verdict.result;

describe('payout schedules', () => {
  it('list exactly the wins and pushes the paytable settles by', () => {
    for (const tieOdds of [8, 9]) {
      for (const type of BET_TYPES) {
        for (const mode of type === 'banker' ? BANKER_MODES : (['commission'] as const)) {
          const settled = new Set<string>();
          for (let code = 0; code < OUTCOME_CODES; code++) {
            if (!isPlausibleOutcome(code)) continue;
            const verdict = betVerdict(type, decodeOutcome(code), mode, { tieOdds });
            if (verdict.result !== 'lose') settled.add(keyOf(verdict));
          }
          // Perfect pairs are not in the outcome codes (suits are counted apart).
          if (type === 'perfect_pair') settled.add('win 25/1');
          const listed = new Set(
            payoutSchedule(type, mode, { tieOdds }).map((line) => keyOf(line)),
          );
          expect([...listed].sort(), `${type} ${mode} tie ${tieOdds}`).toEqual([...settled].sort());
        }
      }
    }
  });
});

describe('odds wording', () => {
  it('reads "to one" as the seeds write it, and "for one" as seed 003 does', () => {
    expect(oddsToOne({ num: 8, den: 1 })).toBe('8 to 1');
    expect(oddsForOne({ num: 8, den: 1 })).toBe('9 for 1'); // 003: "PAYS 9 FOR 1"
    expect(oddsForOne({ num: 1, den: 1 })).toBe('2 for 1'); // 003: Player "2:1"
    expect(oddsToOne({ num: 7, den: 2 })).toBe('7 to 2');
    expect(oddsForOne({ num: 7, den: 2 })).toBe('4.5 for 1');
    expect(oddsToOne({ num: 1, den: 2 })).toBe('1 to 2');
    const commission = { num: 1, den: 20 };
    expect(oddsToOne({ num: 1, den: 1 }, commission)).toBe('0.95 to 1');
    expect(oddsForOne({ num: 1, den: 1 }, commission)).toBe('1.95 for 1'); // 003: 1.95 x stake
  });
});
