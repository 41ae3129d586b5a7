import { randomUUID } from 'node:crypto';
import rateLimit from '@fastify/rate-limit';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import {
  DomainError,
  ERROR_STATUS,
  type CommandContext,
  type ErrorCode,
  type Role,
} from '@croupier/contracts';
import helmet from 'helmet';
import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyRequest,
  type FastifyServerOptions,
  type RawReplyDefaultExpression,
  type RawRequestDefaultExpression,
  type RawServerDefault,
} from 'fastify';
import { validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { actorOf, type Principal, type TokenAuthority } from './auth.js';
import { FailedLoginLimiter } from './failed-logins.js';
import { secureFastifyLogger, withoutQueryCredentials } from './logging.js';
import { HttpMetrics, type AuthFailureReason, type HttpMetricsOptions } from './metrics.js';
import { operationTransform } from './openapi.js';
import { responseSerializerCompiler } from './response-serializer.js';
import {
  problemJsonSchema,
  problemOf,
  problemTitleOf,
  problemTypeOf,
  sendProblem,
  type Problem,
} from './problem.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Roles allowed to call the route; absent on public routes. */
    roles?: readonly Role[];
    public?: boolean;
    /**
     * The error codes the handler itself may answer, for the OpenAPI document; when absent they
     * are inferred from the route (see problemCodesOf).
     */
    problems?: readonly ErrorCode[];
  }
  interface FastifyRequest {
    principal: Principal | null;
    /** Why the request may not go on (no token, a bad one, a role not allowed), until enforced. */
    refusal: DomainError | null;
  }
  interface FastifyInstance {
    /** The metrics this app serves at /metrics; a process registers its own on `registry`. */
    metrics: HttpMetrics;
  }
}

/** A fastify instance whose routes are typed by their zod schemas. */
export type HttpApp = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  ZodTypeProvider
>;

export interface HttpAppOptions {
  readonly title: string;
  readonly version: string;
  readonly description?: string;
  readonly tokens: TokenAuthority;
  readonly logger?: FastifyServerOptions['logger'];
  /** Maximum request body, bytes. Default 64 KiB: no command needs more. */
  readonly bodyLimit?: number;
  /** Checks behind /ready: each dependency's name and whether it answers. */
  readonly readiness?: () => Promise<Record<string, boolean>>;
  /**
   * Requests a client may make per minute, per process: a client is the authenticated principal
   * (subject and role), or the IP address without a valid token. Service tokens (role `system`)
   * are never limited, nor are /health and /ready. 0 turns limiting off. Default 6000.
   */
  readonly rateLimitPerMinute?: number;
  /** Prometheus metrics at /metrics. */
  readonly metrics?: HttpMetricsOptions;
  /** Called with every problem answered, after it is mapped (e.g. to count refusals by code). */
  readonly onProblem?: (request: FastifyRequest, problem: Problem) => void;
  /**
   * Failed logins (401) a client address may make per minute; past that, its requests without
   * a valid token answer 429 before anything is read or recorded, while requests with a valid
   * token from the same address go on. 0 turns it off. Default 30.
   */
  readonly failedLoginsPerMinute?: number;
  /** Called with every request refused for want of a valid token (the security log counts them). */
  readonly onAuthenticationFailure?: (failure: AuthenticationFailure) => void;
  /** Timeouts and header limits of the sockets; see `HttpLimits`. */
  readonly limits?: Partial<HttpLimits>;
  /**
   * Check every response against its route's zod schema (`responseSerializerCompiler`); false
   * writes it with `JSON.stringify` unchecked, as production does. Requests are always
   * validated. Default true.
   */
  readonly validateResponses?: boolean;
}

/** A request refused for want of a valid token, as the security log keeps it: never the token. */
export interface AuthenticationFailure {
  /** The client address. */
  readonly client: string;
  readonly reason: AuthFailureReason;
  readonly method: string;
  /** The route template, or 'unmatched'. */
  readonly route: string;
  /** The URL with its query credentials redacted, at most 300 characters. */
  readonly path: string;
  readonly at: Date;
  /** Refused 429 for too many failed logins, without its token even being counted as tried. */
  readonly rateLimited: boolean;
}

/**
 * What a socket may cost: a slow or stalled client is answered 408 and disconnected once
 * `requestTimeoutMs` has passed without the whole request (headers and body); a silent socket
 * is closed after `connectionTimeoutMs`; an idle kept-alive one after `keepAliveTimeoutMs`;
 * headers past `maxHeaderSize` bytes answer 431.
 */
export interface HttpLimits {
  readonly requestTimeoutMs: number;
  readonly connectionTimeoutMs: number;
  readonly keepAliveTimeoutMs: number;
  readonly maxHeaderSize: number;
}

export const DEFAULT_HTTP_LIMITS: HttpLimits = {
  requestTimeoutMs: 30_000,
  connectionTimeoutMs: 120_000,
  keepAliveTimeoutMs: 72_000,
  maxHeaderSize: 16_384,
};

const CORRELATION_HEADER = 'x-correlation-id';
const CORRELATION_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The fastify app every service builds its routes on: zod schemas through the type provider
 * (the same schemas make the OpenAPI document at /docs), JWT roles on every route not marked
 * public, problem+json errors with stable codes, correlation ids in and out and in every log
 * line, /health and /ready.
 */
export async function createHttpApp(options: HttpAppOptions): Promise<HttpApp> {
  const limits = { ...DEFAULT_HTTP_LIMITS, ...options.limits };
  const app = Fastify({
    logger: secureFastifyLogger(options.logger),
    bodyLimit: options.bodyLimit ?? 64 * 1024,
    requestTimeout: limits.requestTimeoutMs,
    connectionTimeout: limits.connectionTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    http: {
      maxHeaderSize: limits.maxHeaderSize,
      // Node's own default (60 s) would outlast the request timeout: a client that never
      // finishes its headers is cut off at the same bound as one that never finishes its body.
      headersTimeout: limits.requestTimeoutMs,
      // Node checks for timed-out requests on this interval (30 s by default), which would
      // stretch a 30 s timeout to a minute.
      connectionsCheckingInterval: Math.min(1_000, Math.max(10, limits.requestTimeoutMs / 4)),
    },
    // Requests Node refuses before fastify sees them (a timeout, headers too large, bytes that
    // are not HTTP) answer problems too.
    clientErrorHandler: answerClientError,
    genReqId: (request) => {
      const given = request.headers[CORRELATION_HEADER];
      return typeof given === 'string' && CORRELATION_ID.test(given) ? given : randomUUID();
    },
    logController: new LogController({ requestIdLogLabel: 'correlationId' }),
    // While closing, the hook below answers a problem+json 503 instead of fastify's plain one.
    return503OnClosing: false,
    // URLs the router cannot even read (bad percent-encoding, a path parameter over 100
    // characters) never reach the hooks or the error handler: answer them as problems too.
    frameworkErrors: (error, request, reply) => {
      void reply.header(CORRELATION_HEADER, request.id);
      void sendProblem(reply, problemOf(error, request));
    },
  }).withTypeProvider<ZodTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(responseSerializerCompiler(options.validateResponses ?? true));
  // Bodies are JSON or nothing: fastify's built-in text/plain parser would hand a route a string
  // that then fails its schema as a 400; without it any other media type is a 415.
  app.removeContentTypeParser('text/plain');
  // A command that takes no body (open a round, close betting, confirm) may still be sent with
  // `content-type: application/json` and nothing after it, as many HTTP clients do: an empty
  // JSON body is no body. Anything else is parsed by fastify's own parser, unchanged.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body.toString();
    if (text.length === 0) {
      done(null, undefined);
      return;
    }
    void parseJson(request, text, done);
  });
  // Queries are strict: an unknown parameter is a 400 naming it, never silently ignored. So are
  // bodies: a command that takes none (open a round, close betting, top up play money) refuses
  // one with a field in it, naming the field, rather than ignore what the client meant by it.
  app.addHook('onRoute', (route) => {
    if (!isApiRoute(route.url)) return;
    const schema = (route.schema ??= {});
    schema.querystring ??= z.strictObject({});
    if ([route.method].flat().some((method) => BODY_METHODS.has(method.toUpperCase())))
      schema.body ??= NO_BODY;
    if (!isStrictObject(schema.querystring)) {
      throw new Error(
        `${String(route.method)} ${route.url}: its querystring schema must be a strict zod object`,
      );
    }
  });
  app.decorateRequest('principal', null);
  app.decorateRequest('refusal', null);
  const metrics = new HttpMetrics(options.metrics);
  app.decorate('metrics', metrics);

  // Security headers on every answer, problems included. The pages (/docs, /console) load only
  // same-origin scripts; Swagger UI sets inline style attributes, hence 'unsafe-inline' styles.
  // Helmet's middleware is made once: @fastify/helmet made it again for every request (2 % of
  // the gateway's busy time), for per-route options and nonces no route here uses.
  const securityHeaders = helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", 'data:'],
        connectSrc: ["'self'"],
        fontSrc: ["'self'"],
        objectSrc: ["'none'"],
        baseUri: ["'none'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
      },
    },
    xFrameOptions: { action: 'deny' },
    crossOriginResourcePolicy: { policy: 'same-origin' },
    strictTransportSecurity: { maxAge: 31_536_000, includeSubDomains: true },
  });
  app.addHook('onRequest', (request, reply, done) => {
    securityHeaders(request.raw, reply.raw, (error) => {
      done(error instanceof Error ? error : undefined);
    });
  });

  const perMinute = options.rateLimitPerMinute ?? 6_000;
  const failedLoginsPerMinute = options.failedLoginsPerMinute ?? 30;
  const failedLogins =
    failedLoginsPerMinute > 0 ? new FailedLoginLimiter(failedLoginsPerMinute) : null;
  await app.register(swagger, {
    openapi: {
      info: {
        title: options.title,
        version: options.version,
        description: options.description ?? '',
      },
      components: {
        securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
        schemas: { Problem: problemJsonSchema },
      },
      security: [{ bearer: [] }],
    },
    transform: operationTransform({ rateLimited: perMinute > 0 }),
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });

  // Authentication runs first but only records a refusal: the rate limiter (a route hook, so it
  // runs next) then keys the request by its principal, or by IP when there is none, so floods
  // of bad tokens are limited too. The refusal is enforced before the body is even parsed.
  // Closing (SIGTERM): commands already running finish; a request that arrives on a kept-alive
  // connection now is refused before it starts, so the client can retry it elsewhere or later
  // (a bet with the same betId, a deposit with the same reference, counts once).
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  app.addHook('onRequest', async (request, reply) => {
    void reply.header(CORRELATION_HEADER, request.id);
    if (closing) {
      void reply.header('connection', 'close').header('retry-after', '1');
      const refusal = new DomainError('UNAVAILABLE', 'this service is shutting down: retry');
      return sendProblem(reply, problemOf(refusal, request));
    }
    const config = request.routeOptions.config;
    // An unknown route answers 404 to anyone: there is nothing behind it to protect.
    if (
      config.public === true ||
      isDocumentation(request) ||
      request.routeOptions.url === undefined
    )
      return;
    const header = request.headers.authorization;
    const match = header === undefined ? null : /^Bearer +(\S+) *$/i.exec(header);
    if (match === null) {
      request.refusal = new DomainError(
        'UNAUTHENTICATED',
        'send a bearer token: Authorization: Bearer <JWT>',
        { reason: 'missing' },
      );
    } else {
      try {
        request.principal = await options.tokens.verify(match[1]!);
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        request.refusal = error;
      }
    }
    if (request.principal === null) {
      // A client that keeps failing is refused here, before its request is read or recorded;
      // its valid tokens still pass (above), so a flood from an address shared by a whole floor
      // of players stops only the flood.
      const retryAfter = failedLogins?.retryAfterSeconds(request.ip) ?? 0;
      if (retryAfter > 0) {
        void reply.header('retry-after', String(retryAfter));
        request.refusal = new DomainError(
          'RATE_LIMITED',
          `too many failed logins from this address: at most ${failedLoginsPerMinute} a minute; retry in ${retryAfter} s with a valid token`,
          { reason: 'rate-limited' },
        );
      } else {
        failedLogins?.note(request.ip);
      }
      return;
    }
    const roles = config.roles;
    if (roles !== undefined && !roles.includes(request.principal.role)) {
      request.refusal = new DomainError(
        'FORBIDDEN',
        `the ${request.principal.role} role may not ${request.method} ${request.routeOptions.url}`,
        { reason: 'forbidden' },
      );
    }
  });

  if (perMinute > 0) {
    await app.register(rateLimit, {
      max: perMinute,
      timeWindow: 60_000,
      keyGenerator: (request) =>
        request.principal === null
          ? `ip:${request.ip}`
          : `${request.principal.role}:${request.principal.id}`,
      // Services call each other on behalf of many clients: limiting them would limit everyone.
      allowList: (request) => request.principal?.role === 'system',
      errorResponseBuilder: (_request, context) =>
        new DomainError(
          'RATE_LIMITED',
          `too many requests: at most ${context.max} a minute; retry in ${context.after}`,
        ),
      onExceeded: (request) => {
        metrics.rateLimited.inc({ route: routeOf(request) });
      },
    });
  }

  app.addHook('preParsing', (request, _reply, payload, done) => {
    const refusal = request.refusal;
    if (refusal === null) {
      done(null, payload);
      return;
    }
    const reason = (refusal.details.reason as AuthFailureReason | undefined) ?? 'invalid';
    metrics.authFailures.inc({ reason });
    if (refusal.code !== 'FORBIDDEN') {
      options.onAuthenticationFailure?.({
        client: request.ip,
        reason,
        method: request.method,
        route: routeOf(request),
        path: withoutQueryCredentials(request.url).slice(0, 300),
        at: new Date(),
        rateLimited: reason === 'rate-limited',
      });
    }
    // A flood past its limit costs a counter, not a log line per request.
    const level = reason === 'rate-limited' ? 'debug' : 'warn';
    // Failed logins and refused roles are security events: who, from where, why. Never the token.
    request.log[level](
      {
        reason,
        detail: refusal.message,
        ip: request.ip,
        method: request.method,
        route: routeOf(request),
        ...(request.principal === null
          ? {}
          : { subject: request.principal.id, role: request.principal.role }),
      },
      refusal.code === 'FORBIDDEN' ? 'access denied' : 'authentication failed',
    );
    done(refusal);
  });

  // Authenticated answers are someone's balance or history: no shared cache may keep them.
  app.addHook('onSend', async (request, reply) => {
    if (request.principal !== null && !reply.hasHeader('cache-control'))
      void reply.header('cache-control', 'no-store');
  });

  app.addHook('onResponse', async (request, reply) => {
    metrics.requestDuration.observe(
      { method: request.method, route: routeOf(request), status: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    );
  });

  app.setErrorHandler((error, request, reply) => {
    const problem = problemOf(error, request);
    // An outage is logged as what it is, once per request, not as a bug.
    if (problem.code === 'UNAVAILABLE')
      request.log.warn(
        { err: error, detail: problem.detail },
        'request failed: dependency unavailable',
      );
    else if (problem.status >= 500) request.log.error({ err: error }, 'request failed');
    else if (request.refusal === null)
      request.log.info({ code: problem.code, detail: problem.detail }, 'request refused');
    metrics.problems.inc({ method: request.method, route: routeOf(request), code: problem.code });
    options.onProblem?.(request, problem);
    return sendProblem(reply, problem);
  });
  app.setNotFoundHandler(perMinute > 0 ? { preHandler: app.rateLimit() } : {}, (request, reply) => {
    const problem = problemOf(
      new DomainError(
        'NOT_FOUND',
        `no route ${request.method} ${withoutQueryCredentials(request.url)}`,
      ),
      request,
    );
    metrics.problems.inc({ method: request.method, route: routeOf(request), code: problem.code });
    return sendProblem(reply, problem);
  });

  // Probes must never be refused for being frequent: a 429 would make an orchestrator restart
  // a healthy process.
  app.get(
    '/health',
    {
      config: { public: true, rateLimit: false },
      schema: { hide: true, response: { 200: z.object({ status: z.literal('ok') }) } },
    },
    () => ({ status: 'ok' as const }),
  );
  app.get(
    '/ready',
    { config: { public: true, rateLimit: false }, schema: { hide: true } },
    async (_request, reply) => {
      const checks = (await options.readiness?.()) ?? {};
      const ready = Object.values(checks).every(Boolean);
      return reply
        .status(ready ? 200 : 503)
        .send({ status: ready ? 'ready' : 'not ready', checks });
    },
  );
  app.get(
    '/metrics',
    {
      config:
        options.metrics?.public === true ? { public: true } : { roles: ['operator', 'regulator'] },
      schema: {
        tags: ['operations'],
        summary: 'Prometheus metrics (text exposition format)',
        produces: ['text/plain'],
      },
    },
    async (_request, reply) => {
      await options.metrics?.beforeScrape?.();
      return reply
        .header('content-type', metrics.registry.contentType)
        .send(await metrics.registry.metrics());
    },
  );
  return app;
}

/** Routes of the API proper (not the documentation, the console or the probes). */
/** The methods whose requests may carry a body. */
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * The body of a command that takes none: nothing (read as undefined, or null), or an empty JSON
 * object, as some clients send; any field is a 400 naming it.
 */
const NO_BODY = z.strictObject({}).nullish();

function isApiRoute(url: string): boolean {
  return url.startsWith('/v1/') || url.startsWith('/internal/') || url === '/metrics';
}

/** A zod object that refuses unknown keys (`z.strictObject`, `.strict()`). */
function isStrictObject(schema: unknown): boolean {
  if (!(schema instanceof z.ZodObject)) return false;
  const catchall = schema.def.catchall;
  return catchall instanceof z.ZodNever;
}

const CLIENT_ERRORS: Readonly<Record<string, { code: ErrorCode; detail: string }>> = {
  ERR_HTTP_REQUEST_TIMEOUT: {
    code: 'REQUEST_TIMEOUT',
    detail: 'the request did not arrive in time: send the headers and the body at once',
  },
  HPE_HEADER_OVERFLOW: {
    code: 'HEADERS_TOO_LARGE',
    detail: 'the request line and headers are larger than this server reads',
  },
};

/**
 * Answers what Node refuses before there is a request: a problem+json on the socket, then the
 * socket closed (its state is unknown). A socket already reset or answered is only closed.
 */
function answerClientError(
  this: FastifyInstance,
  error: Error & { code?: string },
  socket: Socket,
): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const known = CLIENT_ERRORS[error.code ?? ''] ?? {
    code: 'VALIDATION_ERROR' as const,
    detail: 'the request is not valid HTTP',
  };
  this.log.info({ code: known.code, reason: error.code }, 'request refused by the HTTP parser');
  const status = ERROR_STATUS[known.code];
  const body = JSON.stringify({
    type: problemTypeOf(known.code),
    title: problemTitleOf(known.code),
    status,
    code: known.code,
    detail: known.detail,
    instance: '',
    correlationId: randomUUID(),
  });
  const headers = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}`,
    'Content-Type: application/problem+json',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
  ];
  if (socket.writable) socket.write(`${headers.join('\r\n')}\r\n\r\n${body}`);
  socket.destroy();
}

/** The route template a request matched ('unmatched' for a 404): a bounded metric label. */
function routeOf(request: FastifyRequest): string {
  return request.routeOptions.url ?? 'unmatched';
}

/** Swagger UI and the OpenAPI document: public, registered by @fastify/swagger-ui. */
function isDocumentation(request: FastifyRequest): boolean {
  const url = request.routeOptions.url;
  return url !== undefined && (url === '/docs' || url.startsWith('/docs/'));
}

/** The command context of a request: the caller, the request's correlation id, the clock. */
export function contextOf(request: { principal: Principal | null; id: string }): CommandContext {
  return {
    actor: actorOf(principalOf(request)),
    correlationId: request.id,
    causationId: null,
    now: () => new Date(),
  };
}

/** The authenticated principal of a route that is not public. */
export function principalOf(request: { principal: Principal | null }): Principal {
  if (request.principal === null) throw new DomainError('UNAUTHENTICATED', 'not authenticated');
  return request.principal;
}
