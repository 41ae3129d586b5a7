import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { durationSeconds } from '@croupier/http';
import { z } from 'zod';
import { memoryReducerSetting } from './v8-settings.js';

/** A lifetime written as `30m`, `12h` or `7d`, in seconds. */
const durationSchema = z
  .string()
  .regex(/^\d+[smhd]$/, 'must look like 30m, 12h or 7d')
  .transform((text) => durationSeconds(text)!)
  .refine((seconds) => seconds > 0, 'must be more than 0');

const milliseconds = (min: number, fallback: number) =>
  z.coerce.number().int().min(min).max(3_600_000).default(fallback);

/** Settings every Croupier process reads from its environment. */
export const baseEnvironmentShape = {
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
  /** Prefix of the PostgreSQL application_name of this deployment's connections. */
  DATABASE_APPLICATION_NAME: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,40}$/)
    .default('croupier'),
  /** How long opening a PostgreSQL connection may take before a request fails with 503, ms. */
  DATABASE_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(100).default(5_000),
  /** How long a PostgreSQL statement may wait for its answer before it fails, ms. */
  DATABASE_QUERY_TIMEOUT_MS: z.coerce.number().int().min(100).default(30_000),
  HOST: z.string().min(1).default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65_535).default(8080),
  JWT_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Whether V8 shrinks the heap of an idle process (applyV8Settings; default false). */
  V8_MEMORY_REDUCER: memoryReducerSetting,
  /**
   * Requests a client (token subject and role, else IP) may make per minute to this process;
   * service tokens are exempt. 0 turns limiting off.
   */
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).default(6_000),
  /** Serve /metrics without a token: only where the port is reachable by monitoring alone. */
  METRICS_PUBLIC: z.stringbool().default(false),
  /**
   * Failed logins (requests refused 401) a client address may make per minute before every
   * further request of it without a valid token is answered 429 unread and unrecorded; 0: off.
   */
  RATE_LIMIT_FAILED_LOGINS_PER_MINUTE: z.coerce.number().int().min(0).default(30),
  /** Failed logins are recorded as one event per client per this window (and at shutdown). */
  FAILED_LOGIN_WINDOW_MS: milliseconds(1_000, 60_000),
  /** The longest lifetime (exp - iat) of a person's token. */
  TOKEN_MAX_LIFETIME: durationSchema.default(24 * 3_600),
  /** The longest lifetime of a service token (role system); services renew theirs at half. */
  SERVICE_TOKEN_MAX_LIFETIME: durationSchema.default(3_600),
  /** Time to receive a whole request (headers and body); past it: 408 and the socket closed. */
  HTTP_REQUEST_TIMEOUT_MS: milliseconds(100, 30_000),
  /** A socket with no traffic this long (a handler included) is closed. */
  HTTP_CONNECTION_TIMEOUT_MS: milliseconds(100, 120_000),
  /** How long an idle kept-alive connection waits for its next request. */
  HTTP_KEEP_ALIVE_TIMEOUT_MS: milliseconds(100, 72_000),
  /** `production` turns response validation off unless HTTP_VALIDATE_RESPONSES says otherwise. */
  NODE_ENV: z.string().optional(),
  /**
   * Check every response against its zod schema before sending it (a 500 when it does not
   * match). Default: true, false with NODE_ENV=production (ADR 0022); requests are always checked.
   */
  HTTP_VALIDATE_RESPONSES: z.stringbool().optional(),
  /** The most bytes of request line and headers; more answers 431. */
  HTTP_MAX_HEADER_SIZE: z.coerce.number().int().min(1_024).max(1_048_576).default(16_384),
  /**
   * Folded stream states the command handler keeps per aggregate, least recently used out first
   * (ADR 0020): a held stream is decided on with no read. 0 keeps none.
   */
  STATE_CACHE_SIZE: z.coerce.number().int().min(0).max(10_000_000).default(20_000),
  /**
   * A snapshot of a stream of an aggregate that takes them (the wallet) every this many events,
   * so a stream not cached is loaded from it and the events after it (ADR 0025). 0: none taken
   * or read.
   */
  SNAPSHOT_EVERY: z.coerce.number().int().min(0).max(1_000_000).default(100),
  /** Secret the snapshots' HMAC key is derived from; default: derived from JWT_SECRET. */
  SNAPSHOT_KEY: z.string().min(32, 'must be at least 32 characters').optional(),
} as const;

export class ConfigError extends Error {
  constructor(readonly issues: readonly string[]) {
    super(`invalid configuration:\n${issues.map((issue) => `  - ${issue}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

type BaseEnvironment = z.infer<z.ZodObject<typeof baseEnvironmentShape>>;

/**
 * Parses a process's environment: the base settings plus its own, with the checks every
 * process needs (a store's URL when it is chosen; secrets outside the embedded development
 * store). Errors name every bad variable. With the embedded store, secrets not given are
 * generated once into DATA_DIR/secrets.json (mode 0600).
 */
export function parseEnvironment<Extra extends z.ZodRawShape>(
  extra: Extra,
  env: NodeJS.ProcessEnv,
  secrets: readonly ('JWT_SECRET' | 'SHOE_SEED_KEY')[] = ['JWT_SECRET'],
): BaseEnvironment &
  z.infer<z.ZodObject<Extra>> &
  Record<'JWT_SECRET', string> &
  Partial<Record<'SHOE_SEED_KEY', string>> {
  const schema = z.object({
    ...baseEnvironmentShape,
    SHOE_SEED_KEY: z.string().min(32, 'must be at least 32 characters').optional(),
    ...extra,
  });
  const parsed = schema.safeParse(env);
  // Cross-variable rules are checked on the raw values too, so one run names every problem.
  const issues = [...issuesOf(parsed), ...crossVariableIssues(env, secrets)];
  if (!parsed.success || issues.length > 0) throw new ConfigError(issues);
  const value = parsed.data as BaseEnvironment &
    z.infer<z.ZodObject<Extra>> & { SHOE_SEED_KEY?: string };
  const missing = secrets.filter((secret) => value[secret] === undefined);
  if (missing.length === 0) return value as never;
  const generated = developmentSecrets(value.DATA_DIR);
  return {
    ...value,
    JWT_SECRET: value.JWT_SECRET ?? generated.JWT_SECRET,
    SHOE_SEED_KEY: value.SHOE_SEED_KEY ?? generated.SHOE_SEED_KEY,
  } as never;
}

/**
 * The key that signs and verifies API tokens, found where every process finds it (JWT_SECRET,
 * or with the embedded store the one generated into DATA_DIR), reading nothing else: a tool that
 * only signs tokens needs no database URL nor seed key.
 */
export function tokenSecret(env: NodeJS.ProcessEnv): string {
  const { EVENTSTORE, DATA_DIR, JWT_SECRET } = baseEnvironmentShape;
  const parsed = z.object({ EVENTSTORE, DATA_DIR, JWT_SECRET }).safeParse(env);
  const issues = [...issuesOf(parsed), ...missingSecrets(env, ['JWT_SECRET'])];
  if (!parsed.success || issues.length > 0) throw new ConfigError(issues);
  return parsed.data.JWT_SECRET ?? developmentSecrets(parsed.data.DATA_DIR).JWT_SECRET;
}

/**
 * The token lifetimes every process verifies against (TOKEN_MAX_LIFETIME,
 * SERVICE_TOKEN_MAX_LIFETIME), read as every process reads them and nothing else: a tool that
 * signs tokens must not sign one the API would refuse.
 */
export function tokenPolicy(env: NodeJS.ProcessEnv): {
  maxLifetimeSeconds: number;
  serviceMaxLifetimeSeconds: number;
} {
  const { TOKEN_MAX_LIFETIME, SERVICE_TOKEN_MAX_LIFETIME } = baseEnvironmentShape;
  const parsed = z.object({ TOKEN_MAX_LIFETIME, SERVICE_TOKEN_MAX_LIFETIME }).safeParse(env);
  if (!parsed.success) throw new ConfigError(issuesOf(parsed));
  return {
    maxLifetimeSeconds: parsed.data.TOKEN_MAX_LIFETIME,
    serviceMaxLifetimeSeconds: parsed.data.SERVICE_TOKEN_MAX_LIFETIME,
  };
}

/**
 * Where the BullMQ settlement bus is, read as every process reads it (REDIS_URL, REDIS_PREFIX),
 * and nothing else: for tools that act on the queue without running a service. REDIS_URL is
 * required here (without it there is no queue to act on).
 */
export function busSettings(env: NodeJS.ProcessEnv): { REDIS_URL: string; REDIS_PREFIX: string } {
  const { REDIS_URL, REDIS_PREFIX } = baseEnvironmentShape;
  const parsed = z.object({ REDIS_URL, REDIS_PREFIX }).safeParse(env);
  const issues = issuesOf(parsed);
  if (env.REDIS_URL === undefined)
    issues.push('REDIS_URL: is required: the Redis of the BullMQ settlement bus');
  if (!parsed.success || issues.length > 0) throw new ConfigError(issues);
  return { REDIS_URL: parsed.data.REDIS_URL!, REDIS_PREFIX: parsed.data.REDIS_PREFIX };
}

function issuesOf(parsed: z.ZodSafeParseResult<unknown>): string[] {
  return parsed.success
    ? []
    : parsed.error.issues.map(
        (issue) => `${issue.path.join('.') || '(environment)'}: ${issue.message}`,
      );
}

function crossVariableIssues(env: NodeJS.ProcessEnv, secrets: readonly string[]): string[] {
  const store = env.EVENTSTORE ?? 'pglite';
  const issues: string[] = [];
  if (store === 'postgres' && env.DATABASE_URL === undefined)
    issues.push('DATABASE_URL: is required when EVENTSTORE=postgres');
  if (store === 'esdb' && env.EVENTSTORE_URL === undefined)
    issues.push('EVENTSTORE_URL: is required when EVENTSTORE=esdb');
  return [...issues, ...missingSecrets(env, secrets)];
}

/** Secrets are generated only for the embedded development store; anywhere else they are given. */
function missingSecrets(env: NodeJS.ProcessEnv, secrets: readonly string[]): string[] {
  if ((env.EVENTSTORE ?? 'pglite') === 'pglite') return [];
  return secrets
    .filter((secret) => env[secret] === undefined)
    .map((secret) => `${secret}: is required outside the embedded development store`);
}

const developmentSecretsSchema = z.object({
  JWT_SECRET: z.string().min(32),
  SHOE_SEED_KEY: z.string().min(32),
});

/**
 * The embedded store's generated secrets, created on first use. A DATA_DIR where they cannot be
 * kept or read is a configuration error, not a crash.
 */
export function developmentSecrets(dataDir: string): { JWT_SECRET: string; SHOE_SEED_KEY: string } {
  const directory = resolve(dataDir);
  const file = join(directory, 'secrets.json');
  try {
    if (existsSync(file)) {
      const kept = developmentSecretsSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
      if (!kept.success) throw new Error('it does not hold JWT_SECRET and SHOE_SEED_KEY');
      return kept.data;
    }
    mkdirSync(directory, { recursive: true });
    const secrets = {
      JWT_SECRET: randomBytes(32).toString('hex'),
      SHOE_SEED_KEY: randomBytes(32).toString('hex'),
    };
    writeFileSync(file, JSON.stringify(secrets, null, 2), { mode: 0o600 });
    return secrets;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ConfigError([`DATA_DIR: the development secrets in ${file}: ${reason}`]);
  }
}
