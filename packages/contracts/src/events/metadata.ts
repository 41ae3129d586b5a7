import { z } from 'zod';
import { isoTimestampSchema } from '../ids.js';

export const ROLES = ['player', 'dealer', 'supervisor', 'operator', 'regulator', 'system'] as const;
export const roleSchema = z.enum(ROLES);
export type Role = z.infer<typeof roleSchema>;

/** Who caused an event: a person with a role, or a named system process. */
export const actorSchema = z.object({ id: z.string().min(1).max(128), role: roleSchema }).strict();
export type Actor = z.infer<typeof actorSchema>;

/** Current version of every event schema; bumped per event type when a shape changes. */
export const SCHEMA_VERSION = 1;

/**
 * Metadata every event carries besides the store's hash chain (`prevHash`, `hash`, added by the
 * event store): who, when, why (correlation: the request or process; causation: the event or
 * command that led to it) and which schema version its data follows.
 */
export const eventMetadataSchema = z
  .object({
    correlationId: z.string().min(1).max(128),
    causationId: z.string().min(1).max(128).nullable(),
    actor: actorSchema,
    occurredAt: isoTimestampSchema,
    schemaVersion: z.number().int().positive(),
  })
  .loose();
export type EventMetadata = z.infer<typeof eventMetadataSchema>;
