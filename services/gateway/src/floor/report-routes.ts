import { DomainError } from '@croupier/contracts';
import type { HttpApp } from '@croupier/http';
import { z } from 'zod';
import type { System } from '../system.js';
import { DAYS } from './floor-figures.js';
import { dailyCsv, dailyRows, rtpRows } from './reports.js';

const DAY_MS = 86_400_000;
/** The longest period one report covers, in days. */
const MAX_REPORT_DAYS = 366;
const REPORT_READERS = ['operator', 'regulator'] as const;

const dayQuery = z.strictObject({
  from: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'a UTC date, YYYY-MM-DD'),
  to: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'a UTC date, YYYY-MM-DD'),
});

/** The days [from, to] (both included) as times, refused with the field named when not a period. */
function daysOf(query: { from: string; to: string }): { start: number; end: number } {
  const start = Date.parse(`${query.from}T00:00:00Z`);
  const last = Date.parse(`${query.to}T00:00:00Z`);
  for (const [field, at, text] of [
    ['querystring.from', start, query.from],
    ['querystring.to', last, query.to],
  ] as const)
    if (Number.isNaN(at) || new Date(at).toISOString().slice(0, 10) !== text)
      throw new DomainError('VALIDATION_ERROR', `${field}: ${text} is not a date`, { field });
  if (last < start || last - start >= MAX_REPORT_DAYS * DAY_MS)
    throw new DomainError(
      'VALIDATION_ERROR',
      `querystring.to: must be on or after from, by at most ${MAX_REPORT_DAYS} days in all`,
      { field: 'querystring.to' },
    );
  return { start, end: last + DAY_MS };
}

const dailyRowSchema = z.object({
  date: z.string(),
  scope: z.enum(['table', 'game']),
  id: z.string(),
  currency: z.string(),
  rounds: z.number().int(),
  turnover: z.number().int(),
  returned: z.number().int(),
  accruedCommission: z.number().int(),
  ggr: z.number().int(),
  holdPercent: z.number().nullable(),
  activePlayers: z.number().int(),
});

const rtpRowSchema = z.object({
  scope: z.enum(['table', 'game']),
  id: z.string(),
  currency: z.string(),
  betType: z.string(),
  decks: z.number().int(),
  tieOdds: z.number().int(),
  bets: z.number().int(),
  turnover: z.number().int(),
  netReturned: z.number().int(),
  observedRtp: z.number().nullable(),
  observedRtpExact: z.string().nullable(),
  ci95: z.tuple([z.number(), z.number()]).nullable(),
  exactRtp: z.number().nullable(),
  exactRtpFraction: z.string().nullable(),
  exactWithinInterval: z.boolean().nullable(),
});

/** Reports a regulator and a finance team ask for (issue 26), from the floor's day figures. */
export function reportRoutes(app: HttpApp, system: System): void {
  app.get(
    '/v1/reports/daily',
    {
      config: { roles: [...REPORT_READERS], problems: ['VALIDATION_ERROR'] },
      schema: {
        tags: ['reports'],
        summary:
          'GGR and turnover per UTC day, table or session game, and currency, for the days from `from` to `to` (both included, at most 366)',
        querystring: dayQuery,
        response: {
          200: z.object({ from: z.string(), to: z.string(), rows: z.array(dailyRowSchema) }),
        },
      },
    },
    async (request) => {
      const { start, end } = daysOf(request.query);
      const rows = dailyRows(await system.floorFigures.buckets(DAYS, start, end));
      return { from: request.query.from, to: request.query.to, rows };
    },
  );

  app.get(
    '/v1/reports/daily.csv',
    {
      config: { roles: [...REPORT_READERS], problems: ['VALIDATION_ERROR'] },
      schema: {
        tags: ['reports'],
        summary:
          'The daily report as CSV: date, scope, id, currency, rounds, turnover, returned, accrued_commission, ggr, hold_percent, active_players',
        querystring: dayQuery,
        produces: ['text/csv'],
      },
    },
    async (request, reply) => {
      const { start, end } = daysOf(request.query);
      const rows = dailyRows(await system.floorFigures.buckets(DAYS, start, end));
      return reply
        .header('content-type', 'text/csv; charset=utf-8')
        .header(
          'content-disposition',
          `attachment; filename="daily-${request.query.from}-${request.query.to}.csv"`,
        )
        .send(dailyCsv(rows));
    },
  );

  app.get(
    '/v1/reports/rtp',
    {
      config: { roles: [...REPORT_READERS], problems: ['VALIDATION_ERROR'] },
      schema: {
        tags: ['reports'],
        summary:
          "Observed RTP per bet type, table or session game and currency over the UTC days from `from` to `to` (both included), with its 95% interval, against the exact RTP of the table's shoe",
        querystring: dayQuery,
        response: {
          200: z.object({ from: z.string(), to: z.string(), rows: z.array(rtpRowSchema) }),
        },
      },
    },
    async (request) => {
      const { start, end } = daysOf(request.query);
      const rows = rtpRows(await system.floorFigures.buckets(DAYS, start, end));
      return { from: request.query.from, to: request.query.to, rows };
    },
  );
}
