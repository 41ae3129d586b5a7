import type { RecordedEvent } from '@croupier/eventstore';
import type { z } from 'zod';
import type { VerdictBuilder } from './verdict.js';

/** An event parsed with its published schema, kept with the record it came from. */
export interface Parsed<E> {
  readonly recorded: RecordedEvent;
  readonly event: E;
}

interface EventUnion<E> {
  readonly options: readonly { readonly shape: { readonly type: { readonly value: string } } }[];
  safeParse(input: unknown): z.ZodSafeParseResult<E>;
}

/** The type names a discriminated union of event schemas knows. */
function knownTypes<E>(schema: EventUnion<E>): Set<string> {
  return new Set(schema.options.map((option) => option.shape.type.value));
}

/**
 * Parses a stream's events with their schema. An event of a known type whose data does not match
 * is a finding (it cannot have been written by the services); a type this auditor does not know
 * (added after it was written) is noted and left out of the replay.
 */
export function parseStream<E>(
  events: readonly RecordedEvent[],
  schema: EventUnion<E>,
  verdict: VerdictBuilder,
): Parsed<E>[] {
  const known = knownTypes(schema);
  const parsed: Parsed<E>[] = [];
  for (const recorded of events) {
    if (!known.has(recorded.type)) {
      verdict.note(
        `${recorded.stream}@${recorded.revision}: ${recorded.type} is not an event type this auditor interprets`,
      );
      continue;
    }
    const result = schema.safeParse({ type: recorded.type, data: recorded.data });
    if (result.success) {
      parsed.push({ recorded, event: result.data });
      continue;
    }
    verdict.fail(
      'event-schema',
      'SCHEMA_INVALID',
      { stream: recorded.stream, revision: recorded.revision, type: recorded.type },
      `${recorded.type} does not match its schema: ${result.error.issues
        .map((issue) => `${issue.path.join('.') || '(data)'}: ${issue.message}`)
        .join('; ')}`,
    );
  }
  verdict.pass('event-schema');
  return parsed;
}

/** Who recorded an event and when, from its metadata (null where it is missing). */
export function provenanceOf(recorded: RecordedEvent): {
  actor: { id: string; role: string } | null;
  occurredAt: string | null;
} {
  const { actor, occurredAt } = recorded.metadata as {
    actor?: { id?: unknown; role?: unknown };
    occurredAt?: unknown;
  };
  return {
    actor:
      actor !== undefined && typeof actor.id === 'string' && typeof actor.role === 'string'
        ? { id: actor.id, role: actor.role }
        : null,
    occurredAt: typeof occurredAt === 'string' ? occurredAt : null,
  };
}

/** Where a finding about this event points. */
export const locationOf = (recorded: RecordedEvent) => ({
  stream: recorded.stream,
  revision: recorded.revision,
  type: recorded.type,
});
