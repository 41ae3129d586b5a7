import type { EventStore } from '@croupier/eventstore';
import { createHttpApp, TokenAuthority, type HttpApp, type HttpAppOptions } from '@croupier/http';
import { FailedLoginLog } from './security-log.js';

/** Whether the store answers: one read of one stream. */
export async function storeAnswers(store: EventStore): Promise<boolean> {
  try {
    await store.readStream('health-check', { limit: 1 });
    return true;
  } catch {
    return false;
  }
}

export interface ServiceAppSettings {
  readonly JWT_SECRET: string;
  readonly LOG_LEVEL: string;
  readonly RATE_LIMIT_PER_MINUTE: number;
  readonly METRICS_PUBLIC: boolean;
  readonly RATE_LIMIT_FAILED_LOGINS_PER_MINUTE: number;
  readonly FAILED_LOGIN_WINDOW_MS: number;
  readonly TOKEN_MAX_LIFETIME: number;
  readonly SERVICE_TOKEN_MAX_LIFETIME: number;
  readonly HTTP_REQUEST_TIMEOUT_MS: number;
  readonly HTTP_CONNECTION_TIMEOUT_MS: number;
  readonly HTTP_KEEP_ALIVE_TIMEOUT_MS: number;
  readonly HTTP_MAX_HEADER_SIZE: number;
  readonly NODE_ENV?: string | undefined;
  readonly HTTP_VALIDATE_RESPONSES?: boolean | undefined;
}

/** Whether responses are checked against their schemas: yes, except in production by default. */
export function validatesResponses(settings: ServiceAppSettings): boolean {
  return settings.HTTP_VALIDATE_RESPONSES ?? settings.NODE_ENV !== 'production';
}

/** The token authority of a process: its key and the lifetimes it accepts. */
export function tokenAuthorityOf(settings: ServiceAppSettings): TokenAuthority {
  return new TokenAuthority(settings.JWT_SECRET, {
    maxLifetimeSeconds: settings.TOKEN_MAX_LIFETIME,
    serviceMaxLifetimeSeconds: settings.SERVICE_TOKEN_MAX_LIFETIME,
  });
}

/** The options of createHttpApp every API process takes from its environment. */
export function httpSettingsOf(
  settings: ServiceAppSettings,
  failedLogins: FailedLoginLog,
): Pick<
  HttpAppOptions,
  | 'rateLimitPerMinute'
  | 'failedLoginsPerMinute'
  | 'onAuthenticationFailure'
  | 'limits'
  | 'validateResponses'
> {
  return {
    validateResponses: validatesResponses(settings),
    rateLimitPerMinute: settings.RATE_LIMIT_PER_MINUTE,
    failedLoginsPerMinute: settings.RATE_LIMIT_FAILED_LOGINS_PER_MINUTE,
    onAuthenticationFailure: (failure) => {
      failedLogins.note(failure);
    },
    limits: {
      requestTimeoutMs: settings.HTTP_REQUEST_TIMEOUT_MS,
      connectionTimeoutMs: settings.HTTP_CONNECTION_TIMEOUT_MS,
      keepAliveTimeoutMs: settings.HTTP_KEEP_ALIVE_TIMEOUT_MS,
      maxHeaderSize: settings.HTTP_MAX_HEADER_SIZE,
    },
  };
}

/**
 * The HTTP app of a service process: the common plumbing (roles, token lifetimes, problems,
 * rate limits, socket limits, metrics, failed logins counted into the security log) configured
 * from the environment, ready
 * when its store answers and when every other dependency it names does (Redis, for a BullMQ bus).
 */
export async function createServiceApp(options: {
  readonly title: string;
  readonly settings: ServiceAppSettings;
  readonly store: EventStore;
  readonly checks?: Readonly<Record<string, () => Promise<boolean>>>;
  /** Metrics beyond the HTTP ones every process has (a registry of the service's own). */
  readonly metrics?: Omit<NonNullable<HttpAppOptions['metrics']>, 'public'>;
  /** Called with every problem the app answers (the round service counts refused bets). */
  readonly onProblem?: HttpAppOptions['onProblem'];
}): Promise<HttpApp> {
  const { settings, store } = options;
  const failedLogins = new FailedLoginLog(store, { windowMs: settings.FAILED_LOGIN_WINDOW_MS });
  const app = await createHttpApp({
    title: options.title,
    version: '1.0.0',
    tokens: tokenAuthorityOf(settings),
    logger: { level: settings.LOG_LEVEL },
    ...httpSettingsOf(settings, failedLogins),
    metrics: { ...options.metrics, public: settings.METRICS_PUBLIC },
    ...(options.onProblem === undefined ? {} : { onProblem: options.onProblem }),
    readiness: async () => {
      const results: Record<string, boolean> = { eventStore: await storeAnswers(store) };
      for (const [name, check] of Object.entries(options.checks ?? {}))
        results[name] = await check();
      return results;
    },
  });
  failedLogins.attach(app);
  return app;
}
