import { MAX_DECKS, MIN_DECKS, type AnalyzedBet } from '@croupier/baccarat';
import {
  isPresetName,
  PRESET_NAMES,
  PRESETS,
  presetConfig,
  type TableConfig,
} from '@croupier/contracts';
import { UsageError } from './io.js';
import { integerOption } from './options.js';

/**
 * The table a calculation is for: a preset (`--preset`), optionally with another deck count
 * (`--decks`); without a preset, the live table's rules with `--decks` decks (default 8).
 */
export function chooseTable(options: {
  preset?: string | undefined;
  decks?: string | undefined;
}): TableConfig {
  const presetName = options.preset ?? 'live';
  if (!isPresetName(presetName)) {
    throw new UsageError(`--preset must be one of ${PRESET_NAMES.join(', ')}, got "${presetName}"`);
  }
  const base = PRESETS[presetName];
  const decks = integerOption('decks', options.decks, {
    min: MIN_DECKS,
    max: MAX_DECKS,
    fallback: base.decks,
  });
  if (decks === base.decks) return presetConfig(presetName);
  // Fewer decks may move the cut card out of range, and one deck cannot pay a perfect pair.
  const cutCard = base.cutCard === null ? null : Math.min(base.cutCard, decks * 52 - 11);
  const bets: TableConfig['bets'] = { ...base.bets };
  if (decks < 2) delete (bets as Record<string, unknown>).perfect_pair;
  return presetConfig(presetName, { decks, cutCard, bets });
}

/** The bets a table offers, in paytable order, with the no-commission Banker where offered. */
export function offeredBets(table: TableConfig, all: readonly AnalyzedBet[]): AnalyzedBet[] {
  return all.filter((bet) =>
    bet === 'banker_no_commission'
      ? table.bets.banker !== undefined && table.bankerModes.includes('no_commission')
      : table.bets[bet] !== undefined,
  );
}
