import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { PRESET_NAMES } from '@croupier/contracts';
import { z } from 'zod';

const presetList = z
  .string()
  .transform((text) =>
    text
      .split(',')
      .map((p) => p.trim())
      .filter(Boolean),
  )
  .pipe(z.array(z.enum(PRESET_NAMES as [string, ...string[]])));

/** Every setting, from the environment, parsed once at start-up. */
const environmentSchema = z
  .object({
    EVENTSTORE: z.enum(['pglite', 'postgres', 'esdb']).default('pglite'),
    DATA_DIR: z.string().min(1).default('./data'),
    DATABASE_URL: z.url().optional(),
    /** Schema of the PostgreSQL event store. */
    DATABASE_SCHEMA: z
      .string()
      .regex(/^[a-z_][a-z0-9_]{0,62}$/)
      .default('croupier'),
    EVENTSTORE_URL: z
      .string()
      .regex(
        /^esdb(\+discover)?:\/\//,
        'must be an esdb:// or esdb+discover:// connection string (the client takes no kurrentdb://)',
      )
      .optional(),
    REDIS_URL: z.url().optional(),
    /** Prefix of the BullMQ keys in Redis (one deployment's queues apart from another's). */
    REDIS_PREFIX: z.string().min(1).max(64).default('croupier'),
    /**
     * Settlement messages Croupier's own wallet applies at once. 0: it does not consume (another
     * wallet system consumes the BullMQ queue; needs REDIS_URL). 16, not fewer: a message costs a
     * wallet append (tens of ms on a busy store), so 4 workers fell behind four tables dealing
     * (bench/RESULTS.md, settlement bus); commands on one wallet run one at a time anyway.
     */
    WALLET_CONSUMER_CONCURRENCY: z.coerce.number().int().min(0).max(256).default(16),
    HOST: z.string().min(1).default('127.0.0.1'),
    PORT: z.coerce.number().int().min(0).max(65_535).default(8080),
    JWT_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
    SHOE_SEED_KEY: z.string().min(32, 'must be at least 32 characters').optional(),
    LOG_LEVEL: z
      .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
      .default('info'),
    /** Presets opened as auto-dealt rng tables at start-up when they do not exist yet. */
    AUTO_TABLES: presetList.default(['live', 'touch']),
    BETTING_WINDOW_MS: z.coerce.number().int().min(0).max(600_000).default(10_000),
    /** Debits with no bet recorded are refunded this long after betting closed. */
    ORPHAN_GRACE_MS: z.coerce.number().int().min(0).default(10_000),
    /**
     * Requests a client (token subject and role, else IP) may make per minute to this process;
     * service tokens are exempt. 0 turns limiting off.
     */
    RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).default(6_000),
    /** Serve /metrics without a token: only where the port is reachable by monitoring alone. */
    METRICS_PUBLIC: z.stringbool().default(false),
  })
  .superRefine((env, context) => {
    if (env.EVENTSTORE === 'postgres' && env.DATABASE_URL === undefined) {
      context.addIssue({
        code: 'custom',
        path: ['DATABASE_URL'],
        message: 'is required when EVENTSTORE=postgres',
      });
    }
    if (env.EVENTSTORE === 'esdb' && env.EVENTSTORE_URL === undefined) {
      context.addIssue({
        code: 'custom',
        path: ['EVENTSTORE_URL'],
        message: 'is required when EVENTSTORE=esdb',
      });
    }
    if (env.WALLET_CONSUMER_CONCURRENCY === 0 && env.REDIS_URL === undefined) {
      context.addIssue({
        code: 'custom',
        path: ['WALLET_CONSUMER_CONCURRENCY'],
        message: 'may be 0 only with REDIS_URL (without Redis the wallet is the only consumer)',
      });
    }
    if (env.EVENTSTORE !== 'pglite') {
      for (const secret of ['JWT_SECRET', 'SHOE_SEED_KEY'] as const) {
        if (env[secret] === undefined) {
          context.addIssue({
            code: 'custom',
            path: [secret],
            message: `is required outside the embedded development store`,
          });
        }
      }
    }
  });

export type Environment = z.infer<typeof environmentSchema>;

export interface GatewayConfig extends Omit<Environment, 'JWT_SECRET' | 'SHOE_SEED_KEY'> {
  readonly JWT_SECRET: string;
  readonly SHOE_SEED_KEY: string;
}

export class ConfigError extends Error {
  constructor(readonly issues: readonly string[]) {
    super(`invalid configuration:\n${issues.map((issue) => `  - ${issue}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Reads the configuration from the environment. With the embedded store (development), secrets
 * not given are generated once into DATA_DIR/secrets.json (mode 0600); any other store requires
 * them from the environment.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  const parsed = environmentSchema.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map(
        (issue) => `${issue.path.join('.') || '(environment)'}: ${issue.message}`,
      ),
    );
  }
  const config = parsed.data;
  if (config.JWT_SECRET !== undefined && config.SHOE_SEED_KEY !== undefined) {
    return { ...config, JWT_SECRET: config.JWT_SECRET, SHOE_SEED_KEY: config.SHOE_SEED_KEY };
  }
  const secrets = developmentSecrets(config.DATA_DIR);
  return {
    ...config,
    JWT_SECRET: config.JWT_SECRET ?? secrets.JWT_SECRET,
    SHOE_SEED_KEY: config.SHOE_SEED_KEY ?? secrets.SHOE_SEED_KEY,
  };
}

/** The embedded store's generated secrets, created on first use. */
export function developmentSecrets(dataDir: string): { JWT_SECRET: string; SHOE_SEED_KEY: string } {
  const directory = resolve(dataDir);
  const file = join(directory, 'secrets.json');
  if (existsSync(file))
    return JSON.parse(readFileSync(file, 'utf8')) as { JWT_SECRET: string; SHOE_SEED_KEY: string };
  mkdirSync(directory, { recursive: true });
  const secrets = {
    JWT_SECRET: randomBytes(32).toString('hex'),
    SHOE_SEED_KEY: randomBytes(32).toString('hex'),
  };
  writeFileSync(file, JSON.stringify(secrets, null, 2), { mode: 0o600 });
  return secrets;
}
