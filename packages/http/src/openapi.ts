import {
  ERROR_DESCRIPTIONS,
  ERROR_STATUS,
  ROLES,
  type ErrorCode,
  type Role,
} from '@croupier/contracts';
import type { SwaggerTransform } from '@fastify/swagger';
import type { FastifySchema, RouteOptions } from 'fastify';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';

/** The media type of every error answer. */
const PROBLEM_MEDIA_TYPE = 'application/problem+json';
/** Where the shared problem schema sits in the document's components. */
const PROBLEM_SCHEMA_REF = '#/components/schemas/Problem';

/** What the documentation needs to know about the app that is not on its routes. */
export interface DocumentationSettings {
  /** Whether the rate limiter is on (it answers 429 on every route not exempted). */
  readonly rateLimited: boolean;
}

/** Methods whose body fastify reads: they can meet bad JSON, a body too large, a media type. */
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** Reads of one resource answer its *_NOT_FOUND; NOT_FOUND itself is for unmatched routes. */
const UNMATCHED_ROUTE: ErrorCode = 'NOT_FOUND';
const CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

const STATUS_SUMMARIES: Readonly<Record<number, string>> = {
  400: 'The request is not valid',
  401: 'No valid bearer token',
  403: "The token's role may not do this",
  404: 'Not found',
  409: 'Conflicts with the current state',
  413: 'The body is too large',
  414: 'A path parameter is too long',
  415: 'The body is not JSON',
  422: 'Refused by a rule',
  429: 'Too many requests',
  500: 'Unexpected error',
  503: 'Unavailable',
};

/**
 * The error codes a route can answer, from how the app treats it: the schema validation, the
 * body parser, the token check, the role check, the rate limiter, the router's limits. The
 * handler's own codes come from `config.problems` when the route declares them; otherwise they
 * are inferred: a path parameter names a resource that may not exist (its *_NOT_FOUND), and a
 * command may conflict with the state (409) or break a rule (422).
 */
function problemCodesOf(route: RouteOptions, settings: DocumentationSettings): ErrorCode[] {
  const config = route.config ?? {};
  const schema: FastifySchema = route.schema ?? {};
  const methods = [route.method].flat().map((method) => method.toUpperCase());
  const readsBody = methods.some((method) => BODY_METHODS.has(method));
  const hasPathParameters = /[:*]/.test(route.url);
  const codes = new Set<ErrorCode>();
  // Path parameters fail their schema or their percent-encoding; bodies fail to parse as JSON.
  if (
    hasPathParameters ||
    readsBody ||
    schema.querystring !== undefined ||
    schema.headers !== undefined
  )
    codes.add('VALIDATION_ERROR');
  if (config.public !== true) {
    codes.add('UNAUTHENTICATED');
    if (rolesOf(route).length < ROLES.length) codes.add('FORBIDDEN');
  }
  if (hasPathParameters) codes.add('URI_TOO_LONG');
  if (readsBody) {
    codes.add('PAYLOAD_TOO_LARGE');
    codes.add('UNSUPPORTED_MEDIA_TYPE');
  }
  if (settings.rateLimited && config.rateLimit !== false) codes.add('RATE_LIMITED');
  const isCommand = methods.some((method) => method !== 'GET' && method !== 'HEAD');
  const handlerCodes =
    config.problems ??
    CODES.filter((code) => {
      const status = ERROR_STATUS[code];
      if (status === 404) return hasPathParameters && code !== UNMATCHED_ROUTE;
      return isCommand && (status === 409 || status === 422);
    });
  for (const code of handlerCodes) codes.add(code);
  codes.add('INTERNAL_ERROR');
  codes.add('UNAVAILABLE'); // a store, Redis or service outage, or a request during shutdown
  return CODES.filter((code) => codes.has(code));
}

/** The roles a route admits: none when public, every role when it only needs a token. */
function rolesOf(route: Pick<RouteOptions, 'config'>): readonly Role[] {
  const config = route.config ?? {};
  if (config.public === true) return [];
  return config.roles ?? ROLES;
}

/**
 * The swagger transform: the zod schemas become JSON Schema (fastify-type-provider-zod), then
 * each operation gets its problem responses, its roles (`x-roles` and the description) and its
 * security requirement. It changes only the document: the error responses are never put on the
 * route's own `schema.response`, where fastify would serialize real error bodies through them.
 */
export function operationTransform(settings: DocumentationSettings): SwaggerTransform {
  return (input) => {
    const { schema, url } = jsonSchemaTransform(input);
    const documented: FastifySchema & Record<string, unknown> = { ...schema };
    if (documented.hide === true) return { schema: documented, url };
    const { route } = input;
    const roles = rolesOf(route);
    const isPublic = route.config?.public === true;
    const response = { ...(documented.response as Record<string, unknown> | undefined) };
    // Without a success response swagger would document none: keep its bodiless default.
    if (!Object.keys(response).some((status) => status.startsWith('2')))
      response['200'] = { type: 'null', description: 'Default Response' };
    const byStatus = new Map<number, ErrorCode[]>();
    for (const code of problemCodesOf(route, settings)) {
      const status = ERROR_STATUS[code];
      byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
    }
    for (const [status, codes] of byStatus)
      response[String(status)] = problemResponse(status, codes, roles);
    const access = isPublic
      ? '**Public**: no token needed.'
      : `**Roles**: ${roles.join(', ')} (a bearer JWT whose \`role\` claim is one of them).`;
    return {
      schema: {
        ...documented,
        description:
          typeof documented.description === 'string'
            ? `${documented.description}\n\n${access}`
            : access,
        response,
        security: isPublic ? [] : [{ bearer: [] }],
        'x-roles': roles,
      },
      url,
    };
  };
}

function problemResponse(status: number, codes: readonly ErrorCode[], roles: readonly Role[]) {
  const lines = codes.map((code) => `- \`${code}\`: ${ERROR_DESCRIPTIONS[code].meaning}`);
  const allowed = status === 403 ? ` Allowed roles: ${roles.join(', ')}.` : '';
  return {
    description: `${STATUS_SUMMARIES[status] ?? 'Error'}.${allowed}\n\n${lines.join('\n')}`,
    ...(status === 429 || status === 503
      ? {
          headers: {
            'retry-after': { type: 'integer', description: 'Seconds until a request is allowed' },
          },
        }
      : {}),
    content: {
      [PROBLEM_MEDIA_TYPE]: {
        schema: {
          allOf: [
            { $ref: PROBLEM_SCHEMA_REF },
            {
              type: 'object',
              properties: {
                status: { type: 'integer', enum: [status] },
                code: { type: 'string', enum: codes },
              },
            },
          ],
        },
      },
    },
  };
}
