import { parseCard } from '@croupier/baccarat';
import {
  DomainError,
  roundIdSchema,
  shoeCloseReasonSchema,
  shoeIdSchema,
  tableConfigSchema,
  tableIdSchema,
  textSchema,
} from '@croupier/contracts';
import { internalContextOf, type HttpApp } from '@croupier/http';
import { z } from 'zod';
import type { ShoeService } from '../application/shoe-service.js';
import { SHOE_PORT_PROBLEMS } from './problems.js';

const card = z.string().transform((text, ctx) => {
  try {
    return parseCard(text);
  } catch (error) {
    ctx.addIssue({ code: 'custom', message: (error as Error).message });
    return z.NEVER;
  }
});
const shoeParams = z.object({ shoeId: shoeIdSchema });
const roundParams = z.object({ shoeId: shoeIdSchema, roundId: roundIdSchema });
const internal = (problems: keyof typeof SHOE_PORT_PROBLEMS) => ({
  roles: ['system'] as const,
  problems: SHOE_PORT_PROBLEMS[problems],
});

/**
 * The shoe port over HTTP, for a round service in another process (services/round's
 * HttpShoePort). Service tokens only; the caller's actor travels in a header.
 */
export function shoeInternalRoutes(app: HttpApp, deps: { shoes: ShoeService }): void {
  const { shoes } = deps;
  const hidden = { hide: true };

  app.post(
    '/internal/v1/tables/:tableId/shoes',
    {
      config: internal('startShoe'),
      schema: {
        ...hidden,
        params: z.object({ tableId: tableIdSchema }),
        body: z.object({ number: z.number().int().positive(), config: tableConfigSchema }),
      },
    },
    async (request) =>
      shoes.startShoe(
        {
          tableId: request.params.tableId,
          number: request.body.number,
          config: request.body.config,
        },
        internalContextOf(request),
      ),
  );
  app.get(
    '/internal/v1/shoes/:shoeId',
    { config: internal('getShoe'), schema: { ...hidden, params: shoeParams } },
    async (request) => {
      const shoe = await shoes.getShoe(request.params.shoeId);
      if (shoe === null)
        throw new DomainError('SHOE_NOT_FOUND', `no shoe "${request.params.shoeId}"`);
      return shoe;
    },
  );
  app.post(
    '/internal/v1/shoes/:shoeId/rounds/:roundId/draw',
    {
      config: internal('drawRound'),
      schema: {
        ...hidden,
        params: roundParams,
        body: z.object({ roundNumber: z.number().int().positive() }),
      },
    },
    async (request) =>
      shoes.drawRound(
        { ...request.params, roundNumber: request.body.roundNumber },
        internalContextOf(request),
      ),
  );
  app.post(
    '/internal/v1/shoes/:shoeId/rounds/:roundId/seal',
    { config: internal('sealRound'), schema: { ...hidden, params: roundParams } },
    async (request) => shoes.sealRound(request.params, internalContextOf(request)),
  );
  app.get(
    '/internal/v1/shoes/:shoeId/rounds/:roundId/cards',
    { config: internal('roundCards'), schema: { ...hidden, params: roundParams } },
    async (request) => shoes.roundCards(request.params.shoeId, request.params.roundId),
  );
  app.post(
    '/internal/v1/shoes/:shoeId/rounds/:roundId/cards',
    {
      config: internal('drawScannedCard'),
      schema: {
        ...hidden,
        params: roundParams,
        body: z.object({
          roundNumber: z.number().int().positive(),
          index: z.number().int().min(0).max(5),
          card,
          hand: z.enum(['player', 'banker']),
        }),
      },
    },
    async (request) =>
      shoes.drawScannedCard({ ...request.params, ...request.body }, internalContextOf(request)),
  );
  app.post(
    '/internal/v1/shoes/:shoeId/rounds/:roundId/correction',
    {
      config: internal('correctCard'),
      schema: {
        ...hidden,
        params: roundParams,
        body: z.object({
          position: z.number().int().nonnegative(),
          card,
          reason: textSchema({ max: 500 }),
        }),
      },
    },
    async (request) => {
      await shoes.correctCard({ ...request.params, ...request.body }, internalContextOf(request));
      return { corrected: true };
    },
  );
  app.post(
    '/internal/v1/shoes/:shoeId/rounds/:roundId/cut-card',
    {
      config: internal('reportCutCard'),
      schema: {
        ...hidden,
        params: roundParams,
        body: z.object({ roundNumber: z.number().int().positive() }),
      },
    },
    async (request) =>
      shoes.reportCutCard(
        { ...request.params, roundNumber: request.body.roundNumber },
        internalContextOf(request),
      ),
  );
  app.post(
    '/internal/v1/shoes/:shoeId/burn',
    {
      config: internal('burn'),
      schema: { ...hidden, params: shoeParams, body: z.object({ shownCard: card }) },
    },
    async (request) =>
      shoes.burnScannedCard(
        { shoeId: request.params.shoeId, shownCard: request.body.shownCard },
        internalContextOf(request),
      ),
  );
  app.post(
    '/internal/v1/shoes/:shoeId/close',
    {
      config: internal('closeShoe'),
      schema: {
        ...hidden,
        params: shoeParams,
        body: z.object({ reason: shoeCloseReasonSchema }),
      },
    },
    async (request) =>
      shoes.closeShoe(
        { shoeId: request.params.shoeId, reason: request.body.reason },
        internalContextOf(request),
      ),
  );
}
