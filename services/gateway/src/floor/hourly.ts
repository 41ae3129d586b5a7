import type { AnalyzedBet } from '@croupier/baccarat';
import { addBets, ggrOf, NO_BETS, sumFigures, type BetTypeFigures } from './figures.js';
import type { BucketDocument } from './floor-figures.js';
import { exactOf, groupBy, Z95 } from './reports.js';

const HOUR_MS = 3_600_000;

/** One hour's figures of a table or session game in one currency. */
export interface HourFigures {
  /** When the hour began (ISO, UTC). */
  readonly hour: string;
  readonly rounds: number;
  readonly turnover: number;
  readonly returned: number;
  readonly accruedCommission: number;
  readonly ggr: number;
  readonly holdPercent: number | null;
  readonly activePlayers: number;
}

/** A bet type's observed RTP from the period's start to the end of an hour. */
export interface RtpPoint {
  /** The end of the hour the point adds up to (ISO, UTC). */
  readonly until: string;
  readonly bets: number;
  readonly turnover: number;
  readonly netReturned: number;
  readonly observedRtp: number;
  /**
   * Where the observed RTP lies 95% of the time if the game pays as the exact analysis says:
   * exactRtp ± 1.96 σ √(Σ stake²) / Σ stake, σ² the exact variance per unit staked.
   */
  readonly expected95: [number, number] | null;
}

export interface RtpSeries {
  readonly betType: string;
  readonly exactRtp: number | null;
  readonly points: RtpPoint[];
}

/** The hours of a table or session game in one currency, and its bet types' RTP over them. */
export interface HourlySeries {
  readonly scope: 'table' | 'game';
  readonly id: string;
  readonly currency: string;
  readonly decks: number;
  readonly tieOdds: number;
  /** Hours in which something settled, oldest first (an hour left out settled nothing). */
  readonly hours: HourFigures[];
  readonly rtp: RtpSeries[];
}

/**
 * The hour buckets of a period as series per table or session game and currency (the same
 * grouping as the RTP report): each hour's figures for GGR per hour, and each bet type's RTP
 * added up from the period's start to the end of every hour it was bet in, with the band the
 * exact analysis expects it in. Bets of one round count as independent, as in the report's
 * interval: several players backing one side together widen the true spread past the band.
 */
export function hourlySeries(hours: readonly BucketDocument[]): HourlySeries[] {
  const series = groupBy(hours, (b) =>
    [b.scope.kind, b.scope.id, b.currency, b.decks, b.tieOdds].join('\u0000'),
  ).map((group): HourlySeries => {
    const [{ scope, currency, decks, tieOdds }] = group as [BucketDocument];
    const exact = exactOf(decks, tieOdds);
    // Several sessions of a game settle in one hour: one bucket each, added up.
    const byHour = groupBy(group, (bucket) => bucket.from)
      .map((buckets) => ({
        hour: buckets[0]!.from,
        figures: sumFigures(buckets.map((bucket) => bucket.figures)),
      }))
      .sort((a, b) => a.hour.localeCompare(b.hour));
    const running = new Map<string, BetTypeFigures>();
    const points = new Map<string, RtpPoint[]>();
    for (const { hour, figures } of byHour) {
      const until = new Date(Date.parse(hour) + HOUR_MS).toISOString();
      for (const [betType, bets] of Object.entries(figures.bets)) {
        // A resettlement's hour (no bet, a changed return) moves the sum too, and shows it.
        const sum = addBets(running.get(betType) ?? NO_BETS, bets);
        running.set(betType, sum);
        if (sum.turnover === 0) continue;
        const net = sum.returned - sum.accruedCommission;
        const analysis = exact.bets[betType as AnalyzedBet] as
          { rtp: number; variance: number } | undefined;
        const ss = sum.squares?.ss;
        const halfWidth =
          analysis === undefined || ss === undefined
            ? null
            : (Z95 * Math.sqrt(analysis.variance * ss)) / sum.turnover;
        points.set(betType, [
          ...(points.get(betType) ?? []),
          {
            until,
            bets: sum.bets,
            turnover: sum.turnover,
            netReturned: net,
            observedRtp: net / sum.turnover,
            expected95:
              analysis === undefined || halfWidth === null
                ? null
                : [analysis.rtp - halfWidth, analysis.rtp + halfWidth],
          },
        ]);
      }
    }
    return {
      scope: scope.kind,
      id: scope.id,
      currency,
      decks,
      tieOdds,
      hours: byHour.map(({ hour, figures }) => {
        const { ggr, holdPercent } = ggrOf(figures);
        return {
          hour,
          rounds: figures.rounds,
          turnover: figures.turnover,
          returned: figures.returned,
          accruedCommission: figures.accruedCommission,
          ggr,
          holdPercent,
          activePlayers: figures.players.length,
        };
      }),
      rtp: [...points.entries()]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([betType, list]) => ({
          betType,
          exactRtp:
            (exact.bets[betType as AnalyzedBet] as { rtp: number } | undefined)?.rtp ?? null,
          points: list,
        })),
    };
  });
  return series.sort(
    (a, b) =>
      a.scope.localeCompare(b.scope) ||
      a.id.localeCompare(b.id) ||
      a.currency.localeCompare(b.currency),
  );
}
