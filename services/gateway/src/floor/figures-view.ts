import { z } from 'zod';
import { ggrOf, sumFigures, type Figures } from './figures.js';
import type { BucketDocument } from './floor-figures.js';

const betTypeFiguresSchema = z.object({
  type: z.string(),
  bets: z.number().int(),
  turnover: z.number().int(),
  returned: z.number().int(),
  accruedCommission: z.number().int(),
  ggr: z.number().int(),
});

/** The figures of one scope and currency as the API shows them. */
export const figuresViewSchema = z.object({
  currency: z.string(),
  rounds: z.number().int().describe('rounds settled'),
  voidedAfterSettlement: z.number().int(),
  turnover: z.number().int().describe('minor units: stakes of settled bets'),
  returned: z.number().int().describe('minor units returned to players: stakes and winnings'),
  accruedCommission: z.number().int().describe('minor units owed by seats (002)'),
  ggr: z.number().int().describe('turnover - returned + accruedCommission, minor units'),
  holdPercent: z
    .number()
    .nullable()
    .describe('ggr / turnover x 100, rounded half to even at 4 decimals; null with no turnover'),
  holdExact: z.string().nullable().describe('ggr / turnover as a reduced fraction'),
  activePlayers: z.number().int().describe('players with a bet settled in the period'),
  bets: z.array(betTypeFiguresSchema),
});

export type FiguresView = z.infer<typeof figuresViewSchema>;

export function figuresView(currency: string, figures: Figures): FiguresView {
  return {
    currency,
    rounds: figures.rounds,
    voidedAfterSettlement: figures.voidedAfterSettlement,
    turnover: figures.turnover,
    returned: figures.returned,
    accruedCommission: figures.accruedCommission,
    ...ggrOf(figures),
    activePlayers: figures.players.length,
    bets: Object.entries(figures.bets)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([type, bets]) => ({
        type,
        bets: bets.bets,
        turnover: bets.turnover,
        returned: bets.returned,
        accruedCommission: bets.accruedCommission,
        ggr: ggrOf(bets).ggr,
      })),
  };
}

/** Buckets added up per scope and currency: the tables' and the session games'. */
export function byScope(buckets: readonly BucketDocument[]): {
  tables: (FiguresView & { tableId: string })[];
  games: (FiguresView & { game: string })[];
} {
  const groups = new Map<string, BucketDocument[]>();
  for (const bucket of buckets) {
    const key = `${bucket.scope.kind}\u0000${bucket.scope.id}\u0000${bucket.currency}`;
    groups.set(key, [...(groups.get(key) ?? []), bucket]);
  }
  const tables: (FiguresView & { tableId: string })[] = [];
  const games: (FiguresView & { game: string })[] = [];
  for (const group of groups.values()) {
    const [{ scope, currency }] = group as [BucketDocument];
    const view = figuresView(currency, sumFigures(group.map((bucket) => bucket.figures)));
    if (scope.kind === 'table') tables.push({ tableId: scope.id, ...view });
    else games.push({ game: scope.id, ...view });
  }
  const order = (a: { currency: string }, b: { currency: string }) =>
    a.currency.localeCompare(b.currency);
  return {
    tables: tables.sort((a, b) => a.tableId.localeCompare(b.tableId) || order(a, b)),
    games: games.sort((a, b) => a.game.localeCompare(b.game) || order(a, b)),
  };
}
