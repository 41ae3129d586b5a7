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

/**
 * What the wallet that holds the players' money allows: picked once from WALLET_MODE where a
 * process is composed (ADR 0037), and asked by the workflows, which never ask for the mode.
 */
export interface MoneyHolder {
  /** The mode, to name it in a refusal or a log line. */
  readonly mode: WalletMode;
  /** Croupier's own wallet holds the balances: deposits and withdrawals are recorded here. */
  readonly holdsBalances: boolean;
  /**
   * A seat's commission can be held back until the dealer changes (accrued commission, the
   * land-based preset, ADR 0029). An operator's wallet cannot hold money back for us.
   */
  readonly accruesCommission: boolean;
}

export function moneyHolder(mode: WalletMode): MoneyHolder {
  return mode === 'seamless'
    ? { mode, holdsBalances: false, accruesCommission: false }
    : { mode, holdsBalances: true, accruesCommission: true };
}
