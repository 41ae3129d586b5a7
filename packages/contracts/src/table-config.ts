import {
  BANKER_MODES,
  BET_TYPES,
  DEFAULT_MAX_ROUND,
  SHUFFLE_POLICIES,
  tableRulesProblems,
  type BetLimit,
  type BetType,
  type TableRules,
} from '@croupier/baccarat';
import { z } from 'zod';
import { textSchema } from './text.js';

const minorUnits = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);

export const betLimitSchema = z
  .object({
    min: minorUnits,
    max: minorUnits,
    maxRound: z.number().int().positive().nullable(),
  })
  .strict();

export const betTypeSchema = z.enum(BET_TYPES);
export const bankerModeSchema = z.enum(BANKER_MODES as readonly ['commission', 'no_commission']);
export const cardSourceSchema = z.enum(['rng', 'scanner']);
export type CardSource = z.infer<typeof cardSourceSchema>;

/** ISO 4217 currency code; amounts are in its minor unit (cents for EUR). */
export const currencySchema = z
  .string()
  .regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code such as EUR');

/**
 * A table's configuration: the rules it plays (see `TableRules` in @croupier/baccarat), plus its
 * name, currency and where its cards come from. Rule-level checks (a shoe that cannot run out,
 * bets that can be won) are added to the type checks, each naming its field.
 */
const tableConfigShape = z
  .object({
    name: textSchema({ max: 80 }),
    preset: textSchema({ max: 40 }).optional(),
    currency: currencySchema,
    cardSource: cardSourceSchema,
    decks: z.number().int().min(1).max(8),
    shufflePolicy: z.enum(SHUFFLE_POLICIES as readonly ['shoe', 'every-round']),
    burn: z.boolean(),
    cutCard: z.number().int().positive().nullable(),
    bets: z.partialRecord(betTypeSchema, betLimitSchema),
    playerBankerDifferenceLimit: minorUnits.nullable(),
    bankerModes: z.array(bankerModeSchema).min(1),
    commission: z.enum(['deducted', 'accrued']),
    tieOdds: z.union([z.literal(8), z.literal(9)]),
    seats: z.number().int().min(1).max(9).nullable(),
  })
  .strict();

/** The rule checks run only on an otherwise valid configuration, so each problem is reported once. */
export const tableConfigSchema = tableConfigShape.check((context) => {
  if (context.issues.length > 0) return;
  for (const problem of tableRulesProblems(context.value)) {
    context.issues.push({
      code: 'custom',
      path: [...problem.path],
      message: problem.message,
      input: context.value,
    });
  }
});

export type TableConfig = z.infer<typeof tableConfigSchema>;

// A configuration is a set of table rules: the schema and the rules engine must not drift apart.
const _rulesFromConfig: (config: TableConfig) => TableRules = (config) => config;

export class TableConfigError extends Error {
  readonly code = 'INVALID_TABLE_CONFIG';
  constructor(readonly issues: readonly { path: string; message: string }[]) {
    super(
      `invalid table configuration: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`,
    );
    this.name = 'TableConfigError';
  }
}

/** Describes zod issues as `field.path: message`, the form every bad-input error uses. */
export function describeIssues(error: z.ZodError): { path: string; message: string }[] {
  return error.issues.map((issue) => ({
    path: issue.path.length > 0 ? issue.path.map(String).join('.') : '(root)',
    message: issue.message,
  }));
}

/** Parses a table configuration, throwing `TableConfigError` naming every bad field. */
export function parseTableConfig(input: unknown): TableConfig {
  const result = tableConfigSchema.safeParse(input);
  if (!result.success) throw new TableConfigError(describeIssues(result.error));
  return result.data;
}

const limit = (min: number, max: number, bet: BetType): BetLimit => ({
  min,
  max,
  maxRound: DEFAULT_MAX_ROUND[bet],
});

const mainBets = (min: number, max: number, tieMax: number) => ({
  player: limit(min, max, 'player'),
  banker: limit(min, max, 'banker'),
  tie: limit(min, tieMax, 'tie'),
});

/** One preset per seed system (docs/rules.md). Amounts are minor units of EUR. */
export const PRESETS = {
  /** 000: live baccarat with side bets, both banker modes, burn and cut card, difference limit. */
  live: {
    name: 'Live Baccarat',
    preset: 'live',
    currency: 'EUR',
    cardSource: 'rng',
    decks: 8,
    shufflePolicy: 'shoe',
    burn: true,
    cutCard: 16,
    bets: {
      ...mainBets(100, 500_000, 50_000),
      player_pair: limit(100, 25_000, 'player_pair'),
      banker_pair: limit(100, 25_000, 'banker_pair'),
      either_pair: limit(100, 25_000, 'either_pair'),
      perfect_pair: limit(100, 10_000, 'perfect_pair'),
      player_natural: limit(100, 25_000, 'player_natural'),
      banker_natural: limit(100, 25_000, 'banker_natural'),
      player_bonus: limit(100, 25_000, 'player_bonus'),
      banker_bonus: limit(100, 25_000, 'banker_bonus'),
      lucky_six: limit(100, 10_000, 'lucky_six'),
      lucky_six_2: limit(100, 10_000, 'lucky_six_2'),
      lucky_six_3: limit(100, 5_000, 'lucky_six_3'),
    },
    playerBankerDifferenceLimit: 500_000,
    bankerModes: ['commission', 'no_commission'],
    commission: 'deducted',
    tieOdds: 8,
    seats: null,
  },
  /** 001: the generic rules page: main bets, 5% commission, tie 8:1. */
  generic: {
    name: 'Baccarat',
    preset: 'generic',
    currency: 'EUR',
    cardSource: 'rng',
    decks: 8,
    shufflePolicy: 'shoe',
    burn: true,
    cutCard: 16,
    bets: mainBets(100, 100_000, 10_000),
    playerBankerDifferenceLimit: null,
    bankerModes: ['commission'],
    commission: 'deducted',
    tieOdds: 8,
    seats: null,
  },
  /** 002: a land-based table: seven numbered seats, commission accrued per seat. */
  'land-based': {
    name: 'Baccarat Salon',
    preset: 'land-based',
    currency: 'EUR',
    cardSource: 'rng',
    decks: 8,
    shufflePolicy: 'shoe',
    burn: true,
    cutCard: 16,
    bets: mainBets(1_000, 1_000_000, 100_000),
    playerBankerDifferenceLimit: null,
    bankerModes: ['commission'],
    commission: 'accrued',
    tieOdds: 8,
    seats: 7,
  },
  /** 003: Baccarat Touch: RNG, eight decks shuffled before every round, bets from 0.10. */
  touch: {
    name: 'Baccarat Touch',
    preset: 'touch',
    currency: 'EUR',
    cardSource: 'rng',
    decks: 8,
    shufflePolicy: 'every-round',
    burn: false,
    cutCard: null,
    bets: mainBets(10, 50_000, 5_000),
    playerBankerDifferenceLimit: null,
    bankerModes: ['commission'],
    commission: 'deducted',
    tieOdds: 8,
    seats: null,
  },
  /** 004: single-deck online baccarat, the deck shuffled before every hand. */
  'single-deck': {
    name: 'Single Deck Baccarat',
    preset: 'single-deck',
    currency: 'EUR',
    cardSource: 'rng',
    decks: 1,
    shufflePolicy: 'every-round',
    burn: false,
    cutCard: null,
    bets: mainBets(100, 50_000, 5_000),
    playerBankerDifferenceLimit: null,
    bankerModes: ['commission'],
    commission: 'deducted',
    tieOdds: 8,
    seats: null,
  },
} as const satisfies Record<string, TableConfig>;

export type PresetName = keyof typeof PRESETS;

/** The presets a player opens a session of and deals alone (003, 004): one player, the house. */
export const SINGLE_PLAYER_PRESETS = [
  'touch',
  'single-deck',
] as const satisfies readonly PresetName[];
export const PRESET_NAMES = Object.keys(PRESETS) as PresetName[];

export function isPresetName(name: string): name is PresetName {
  return Object.hasOwn(PRESETS, name);
}

/** A preset's configuration, validated, with optional overrides (validated too). */
export function presetConfig(name: string, overrides: Partial<TableConfig> = {}): TableConfig {
  if (!isPresetName(name)) {
    throw new TableConfigError([
      { path: 'preset', message: `unknown preset "${name}"; presets: ${PRESET_NAMES.join(', ')}` },
    ]);
  }
  return parseTableConfig({ ...PRESETS[name], ...overrides });
}
