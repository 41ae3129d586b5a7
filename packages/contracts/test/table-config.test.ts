import { analyze } from '@croupier/baccarat';
import { describe, expect, it } from 'vitest';
import {
  parseTableConfig,
  PRESET_NAMES,
  PRESETS,
  presetConfig,
  TableConfigError,
} from '../src/index.js';

function issuePaths(input: unknown): string[] {
  try {
    parseTableConfig(input);
    return [];
  } catch (error) {
    if (!(error instanceof TableConfigError)) throw error;
    return error.issues.map((issue) => issue.path);
  }
}

describe('presets', () => {
  it('has one valid preset per seed system', () => {
    expect(PRESET_NAMES).toEqual(['live', 'generic', 'land-based', 'touch', 'single-deck']);
    for (const name of PRESET_NAMES) expect(() => presetConfig(name)).not.toThrow();
  });

  it('follows the seeds', () => {
    expect(PRESETS.live).toMatchObject({
      decks: 8,
      burn: true,
      cutCard: 16,
      shufflePolicy: 'shoe',
    });
    expect(Object.keys(PRESETS.live.bets)).toHaveLength(14);
    expect(PRESETS.live.bets.player_pair.maxRound).toBe(60);
    expect(PRESETS.live.bets.lucky_six.maxRound).toBe(50);
    expect(PRESETS.live.bets.player_bonus.maxRound).toBeNull();
    expect(PRESETS['land-based']).toMatchObject({ seats: 7, commission: 'accrued' });
    expect(PRESETS.touch).toMatchObject({ shufflePolicy: 'every-round', decks: 8 });
    expect(PRESETS['single-deck']).toMatchObject({ shufflePolicy: 'every-round', decks: 1 });
    for (const name of ['touch', 'single-deck'] as const) {
      expect(Object.keys(PRESETS[name].bets)).toEqual(['player', 'banker', 'tie']);
    }
  });

  it('reaches the published maximum RTP on the live table (98.94%)', () => {
    const best = Math.max(...Object.values(analyze(PRESETS.live.decks).bets).map((b) => b.rtp));
    expect(Number((best * 100).toFixed(2))).toBe(98.94);
  });

  it('takes validated overrides', () => {
    expect(presetConfig('live', { cutCard: 20 }).cutCard).toBe(20);
    expect(() => presetConfig('live', { cutCard: 5 })).toThrow(/cutCard/);
    expect(() => presetConfig('vegas')).toThrow(/unknown preset "vegas"/);
  });
});

describe('invalid configurations', () => {
  it('names the field that is wrong', () => {
    expect(issuePaths({ ...PRESETS.live, decks: 0 })).toEqual(['decks']);
    expect(issuePaths({ ...PRESETS.live, decks: 2.5 })).toEqual(['decks']);
    expect(issuePaths({ ...PRESETS.live, currency: 'euro' })).toEqual(['currency']);
    expect(issuePaths({ ...PRESETS.live, tieOdds: 10 })).toEqual(['tieOdds']);
    expect(issuePaths({ ...PRESETS.live, cutCard: 3 })).toEqual(['cutCard']);
    expect(issuePaths({ ...PRESETS.touch, burn: true })).toEqual(['burn']);
    expect(
      issuePaths({
        ...PRESETS.live,
        bets: { ...PRESETS.live.bets, tie: { min: 10, max: 5, maxRound: null } },
      }),
    ).toEqual(['bets.tie.max']);
    expect(() =>
      parseTableConfig({ ...PRESETS.live, bets: { dragon: { min: 1, max: 2, maxRound: null } } }),
    ).toThrow('bets: Unrecognized key: "dragon"');
  });

  it('rejects unknown fields instead of ignoring a typo', () => {
    expect(issuePaths({ ...PRESETS.live, deck: 6 })).toEqual(['(root)']);
  });

  it('explains itself in the error message', () => {
    expect(() => parseTableConfig({ ...PRESETS.live, seats: 12 })).toThrow(/seats: /);
  });
});
