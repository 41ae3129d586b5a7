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
