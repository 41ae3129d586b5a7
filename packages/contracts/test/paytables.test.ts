import { readFileSync } from 'node:fs';
import { BANKER_MODES, BET_TYPES, betVerdict } from '@croupier/baccarat';
import { describe, expect, it } from 'vitest';
import { PRESETS } from '../src/index.js';
import {
  PAYTABLE_FILE,
  paytableCases,
  paytablePageText,
  plausibleOutcomes,
  verdictKey,
} from './paytable-page.js';

describe('docs/paytables.md', () => {
  it('is up to date: run `pnpm --filter @croupier/contracts run paytables` after changing a paytable or preset', async () => {
    expect(readFileSync(PAYTABLE_FILE, 'utf8')).toBe(await paytablePageText());
  });

  it("says what the code pays: every outcome a case holds for is paid alike by the code's paytable", () => {
    const outcomes = plausibleOutcomes();
    const tieOdds = new Set(Object.values(PRESETS).map((preset) => preset.tieOdds));
    for (const odds of tieOdds) {
      for (const type of BET_TYPES) {
        for (const mode of BANKER_MODES) {
          const cases = paytableCases(type, mode);
          const paid = new Map<number, Set<string>>();
          for (const outcome of outcomes) {
            const index = cases.findIndex((c) => c.holds(outcome));
            expect(
              index,
              `${type}: no case holds for ${JSON.stringify(outcome)}`,
            ).toBeGreaterThanOrEqual(0);
            const key = verdictKey(betVerdict(type, outcome, mode, { tieOdds: odds }));
            paid.set(index, (paid.get(index) ?? new Set()).add(key));
          }
          for (const [index, keys] of paid)
            expect([...keys], `${type} ${mode}: "${cases[index]!.when}"`).toHaveLength(1);
        }
      }
    }
  });
});
