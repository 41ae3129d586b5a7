import { DomainError } from '@croupier/contracts';
import type { HttpApp } from '@croupier/http';
import { z } from 'zod';
import { ROUND_PROBLEMS } from '../shared/problems.js';
import type { RoundContext } from '../shared/round-context.js';
import {
  EVERYONE,
  roundParams,
  roundViewerOf,
  tableParams,
  tableViewSchema,
} from '../shared/route-parts.js';
import { roundViewSchema } from '../shared/views.js';
import { paytableOf, paytableSchema, requireAnalysableStake } from './paytable.js';
import { HISTORY_LENGTH, type TableBoard } from './table-board.js';

export interface BoardRoutesDeps {
  readonly rounds: Pick<RoundContext, 'getTable' | 'getRoundAs'>;
  readonly board: TableBoard;
}

/** What the floor reads: the tables, a table, its roads, paytable and history, a round. */
export function boardRoutes(app: HttpApp, deps: BoardRoutesDeps): void {
  const { rounds, board } = deps;
  const view = roundViewerOf(rounds);

  app.get(
    '/v1/tables',
    {
      config: { roles: EVERYONE, problems: ROUND_PROBLEMS.listTables },
      schema: {
        tags: ['tables'],
        summary: 'Every table and its current round',
        response: { 200: z.array(tableViewSchema) },
      },
    },
    // Players' sessions are their own tables, not the floor's: GET /v1/sessions/:sessionId.
    async () =>
      (await board.list())
        .filter((table) => !table.session)
        .map(
          // What the board keeps for its own work (the scoreboard, the session's idle clock) is
          // not part of the table view.
          ({
            results: _results,
            history: _history,
            shufflePolicy: _shufflePolicy,
            session: _session,
            lastActivityAt: _lastActivityAt,
            ...table
          }) => table,
        ),
  );

  app.get(
    '/v1/tables/:tableId',
    {
      config: { roles: EVERYONE, problems: ROUND_PROBLEMS.getTable },
      schema: {
        tags: ['tables'],
        summary: 'A table: configuration, dealer, current shoe and round',
        params: tableParams,
      },
    },
    async (request) => {
      const table = await rounds.getTable(request.params.tableId);
      const live = await board.get(request.params.tableId);
      return {
        tableId: table.tableId,
        status: table.status,
        config: table.config,
        dealing: table.dealing,
        dealerId: table.dealerId,
        currentShoeId: live?.currentShoeId ?? null,
        currentRound: live?.currentRound ?? null,
      };
    },
  );

  app.get(
    '/v1/tables/:tableId/roads',
    {
      config: { roles: EVERYONE, problems: ROUND_PROBLEMS.roads },
      schema: {
        tags: ['tables'],
        summary: "The current shoe's scoreboard: bead plate, big road, derived roads",
        params: tableParams,
      },
    },
    async (request) => {
      const roads = await board.roads(request.params.tableId);
      if (roads === undefined)
        throw new DomainError('TABLE_NOT_FOUND', `no table "${request.params.tableId}"`);
      return roads;
    },
  );

  app.get(
    '/v1/tables/:tableId/paytable',
    {
      config: { roles: EVERYONE, problems: ROUND_PROBLEMS.paytable },
      schema: {
        tags: ['tables'],
        summary:
          'Every offered bet: its payouts as players read them, conditions, limits, exact RTP and house edge, and the effective RTP with payouts rounded down, at the minimum and at `stake`',
        params: tableParams,
        querystring: z.strictObject({
          stake: z
            .string()
            .regex(/^[1-9][0-9]*$/, 'must be a positive whole number of minor units')
            .transform(Number)
            .refine(Number.isSafeInteger, 'must be at most 2^53 - 1 minor units')
            .optional(),
        }),
        response: { 200: paytableSchema },
      },
    },
    async (request) => {
      const table = await rounds.getTable(request.params.tableId);
      const stake = request.query.stake ?? null;
      if (stake !== null) requireAnalysableStake(table.config!, stake);
      return paytableOf(table.tableId, table.config!, stake);
    },
  );

  app.get(
    '/v1/tables/:tableId/history',
    {
      config: { roles: EVERYONE, problems: ROUND_PROBLEMS.roads },
      schema: {
        tags: ['tables'],
        summary:
          "The table's last results across shoes (003's game history), oldest first: the roads start again with each shoe, this does not",
        params: tableParams,
        querystring: z.strictObject({
          limit: z.coerce.number().int().min(1).max(HISTORY_LENGTH).default(HISTORY_LENGTH),
        }),
      },
    },
    async (request) => {
      const history = await board.history(request.params.tableId, request.query.limit);
      if (history === undefined)
        throw new DomainError('TABLE_NOT_FOUND', `no table "${request.params.tableId}"`);
      return history;
    },
  );

  app.get(
    '/v1/rounds/:roundId',
    {
      config: { roles: EVERYONE, problems: ROUND_PROBLEMS.getRound },
      schema: {
        tags: ['rounds'],
        summary: 'A round: bets, cards, result, settlement',
        params: roundParams,
        response: { 200: roundViewSchema },
      },
    },
    async (request) => view(request, request.params.roundId),
  );
}
