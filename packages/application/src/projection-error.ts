import type { RecordedEvent } from '@croupier/eventstore';

/** A read model could not apply an event: the model, the event and why (docs/adr/0023). */
export class ProjectionError extends Error {
  constructor(
    readonly projection: string,
    readonly event: RecordedEvent,
    override readonly cause: unknown,
  ) {
    super(
      `projection ${projection} failed on ${event.type} at ${event.stream}@${event.revision}: ${String(cause)}`,
    );
    this.name = 'ProjectionError';
  }
}
