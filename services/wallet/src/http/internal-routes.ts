import {
  isoTimestampSchema,
  playerIdSchema,
  roundIdSchema,
  currencySchema,
  type WalletPort,
} from '@croupier/contracts';
import { internalContextOf, type HttpApp } from '@croupier/http';
import { z } from 'zod';
import { WALLET_PORT_PROBLEMS } from './problems.js';

const internal = (problems: keyof typeof WALLET_PORT_PROBLEMS) => ({
  roles: ['system'] as const,
  problems: WALLET_PORT_PROBLEMS[problems],
});

/**
 * The wallet port over HTTP, for a round service in another process. Service tokens only.
 * `wallets`: Croupier's own wallet (transfer mode) or the operator's (seamless mode).
 */
export function walletInternalRoutes(app: HttpApp, deps: { wallets: WalletPort }): void {
  const { wallets } = deps;
  app.post(
    '/internal/v1/wallets/:playerId/stakes',
    {
      config: internal('debitStakes'),
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
          bettingClosesAt: isoTimestampSchema.optional(),
        }),
      },
    },
    async (request) => {
      const { bettingClosesAt, ...stakes } = request.body;
      return wallets.debitStakes(
        {
          playerId: request.params.playerId,
          ...stakes,
          ...(bettingClosesAt === undefined ? {} : { bettingClosesAt }),
        },
        internalContextOf(request),
      );
    },
  );
  app.post(
    '/internal/v1/wallets/:playerId/stakes/:betId/refund',
    {
      config: internal('refundStake'),
      schema: {
        hide: true,
        params: z.object({ playerId: playerIdSchema, betId: z.uuid() }),
        body: z.object({
          roundId: roundIdSchema,
          currency: currencySchema.optional(),
          amount: z.number().int().positive(),
          reason: z.enum(['voided', 'cleared', 'bet-rejected', 'orphaned-debit']),
        }),
      },
    },
    async (request) => {
      const { currency, ...refund } = request.body;
      return wallets.refundStake(
        { ...request.params, ...refund, ...(currency === undefined ? {} : { currency }) },
        internalContextOf(request),
      );
    },
  );
}
