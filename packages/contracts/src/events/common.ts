import type { Card } from '@croupier/baccarat';
import { z } from 'zod';

export const cardSchema = z
  .string()
  .regex(/^[A2-9TJQK][CDHS]$/, 'must be a card: rank A,2-9,T,J,Q,K then suit C,D,H,S')
  .transform((card) => card as Card);
export const handSchema = z.enum(['player', 'banker']);
export { bankerModeSchema, betTypeSchema } from '../table-config.js';
export const winnerSchema = z.enum(['player', 'banker', 'tie']);
export const shoePositionSchema = z.number().int().nonnegative();

/** Builds the zod schema of one event: a literal type and its data. */
export function eventSchema<const T extends string, D extends z.ZodType>(type: T, data: D) {
  return z.object({ type: z.literal(type), data }).strict();
}

/** The event types of a union of event schemas, in its order. */
export function eventTypesOf<T extends string>(union: {
  readonly options: readonly { readonly shape: { readonly type: { readonly value: T } } }[];
}): T[] {
  return union.options.map((option) => option.shape.type.value);
}

/** Parse results by event object and schema: dropped with the event. */
const parsedEvents = new WeakMap<object, Map<z.ZodType, unknown>>();

/**
 * A recorded event's `{type, data}` parsed by `schema`, once per event object and schema. The
 * read models of a process are handed the same event objects, and each parsed what it reads in
 * its `keysOf` and again in its `apply`: about ten parses of every round event in a catch-up, a
 * fifth of its CPU (docs/adr/0047). The answer is shared by every caller, so it is frozen: a
 * model that changed it would change it for the models after it. A failed parse is not kept
 * (each caller gets its own error).
 */
export function parseRecorded<S extends z.ZodType>(
  schema: S,
  event: { readonly type: string; readonly data: unknown },
): z.output<S> {
  let bySchema = parsedEvents.get(event);
  if (bySchema === undefined) {
    bySchema = new Map();
    parsedEvents.set(event, bySchema);
  }
  if (bySchema.has(schema)) return bySchema.get(schema) as z.output<S>;
  const parsed = deepFreeze(schema.parse({ type: event.type, data: event.data }));
  bySchema.set(schema, parsed);
  return parsed;
}

function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  Object.freeze(value);
  for (const child of Object.values(value)) deepFreeze(child);
  return value;
}
