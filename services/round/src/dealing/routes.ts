import { DomainError, roundIdSchema } from '@croupier/contracts';
import { contextOf, principalOf, type HttpApp } from '@croupier/http';
import { z } from 'zod';
import type { Sessions } from '../sessions/sessions.js';
import { ROUND_PROBLEMS } from '../shared/problems.js';
import type { RoundContext } from '../shared/round-context.js';
import {
  cardSchema,
  dealerCommand,
  reasonText,
  roundParams,
  roundViewerOf,
} from '../shared/route-parts.js';
import { roundView, roundViewSchema, shoeViewSchema } from '../shared/views.js';
import type { Dealing } from './dealing.js';

export interface DealingRoutesDeps {
  readonly rounds: Pick<RoundContext, 'getRoundAs'>;
  readonly dealing: Dealing;
  /** A player deals their own session's round. */
  readonly sessions: Pick<Sessions, 'dealAsPlayer'>;
}

/** Dealing: betting closed, an rng round dealt, scanned cards recorded and corrected, results confirmed. */
export function dealingRoutes(app: HttpApp, deps: DealingRoutesDeps): void {
  const { dealing, sessions } = deps;
  const view = roundViewerOf(deps.rounds);

  dealerCommand(
    app,
    view,
    'close-betting',
    'Close betting',
    ['dealer', 'supervisor'],
    ROUND_PROBLEMS.closeBetting,
    (id, request) => dealing.closeBetting(id, contextOf(request)),
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
          ? await sessions.dealAsPlayer(roundId, principal.id, rebet, contextOf(request))
          : await dealing.deal(roundId, contextOf(request));
      return roundView(round, principal);
    },
  );
  dealerCommand(
    app,
    view,
    'confirm',
    "Confirm a scanned round's result (settles it)",
    ['dealer', 'supervisor'],
    ROUND_PROBLEMS.confirmResult,
    (id, request) => dealing.confirmResult(id, contextOf(request)),
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
    async (request) => dealing.reportCutCard(request.params.roundId, contextOf(request)),
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
      await dealing.postScannedCard(request.params.roundId, request.body.card, contextOf(request));
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
      await dealing.correctCard(roundId, { shoePosition, ...request.body }, contextOf(request));
      return view(request, roundId);
    },
  );
}
