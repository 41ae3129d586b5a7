import type { ServicePluginOptions } from '@croupier/runtime';
import type { RoundPluginOptions } from '@croupier/round';
import type { WalletPluginOptions } from '@croupier/wallet';

type WalletOptions = Omit<WalletPluginOptions, keyof ServicePluginOptions>;
type RoundOptions = Omit<RoundPluginOptions, keyof ServicePluginOptions>;

/**
 * The parts of the one-process System the plugins' options are read from (system.ts composes
 * them; named here by shape, so this module does not import the System back).
 */
export interface HostedParts {
  readonly wallet: WalletOptions['wallet'];
  readonly store: WalletOptions['store'];
  readonly readModels: WalletOptions['readModels'];
  readonly commissionLedger: WalletOptions['ledger'];
  readonly parking: WalletOptions['parking'];
  readonly bus: NonNullable<WalletOptions['bus']>;
  readonly publicBus: WalletOptions['publicBus'];
  readonly logger: WalletOptions['logger'];
  readonly rounds: RoundOptions['rounds'];
  readonly board: RoundOptions['board'];
  readonly seatLedger: RoundOptions['seatLedger'];
  readonly roundJobs: RoundOptions['jobs'];
  readonly config: {
    readonly WALLET_CONSUMER_CONCURRENCY: number;
    readonly FUN_BALANCE: number;
    readonly SESSION_IDLE_TIMEOUT_MS: RoundOptions['sessionIdleTimeoutMs'];
  };
  readonly options: {
    readonly autoDeal?: boolean;
    readonly sweepIntervalMs?: number;
    readonly faultSweepIntervalMs?: number;
    readonly sessionSweepIntervalMs?: number;
  };
}

/** The wallet plugin's options here, for its jobs (start) and its routes (buildApp). */
export function walletHosting(system: HostedParts): WalletOptions {
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
export function roundHosting(system: HostedParts): RoundOptions {
  return {
    rounds: system.rounds,
    board: system.board,
    seatLedger: system.seatLedger,
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
