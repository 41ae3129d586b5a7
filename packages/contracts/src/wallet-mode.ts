import { z } from 'zod';

/**
 * Who holds the players' balances (docs/wallet-integration.md). `transfer`: Croupier's own
 * wallet is the ledger; the operator moves money in and out with deposits and withdrawals, and
 * the settlement bus tells downstream systems of every movement. `seamless`: the operator's
 * wallet is the ledger; Croupier asks it to debit, credit and roll back over HTTP. Here, not in
 * the wallet service, because every service reads it (the round service refuses what the mode
 * cannot hold, the settlement service publishes only what someone reads).
 */
export const WALLET_MODES = ['transfer', 'seamless'] as const;

export type WalletMode = (typeof WALLET_MODES)[number];

/** WALLET_MODE: one setting every process that touches money reads the same way. */
export const walletModeSchema = z.enum(WALLET_MODES).default('transfer');

/** The WALLET_MODE setting, for a process's environment shape. */
export const walletModeShape = { WALLET_MODE: walletModeSchema } as const;
