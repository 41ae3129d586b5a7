import { randomUUID } from 'node:crypto';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { DomainError, type CommandContext, type Role } from '@croupier/contracts';
import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyServerOptions,
  type RawReplyDefaultExpression,
  type RawRequestDefaultExpression,
  type RawServerDefault,
} from 'fastify';
import {
  jsonSchemaTransform,
  serializerCompiler,
  validatorCompiler,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod';
import { z } from 'zod';
import { actorOf, type Principal, type TokenAuthority } from './auth.js';
import { problemOf, sendProblem } from './problem.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Roles allowed to call the route; absent on public routes. */
    roles?: readonly Role[];
    public?: boolean;
  }
  interface FastifyRequest {
    principal: Principal | null;
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
    logger: options.logger ?? false,
    bodyLimit: options.bodyLimit ?? 64 * 1024,
    genReqId: (request) => {
      const given = request.headers[CORRELATION_HEADER];
      return typeof given === 'string' && CORRELATION_ID.test(given) ? given : randomUUID();
    },
    logController: new LogController({ requestIdLogLabel: 'correlationId' }),
  }).withTypeProvider<ZodTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.decorateRequest('principal', null);

  await app.register(swagger, {
    openapi: {
      info: {
        title: options.title,
        version: options.version,
        description: options.description ?? '',
      },
      components: {
        securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
      },
      security: [{ bearer: [] }],
    },
    transform: jsonSchemaTransform,
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });

  app.addHook('onRequest', async (request, reply) => {
    void reply.header(CORRELATION_HEADER, request.id);
    const config = request.routeOptions.config;
    if (config.public === true || request.url.startsWith('/docs')) return;
    const header = request.headers.authorization;
    if (header === undefined || !header.startsWith('Bearer ')) {
      throw new DomainError('UNAUTHENTICATED', 'send a bearer token: Authorization: Bearer <JWT>');
    }
    request.principal = await options.tokens.verify(header.slice('Bearer '.length).trim());
    const roles = config.roles;
    if (roles !== undefined && !roles.includes(request.principal.role)) {
      throw new DomainError(
        'FORBIDDEN',
        `the ${request.principal.role} role may not ${request.method} ${request.routeOptions.url ?? request.url}`,
      );
    }
  });

  app.setErrorHandler((error, request, reply) => {
    const problem = problemOf(error, request);
    if (problem.status >= 500) request.log.error({ err: error }, 'request failed');
    else request.log.info({ code: problem.code, detail: problem.detail }, 'request refused');
    return sendProblem(reply, problem);
  });
  app.setNotFoundHandler((request, reply) =>
    sendProblem(
      reply,
      problemOf(new DomainError('NOT_FOUND', `no route ${request.method} ${request.url}`), request),
    ),
  );

  app.get(
    '/health',
    {
      config: { public: true },
      schema: { hide: true, response: { 200: z.object({ status: z.literal('ok') }) } },
    },
    () => ({ status: 'ok' as const }),
  );
  app.get(
    '/ready',
    { config: { public: true }, schema: { hide: true } },
    async (_request, reply) => {
      const checks = (await options.readiness?.()) ?? {};
      const ready = Object.values(checks).every(Boolean);
      return reply
        .status(ready ? 200 : 503)
        .send({ status: ready ? 'ready' : 'not ready', checks });
    },
  );
  return app;
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
