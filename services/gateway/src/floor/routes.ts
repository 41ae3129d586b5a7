import { DomainError } from '@croupier/contracts';
import type { HttpApp } from '@croupier/http';
import { z } from 'zod';
import type { System } from '../system.js';
import { exposureOf } from './exposure.js';
import { byScope, figuresView, figuresViewSchema } from './figures-view.js';
import { DAYS, HOURS, shiftKey, startOf, type BucketDocument } from './floor-figures.js';
import { sumFigures } from './figures.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** The longest period one request adds up, in hours (a month and a day). */
const MAX_PERIOD_HOURS = 32 * 24;

/** A query time: an ISO instant on a whole hour (UTC), the figures' smallest bucket. */
const hourOf = (field: string, value: string): number => {
  const at = Date.parse(value);
  if (Number.isNaN(at))
    throw new DomainError('VALIDATION_ERROR', `${field}: not a time (ISO 8601)`, { field });
  if (at % HOUR_MS !== 0)
    throw new DomainError(
      'VALIDATION_ERROR',
      `${field}: the figures are kept by the hour; give a whole hour (UTC), e.g. ${new Date(startOf(at, HOUR_MS)).toISOString()}`,
      { field },
    );
  return at;
};

/** Whole hours [from, to), refused with the field named when not a period the figures answer. */
export function hourRange(from: string, to: string): { start: number; end: number } {
  const start = hourOf('querystring.from', from);
  const end = hourOf('querystring.to', to);
  if (end <= start || end - start > MAX_PERIOD_HOURS * HOUR_MS)
    throw new DomainError(
      'VALIDATION_ERROR',
      `querystring.to: must be after from, by at most ${MAX_PERIOD_HOURS} hours`,
      { field: 'querystring.to' },
    );
  return { start, end };
}

const exposureSchema = z.object({
  roundId: z.string(),
  mainStaked: z.number().int(),
  outcomes: z.record(
    z.enum(['banker', 'player', 'tie']),
    z.object({ returns: z.number().int(), houseNet: z.number().int() }),
  ),
  sideBets: z.record(
    z.string(),
    z.object({ staked: z.number().int(), largestReturn: z.number().int() }),
  ),
  worstCaseReturns: z.number().int(),
});

/** Who runs the floor: what supervisors, operators and regulators read (docs/security.md). */
export const FLOOR_STAFF = ['supervisor', 'operator', 'regulator'] as const;

const activeSessionSchema = z.object({
  sessionId: z.string(),
  playerId: z.string(),
  game: z.string().nullable().describe('the preset it was opened from (touch, single-deck)'),
  mode: z.enum(['real', 'fun']),
  currency: z.string(),
  openedAt: z.string(),
  lastActivityAt: z.string().describe("the player's latest command, as the store recorded it"),
  rounds: z.number().int().describe('rounds dealt to a result'),
  staked: z
    .number()
    .int()
    .describe('minor units: settled stakes plus those standing on the round in play'),
  returned: z.number().int().describe('minor units returned by settled bets'),
  currentRound: z.object({ roundId: z.string(), status: z.string() }).nullable(),
});

/** The back office's floor (issue 26): who plays where, and the figures it is run by. */
export function floorRoutes(app: HttpApp, system: System): void {
  app.get(
    '/v1/floor/sessions',
    {
      config: { roles: [...FLOOR_STAFF], problems: [] },
      schema: {
        tags: ['floor'],
        summary:
          "Players' sessions open now (003, 004; not on /v1/tables), oldest first: player, game, rounds, stakes and last activity",
        response: { 200: z.object({ sessions: z.array(activeSessionSchema) }) },
      },
    },
    async () => ({ sessions: await system.activeSessions.list() }),
  );

  app.get(
    '/v1/floor/figures',
    {
      config: { roles: [...FLOOR_STAFF], problems: ['VALIDATION_ERROR'] },
      schema: {
        tags: ['floor'],
        summary:
          "Per table and per session game, per currency: turnover, returns, GGR, hold %, rounds, active players and bets by type, of settled bets. `period`: `today` (UTC), `shift` (each table's current dealer shift; sessions have none), or `range` (`from` and `to`, whole hours UTC, at most 32 days)",
        querystring: z.strictObject({
          period: z.enum(['today', 'shift', 'range']).default('today'),
          from: z.string().max(40).optional(),
          to: z.string().max(40).optional(),
        }),
        response: {
          200: z.object({
            period: z.enum(['today', 'shift', 'range']),
            from: z.string().nullable(),
            to: z.string().nullable(),
            tables: z.array(
              figuresViewSchema.extend({
                tableId: z.string(),
                shift: z
                  .object({
                    shiftId: z.string(),
                    startedAt: z.string(),
                    dealerId: z.string().nullable(),
                  })
                  .optional(),
              }),
            ),
            games: z.array(figuresViewSchema.extend({ game: z.string() })),
          }),
        },
      },
    },
    async (request) => {
      const { period, from, to } = request.query;
      if (period !== 'range' && (from !== undefined || to !== undefined))
        throw new DomainError(
          'VALIDATION_ERROR',
          `querystring.${from !== undefined ? 'from' : 'to'}: only with period=range`,
          { field: `querystring.${from !== undefined ? 'from' : 'to'}` },
        );
      const figures = system.floorFigures;
      if (period === 'shift') {
        const tables = (await figures.tables()).filter((table) => table.status === 'open');
        const buckets = await figures.shifts(
          tables.map((table) => shiftKey(table.shiftId, table.currency)),
        );
        const byTable = new Map(buckets.map((bucket) => [bucket.tableId, bucket]));
        return {
          period,
          from: null,
          to: null,
          tables: tables.map((table) => ({
            tableId: table.tableId,
            shift: {
              shiftId: table.shiftId,
              startedAt: table.shiftStartedAt,
              dealerId: table.dealerId,
            },
            ...figuresView(
              table.currency,
              sumFigures(byTable.has(table.tableId) ? [byTable.get(table.tableId)!.figures] : []),
            ),
          })),
          games: [],
        };
      }
      let start: number;
      let end: number;
      let buckets: BucketDocument[];
      if (period === 'today') {
        start = startOf(Date.now(), DAY_MS);
        end = start + DAY_MS;
        buckets = await figures.buckets(DAYS, start, end);
      } else {
        if (from === undefined || to === undefined) {
          const field = `querystring.${from === undefined ? 'from' : 'to'}`;
          throw new DomainError('VALIDATION_ERROR', `${field}: required with period=range`, {
            field,
          });
        }
        ({ start, end } = hourRange(from, to));
        buckets = await figures.buckets(HOURS, start, end);
      }
      return {
        period,
        from: new Date(start).toISOString(),
        to: new Date(end).toISOString(),
        ...byScope(buckets),
      };
    },
  );

  app.get(
    '/v1/floor/exposure',
    {
      config: { roles: [...FLOOR_STAFF], problems: [] },
      schema: {
        tags: ['floor'],
        summary:
          "Each open table's round in play and its open exposure: what the house pays for each outcome from the bets standing now, and the most its side bets can return",
        response: {
          200: z.object({
            tables: z.array(
              z.object({
                tableId: z.string(),
                currency: z.string(),
                round: exposureSchema.nullable(),
              }),
            ),
          }),
        },
      },
    },
    async () => ({
      tables: (await system.floorFigures.tables())
        .filter((table) => table.status === 'open')
        .map((table) => ({
          tableId: table.tableId,
          currency: table.currency,
          round: table.round === null ? null : exposureOf(table.round),
        })),
    }),
  );
}
