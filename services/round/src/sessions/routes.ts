import { randomUUID } from 'node:crypto';
import {
  DomainError,
  PLAY_MONEY_CURRENCY,
  presetConfig,
  roundIdSchema,
  SINGLE_PLAYER_PRESETS,
  tableIdSchema,
} from '@croupier/contracts';
import { contextOf, principalOf, type HttpApp, type Principal } from '@croupier/http';
import { z } from 'zod';
import type { TableBoard } from '../board/table-board.js';
import type { TableState } from '../domain/table.decider.js';
import { ROUND_PROBLEMS } from '../shared/problems.js';
import type { RoundContext } from '../shared/round-context.js';
import { roundView, roundViewSchema } from '../shared/views.js';
import type { Sessions } from './sessions.js';

export interface SessionRoutesDeps {
  readonly rounds: Pick<RoundContext, 'getTable'>;
  readonly sessions: Sessions;
  readonly board: TableBoard;
  /** A session closes after this long without a command from its owner. */
  readonly sessionIdleTimeoutMs: number;
}

const sessionParams = z.object({ sessionId: tableIdSchema });
const rebetSchema = z.union([z.literal(0), z.literal(1), z.literal(2)]);

const sessionViewSchema = z.object({
  sessionId: z.string(),
  ownerId: z.string(),
  preset: z.string().nullable(),
  /** The session's money: `fun` plays play money (currency `FUN`) from the player's fun wallet. */
  mode: z.enum(['real', 'fun']),
  currency: z.string(),
  status: z.enum(['open', 'closed']),
  idleTimeoutMs: z.number().int(),
  currentRound: z
    .object({ roundId: z.string(), number: z.number().int(), status: z.string() })
    .nullable(),
  /** The session's recent results across its shoes (one shoe per round), oldest first. */
  history: z.array(
    z.object({
      roundId: z.string(),
      result: z.enum(['B', 'P', 'T']),
      playerPair: z.boolean(),
      bankerPair: z.boolean(),
    }),
  ),
});

/** A new session's id: a table id of its own, never guessed from another's. */
const newSessionId = (): string => `s-${randomUUID().replaceAll('-', '')}`;

/**
 * Player sessions (003 Baccarat Touch, 004): a player opens their own table from a single-player
 * preset, bets on it, and deals it themselves. Its rounds and shoes are those of any rng table.
 */
/** The session, refused to a player who does not own it. */
const sessionOf = async (
  rounds: SessionRoutesDeps['rounds'],
  sessionId: string,
  viewer: Principal,
): Promise<TableState> => {
  const table = await rounds.getTable(sessionId);
  if (table.session === null) throw new DomainError('TABLE_NOT_FOUND', `no session "${sessionId}"`);
  if (viewer.role === 'player' && table.session.ownerId !== viewer.id)
    throw new DomainError('FORBIDDEN', `session ${sessionId} is another player's`);
  return table;
};

const sessionViewOf = async (board: TableBoard, table: TableState) => {
  const live = await board.get(table.tableId);
  const round = live?.currentRound ?? null;
  return {
    sessionId: table.tableId,
    ownerId: table.session!.ownerId,
    preset: table.config?.preset ?? null,
    mode: table.session!.fun === true ? ('fun' as const) : ('real' as const),
    currency: table.config!.currency,
    status: table.status === 'closed' ? ('closed' as const) : ('open' as const),
    idleTimeoutMs: table.session!.idleTimeoutMs,
    currentRound:
      round === null
        ? null
        : { roundId: round.roundId, number: round.number, status: round.status },
    history: (live?.history ?? []).map(({ roundId, result, playerPair, bankerPair }) => ({
      roundId,
      result,
      playerPair: playerPair ?? false,
      bankerPair: bankerPair ?? false,
    })),
  };
};

export function sessionRoutes(app: HttpApp, deps: SessionRoutesDeps): void {
  const { rounds, sessions, board } = deps;

  app.post(
    '/v1/sessions',
    {
      config: { roles: ['player'], problems: ROUND_PROBLEMS.openSession },
      schema: {
        tags: ['sessions'],
        summary:
          'Open your own table from a single-player preset (touch, single-deck): you bet and deal it. mode fun plays play money (FUN) from your fun wallet (POST /v1/wallets/{playerId}/play-money tops it up)',
        body: z
          .object({
            preset: z.enum(SINGLE_PLAYER_PRESETS as unknown as [string, ...string[]]),
            mode: z.enum(['real', 'fun']).default('real'),
          })
          .strict(),
        response: { 201: sessionViewSchema },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const fun = request.body.mode === 'fun';
      const table = await sessions.openSession(
        {
          sessionId: newSessionId(),
          config: presetConfig(request.body.preset, fun ? { currency: PLAY_MONEY_CURRENCY } : {}),
          session: {
            ownerId: principal.id,
            idleTimeoutMs: deps.sessionIdleTimeoutMs,
            ...(fun ? { fun: true as const } : {}),
          },
        },
        contextOf(request),
      );
      return reply.status(201).send(await sessionViewOf(board, table));
    },
  );

  app.get(
    '/v1/sessions/:sessionId',
    {
      config: {
        roles: ['player', 'supervisor', 'operator', 'regulator'],
        problems: ROUND_PROBLEMS.getSession,
      },
      schema: {
        tags: ['sessions'],
        summary: 'A session: its current round and its results across shoes',
        params: sessionParams,
        response: { 200: sessionViewSchema },
      },
    },
    async (request) =>
      sessionViewOf(board, await sessionOf(rounds, request.params.sessionId, principalOf(request))),
  );

  app.post(
    '/v1/sessions/:sessionId/close',
    {
      config: {
        roles: ['player', 'supervisor', 'operator'],
        problems: ROUND_PROBLEMS.closeSession,
      },
      schema: {
        tags: ['sessions'],
        summary:
          'Leave a session: a round still taking bets is voided and refunded, one whose betting closed is dealt and settled, then the table closes',
        params: sessionParams,
        response: { 200: sessionViewSchema },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      const { sessionId } = request.params;
      await sessionOf(rounds, sessionId, principal);
      const context = contextOf(request);
      const deadline = Date.now() + 10_000;
      while (
        (await sessions.closeSessionStep(sessionId, 'left by its player', context)) === 'settling'
      ) {
        if (Date.now() > deadline)
          throw new DomainError(
            'ROUND_IN_PROGRESS',
            `session ${sessionId}'s last round is being settled: close it again`,
          );
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return sessionViewOf(board, await rounds.getTable(sessionId));
    },
  );
  sessionPlayRoutes(app, deps);
}

/** A session's play: its round taking bets, and the owner's deal. */
function sessionPlayRoutes(app: HttpApp, deps: SessionRoutesDeps): void {
  const { rounds, sessions } = deps;

  app.post(
    '/v1/sessions/:sessionId/rounds',
    {
      config: { roles: ['player'], problems: ROUND_PROBLEMS.sessionRound },
      schema: {
        tags: ['sessions'],
        summary:
          "The session's round taking bets: the open one (200), or the next, opened now (201)",
        params: sessionParams,
        response: { 200: roundViewSchema, 201: roundViewSchema },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      await sessionOf(rounds, request.params.sessionId, principal);
      const { round, opened } = await sessions.sessionRound(
        request.params.sessionId,
        contextOf(request),
      );
      return reply.status(opened ? 201 : 200).send(roundView(round, principal));
    },
  );

  app.post(
    '/v1/sessions/:sessionId/deal',
    {
      config: { roles: ['player'], problems: ROUND_PROBLEMS.dealSession },
      schema: {
        tags: ['sessions'],
        summary:
          "Deal your session's round (003's Deal): with rebet 1 or 2 your previous bets are placed (x1, x2) first, in the same request. Name the roundId to make a retry safe: a dealt round is answered as it is",
        params: sessionParams,
        body: z
          .object({ rebet: rebetSchema.default(0), roundId: roundIdSchema.optional() })
          .strict()
          .nullish(),
        response: { 200: roundViewSchema },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      const { sessionId } = request.params;
      await sessionOf(rounds, sessionId, principal);
      const context = contextOf(request);
      let roundId = request.body?.roundId;
      if (roundId === undefined)
        roundId = (await sessions.sessionRound(sessionId, context)).round.roundId;
      else if (!roundId.startsWith(`${sessionId}.`))
        throw new DomainError('ROUND_NOT_FOUND', `round ${roundId} is not of session ${sessionId}`);
      const round = await sessions.dealAsPlayer(
        roundId,
        principal.id,
        request.body?.rebet ?? 0,
        context,
      );
      return roundView(round, principal);
    },
  );
}
