import type { HttpApp } from '@croupier/http';
import { z } from 'zod';
import type { System } from '../system.js';
import { HOURS } from './floor-figures.js';
import { hourlySeries } from './hourly.js';
import { FLOOR_STAFF, hourRange } from './routes.js';

const hourSchema = z.object({
  hour: z.string().describe('when the hour began (UTC)'),
  rounds: z.number().int(),
  turnover: z.number().int().describe('minor units'),
  returned: z.number().int().describe('minor units'),
  accruedCommission: z.number().int().describe('minor units'),
  ggr: z.number().int().describe('turnover - returned + accruedCommission, minor units'),
  holdPercent: z.number().nullable(),
  activePlayers: z.number().int(),
});

const rtpPointSchema = z.object({
  until: z.string().describe('the end of the hour this point adds up to, from the period start'),
  bets: z.number().int(),
  turnover: z.number().int(),
  netReturned: z.number().int().describe('returned less accrued commission, minor units'),
  observedRtp: z.number().describe('netReturned / turnover'),
  expected95: z
    .tuple([z.number(), z.number()])
    .nullable()
    .describe(
      'where the observed RTP falls 95% of the time if the game pays as the exact RTP says: exactRtp ± 1.96 σ √(Σ stake²) / turnover, σ² the exact variance per unit staked',
    ),
});

const seriesSchema = z.object({
  scope: z.enum(['table', 'game']),
  id: z.string(),
  currency: z.string(),
  decks: z.number().int(),
  tieOdds: z.number().int(),
  hours: z.array(hourSchema).describe('hours in which something settled, oldest first'),
  rtp: z.array(
    z.object({
      betType: z.string(),
      exactRtp: z.number().nullable(),
      points: z.array(rtpPointSchema),
    }),
  ),
});

/**
 * The floor's figures hour by hour (issue 26): what the console draws as GGR per hour and as
 * observed RTP over time against its expected band. The hour buckets of `floor-figures`, one
 * index read; nothing reads the log. A route group of its own beside floorRoutes (no function
 * over 150 lines in services/).
 */
export function hourlyRoutes(app: HttpApp, system: System): void {
  app.get(
    '/v1/floor/figures/hourly',
    {
      config: { roles: [...FLOOR_STAFF], problems: ['VALIDATION_ERROR'] },
      schema: {
        tags: ['floor'],
        summary:
          'Per table and per session game, per currency, hour by hour over `from` to `to` (whole hours UTC, at most 32 days): rounds, turnover, GGR, hold % and players of each hour, and per bet type the observed RTP from `from` to the end of each hour with the band the exact RTP expects it in',
        querystring: z.strictObject({ from: z.string().max(40), to: z.string().max(40) }),
        response: {
          200: z.object({ from: z.string(), to: z.string(), series: z.array(seriesSchema) }),
        },
      },
    },
    async (request) => {
      const { start, end } = hourRange(request.query.from, request.query.to);
      const buckets = await system.floorFigures.buckets(HOURS, start, end);
      return {
        from: new Date(start).toISOString(),
        to: new Date(end).toISOString(),
        series: hourlySeries(buckets),
      };
    },
  );
}
