import { presetConfig } from '@croupier/contracts';
import { describe, expect, it } from 'vitest';
import { paytableOf } from './paytable.js';

/** The headline odds of a bet: what it pays at best, as its pays lines say (docs/paytables.md). */
describe('the paytable headline', () => {
  const odds = (preset: 'live' | 'touch', bet: string, bankerMode: string | null = null) =>
    paytableOf(preset, presetConfig(preset), null).bets.find(
      (b) => b.bet === bet && b.bankerMode === bankerMode,
    )?.odds;

  it('reads 1 to 1 for no-commission Banker, whose win with 6 pays 1 to 2', () => {
    expect(odds('live', 'banker', 'no_commission')).toBe('1 to 1');
    expect(odds('live', 'banker', 'commission')).toBe('0.95 to 1');
  });

  it('reads the bonus at its best line, 30 to 1, not its natural (1 to 1)', () => {
    const table = paytableOf('live', presetConfig('live'), null);
    const bonuses = table.bets.filter((b) => b.bet.endsWith('_bonus'));
    expect(bonuses.map((b) => b.bet)).toEqual(['player_bonus', 'banker_bonus']);
    for (const bet of bonuses) expect(bet.odds).toBe('30 to 1');
  });

  it("keeps the table's wording", () => {
    expect(odds('touch', 'tie')).toBe('9 for 1');
  });
});
