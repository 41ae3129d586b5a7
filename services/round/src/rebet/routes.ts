import { contextOf, principalOf, type HttpApp } from '@croupier/http';
import { z } from 'zod';
import { BET_ROUTES } from '../bets/routes.js';
import { ROUND_PROBLEMS } from '../shared/problems.js';
import { roundParams } from '../shared/route-parts.js';
import { rebetViewSchema, roundView } from '../shared/views.js';
import type { Rebets } from './rebet.js';

/** Rebet: the player's previous bets at the table, placed again (x1 or x2). */
export function rebetRoutes(app: HttpApp, deps: { readonly rebets: Rebets }): void {
  const { rebets } = deps;
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
      const { round, rebetOf, dropped } = await rebets.rebet(
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
}
