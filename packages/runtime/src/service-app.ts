import type { EventStore } from '@croupier/eventstore';
import { createHttpApp, TokenAuthority, type HttpApp, type HttpAppOptions } from '@croupier/http';
import { recordFailedLogins } from './security-log.js';

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
}

/**
 * The HTTP app of a service process: the common plumbing (roles, problems, rate limit,
 * metrics, failed logins recorded in the security log) configured from the environment, ready
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
  const app = await createHttpApp({
    title: options.title,
    version: '1.0.0',
    tokens: new TokenAuthority(settings.JWT_SECRET),
    logger: { level: settings.LOG_LEVEL },
    rateLimitPerMinute: settings.RATE_LIMIT_PER_MINUTE,
    metrics: { ...options.metrics, public: settings.METRICS_PUBLIC },
    ...(options.onProblem === undefined ? {} : { onProblem: options.onProblem }),
    readiness: async () => {
      const results: Record<string, boolean> = { eventStore: await storeAnswers(store) };
      for (const [name, check] of Object.entries(options.checks ?? {}))
        results[name] = await check();
      return results;
    },
  });
  recordFailedLogins(app, store);
  return app;
}
