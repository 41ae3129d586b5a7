import type { RecordedEvent } from '@croupier/eventstore';

/**
 * What every published message says of the event it comes from, read from the stored record:
 * its id, its global position (a decimal string: it may exceed 2^53), its hash in its stream's
 * chain, and when it was recorded (the hashed occurred-at, or the store's time without one).
 */
export function messageOriginOf(event: RecordedEvent): {
  eventId: string;
  position: string;
  verificationHash: string;
  occurredAt: string;
} {
  const metadata = event.metadata as { hash?: unknown; occurredAt?: unknown };
  return {
    eventId: event.id,
    position: event.position.toString(),
    verificationHash: String(metadata.hash),
    occurredAt:
      typeof metadata.occurredAt === 'string'
        ? metadata.occurredAt
        : event.recordedAt.toISOString(),
  };
}
