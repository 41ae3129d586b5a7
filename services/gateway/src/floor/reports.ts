import { analyze, type AnalyzedBet } from '@croupier/baccarat';
import { formatMoney } from '@croupier/contracts';
import { csvField } from '../game-recall-csv.js';
import { ggrOf, reduced, sumFigures, type BetTypeFigures } from './figures.js';
import type { BucketDocument } from './floor-figures.js';

/** One day's figures of a table or a session game, in one currency. */
export interface DailyRow {
  readonly date: string;
  readonly scope: 'table' | 'game';
  readonly id: string;
  readonly currency: string;
  readonly rounds: number;
  readonly turnover: number;
  readonly returned: number;
  readonly accruedCommission: number;
  readonly ggr: number;
  readonly holdPercent: number | null;
  readonly activePlayers: number;
}

export const groupBy = <T>(items: readonly T[], keyOf: (item: T) => string): T[][] => {
  const groups = new Map<string, T[]>();
  for (const item of items) groups.set(keyOf(item), [...(groups.get(keyOf(item)) ?? []), item]);
  return [...groups.values()];
};

/** Day buckets added up per day, scope and currency, sorted by day, scope, id and currency. */
export function dailyRows(days: readonly BucketDocument[]): DailyRow[] {
  return groupBy(days, (b) => [b.from, b.scope.kind, b.scope.id, b.currency].join('\u0000'))
    .map((group) => {
      const [{ from, scope, currency }] = group as [BucketDocument];
      const figures = sumFigures(group.map((bucket) => bucket.figures));
      const { ggr, holdPercent } = ggrOf(figures);
      return {
        date: from.slice(0, 10),
        scope: scope.kind,
        id: scope.id,
        currency,
        rounds: figures.rounds,
        turnover: figures.turnover,
        returned: figures.returned,
        accruedCommission: figures.accruedCommission,
        ggr,
        holdPercent,
        activePlayers: figures.players.length,
      };
    })
    .sort(
      (a, b) =>
        a.date.localeCompare(b.date) ||
        a.scope.localeCompare(b.scope) ||
        a.id.localeCompare(b.id) ||
        a.currency.localeCompare(b.currency),
    );
}

export const DAILY_COLUMNS = [
  'date',
  'scope',
  'id',
  'currency',
  'rounds',
  'turnover',
  'returned',
  'accrued_commission',
  'ggr',
  'hold_percent',
  'active_players',
  // Money as a person reads it, in the row's currency (appended: the integers stay as they are).
  'turnover_text',
  'returned_text',
  'accrued_commission_text',
  'ggr_text',
] as const;

/** The daily report as CSV: a header row, then a row per day, scope and currency (CRLF). */
export function dailyCsv(rows: readonly DailyRow[]): string {
  const lines = rows.map((row) =>
    [
      row.date,
      row.scope,
      row.id,
      row.currency,
      row.rounds,
      row.turnover,
      row.returned,
      row.accruedCommission,
      row.ggr,
      row.holdPercent,
      row.activePlayers,
      formatMoney(row.turnover, row.currency),
      formatMoney(row.returned, row.currency),
      formatMoney(row.accruedCommission, row.currency),
      formatMoney(row.ggr, row.currency),
    ]
      .map((value) => csvField(value))
      .join(','),
  );
  return [DAILY_COLUMNS.join(','), ...lines].map((line) => `${line}\r\n`).join('');
}

/** Observed RTP of one bet type at one table or session game against its exact RTP. */
export interface RtpRow {
  readonly scope: 'table' | 'game';
  readonly id: string;
  readonly currency: string;
  readonly betType: string;
  readonly decks: number;
  readonly tieOdds: number;
  readonly bets: number;
  readonly turnover: number;
  /** What the bets returned less the commission they accrued, minor units. */
  readonly netReturned: number;
  /** netReturned / turnover, and exactly as a reduced fraction. */
  readonly observedRtp: number | null;
  readonly observedRtpExact: string | null;
  /** 95% interval of the observed RTP (normal approximation of the ratio); null under 2 bets. */
  readonly ci95: [number, number] | null;
  /** The bet's exact RTP off the top of a full shoe (packages/baccarat's analyzer). */
  readonly exactRtp: number | null;
  readonly exactRtpFraction: string | null;
  /** Whether the exact RTP lies in the observed interval. */
  readonly exactWithinInterval: boolean | null;
}

/** The normal quantile of a two-sided 95% interval. */
export const Z95 = 1.959963984540054;

/**
 * The 95% interval of a ratio of sums R = Σr/Σs over n bets (the delta method):
 * Var(R) ≈ Σ(r - R·s)² / (n (n - 1) s̄²), from the sums of squares the figures keep.
 */
function ci95Of(bets: BetTypeFigures, net: number): [number, number] | null {
  const { squares } = bets;
  if (squares === undefined || bets.bets < 2 || bets.turnover === 0) return null;
  const n = bets.bets;
  const ratio = net / bets.turnover;
  const residuals = squares.rr - 2 * ratio * squares.sr + ratio * ratio * squares.ss;
  const meanStake = bets.turnover / n;
  const se = Math.sqrt(Math.max(0, residuals) / (n * (n - 1) * meanStake * meanStake));
  return [ratio - Z95 * se, ratio + Z95 * se];
}

const exactRtps = new Map<string, ReturnType<typeof analyze>>();
/** The exact analysis of a shoe (cached: it is the same for every table of its decks and odds). */
export function exactOf(decks: number, tieOdds: number) {
  const key = `${decks}/${tieOdds}`;
  let analysis = exactRtps.get(key);
  if (analysis === undefined) {
    analysis = analyze(decks, { tieOdds });
    exactRtps.set(key, analysis);
  }
  return analysis;
}

/** Per table or session game, currency and bet type: observed RTP against the exact one. */
export function rtpRows(buckets: readonly BucketDocument[]): RtpRow[] {
  const rows: RtpRow[] = [];
  for (const group of groupBy(buckets, (b) =>
    [b.scope.kind, b.scope.id, b.currency, b.decks, b.tieOdds].join('\u0000'),
  )) {
    const [{ scope, currency, decks, tieOdds }] = group as [BucketDocument];
    const figures = sumFigures(group.map((bucket) => bucket.figures));
    const exact = exactOf(decks, tieOdds);
    for (const [betType, bets] of Object.entries(figures.bets).sort(([a], [b]) =>
      a.localeCompare(b),
    )) {
      const net = bets.returned - bets.accruedCommission;
      const analysis = exact.bets[betType as AnalyzedBet] as
        { rtp: number; exactRtp: string } | undefined;
      const ci95 = ci95Of(bets, net);
      rows.push({
        scope: scope.kind,
        id: scope.id,
        currency,
        betType,
        decks,
        tieOdds,
        bets: bets.bets,
        turnover: bets.turnover,
        netReturned: net,
        observedRtp: bets.turnover === 0 ? null : net / bets.turnover,
        observedRtpExact: bets.turnover === 0 ? null : reduced(BigInt(net), BigInt(bets.turnover)),
        ci95,
        exactRtp: analysis?.rtp ?? null,
        exactRtpFraction: analysis?.exactRtp ?? null,
        exactWithinInterval:
          ci95 === null || analysis === undefined
            ? null
            : analysis.rtp >= ci95[0] && analysis.rtp <= ci95[1],
      });
    }
  }
  return rows.sort(
    (a, b) =>
      a.scope.localeCompare(b.scope) ||
      a.id.localeCompare(b.id) ||
      a.currency.localeCompare(b.currency) ||
      a.betType.localeCompare(b.betType),
  );
}
