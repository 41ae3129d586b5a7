import {
  actorSchema,
  DomainError,
  isErrorCode,
  type Actor,
  type CommandContext,
} from '@croupier/contracts';
import type { FastifyRequest } from 'fastify';
import { principalOf } from './app.js';
import type { Problem } from './problem.js';

/** Headers that carry a command's context from one service to the next. */
export const ACTOR_HEADER = 'x-croupier-actor';
export const CAUSATION_HEADER = 'x-croupier-causation-id';
export const CORRELATION_HEADER = 'x-correlation-id';

/**
 * The context of an internal request: the service token authenticates the calling service, the
 * headers say on whose behalf it acts, so every event still records the person who caused it.
 */
export function internalContextOf(request: FastifyRequest): CommandContext {
  const principal = principalOf(request);
  if (principal.role !== 'system')
    throw new DomainError('FORBIDDEN', 'internal routes are for services only');
  const header = request.headers[ACTOR_HEADER];
  let actor: Actor = { id: principal.id, role: principal.role };
  if (typeof header === 'string') {
    let candidate: unknown;
    try {
      candidate = JSON.parse(header);
    } catch {
      candidate = null;
    }
    const parsed = actorSchema.safeParse(candidate);
    if (!parsed.success) throw new DomainError('VALIDATION_ERROR', `${ACTOR_HEADER}: not an actor`);
    actor = parsed.data;
  }
  const causation = request.headers[CAUSATION_HEADER];
  return {
    actor,
    correlationId: request.id,
    causationId: typeof causation === 'string' ? causation : null,
    now: () => new Date(),
  };
}

/**
 * Another service could not be reached (refused, reset, timed out) or answered 503. The caller's
 * client gets a 503 UNAVAILABLE problem and retries; the ids every command carries (bet ids,
 * references) make a retry count once. Deliberately not a DomainError: after a timeout the
 * command may have been applied, so code that compensates a refusal must not take it for one.
 */
export class ServiceUnavailableError extends Error {
  readonly code = 'UNAVAILABLE' as const;
  constructor(
    readonly service: string,
    /** How it failed: an errno, an undici code, `503`. */
    readonly reason: string,
  ) {
    super(`${service} is unavailable (${reason}): retry the request`);
    this.name = 'ServiceUnavailableError';
  }
}

/**
 * Calls another service's internal routes with a service token, carrying the command context.
 * A problem+json answer is rethrown as the DomainError it was, so callers handle a refusal the
 * same whether the service runs in this process or another; a service that cannot be reached is
 * a ServiceUnavailableError (the caller cannot know whether the command was applied).
 */
export class ServiceClient {
  constructor(
    private readonly baseUrl: string,
    private readonly token: () => Promise<string>,
    private readonly timeoutMs = 10_000,
  ) {}

  async call<T>(
    method: 'GET' | 'POST',
    path: string,
    context: CommandContext | null,
    body?: unknown,
  ): Promise<T> {
    const headers: Record<string, string> = { authorization: `Bearer ${await this.token()}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (context !== null) {
      headers[ACTOR_HEADER] = JSON.stringify(context.actor);
      headers[CORRELATION_HEADER] = context.correlationId;
      if (context.causationId !== null) headers[CAUSATION_HEADER] = context.causationId;
    }
    let response: Response;
    let text: string;
    try {
      response = await fetch(`${this.baseUrl}${path}`, {
        method,
        headers,
        signal: AbortSignal.timeout(this.timeoutMs),
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      text = await response.text();
    } catch (error) {
      // fetch reports the socket's failure (ECONNREFUSED, ECONNRESET, ...) as its cause.
      const cause = (error as { cause?: { code?: unknown } }).cause;
      const reason = typeof cause?.code === 'string' ? cause.code : (error as Error).message;
      throw new ServiceUnavailableError(this.baseUrl, reason);
    }
    if (response.status === 503) {
      // The peer's own words, when it said why (its operator's wallet did not answer, its
      // store is down): the caller's client sees what to wait for.
      const detail = (parseProblem(text) as Partial<Problem> | null)?.detail;
      throw new ServiceUnavailableError(
        this.baseUrl,
        typeof detail === 'string' ? `503: ${detail.slice(0, 300)}` : '503',
      );
    }
    const payload: unknown = text.length > 0 ? JSON.parse(text) : null;
    if (response.ok) return payload as T;
    const problem = payload as Partial<Problem> | null;
    if (problem !== null && isErrorCode(problem.code) && response.status < 500) {
      throw new DomainError(problem.code, problem.detail ?? problem.code);
    }
    throw new Error(`${method} ${path} failed with ${response.status}: ${text.slice(0, 300)}`);
  }
}

function parseProblem(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}
