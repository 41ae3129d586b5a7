import { moneyHolder, PRESET_NAMES, presetConfig } from '@croupier/contracts';
import { ConfigError, parseEnvironment, tokenPolicy, tokenSecret } from '@croupier/runtime';
import { faultEnvironmentShape } from '@croupier/round';
import { sessionEnvironmentShape } from '@croupier/round';
import { settlementEnvironmentShape } from '@croupier/settlement';
import {
  operatorWalletEnvironmentShape,
  operatorWalletSettingProblems,
  walletConsumerShape,
  walletEnvironmentShape,
} from '@croupier/wallet';
import { z } from 'zod';

export { ConfigError, tokenPolicy, tokenSecret };

const presetList = z
  .string()
  .transform((text) =>
    text
      .split(',')
      .map((p) => p.trim())
      .filter(Boolean),
  )
  .pipe(z.array(z.enum(PRESET_NAMES as [string, ...string[]])));

/** The gateway's own settings, beside those every process has (@croupier/runtime). */
const gatewayShape = {
  ...walletConsumerShape,
  /** Presets opened as auto-dealt rng tables at start-up when they do not exist yet. */
  AUTO_TABLES: presetList.default(['live', 'touch']),
  BETTING_WINDOW_MS: z.coerce.number().int().min(0).max(600_000).default(10_000),
  /**
   * A stake debited for a bet no round recorded is refunded once its round takes no more bets
   * and this long has passed since the store recorded the debit: the same in every process and
   * across restarts (services/round bet-workflow.ts).
   */
  ORPHAN_GRACE_MS: z.coerce.number().int().min(0).default(10_000),
  /**
   * How often the notary records a signed checkpoint of every stream head that moved (ADR 0024).
   * 0 records none (a deployment where another gateway process is the notary).
   */
  CHECKPOINT_INTERVAL_MS: z.coerce.number().int().min(0).max(86_400_000).default(60_000),
  /**
   * Secret the checkpoints' Ed25519 signing key is derived from, >= 32 characters. Default: derived
   * from SHOE_SEED_KEY under a label of its own.
   */
  CHECKPOINT_SIGNING_KEY: z.string().min(32, 'must be at least 32 characters').optional(),
  /**
   * Read-model documents the gateway keeps in memory for the models it runs (a table polled by
   * every client, a player's own document), least recently read dropped first; 0 keeps none.
   */
  READ_MODEL_CACHE_DOCUMENTS: z.coerce.number().int().min(0).max(1_000_000).default(10_000),
  ...walletEnvironmentShape,
  ...settlementEnvironmentShape,
  ...operatorWalletEnvironmentShape,
  /** The fault policy: a stalled deal paused, a long pause voided (docs/adr/0004). */
  ...faultEnvironmentShape,
  ...sessionEnvironmentShape,
};

export type GatewayConfig = ReturnType<typeof parseGateway>;

function parseGateway(env: NodeJS.ProcessEnv) {
  const config = parseEnvironment(gatewayShape, env, ['JWT_SECRET', 'SHOE_SEED_KEY']);
  return { ...config, SHOE_SEED_KEY: config.SHOE_SEED_KEY! };
}

/**
 * Reads the gateway's configuration from the environment: every process's settings plus the
 * gateway's own. With the embedded store (development), secrets not given are generated once
 * into DATA_DIR/secrets.json (mode 0600); any other store requires them from the environment.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  const config = parseGateway(env);
  const seamless = [
    ...operatorWalletSettingProblems(config),
    // Accrued commission cannot be held back at the operator's wallet (ADR 0029).
    ...(moneyHolder(config.WALLET_MODE).accruesCommission
      ? []
      : config.AUTO_TABLES.filter((preset) => presetConfig(preset).commission === 'accrued').map(
          (preset) =>
            `AUTO_TABLES: ${preset} accrues commission, which ${config.WALLET_MODE} mode does not support (WALLET_MODE=${config.WALLET_MODE})`,
        )),
  ];
  if (seamless.length > 0) throw new ConfigError(seamless);
  return config;
}
