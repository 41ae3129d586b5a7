import { z } from 'zod';

/** WALLET_MODE is defined with the contracts: every service reads it. */
export { WALLET_MODES, walletModeSchema, type WalletMode } from '@croupier/contracts';

/**
 * WALLET_CONSUMER_CONCURRENCY: settlement messages Croupier's wallet applies at once, from its own
 * queue. 16, not fewer: a message costs a wallet append (tens of ms on a busy store), so 4
 * workers fell behind four tables dealing (bench/RESULTS.md, settlement bus); commands on one
 * wallet run one at a time anyway. It used to accept 0, which handed the queue to an outside
 * wallet system and left Croupier's wallet debiting without ever crediting; outside systems now
 * read a queue of their own, and 0 is refused, saying so.
 */
export const walletConsumerShape = {
  WALLET_CONSUMER_CONCURRENCY: z.coerce
    .number()
    .int()
    .max(256)
    .refine(
      (n) => n !== 0,
      "0 is no longer accepted: Croupier's wallet always applies its own credits, and outside wallet systems read the public queue settlement-events (docs/wallet-integration.md)",
    )
    .pipe(z.number().min(1))
    .default(16),
} as const;
