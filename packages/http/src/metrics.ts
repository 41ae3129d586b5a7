import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';

export interface HttpMetricsOptions {
  /** The registry to serve; a process adds its own metrics to it. Default: a new one. */
  readonly registry?: Registry;
  /**
   * Serve /metrics without a token. Default false: an operator or regulator token is needed,
   * because the figures (stakes by bet type, table activity) are business data. Set it where
   * /metrics is reachable only from the monitoring network.
   */
  readonly public?: boolean;
  /** Brings gauges and log-derived counters up to date; awaited before each scrape. */
  readonly beforeScrape?: () => Promise<void>;
  /** Node's own metrics: CPU, memory, event-loop delay, GC. Default true. */
  readonly processMetrics?: boolean;
}

/** Why a request was not authenticated or not authorized; a small, fixed label set. */
export type AuthFailureReason =
  | 'missing'
  | 'expired'
  | 'signature'
  | 'invalid'
  | 'lifetime'
  | 'forbidden'
  | 'not-a-role'
  | 'rate-limited';

const LATENCY_BUCKETS = [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** What every Croupier HTTP process measures about its requests. */
export class HttpMetrics {
  readonly registry: Registry;
  /** Latency by route template (never the raw URL: ids would explode the label set). */
  readonly requestDuration: Histogram<'method' | 'route' | 'status'>;
  /** Every problem+json answer, by its stable code. */
  readonly problems: Counter<'method' | 'route' | 'code'>;
  readonly authFailures: Counter<'reason'>;
  readonly rateLimited: Counter<'route'>;

  constructor(options: HttpMetricsOptions = {}) {
    this.registry = options.registry ?? new Registry();
    // The event loop's delay sampled every 100 ms, not prom-client's default 10: a timer firing
    // a hundred times a second was most of an idle process's CPU (ADR 0045). Its percentiles
    // come from ten samples a second; a stall shorter than 100 ms may miss the max.
    if (options.processMetrics ?? true)
      collectDefaultMetrics({ register: this.registry, eventLoopMonitoringPrecision: 100 });
    this.requestDuration = new Histogram({
      name: 'croupier_http_request_duration_seconds',
      help: 'HTTP request latency, from the request arriving to the response sent',
      labelNames: ['method', 'route', 'status'],
      buckets: LATENCY_BUCKETS,
      registers: [this.registry],
    });
    this.problems = new Counter({
      name: 'croupier_http_problems_total',
      help: 'problem+json answers by route and stable error code',
      labelNames: ['method', 'route', 'code'],
      registers: [this.registry],
    });
    this.authFailures = new Counter({
      name: 'croupier_http_auth_failures_total',
      help: 'Requests refused for a missing, expired or invalid token, or a role not allowed',
      labelNames: ['reason'],
      registers: [this.registry],
    });
    this.rateLimited = new Counter({
      name: 'croupier_http_rate_limited_total',
      help: 'Requests refused with 429 because their client went over its rate limit',
      labelNames: ['route'],
      registers: [this.registry],
    });
  }
}
