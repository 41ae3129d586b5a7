import { parseCard, type Card } from '@croupier/baccarat';
import {
  dealingSchema,
  roundIdSchema,
  tableIdSchema,
  textSchema,
  type ErrorCode,
} from '@croupier/contracts';
import { principalOf, type HttpApp } from '@croupier/http';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { RoundState } from '../domain/round.decider.js';
import type { RoundContext } from './round-context.js';
import { roundView, roundViewSchema } from './views.js';

/** What the slices' routes share: roles, parameters, bodies and the round as its reader sees it. */
export const EVERYONE = ['player', 'dealer', 'supervisor', 'operator', 'regulator'] as const;

export const roundParams = z.object({ roundId: roundIdSchema });
export const tableParams = z.object({ tableId: tableIdSchema });
export const cardSchema = z.string().transform((text, ctx): Card => {
  try {
    return parseCard(text);
  } catch (error) {
    ctx.addIssue({ code: 'custom', message: (error as Error).message });
    return z.NEVER;
  }
});
export const reasonText = textSchema({ max: 500 });
export const reasonSchema = z.object({ reason: reasonText }).strict();

export const tableViewSchema = z.object({
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

/** The round as the request's principal may read it (a player reads no other's session). */
export type RoundViewer = (
  request: FastifyRequest,
  roundId: string,
) => Promise<ReturnType<typeof roundView>>;

export const roundViewerOf =
  (rounds: Pick<RoundContext, 'getRoundAs'>): RoundViewer =>
  async (request, roundId) => {
    const viewer = principalOf(request);
    return roundView(await rounds.getRoundAs(roundId, viewer), viewer);
  };

/** A command on a round with no body, answering the round as the command left it. */
export function dealerCommand(
  app: HttpApp,
  view: RoundViewer,
  path: string,
  summary: string,
  roles: readonly ('dealer' | 'supervisor')[],
  problems: readonly ErrorCode[],
  /** The round as the command left it, or null when the command answers with no round. */
  run: (roundId: string, request: FastifyRequest) => Promise<RoundState | null>,
): void {
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
}
