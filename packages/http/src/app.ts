import { randomUUID } from 'node:crypto';
import helmet from '@fastify/helmet';
import rateLimit from '@fastify/rate-limit';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { DomainError, type CommandContext, type ErrorCode, type Role } from '@croupier/contracts';
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
import {
  serializerCompiler,
  validatorCompiler,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod';
import { z } from 'zod';
import { actorOf, type Principal, type TokenAuthority } from './auth.js';
import { secureFastifyLogger } from './logging.js';
import { HttpMetrics, type AuthFailureReason, type HttpMetricsOptions } from './metrics.js';
import { operationTransform } from './openapi.js';
import { problemJsonSchema, problemOf, sendProblem, type Problem } from './problem.js';

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
}

const CORRELATION_HEADER = 'x-correlation-id';
const CORRELATION_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The fastify app every service builds its routes on: zod schemas through the type provider
 * (the same schemas make the OpenAPI document at /docs), JWT roles on every route not marked
 * public, problem+json errors with stable codes, correlation ids in and out and in every log
 * line, /health and /ready.
 */
export async function createHttpApp(options: HttpAppOptions): Promise<HttpApp> {
  const app = Fastify({
    logger: secureFastifyLogger(options.logger),
    bodyLimit: options.bodyLimit ?? 64 * 1024,
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
  app.setSerializerCompiler(serializerCompiler);
  app.decorateRequest('principal', null);
  app.decorateRequest('refusal', null);
  const metrics = new HttpMetrics(options.metrics);
  app.decorate('metrics', metrics);

  // Security headers on every answer, problems included. The pages (/docs, /console) load only
  // same-origin scripts; Swagger UI sets inline style attributes, hence 'unsafe-inline' styles.
  await app.register(helmet, {
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

  const perMinute = options.rateLimitPerMinute ?? 6_000;
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
      return;
    }
    try {
      request.principal = await options.tokens.verify(match[1]!);
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      request.refusal = error;
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
    // Failed logins and refused roles are security events: who, from where, why. Never the token.
    request.log.warn(
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
      new DomainError('NOT_FOUND', `no route ${request.method} ${request.url}`),
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
