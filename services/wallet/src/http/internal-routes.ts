import { playerIdSchema, roundIdSchema, currencySchema } from '@croupier/contracts';
import { internalContextOf, type HttpApp } from '@croupier/http';
import { z } from 'zod';
import type { WalletService } from '../application/wallet-service.js';

const internal = { roles: ['system'] as const };

/** The wallet port over HTTP, for a round service in another process. Service tokens only. */
export function walletInternalRoutes(app: HttpApp, deps: { wallets: WalletService }): void {
  const { wallets } = deps;
  app.post(
    '/internal/v1/wallets/:playerId/stakes',
    {
      config: internal,
      schema: {
        hide: true,
        params: z.object({ playerId: playerIdSchema }),
        body: z.object({
          roundId: roundIdSchema,
          currency: currencySchema,
          stakes: z
            .array(z.object({ betId: z.uuid(), amount: z.number().int().positive() }))
            .min(1)
            .max(20),
        }),
      },
    },
    async (request) => {
      await wallets.debitStakes(
        { playerId: request.params.playerId, ...request.body },
        internalContextOf(request),
      );
      return { debited: true };
    },
  );
  app.post(
    '/internal/v1/wallets/:playerId/stakes/:betId/refund',
    {
      config: internal,
      schema: {
        hide: true,
        params: z.object({ playerId: playerIdSchema, betId: z.uuid() }),
        body: z.object({ reason: z.enum(['voided', 'cleared', 'bet-rejected', 'orphaned-debit']) }),
      },
    },
    async (request) => {
      await wallets.refundStake(
        { ...request.params, reason: request.body.reason },
        internalContextOf(request),
      );
      return { refunded: true };
    },
  );
}
