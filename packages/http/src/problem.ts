import { BetRejectedError } from '@croupier/baccarat';
import {
  DomainError,
  ERROR_STATUS,
  isErrorCode,
  TableConfigError,
  type ErrorCode,
} from '@croupier/contracts';
import { UnstorableTextError } from '@croupier/eventstore';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { withoutQueryCredentials } from './logging.js';
import { OUTAGE_RETRY_AFTER_SECONDS, outageOf } from './outage.js';

/** An RFC 9457 problem document, with Croupier's stable `code`. */
export interface Problem {
  readonly type: string;
  readonly title: string;
  readonly status: number;
  readonly code: ErrorCode;
  readonly detail: string;
  readonly instance: string;
  readonly correlationId: string;
  readonly errors?: readonly { field: string; message: string }[];
  /** The request that would take the next step, when a refusal names one. */
  readonly hint?: string;
  /**
   * The shoe a refusal is about, when it names one: a scanner table's new shoe that must be
   * burned before its first round (INVALID_DEAL), a shoe still in play (SHOE_NOT_FINISHED).
   */
  readonly shoeId?: string;
  /**
   * Seamless mode: the code the operator's wallet refused a stake with, when it is a code of the
   * wallet's own (OPERATOR_WALLET_REFUSED).
   */
  readonly walletCode?: string;
}

/**
 * The `Problem` above as JSON Schema, for the OpenAPI document: every error body has this shape
 * (a test checks real ones against the published document).
 */
export const problemJsonSchema = {
  type: 'object' as const,
  description:
    'An RFC 9457 problem. Switch on `code` (docs/errors.md), never on `title` or `detail`.',
  required: ['type', 'title', 'status', 'code', 'detail', 'instance', 'correlationId'],
  properties: {
    type: {
      type: 'string' as const,
      format: 'uri',
      description: 'https://croupier.dev/problems/ followed by the code in kebab case',
    },
    title: { type: 'string' as const, description: "The code's summary, the same every time" },
    status: { type: 'integer' as const, description: 'The HTTP status of the answer' },
    code: {
      type: 'string' as const,
      enum: Object.keys(ERROR_STATUS),
      description: 'The stable error code',
    },
    detail: { type: 'string' as const, description: 'What was wrong with this request' },
    instance: {
      type: 'string' as const,
      description:
        'The path and query of the request, credentials in the query redacted; empty when no request could be read (408, 431)',
    },
    correlationId: {
      type: 'string' as const,
      description: 'The x-correlation-id of the request: quote it when reporting a problem',
    },
    hint: {
      type: 'string' as const,
      description:
        'The request that would take the next step, when there is one (e.g. `POST /v1/shoes/t1.1/burn`)',
    },
    shoeId: {
      type: 'string' as const,
      description:
        'The shoe the refusal is about, when it names one: the new scanner shoe to burn before its first round (`INVALID_DEAL`; opening the round created it), or the shoe still in play (`SHOE_NOT_FINISHED`)',
    },
    walletCode: {
      type: 'string' as const,
      description:
        "Seamless mode: the operator's wallet's own code for a stake it refused (`OPERATOR_WALLET_REFUSED`), e.g. `SELF_EXCLUDED`",
    },
    errors: {
      type: 'array' as const,
      description: 'The fields that were wrong, when the problem is about fields',
      items: {
        type: 'object' as const,
        required: ['field', 'message'],
        properties: {
          field: { type: 'string' as const, description: 'e.g. `body.bets.0.amount`' },
          message: { type: 'string' as const },
        },
      },
    },
  },
};

/** The longest path parameter the router reads (fastify's `maxParamLength`, its default). */
const MAX_PATH_SEGMENT = 100;

const TITLES: Partial<Record<ErrorCode, string>> = {
  VALIDATION_ERROR: 'The request is not valid',
  UNAUTHENTICATED: 'Authentication is required',
  FORBIDDEN: 'Not allowed for this role',
  RATE_LIMITED: 'Too many requests',
  INTERNAL_ERROR: 'Internal error',
};

/** Fastify's own refusals (body too large, media type, ...) by status. */
const TRANSPORT_CODES: Partial<Record<number, ErrorCode>> = {
  401: 'UNAUTHENTICATED',
  408: 'REQUEST_TIMEOUT',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  413: 'PAYLOAD_TOO_LARGE',
  414: 'URI_TOO_LONG',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'RATE_LIMITED',
  431: 'HEADERS_TOO_LARGE',
};

/**
 * The router's refusals of a URL it cannot read. Fastify's own messages quote the path, and a
 * path can hold anything a client pasted into it (a whole token, for one): the problem says what
 * was wrong without echoing it.
 */
const URL_REFUSALS: Readonly<Record<string, string>> = {
  FST_ERR_MAX_PARAM_LENGTH: `a path parameter is longer than ${MAX_PATH_SEGMENT} characters: no id is that long`,
  FST_ERR_BAD_URL: 'the path is not valid percent-encoding',
};

/**
 * The problem's `instance`: the request's path and query, with credentials censored and any
 * path segment longer than a parameter may be written `...` (it is never an id the API knows).
 */
function instanceOf(url: string): string {
  const censored = withoutQueryCredentials(url);
  const query = censored.indexOf('?');
  const path = query < 0 ? censored : censored.slice(0, query);
  const shortened = path
    .split('/')
    .map((segment) => (segment.length > MAX_PATH_SEGMENT ? '...' : segment))
    .join('/');
  return query < 0 ? shortened : `${shortened}${censored.slice(query)}`;
}

/** The problem's `title`: the same short summary for every occurrence of a code. */
export function problemTitleOf(code: ErrorCode): string {
  return (
    TITLES[code] ??
    code
      .toLowerCase()
      .replace(/_/g, ' ')
      .replace(/^\w/, (c) => c.toUpperCase())
  );
}

/** The problem's `type`: a URI per code. */
export function problemTypeOf(code: ErrorCode): string {
  return `https://croupier.dev/problems/${code.toLowerCase().replace(/_/g, '-')}`;
}

/** Maps anything thrown by a route to a problem: known errors keep their code and message. */
export function problemOf(error: unknown, request: FastifyRequest): Problem {
  const base = (code: ErrorCode, detail: string, errors?: Problem['errors']): Problem => ({
    type: problemTypeOf(code),
    title: problemTitleOf(code),
    status: ERROR_STATUS[code],
    code,
    detail,
    instance: instanceOf(request.url),
    correlationId: request.id,
    ...(errors === undefined ? {} : { errors }),
  });
  if (error instanceof DomainError) {
    const field = typeof error.details.field === 'string' ? error.details.field : undefined;
    const hint = typeof error.details.hint === 'string' ? error.details.hint : undefined;
    const shoeId = typeof error.details.shoeId === 'string' ? error.details.shoeId : undefined;
    const walletCode =
      typeof error.details.walletCode === 'string' ? error.details.walletCode : undefined;
    const problem = base(
      error.code,
      error.message,
      field === undefined ? undefined : [{ field, message: error.message }],
    );
    return {
      ...problem,
      ...(hint === undefined ? {} : { hint }),
      ...(shoeId === undefined ? {} : { shoeId }),
      ...(walletCode === undefined ? {} : { walletCode }),
    };
  }
  if (error instanceof BetRejectedError) {
    return base(error.code, error.message, [{ field: error.field, message: error.message }]);
  }
  if (error instanceof TableConfigError) {
    return base(
      'INVALID_TABLE_CONFIG',
      error.message,
      error.issues.map((i) => ({ field: i.path, message: i.message })),
    );
  }
  // Every text field's schema refuses such text first; this catches a field that slipped by
  // (a token's claim, a header) at the store, as the client's error it is, not a 500.
  if (error instanceof UnstorableTextError) {
    const message = `cannot be stored: ${error.reason}`;
    return base('VALIDATION_ERROR', `${error.path}: ${message}`, [{ field: error.path, message }]);
  }
  if (hasZodFastifySchemaValidationErrors(error)) {
    const fields = error.validation.flatMap((issue) => {
      const field =
        `${error.validationContext ?? 'body'}${issue.instancePath.replace(/\//g, '.')}`.replace(
          /\.$/,
          '',
        );
      // An unknown key is named as a field of its own, so the client sees which one to drop.
      const unknown = (issue.params as { keys?: unknown } | undefined)?.keys;
      if (issue.keyword === 'unrecognized_keys' && Array.isArray(unknown)) {
        return unknown.map((key) => ({
          field: `${field}.${String(key)}`,
          message: 'is not a known field or parameter',
        }));
      }
      return [{ field, message: issue.message ?? 'is not valid' }];
    });
    return base(
      'VALIDATION_ERROR',
      fields.map((f) => `${f.field}: ${f.message}`).join('; '),
      fields,
    );
  }
  const fastifyError = error as Partial<FastifyError>;
  if (
    typeof fastifyError.statusCode === 'number' &&
    fastifyError.statusCode >= 400 &&
    fastifyError.statusCode < 500
  ) {
    const code: ErrorCode = TRANSPORT_CODES[fastifyError.statusCode] ?? 'VALIDATION_ERROR';
    const problem = base(
      code,
      code === 'UNSUPPORTED_MEDIA_TYPE'
        ? unsupportedMediaTypeDetail(request)
        : (URL_REFUSALS[fastifyError.code ?? ''] ?? fastifyError.message ?? 'bad request'),
    );
    return { ...problem, status: fastifyError.statusCode };
  }
  // A store, Redis or service that could not be reached is not a bug: 503, and retry.
  const outage = outageOf(error);
  if (outage !== null)
    return base('UNAVAILABLE', `the ${outage.dependency} is unavailable (${outage.reason}): retry`);
  const code = (error as { code?: unknown }).code;
  if (isErrorCode(code)) return base(code, (error as Error).message);
  return base(
    'INTERNAL_ERROR',
    'an unexpected error occurred; it has been logged with the correlation id',
  );
}

/** What a 415 tells the client: what it sent, and what to send instead. */
function unsupportedMediaTypeDetail(request: FastifyRequest): string {
  const given = request.headers['content-type'];
  const sent =
    given === undefined ? 'a body without a content-type' : `content-type ${given.slice(0, 100)}`;
  return `the body must be application/json; got ${sent}`;
}

/** Answers a problem; a 503 always says when to retry (Retry-After), whatever made it. */
export function sendProblem(reply: FastifyReply, problem: Problem): FastifyReply {
  if (problem.status === 503 && !reply.hasHeader('retry-after'))
    void reply.header('retry-after', String(OUTAGE_RETRY_AFTER_SECONDS));
  return reply.status(problem.status).type('application/problem+json').send(problem);
}
