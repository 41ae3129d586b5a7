import {
  analyze,
  BET_TYPES,
  largestPayout,
  MAIN_BETS,
  oddsForOne,
  oddsToOne,
  payoutSchedule,
  type Analysis,
  type AnalyzedBet,
  type BankerMode,
  type BetType,
  type CommissionMode,
  type PayoutLine,
} from '@croupier/baccarat';
import { DomainError, type TableConfig } from '@croupier/contracts';
import { z } from 'zod';

/**
 * How a table writes its odds: "8 to 1" (the winnings per stake, seeds 000-002 and 004), or
 * "9 for 1" (the stake included, seed 003's "PAYS 9 FOR 1"). Both are always given; `odds` is
 * the one the table's players read.
 */
export type OddsWording = 'to-one' | 'for-one';

/** Seed 003 (the `touch` preset) writes its odds "for one"; every other seed "to one". */
export const oddsWordingOf = (config: TableConfig): OddsWording =>
  config.preset === 'touch' ? 'for-one' : 'to-one';

const effectiveRtpSchema = z.object({
  stake: z.number().int().describe('minor units'),
  rtp: z.number(),
  houseEdge: z.number(),
  exactRtp: z.string().describe('the exact effective RTP, a reduced fraction'),
  withinLimits: z.boolean().describe('whether a bet of this stake is within min and max'),
});

const payoutLineSchema = z.object({
  when: z.string(),
  result: z.enum(['win', 'push']),
  odds: z.string().nullable().describe("in the table's wording; null for a push"),
  toOne: z.string().nullable().describe('"8 to 1": the winnings per stake'),
  forOne: z.string().nullable().describe('"9 for 1": what a winning stake returns in all'),
});

export const paytableSchema = z.object({
  tableId: z.string(),
  name: z.string(),
  preset: z.string().nullable(),
  currency: z.string(),
  decks: z.number().int(),
  oddsWording: z.enum(['to-one', 'for-one']),
  rounding: z.string(),
  playerBankerDifferenceLimit: z.number().int().nullable(),
  stake: z
    .number()
    .int()
    .nullable()
    .describe('the `stake` asked for, minor units; null when none was'),
  bets: z.array(
    z.object({
      bet: z.enum(BET_TYPES),
      bankerMode: z.enum(['commission', 'no_commission']).nullable(),
      main: z.boolean(),
      odds: z
        .string()
        .describe(
          "the best odds the bet pays, in the table's wording: no-commission Banker 1 to 1 (a win with 6 pays less), a bonus bet 30 to 1 (by 9)",
        ),
      pays: z.array(payoutLineSchema),
      conditions: z.object({
        maxRound: z
          .number()
          .int()
          .nullable()
          .describe("the shoe's last round offering the bet; null: every round"),
        commission: z
          .enum(['deducted', 'accrued'])
          .nullable()
          .describe('commission-mode Banker: withheld from the win, or owed per seat'),
        differenceLimit: z
          .boolean()
          .describe('the maximum applies to |Player - Banker| (playerBankerDifferenceLimit)'),
      }),
      limits: z.object({ min: z.number().int(), max: z.number().int() }),
      rtp: z.number(),
      houseEdge: z.number(),
      exactRtp: z.string(),
      effectiveRtp: z.object({
        atMinimum: effectiveRtpSchema,
        atStake: effectiveRtpSchema.nullable(),
      }),
    }),
  ),
});
export type Paytable = z.infer<typeof paytableSchema>;

const ROUNDING =
  'Payouts are rounded down to the minor unit (a 0.10 Banker win returns 0.19); effectiveRtp is the exact return at a stake with that rounding.';

/** Analyses of the tables asked about, by rules and stake; a few hundred at most. */
const analyses = new Map<string, Analysis>();
const MAX_ANALYSES = 512;

function analysisAt(config: TableConfig, stake: number, commission: CommissionMode): Analysis {
  const key = `${config.decks}/${config.tieOdds}/${commission}/${stake}`;
  let analysis = analyses.get(key);
  if (analysis === undefined) {
    if (analyses.size >= MAX_ANALYSES) analyses.clear();
    analysis = analyze(config.decks, { tieOdds: config.tieOdds, commission, stake });
    analyses.set(key, analysis);
  }
  return analysis;
}

const analyzedAs = (type: BetType, mode: BankerMode | null): AnalyzedBet =>
  type === 'banker' && mode === 'no_commission' ? 'banker_no_commission' : type;

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** Whether every bet's largest win at `stake` is an exact integer: the analysis settles them all. */
const payableAt = (config: TableConfig, stake: number): boolean =>
  BET_TYPES.every((type) => largestPayout(type, stake, { tieOdds: config.tieOdds }) <= MAX_SAFE);

/**
 * Refuses a `stake` the paytable cannot analyse: one whose largest win on some bet is beyond
 * 2^53 - 1 minor units, which settlement cannot pay exactly. A 400 naming the parameter and the
 * largest stake that can be asked about, not a 500 from deep in the analysis.
 */
export function requireAnalysableStake(config: TableConfig, stake: number): void {
  if (payableAt(config, stake)) return;
  // The largest stake whose every win is exact: between 1 (always) and `stake` (not).
  let low = 1;
  let high = stake;
  while (high - low > 1) {
    const middle = low + Math.floor((high - low) / 2);
    if (payableAt(config, middle)) low = middle;
    else high = middle;
  }
  const message = `must be at most ${low} minor units: a larger stake could win more than ${Number.MAX_SAFE_INTEGER} minor units, which no payout can hold exactly`;
  throw new DomainError('VALIDATION_ERROR', `querystring.stake: ${message}`, {
    field: 'querystring.stake',
  });
}

/**
 * The line a bet is headlined by: the best odds it pays, compared as exact fractions (net of
 * commission). Not the first line: no-commission Banker lists its 6 (1 to 2) first, a bonus bet
 * its natural (1 to 1), and neither is what the bet pays at best. Null for a bet that never wins.
 */
function headlineOf(lines: readonly PayoutLine[]): number | null {
  let best: number | null = null;
  let bestValue = { num: 0, den: 1 };
  lines.forEach((line, index) => {
    if (line.result !== 'win') return;
    const rate = line.commissionRate ?? { num: 0, den: 1 };
    const value = { num: line.odds.num * (rate.den - rate.num), den: line.odds.den * rate.den };
    if (best === null || value.num * bestValue.den > bestValue.num * value.den) {
      best = index;
      bestValue = value;
    }
  });
  return best;
}

/**
 * Every bet a table offers (a Banker bet once per banker mode) with its payout lines as its
 * players read them, its conditions and limits, its exact RTP and house edge, and its effective
 * RTP with payouts floored: at the bet's minimum, and at `stake` when one is asked for.
 */
export function paytableOf(tableId: string, config: TableConfig, stake: number | null): Paytable {
  const wording = oddsWordingOf(config);
  const bets: Paytable['bets'] = [];
  for (const type of BET_TYPES) {
    const limit = config.bets[type];
    if (limit === undefined) continue;
    const modes: (BankerMode | null)[] = type === 'banker' ? [...config.bankerModes] : [null];
    for (const mode of modes) {
      const analyzed = analyzedAs(type, mode);
      const effective = (at: number) => {
        const bet = analysisAt(config, at, config.commission).bets[analyzed];
        return {
          stake: at,
          rtp: bet.effectiveRtp!,
          houseEdge: 1 - bet.effectiveRtp!,
          exactRtp: bet.exactEffectiveRtp!,
          withinLimits: at >= limit.min && at <= limit.max,
        };
      };
      const top = analysisAt(config, limit.min, config.commission).bets[analyzed];
      const schedule = payoutSchedule(type, mode ?? 'commission', config);
      const headline = headlineOf(schedule);
      const pays = schedule.map((line) => {
        if (line.result === 'push') {
          return {
            when: line.when,
            result: 'push' as const,
            odds: null,
            toOne: null,
            forOne: null,
          };
        }
        const toOne = oddsToOne(line.odds, line.commissionRate);
        const forOne = oddsForOne(line.odds, line.commissionRate);
        return {
          when: line.when,
          result: 'win' as const,
          odds: wording === 'for-one' ? forOne : toOne,
          toOne,
          forOne,
        };
      });
      bets.push({
        bet: type,
        bankerMode: mode,
        main: MAIN_BETS.includes(type),
        odds: headline === null ? '' : (pays[headline]!.odds ?? ''),
        pays,
        conditions: {
          maxRound: limit.maxRound,
          commission: type === 'banker' && mode === 'commission' ? config.commission : null,
          differenceLimit:
            config.playerBankerDifferenceLimit !== null && (type === 'player' || type === 'banker'),
        },
        limits: { min: limit.min, max: limit.max },
        rtp: top.rtp,
        houseEdge: top.houseEdge,
        exactRtp: top.exactRtp,
        effectiveRtp: {
          atMinimum: effective(limit.min),
          atStake: stake === null ? null : effective(stake),
        },
      });
    }
  }
  return {
    tableId,
    name: config.name,
    preset: config.preset ?? null,
    currency: config.currency,
    decks: config.decks,
    oddsWording: wording,
    rounding: ROUNDING,
    playerBankerDifferenceLimit: config.playerBankerDifferenceLimit,
    stake,
    bets,
  };
}
