import { describe, expect, it } from 'vitest';
import {
  analyze,
  cardOf,
  countOutcomes,
  countPerfectPairDeals,
  encodeOutcome,
  evaluateRound,
  nextCardRecipient,
  type Card,
} from '../src/index.js';

const percent = (value: number, digits: number) => Number((value * 100).toFixed(digits));

describe('exact analysis', () => {
  const eight = analyze(8);

  it('reproduces the published RTPs (seeds 000 and 003)', () => {
    expect(percent(eight.bets.banker.rtp, 2)).toBe(98.94);
    expect(percent(eight.bets.player.rtp, 2)).toBe(98.76);
    expect(percent(eight.bets.tie.rtp, 2)).toBe(85.64);
  });

  it('matches the standard 8-deck house edges', () => {
    expect(percent(eight.bets.banker.houseEdge, 4)).toBe(1.0579);
    expect(percent(eight.bets.player.houseEdge, 4)).toBe(1.2351);
    expect(percent(eight.bets.tie.houseEdge, 4)).toBe(14.3596);
    expect(percent(eight.bets.player_pair.houseEdge, 4)).toBe(10.3614);
    expect(percent(eight.bets.either_pair.houseEdge, 2)).toBe(13.71);
    expect(percent(eight.bets.player_bonus.houseEdge, 2)).toBe(2.65);
    expect(percent(eight.bets.banker_bonus.houseEdge, 2)).toBe(9.37);
    expect(percent(eight.bets.banker_no_commission.houseEdge, 2)).toBe(1.46);
    expect(percent(eight.probabilities.banker, 4)).toBe(45.8597);
    expect(percent(eight.probabilities.player, 4)).toBe(44.6247);
    expect(percent(eight.probabilities.tie, 4)).toBe(9.5156);
  });

  it('prices a 9:1 tie from the same counts', () => {
    const nine = analyze(8, { tieOdds: 9 });
    expect(nine.bets.tie.rtp).toBeCloseTo((eight.bets.tie.rtp * 10) / 9, 12);
  });

  it('gives exact fractions whose value is the reported RTP', () => {
    for (const bet of Object.values(eight.bets)) {
      const [num, den] = bet.exactRtp.split('/').map(BigInt) as [bigint, bigint];
      expect(Number(num) / Number(den)).toBeCloseTo(bet.rtp, 12);
      expect(bet.houseEdge).toBeCloseTo(1 - bet.rtp, 12);
    }
  });

  it('probabilities add up to one for every shoe size', () => {
    for (let decks = 1; decks <= 8; decks++) {
      const { probabilities } = analyze(decks);
      expect(probabilities.banker + probabilities.player + probabilities.tie).toBeCloseTo(1, 14);
    }
  });

  it('prices a perfect pair at zero with one deck, where it cannot happen', () => {
    expect(analyze(1).bets.perfect_pair.rtp).toBe(0);
    expect(analyze(1).bets.perfect_pair.variance).toBe(0);
  });

  it("gives each main bet's variance per unit staked from the winners' probabilities", () => {
    const { banker: b, player: p, tie: t } = eight.probabilities;
    // Returns per unit staked: Player 2 or the stake back on a tie; Banker 1.95 (5% commission)
    // or the stake back; Tie 9 (8 to 1).
    const varianceOf = (outcomes: [number, number][]) => {
      const mean = outcomes.reduce((sum, [x, q]) => sum + x * q, 0);
      return outcomes.reduce((sum, [x, q]) => sum + x * x * q, 0) - mean * mean;
    };
    expect(eight.bets.player.variance).toBeCloseTo(
      varianceOf([
        [2, p],
        [1, t],
      ]),
      12,
    );
    expect(eight.bets.banker.variance).toBeCloseTo(
      varianceOf([
        [1.95, b],
        [1, t],
      ]),
      12,
    );
    expect(eight.bets.tie.variance).toBeCloseTo(varianceOf([[9, t]]), 12);
    // A 25-to-1 perfect pair: 26 stakes back with the probability RTP / 26.
    const q = eight.bets.perfect_pair.rtp / 26;
    expect(eight.bets.perfect_pair.variance).toBeCloseTo(26 * 26 * q * (1 - q), 10);
    for (const bet of Object.values(eight.bets)) expect(bet.variance).toBeGreaterThan(0);
  });
});

/**
 * An independent, slow enumeration: every ordered deal by rank, driven by the generic
 * `nextCardRecipient` and scored by `evaluateRound` (the code settlement uses), weighted the
 * same way. The fast enumerator must agree with it exactly.
 */
function slowCounts(decks: number): Map<number, number> {
  const byRank = new Array<number>(13).fill(4 * decks);
  const cards = 52 * decks;
  const counts = new Map<number, number>();
  const player: Card[] = [];
  const banker: Card[] = [];
  const visit = (weight: number, used: number): void => {
    const hand = nextCardRecipient(player, banker);
    if (hand === null) {
      let sequences = weight;
      for (let i = used; i < 6; i++) sequences *= cards - i;
      const o = evaluateRound(player, banker);
      const code = encodeOutcome(
        o.playerTotal,
        o.bankerTotal,
        o.playerCardCount,
        o.bankerCardCount,
        o.playerPair,
        o.bankerPair,
        false,
        false,
      );
      counts.set(code, (counts.get(code) ?? 0) + sequences);
      return;
    }
    const target = hand === 'player' ? player : banker;
    for (let rank = 0; rank < 13; rank++) {
      const available = byRank[rank]!;
      if (available === 0) continue;
      byRank[rank] = available - 1;
      target.push(cardOf(rank * 4));
      visit(weight * available, used + 1);
      target.pop();
      byRank[rank] = available;
    }
  };
  visit(1, 0);
  return counts;
}

describe('the fast enumerator', () => {
  it(
    'counts every deal exactly as a straightforward enumeration does',
    { timeout: 120_000 },
    () => {
      for (const decks of [1, 8]) {
        const fast = countOutcomes(decks);
        const slow = slowCounts(decks);
        let total = 0;
        for (const [code, count] of slow) {
          expect(fast.counts[code], `outcome ${code}, ${decks} decks`).toBe(count);
          total += count;
        }
        expect(fast.counts.reduce((sum, count) => sum + count, 0)).toBe(total);
        expect(total).toBe(fast.total);
      }
    },
  );

  it('keeps every count an exact integer below 2^53', () => {
    const { counts, total } = countOutcomes(8);
    expect(Number.isSafeInteger(total)).toBe(true);
    expect(counts.every((count) => Number.isSafeInteger(count))).toBe(true);
  });
});

describe('effective RTP at a stake (payouts rounded down to the minor unit)', () => {
  it("is banker's 98.94% at 96.65% for 10 minor units, 98.18% at 30 (seed 003's examples)", () => {
    const at10 = analyze(8, { stake: 10 }).bets.banker;
    const at30 = analyze(8, { stake: 30 }).bets.banker;
    expect(percent(at10.rtp, 2)).toBe(98.94);
    expect(percent(at10.effectiveRtp!, 2)).toBe(96.65);
    expect(percent(at30.effectiveRtp!, 2)).toBe(98.18);
    // A 20-unit win pays 39 exactly: nothing is lost to rounding.
    expect(analyze(8, { stake: 20 }).bets.banker.effectiveRtp).toBe(at10.rtp);
  });

  it('loses exactly half a unit per Banker win at 10: the floor, and nothing else', () => {
    const at10 = analyze(8, { stake: 10 });
    const lost = at10.bets.banker.rtp - at10.bets.banker.effectiveRtp!;
    expect(lost).toBeCloseTo((at10.probabilities.banker * 0.5) / 10, 12);
  });

  it('equals the RTP where every payout is whole, and never exceeds it', () => {
    for (const stake of [1, 7, 10, 30, 100, 12_345]) {
      const { bets } = analyze(8, { stake });
      for (const [bet, analysis] of Object.entries(bets)) {
        expect(analysis.effectiveRtp!, `${bet} at ${stake}`).toBeLessThanOrEqual(
          analysis.rtp + 1e-15,
        );
      }
      for (const bet of ['player', 'tie', 'player_pair', 'perfect_pair', 'lucky_six'] as const)
        expect(bets[bet].exactEffectiveRtp, `${bet} at ${stake}`).toBe(bets[bet].exactRtp);
    }
    // Naturals pay 7:2: an odd stake loses half a unit on every win.
    const odd = analyze(8, { stake: 1 }).bets.player_natural;
    expect(odd.effectiveRtp!).toBeLessThan(odd.rtp);
    expect(analyze(8, { stake: 2 }).bets.player_natural.exactEffectiveRtp).toBe(
      analyze(8).bets.player_natural.exactRtp,
    );
  });

  it('is the same with accrued commission, which owes what deducted withholds', () => {
    const deducted = analyze(8, { stake: 10 }).bets.banker;
    const accrued = analyze(8, { stake: 10, commission: 'accrued' }).bets.banker;
    expect(accrued.exactEffectiveRtp).toBe(deducted.exactEffectiveRtp);
  });

  it('refuses a stake that is not a positive whole number of minor units', () => {
    expect(() => analyze(8, { stake: 0 })).toThrow(/positive integer/);
    expect(() => analyze(8, { stake: 2.5 })).toThrow(/positive integer/);
  });
});

describe('perfect pair counting', () => {
  it('matches a brute-force count of the first four cards', () => {
    for (const decks of [1, 2, 3]) {
      // Cards are 52 kinds with `decks` copies each; count ordered draws P1, B1, P2, B2.
      const left = new Array<number>(52).fill(decks);
      let wins = 0n;
      let total = 0n;
      for (let p1 = 0; p1 < 52; p1++) {
        const w1 = left[p1]!--;
        for (let b1 = 0; b1 < 52; b1++) {
          const w2 = w1 * left[b1]!--;
          for (let p2 = 0; p2 < 52; p2++) {
            const w3 = w2 * left[p2]!--;
            for (let b2 = 0; b2 < 52; b2++) {
              const w4 = BigInt(w3 * left[b2]!);
              total += w4;
              if (p1 === p2 || b1 === b2) wins += w4;
            }
            left[p2]!++;
          }
          left[b1]!++;
        }
        left[p1]!++;
      }
      expect(countPerfectPairDeals(decks), `${decks} decks`).toEqual({ wins, total });
    }
  });
});
