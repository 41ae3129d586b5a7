import { z } from 'zod';
import { walletModeSchema } from './wallet-mode.js';

/**
 * The most a wallet may hold, per currency, in minor units: deposits past it are refused
 * (BALANCE_LIMIT). Payouts are never refused for it — money owed is paid — so the limit keeps
 * headroom below 2^53 − 1, the largest integer a balance holds exactly.
 */
export type BalanceLimits = (currency: string) => number;

/** The default: 10^15 minor units (10 trillion of a two-decimal currency), 8 × 10^15 of headroom. */
export const DEFAULT_MAX_BALANCE = 1_000_000_000_000_000;

const limit = z.coerce
  .number()
  .int()
  .positive()
  .max(DEFAULT_MAX_BALANCE, `at most ${DEFAULT_MAX_BALANCE} minor units`);

/**
 * WALLET_MAX_BALANCE: one amount for every currency (`500000000`), or per currency with an
 * optional default (`EUR=500000000,KRW=50000000000,*=100000000`).
 */
export const balanceLimitsSchema = z
  .string()
  .trim()
  .min(1)
  .transform((text, context): BalanceLimits => {
    const byCurrency = new Map<string, number>();
    let fallback = DEFAULT_MAX_BALANCE;
    for (const part of text.split(',').map((p) => p.trim())) {
      const [key, value] = part.includes('=') ? part.split('=', 2) : ['*', part];
      const currency = key!.trim().toUpperCase();
      if (currency !== '*' && !/^[A-Z]{3}$/.test(currency)) {
        context.addIssue({
          code: 'custom',
          message: `"${key}" is not a currency code (EUR, KRW…)`,
        });
        return () => 0;
      }
      const parsed = limit.safeParse(value!.trim());
      if (!parsed.success) {
        context.addIssue({
          code: 'custom',
          message: `${currency}: ${parsed.error.issues[0]?.message ?? 'not an amount'}`,
        });
        return () => 0;
      }
      if (currency === '*') fallback = parsed.data;
      else byCurrency.set(currency, parsed.data);
    }
    return (currency) => byCurrency.get(currency) ?? fallback;
  });

/** The play money a fun wallet is topped up to when none is set: 10,000.00 FUN. */
export const DEFAULT_FUN_BALANCE = 1_000_000;

/** The wallet settings every process that hosts a wallet reads (gateway, wallet service). */
export const walletEnvironmentShape = {
  /** transfer (Croupier holds the ledger) | seamless (the operator's wallet does). */
  WALLET_MODE: walletModeSchema,
  WALLET_MAX_BALANCE: balanceLimitsSchema.prefault(String(DEFAULT_MAX_BALANCE)),
  /**
   * FUN_BALANCE: what a player's fun wallet is topped up to, in minor units of play money
   * (`FUN`), each time they ask (ADR 0030). Play money is granted, never deposited. Bounded as
   * real balances are (at most 10^15): a fun wallet near 2^53 − 1 could not be paid its wins,
   * and a payout its wallet refuses is parked, not applied (ADR 0035).
   */
  FUN_BALANCE: z.coerce
    .number()
    .int()
    .positive()
    .max(
      DEFAULT_MAX_BALANCE,
      `at most ${DEFAULT_MAX_BALANCE} minor units of play money, the bound of every balance (WALLET_MAX_BALANCE), so that its wins can always be paid`,
    )
    .default(DEFAULT_FUN_BALANCE),
} as const;
