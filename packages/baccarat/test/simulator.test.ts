import { describe, expect, it } from 'vitest';
import { analyze, ANALYZED_BETS, simulate, type SimulatedTable } from '../src/index.js';

const LIVE_SHOE: SimulatedTable = {
  decks: 8,
  shufflePolicy: 'shoe',
  burn: true,
  cutCard: 16,
  tieOdds: 8,
  commission: 'deducted',
};
const FRESH_EVERY_ROUND: SimulatedTable = {
  ...LIVE_SHOE,
  shufflePolicy: 'every-round',
  burn: false,
  cutCard: null,
};

/** z for a two-sided 99.99% interval: with 15 bets checked, a fair run fails 0.15% of seeds. */
const Z = 3.89;

function expectWithinInterval(table: SimulatedTable, hands: number, seed: string) {
  const exact = analyze(table.decks, { tieOdds: table.tieOdds });
  const run = simulate({ hands, table, seed });
  for (const bet of ANALYZED_BETS) {
    const simulated = run.bets[bet];
    const halfWidth95 = (simulated.ci95[1] - simulated.ci95[0]) / 2;
    const standardError = halfWidth95 / 1.959964;
    const gap = Math.abs(simulated.rtp - exact.bets[bet].rtp);
    expect(gap, `${bet}: simulated ${simulated.rtp}, exact ${exact.bets[bet].rtp}`).toBeLessThan(
      Z * standardError,
    );
  }
  return run;
}

describe('simulator', () => {
  it('agrees with the exact analysis when every round is a fresh shuffle', () => {
    const run = expectWithinInterval(FRESH_EVERY_ROUND, 2_000_000, 'agreement-fresh');
    expect(run.shoes).toBe(2_000_000);
  });

  it('agrees with the exact analysis dealing real shoes to the cut card', () => {
    const run = expectWithinInterval(LIVE_SHOE, 2_000_000, 'agreement-shoe');
    // About 80 rounds per 8-deck shoe with a burn and the cut card 16 from the end.
    expect(run.hands / run.shoes).toBeGreaterThan(70);
    expect(run.hands / run.shoes).toBeLessThan(85);
  });

  it('is reproducible from its seed', () => {
    const a = simulate({ hands: 50_000, table: LIVE_SHOE, seed: 'same' });
    const b = simulate({ hands: 50_000, table: LIVE_SHOE, seed: 'same' });
    const c = simulate({ hands: 50_000, table: LIVE_SHOE, seed: 'other' });
    expect(a.bets).toEqual(b.bets);
    expect(a.frequencies).toEqual(b.frequencies);
    expect(c.bets.banker.returned).not.toBe(a.bets.banker.returned);
  });

  it('reports frequencies that add up', () => {
    const run = simulate({ hands: 100_000, table: LIVE_SHOE, seed: 'frequencies' });
    const { banker, player, tie } = run.frequencies;
    expect(banker!.count + player!.count + tie!.count).toBe(100_000);
    expect(run.frequencies.banker_pair!.rate).toBeGreaterThan(0.05);
  });

  it('reports progress while it runs', () => {
    const seen: number[] = [];
    simulate({
      hands: 30_000,
      table: LIVE_SHOE,
      seed: 'p',
      progressEvery: 10_000,
      onProgress: (n) => seen.push(n),
    });
    expect(seen).toEqual([10_000, 20_000, 30_000]);
  });

  it('refuses a hand count that is not a positive integer', () => {
    expect(() => simulate({ hands: 0, table: LIVE_SHOE })).toThrow(/hands/);
    expect(() => simulate({ hands: 1.5, table: LIVE_SHOE })).toThrow(/hands/);
  });
});
