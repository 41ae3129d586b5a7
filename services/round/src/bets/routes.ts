import { MAX_BET_COMBINATIONS } from '@croupier/baccarat';
import { roundIdSchema, textSchema } from '@croupier/contracts';
import { contextOf, principalOf, type HttpApp } from '@croupier/http';
import { z } from 'zod';
import { ROUND_PROBLEMS } from '../shared/problems.js';
import { roundParams } from '../shared/route-parts.js';
import { roundView, roundViewSchema } from '../shared/views.js';
import type { Bets } from './bets.js';

/** The routes a player POSTs to to place bets: what `croupier_bets_refused_total` counts. */
export const BET_ROUTES = {
  place: '/v1/rounds/:roundId/bets',
  rebet: '/v1/rounds/:roundId/rebet',
} as const;

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

/** Bets: placed (each debits the wallet at once), cleared, one removed. */
export function betRoutes(app: HttpApp, deps: { readonly bets: Bets }): void {
  const { bets } = deps;
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
      const round = await bets.placeBets(
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
        await bets.clearBets(request.params.roundId, principal.id, contextOf(request)),
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
        await bets.clearBets(roundId, principal.id, contextOf(request), [betId]),
        principal,
      );
    },
  );
}
