import { z } from 'zod';

/**
 * Seamless mode's settings (docs/wallet-integration.md#seamless-mode): where the operator's
 * wallet is, the secret both sides sign with, and how long and how often a call is tried.
 */
export const operatorWalletEnvironmentShape = {
  /** Base URL of the operator's wallet API; required with WALLET_MODE=seamless. */
  OPERATOR_WALLET_URL: z.url().optional(),
  /** HMAC-SHA256 secret shared with the operator's wallet, >= 32 characters; required with seamless. */
  OPERATOR_WALLET_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  /** How long one attempt of a call may take before it is abandoned (ms). */
  OPERATOR_WALLET_TIMEOUT_MS: z.coerce.number().int().min(50).max(60_000).default(2_000),
  /** Attempts after the first, under the same key, before a call counts as unanswered. */
  OPERATOR_WALLET_RETRIES: z.coerce.number().int().min(0).max(10).default(2),
  /** How often owed credits and rollbacks are sent again while the wallet is away (ms). */
  OPERATOR_WALLET_OUTBOX_INTERVAL_MS: z.coerce.number().int().min(10).max(600_000).default(1_000),
  /** How many players' credits and rollbacks the outbox sends at once (each player's in order). */
  OPERATOR_WALLET_OUTBOX_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(8),
} as const;

/** What is wrong with the seamless settings for this mode, one line per variable. */
export function operatorWalletSettingProblems(config: {
  WALLET_MODE: string;
  OPERATOR_WALLET_URL?: string | undefined;
  OPERATOR_WALLET_SECRET?: string | undefined;
}): string[] {
  if (config.WALLET_MODE !== 'seamless') return [];
  return [
    ...(config.OPERATOR_WALLET_URL === undefined
      ? ['OPERATOR_WALLET_URL: required with WALLET_MODE=seamless']
      : []),
    ...(config.OPERATOR_WALLET_SECRET === undefined
      ? ['OPERATOR_WALLET_SECRET: required with WALLET_MODE=seamless']
      : []),
  ];
}
