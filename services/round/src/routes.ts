import { MAX_BET_COMBINATIONS, parseCard, type Card } from '@croupier/baccarat';
import {
  dealingSchema,
  DomainError,
  PRESET_NAMES,
  presetConfig,
  parseTableConfig,
  playerIdSchema,
  roundIdSchema,
  tableIdSchema,
  textSchema,
  type ErrorCode,
  type TableConfig,
} from '@croupier/contracts';
import { contextOf, principalOf, type HttpApp, type Principal } from '@croupier/http';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { RoundService } from './shared/round-service.js';
import type { RoundState } from './domain/round.decider.js';
import type { TableState } from './domain/table.decider.js';
import { HISTORY_LENGTH, type TableBoard } from './board/table-board.js';
import { withNextStepHint } from './shared/next-steps.js';
import { paytableOf, paytableSchema, requireAnalysableStake } from './board/paytable.js';
import { sessionRoutes } from './sessions/routes.js';
import { DEFAULT_SESSION_IDLE_TIMEOUT_MS } from './sessions/idle-timeouts.js';
import { ROUND_PROBLEMS } from './shared/problems.js';
import { rebetViewSchema, roundView, roundViewSchema, shoeViewSchema } from './shared/views.js';

export interface RoundRoutesDeps {
  readonly rounds: RoundService;
  readonly board: TableBoard;
  /** Called after a table opens, so the process can start its auto-dealer. */
  readonly onTableOpened?: (tableId: string) => void;
  /** A player's session closes after this long without a command (SESSION_IDLE_TIMEOUT_MS). */
  readonly sessionIdleTimeoutMs?: number;
}

const EVERYONE = ['player', 'dealer', 'supervisor', 'operator', 'regulator'] as const;

/** The routes a player POSTs to to place bets: what `croupier_bets_refused_total` counts. */
export const BET_ROUTES = {
  place: '/v1/rounds/:roundId/bets',
  rebet: '/v1/rounds/:roundId/rebet',
} as const;

const roundParams = z.object({ roundId: roundIdSchema });
const tableParams = z.object({ tableId: tableIdSchema });
const cardSchema = z.string().transform((text, ctx): Card => {
  try {
    return parseCard(text);
  } catch (error) {
    ctx.addIssue({ code: 'custom', message: (error as Error).message });
    return z.NEVER;
  }
});
const reasonText = textSchema({ max: 500 });
const reasonSchema = z.object({ reason: reasonText }).strict();

const betSchema = z
  .object({
    type: textSchema({ max: 40 }),
    // Whole and positive is a rule of the bet (422 INVALID_AMOUNT); past 2^53 - 1 it is not a
    // number JSON can carry exactly, so the request itself is wrong.
    amount: z
      .number()
      .min(-Number.MAX_SAFE_INTEGER, 'must be a safe integer (at most 2^53 - 1 minor units)')
      .max(Number.MAX_SAFE_INTEGER, 'must be a safe integer (at most 2^53 - 1 minor units)'),
    bankerMode: textSchema({ max: 40 }).optional(),
    seat: z.number().int().nullable().optional(),
    /** Made by the client (a UUID), so that a double submit is recognized and refused. */
    betId: z.uuid(),
  })
  .strict();

const tableViewSchema = z.object({
  tableId: z.string(),
  name: z.string(),
  preset: z.string().nullable(),
  currency: z.string(),
  status: z.enum(['open', 'closed']),
  dealing: dealingSchema,
  dealerId: z.string().nullable(),
  currentShoeId: z.string().nullable(),
  currentRound: z
    .object({
      roundId: z.string(),
      number: z.number().int(),
      status: z.string(),
      paused: z.boolean(),
    })
    .nullable(),
  roundsCompleted: z.number().int(),
});

/** Tables and rounds: the round service's HTTP surface. */
export function roundRoutes(app: HttpApp, deps: RoundRoutesDeps): void {
  const { rounds, board } = deps;
  sessionRoutes(app, {
    rounds,
    board,
    sessionIdleTimeoutMs: deps.sessionIdleTimeoutMs ?? DEFAULT_SESSION_IDLE_TIMEOUT_MS,
  });
  const view = async (request: FastifyRequest, roundId: string) => {
    const viewer = principalOf(request);
    return roundView(await rounds.getRoundAs(roundId, viewer), viewer);
  };

  app.post(
    '/v1/tables',
    {
      config: { roles: ['operator'], problems: ROUND_PROBLEMS.openTable },
      schema: {
        tags: ['tables'],
        summary: 'Open a table from a preset (with overrides) or a full configuration',
        body: z
          .object({
            tableId: tableIdSchema,
            preset: z.enum(PRESET_NAMES as [string, ...string[]]).optional(),
            config: z.record(z.string(), z.unknown()).optional(),
            dealing: dealingSchema.default({ mode: 'manual', bettingWindowMs: 15_000 }),
          })
          .strict(),
        response: { 201: tableViewSchema.partial() },
      },
    },
    async (request, reply) => {
      const { tableId, preset, config, dealing } = request.body;
      if (tableId.startsWith('s-'))
        throw new DomainError(
          'VALIDATION_ERROR',
          'tableId: ids starting "s-" name players\' sessions',
          {
            field: 'tableId',
          },
        );
      if (preset === undefined && config === undefined) {
        throw new DomainError(
          'VALIDATION_ERROR',
          'body: give a preset, a config, or both (config then overrides the preset)',
        );
      }
      const tableConfig: TableConfig =
        preset === undefined ? parseTableConfig(config) : presetConfig(preset, config ?? {});
      if (dealing.mode === 'auto' && tableConfig.cardSource !== 'rng') {
        throw new DomainError(
          'VALIDATION_ERROR',
          'dealing.mode: only an rng table can deal by itself',
          { field: 'dealing.mode' },
        );
      }
      await rounds.openTable({ tableId, config: tableConfig, dealing }, contextOf(request));
      deps.onTableOpened?.(tableId);
      return reply.status(201).send({
        tableId,
        name: tableConfig.name,
        preset: tableConfig.preset ?? null,
        status: 'open',
        dealing,
      });
    },
  );

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

  const seatsView = (table: TableState, viewer: Principal) => ({
    tableId: table.tableId,
    seats: Array.from({ length: table.config?.seats ?? 0 }, (_, index) => {
      const occupant = table.seats.get(index + 1) ?? null;
      // A player sees which seats are taken, and by whom only their own.
      const shown = viewer.role !== 'player' || occupant === viewer.id ? occupant : null;
      return { seat: index + 1, taken: occupant !== null, playerId: shown };
    }),
  });
  const seatsViewSchema = z.object({
    tableId: z.string(),
    seats: z.array(
      z.object({ seat: z.number().int(), taken: z.boolean(), playerId: z.string().nullable() }),
    ),
  });
  const seatParams = z.object({
    tableId: tableIdSchema,
    seat: z.coerce.number().int().min(1).max(9),
  });

  app.get(
    '/v1/tables/:tableId/seats',
    {
      config: { roles: EVERYONE, problems: ROUND_PROBLEMS.getTable },
      schema: {
        tags: ['seats'],
        summary: "The table's numbered seats (002) and which are taken",
        params: tableParams,
        response: { 200: seatsViewSchema },
      },
    },
    async (request) =>
      seatsView(await rounds.getTable(request.params.tableId), principalOf(request)),
  );

  app.post(
    '/v1/tables/:tableId/seats/:seat',
    {
      config: { roles: ['player'], problems: ROUND_PROBLEMS.takeSeat },
      schema: {
        tags: ['seats'],
        summary:
          'Sit down at a numbered seat (002): one player per seat, one seat per player; your bets at this table carry it, and the commission your Banker wins accrue is owed by it',
        params: seatParams,
        response: { 201: seatsViewSchema },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const { tableId, seat } = request.params;
      const table = await rounds.takeSeat(tableId, principal.id, seat, contextOf(request));
      return reply.status(201).send(seatsView(table, principal));
    },
  );

  app.delete(
    '/v1/tables/:tableId/seats/:seat',
    {
      config: { roles: ['player'], problems: ROUND_PROBLEMS.leaveSeat },
      schema: {
        tags: ['seats'],
        summary: 'Leave your seat; bets already placed from it stand and settle as placed',
        params: seatParams,
        response: { 200: seatsViewSchema },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      const { tableId, seat } = request.params;
      const current = await rounds.getTable(tableId);
      if (current.seats.get(seat) !== principal.id)
        throw new DomainError('NOT_SEATED', `${principal.id} does not sit at seat ${seat}`);
      return seatsView(
        await rounds.leaveSeat(tableId, principal.id, contextOf(request)),
        principal,
      );
    },
  );

  app.post(
    '/v1/tables/:tableId/close',
    {
      config: { roles: ['operator'], problems: ROUND_PROBLEMS.closeTable },
      schema: {
        tags: ['tables'],
        summary:
          'Close a table: no new round opens; a round still taking bets is voided (its bets refunded), one past betting is dealt and settled; the last dealer shift ends (accrued commission is collected)',
        params: tableParams,
        body: z.object({ reason: reasonText }).strict(),
      },
    },
    async (request) => {
      const table = await rounds.closeTable(
        request.params.tableId,
        request.body.reason,
        contextOf(request),
      );
      return { tableId: table.tableId, status: table.status };
    },
  );

  app.post(
    '/v1/tables/:tableId/dealer',
    {
      config: { roles: ['supervisor', 'operator'], problems: ROUND_PROBLEMS.changeDealer },
      schema: {
        tags: ['tables'],
        summary: 'Change the dealer: ends a dealer shift (accrued commission is collected)',
        params: tableParams,
        // The same rule as the events that record it: a dealer id is an id, like a player's.
        body: z.object({ dealerId: playerIdSchema }).strict(),
      },
    },
    async (request) => {
      const table = await rounds.changeDealer(
        request.params.tableId,
        request.body.dealerId,
        contextOf(request),
      );
      return { tableId: table.tableId, dealerId: table.dealerId, shiftId: table.shiftId };
    },
  );

  app.post(
    '/v1/tables/:tableId/shoes',
    {
      config: { roles: ['dealer', 'supervisor'], problems: ROUND_PROBLEMS.startShoe },
      schema: {
        tags: ['shoes'],
        summary:
          "Start the table's next shoe: shuffled, its commitment published (burn it next on a scanner table). The current shoe must be finished or closed",
        params: tableParams,
      },
    },
    async (request, reply) => {
      const { tableId } = request.params;
      const shoe = await withNextStepHint(tableId, rounds.startShoe(tableId, contextOf(request)));
      return reply.status(201).send(shoe);
    },
  );

  app.post(
    '/v1/tables/:tableId/shoes/current/close',
    {
      config: { roles: ['supervisor', 'operator'], problems: ROUND_PROBLEMS.closeCurrentShoe },
      schema: {
        tags: ['shoes'],
        summary: "Close the table's current shoe now, revealing its seed",
        params: tableParams,
      },
    },
    async (request) => rounds.closeCurrentShoe(request.params.tableId, contextOf(request)),
  );

  app.post(
    '/v1/tables/:tableId/rounds',
    {
      config: { roles: ['dealer', 'supervisor'], problems: ROUND_PROBLEMS.openRound },
      schema: {
        tags: ['rounds'],
        summary: "Open the table's next round (a new shoe when the current one is finished)",
        params: tableParams,
        response: { 201: roundViewSchema },
      },
    },
    async (request, reply) => {
      const { tableId } = request.params;
      const round = await withNextStepHint(tableId, rounds.openRound(tableId, contextOf(request)));
      return reply.status(201).send(roundView(round, principalOf(request)));
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

  app.post(
    BET_ROUTES.place,
    {
      config: { roles: ['player'], problems: ROUND_PROBLEMS.placeBets },
      schema: {
        tags: ['bets'],
        summary:
          'Place bets; each debits the wallet at once. Each bet carries a betId the client made (a UUID): a double submit is refused with DUPLICATE_BET and changes nothing.',
        params: roundParams,
        // At most one bet per bet (and banker mode, and seat) any table offers; the round holds a
        // request to what its own table offers (betCombinationsOf).
        body: z.object({ bets: z.array(betSchema).min(1).max(MAX_BET_COMBINATIONS) }).strict(),
        response: { 201: roundViewSchema },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const round = await rounds.placeBets(
        request.params.roundId,
        principal.id,
        request.body.bets,
        contextOf(request),
      );
      return reply.status(201).send(roundView(round, principal));
    },
  );

  app.delete(
    '/v1/rounds/:roundId/bets',
    {
      config: { roles: ['player'], problems: ROUND_PROBLEMS.clearBets },
      schema: {
        tags: ['bets'],
        summary: 'Clear your bets before betting closes; stakes are refunded',
        params: roundParams,
        response: { 200: roundViewSchema },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      return roundView(
        await rounds.clearBets(request.params.roundId, principal.id, contextOf(request)),
        principal,
      );
    },
  );

  app.delete(
    '/v1/rounds/:roundId/bets/:betId',
    {
      config: { roles: ['player'], problems: ROUND_PROBLEMS.removeBet },
      schema: {
        tags: ['bets'],
        summary:
          'Remove one of your bets before betting closes (one chip: place each chip as its own bet); its stake is refunded',
        params: z.object({ roundId: roundIdSchema, betId: z.uuid() }),
        response: { 200: roundViewSchema },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      const { roundId, betId } = request.params;
      return roundView(
        await rounds.clearBets(roundId, principal.id, contextOf(request), [betId]),
        principal,
      );
    },
  );

  app.post(
    BET_ROUTES.rebet,
    {
      config: { roles: ['player'], problems: ROUND_PROBLEMS.rebet },
      schema: {
        tags: ['bets'],
        summary:
          'Repeat your bets of your previous round at this table (x1 or x2). A bet this round no longer offers (a side bet past its max round) is left out and listed in `dropped`; the others are placed',
        params: roundParams,
        body: z.object({ multiplier: z.union([z.literal(1), z.literal(2)]).default(1) }).strict(),
        response: { 201: rebetViewSchema },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const { round, rebetOf, dropped } = await rounds.rebet(
        request.params.roundId,
        principal.id,
        request.body.multiplier,
        contextOf(request),
      );
      return reply
        .status(201)
        .send({ ...roundView(round, principal), rebetOf, dropped: [...dropped] });
    },
  );

  const dealerCommand = (
    path: string,
    summary: string,
    roles: readonly ('dealer' | 'supervisor')[],
    problems: readonly ErrorCode[],
    /** The round as the command left it, or null when the command answers with no round. */
    run: (roundId: string, request: FastifyRequest) => Promise<RoundState | null>,
  ) =>
    app.post(
      `/v1/rounds/:roundId/${path}`,
      {
        config: { roles, problems },
        schema: {
          tags: ['rounds'],
          summary,
          params: roundParams,
          response: { 200: roundViewSchema },
        },
      },
      async (request) => {
        // The state the command's append confirmed: no second read of the round (ADR 0022).
        const round = await run(request.params.roundId, request);
        return round === null
          ? view(request, request.params.roundId)
          : roundView(round, principalOf(request));
      },
    );

  dealerCommand(
    'close-betting',
    'Close betting',
    ['dealer', 'supervisor'],
    ROUND_PROBLEMS.closeBetting,
    (id, request) => rounds.closeBetting(id, contextOf(request)),
  );
  app.post(
    '/v1/rounds/:roundId/deal',
    {
      config: { roles: ['dealer', 'supervisor', 'player'], problems: ROUND_PROBLEMS.deal },
      schema: {
        tags: ['rounds'],
        summary:
          "Deal an rng round: the shoe draws by the third-card rule. On a session table only its player deals, closing betting too; `rebet` 1 or 2 first places the player's previous bets (x1, x2)",
        params: roundParams,
        body: z
          .object({ rebet: z.union([z.literal(0), z.literal(1), z.literal(2)]).default(0) })
          .strict()
          // No body at all (a dealer's deal) is read as null.
          .nullish(),
        response: { 200: roundViewSchema },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      const { roundId } = request.params;
      const rebet = request.body?.rebet ?? 0;
      if (principal.role !== 'player' && rebet !== 0)
        throw new DomainError('VALIDATION_ERROR', 'body.rebet: only a player rebets', {
          field: 'rebet',
        });
      const round =
        principal.role === 'player'
          ? await rounds.dealAsPlayer(roundId, principal.id, rebet, contextOf(request))
          : await rounds.deal(roundId, contextOf(request));
      return roundView(round, principal);
    },
  );
  dealerCommand(
    'confirm',
    "Confirm a scanned round's result (settles it)",
    ['dealer', 'supervisor'],
    ROUND_PROBLEMS.confirmResult,
    (id, request) => rounds.confirmResult(id, contextOf(request)),
  );
  dealerCommand(
    'resume',
    'Resume a paused round',
    ['supervisor'],
    ROUND_PROBLEMS.resume,
    (id, request) => rounds.resume(id, contextOf(request)),
  );
  app.post(
    '/v1/rounds/:roundId/cut-card',
    {
      config: { roles: ['dealer', 'supervisor'], problems: ROUND_PROBLEMS.reportCutCard },
      schema: {
        tags: ['rounds'],
        summary:
          "The cut card came out (scanner shoes). Answers the round's shoe, which is what changed: its cut card (where it came out, in which round) and its last round",
        params: roundParams,
        response: { 200: shoeViewSchema },
      },
    },
    async (request) => rounds.reportCutCard(request.params.roundId, contextOf(request)),
  );

  app.post(
    '/v1/rounds/:roundId/cards',
    {
      config: { roles: ['dealer', 'supervisor'], problems: ROUND_PROBLEMS.postScannedCard },
      schema: {
        tags: ['rounds'],
        summary:
          "A card read by the table's card reader (scanner tables); the rules give it its hand",
        params: roundParams,
        body: z.object({ card: cardSchema }).strict(),
        response: { 200: roundViewSchema },
      },
    },
    async (request) => {
      await rounds.postScannedCard(request.params.roundId, request.body.card, contextOf(request));
      return view(request, request.params.roundId);
    },
  );

  app.post(
    '/v1/rounds/:roundId/cards/:shoePosition/correction',
    {
      config: { roles: ['supervisor'], problems: ROUND_PROBLEMS.correctCard },
      schema: {
        tags: ['rounds'],
        summary: 'Correct a misread card before the round completes (who and why are recorded)',
        params: z.object({
          roundId: roundIdSchema,
          shoePosition: z.coerce.number().int().nonnegative(),
        }),
        body: z.object({ card: cardSchema, reason: reasonText }).strict(),
        response: { 200: roundViewSchema },
      },
    },
    async (request) => {
      const { roundId, shoePosition } = request.params;
      await rounds.correctCard(roundId, { shoePosition, ...request.body }, contextOf(request));
      return view(request, roundId);
    },
  );

  for (const [path, summary, roles, problems] of [
    [
      'pause',
      'Pause a round (a fault at the table); the supervisor resumes or voids it',
      ['dealer', 'supervisor'],
      ROUND_PROBLEMS.pause,
    ],
    ['void', 'Void a round: every bet is refunded', ['supervisor'], ROUND_PROBLEMS.void],
  ] as const) {
    app.post(
      `/v1/rounds/:roundId/${path}`,
      {
        config: { roles, problems },
        schema: {
          tags: ['rounds'],
          summary,
          params: roundParams,
          body: reasonSchema,
          response: { 200: roundViewSchema },
        },
      },
      async (request) => {
        const { roundId } = request.params;
        if (path === 'pause') await rounds.pause(roundId, request.body.reason, contextOf(request));
        else await rounds.void(roundId, request.body.reason, contextOf(request));
        return view(request, roundId);
      },
    );
  }
}
