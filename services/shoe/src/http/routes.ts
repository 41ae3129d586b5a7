import { parseCard } from '@croupier/baccarat';
import { DomainError, shoeIdSchema } from '@croupier/contracts';
import { contextOf, type HttpApp } from '@croupier/http';
import { z } from 'zod';
import type { ShoeService } from '../application/shoe-service.js';
import { SHOE_PROBLEMS } from './problems.js';

const params = z.object({ shoeId: shoeIdSchema });

/** Shoes: their state and commitment, and the burn of a scanner shoe. */
export function shoeRoutes(app: HttpApp, deps: { shoes: ShoeService }): void {
  const { shoes } = deps;

  app.get(
    '/v1/shoes/:shoeId',
    {
      config: {
        roles: ['player', 'dealer', 'supervisor', 'operator', 'regulator'],
        problems: SHOE_PROBLEMS.getShoe,
      },
      schema: {
        tags: ['shoes'],
        summary: "A shoe: its commitment, position, rounds, cut card (never what's left in it)",
        params,
      },
    },
    async (request) => {
      const shoe = await shoes.getShoe(request.params.shoeId);
      if (shoe === null)
        throw new DomainError('SHOE_NOT_FOUND', `no shoe "${request.params.shoeId}"`);
      return shoe;
    },
  );

  app.post(
    '/v1/shoes/:shoeId/burn',
    {
      config: { roles: ['dealer', 'supervisor'], problems: SHOE_PROBLEMS.burn },
      schema: {
        tags: ['shoes'],
        summary: 'Burn a new scanner shoe: the card shown sets how many more are burned',
        params,
        body: z.object({ card: z.string().min(2).max(3) }).strict(),
      },
    },
    async (request) => {
      let shownCard;
      try {
        shownCard = parseCard(request.body.card);
      } catch (error) {
        throw new DomainError('VALIDATION_ERROR', `card: ${(error as Error).message}`, {
          field: 'card',
        });
      }
      return shoes.burnScannedCard(
        { shoeId: request.params.shoeId, shownCard },
        contextOf(request),
      );
    },
  );
}
