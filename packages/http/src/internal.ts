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
 * Calls another service's internal routes with a service token, carrying the command context.
 * A problem+json answer is rethrown as the DomainError it was, so callers handle a refusal the
 * same whether the service runs in this process or another; a network failure stays an error
 * of its own (the caller cannot know whether the command was applied).
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
    const response = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers,
      signal: AbortSignal.timeout(this.timeoutMs),
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    const payload: unknown = text.length > 0 ? JSON.parse(text) : null;
    if (response.ok) return payload as T;
    const problem = payload as Partial<Problem> | null;
    if (problem !== null && isErrorCode(problem.code) && response.status < 500) {
      throw new DomainError(problem.code, problem.detail ?? problem.code);
    }
    throw new Error(`${method} ${path} failed with ${response.status}: ${text.slice(0, 300)}`);
  }
}
