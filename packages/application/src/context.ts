import { SCHEMA_VERSION, type CommandContext, type EventMetadata } from '@croupier/contracts';
import { randomId } from './ids.js';

export type { CommandContext };

export const SYSTEM_CLOCK = (): Date => new Date();

/** A context for a system process (auto-dealer, settlement, sweeps). */
export function systemContext(
  process: string,
  causationId: string | null = null,
  correlationId?: string,
): CommandContext {
  return {
    actor: { id: process, role: 'system' },
    correlationId: correlationId ?? randomId(),
    causationId,
    now: SYSTEM_CLOCK,
  };
}

/** The same actor and correlation, caused by another event or command. */
export function causedBy(context: CommandContext, causationId: string): CommandContext {
  return { ...context, causationId };
}

export function metadataOf(context: CommandContext): EventMetadata {
  return {
    correlationId: context.correlationId,
    causationId: context.causationId,
    actor: context.actor,
    occurredAt: context.now().toISOString(),
    schemaVersion: SCHEMA_VERSION,
  };
}
