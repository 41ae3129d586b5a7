import type { ServicePluginOptions } from '@croupier/runtime';
import type { RoundPluginOptions } from '@croupier/round';
import type { WalletPluginOptions } from '@croupier/wallet';
import type { System } from './system.js';

/** The wallet plugin's options here, for its jobs (start) and its routes (buildApp). */
export function walletHosting(
  system: System,
): Omit<WalletPluginOptions, keyof ServicePluginOptions> {
  return {
    wallet: system.wallet,
    store: system.store,
    readModels: system.readModels,
    ledger: system.commissionLedger,
    parking: system.parking,
    // The ledger's queue (`wallet-ledger`) is read only in transfer mode: in seamless mode
    // nothing is published to it.
    bus: system.wallet.seamless === null ? system.bus : null,
    consumerConcurrency: system.config.WALLET_CONSUMER_CONCURRENCY,
    publicBus: system.publicBus,
    funBalance: system.config.FUN_BALANCE,
    servePort: false,
    logger: system.logger,
  };
}

/** The round plugin's options here, for its jobs (start) and its routes (buildApp). */
export function roundHosting(system: System): Omit<RoundPluginOptions, keyof ServicePluginOptions> {
  return {
    rounds: system.rounds,
    board: system.board,
    jobs: system.roundJobs,
    autoDeal: system.options.autoDeal ?? true,
    sessionIdleTimeoutMs: system.config.SESSION_IDLE_TIMEOUT_MS,
    intervals: {
      orphanSweepMs: system.options.sweepIntervalMs ?? 5_000,
      faultSweepMs: system.options.faultSweepIntervalMs ?? 1_000,
      sessionSweepMs: system.options.sessionSweepIntervalMs ?? 5_000,
    },
  };
}
