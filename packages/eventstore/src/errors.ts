import type { ExpectedVersion, StreamState } from './port.js';

/** Base class of every error the event store throws on purpose; `code` is stable. */
export abstract class EventStoreError extends Error {
  abstract readonly code: string;
}

function describeVersion(version: ExpectedVersion | StreamState): string {
  return typeof version === 'bigint' ? `revision ${version}` : version;
}

/** The stream is not at the version the caller expected. */
export class WrongExpectedVersionError extends EventStoreError {
  readonly code = 'WRONG_EXPECTED_VERSION';
  constructor(
    readonly stream: string,
    readonly expected: ExpectedVersion,
    readonly actual: StreamState,
  ) {
    super(
      `stream ${JSON.stringify(stream)}: expected ${describeVersion(expected)}, found ${describeVersion(actual)}`,
    );
    this.name = 'WrongExpectedVersionError';
  }
}

/** An event id is already stored, and not as an idempotent retry of the same append. */
export class DuplicateEventIdError extends EventStoreError {
  readonly code = 'DUPLICATE_EVENT_ID';
  constructor(
    readonly stream: string,
    readonly eventId: string,
    /** Where the id is stored, when the store could tell. */
    readonly storedIn?: { readonly stream: string; readonly revision: bigint },
  ) {
    super(
      storedIn === undefined
        ? `event id ${eventId} is already stored (appending to ${JSON.stringify(stream)})`
        : `event id ${eventId} is already stored at ${JSON.stringify(storedIn.stream)}@${storedIn.revision} (appending to ${JSON.stringify(stream)})`,
    );
    this.name = 'DuplicateEventIdError';
  }
}

/** A stream name the store does not accept. */
export class StreamNameError extends EventStoreError {
  readonly code = 'INVALID_STREAM_NAME';
  constructor(
    readonly stream: string,
    reason: string,
  ) {
    super(`invalid stream name ${JSON.stringify(stream)}: ${reason}`);
    this.name = 'StreamNameError';
  }
}

/** Bad input other than the stream name: empty batch, bad id, non-JSON data, bad options. */
export class EventValidationError extends EventStoreError {
  readonly code = 'INVALID_EVENT';
  constructor(message: string) {
    super(message);
    this.name = 'EventValidationError';
  }
}

/**
 * A string of an event (in its data or metadata, a value or a key) that no store can keep:
 * U+0000, or a lone UTF-16 surrogate (PostgreSQL refuses both, 22P02). `path` names it
 * (`data.reference`), so a caller can tell its client which field to fix.
 */
export class UnstorableTextError extends EventValidationError {
  constructor(
    where: string,
    readonly path: string,
    readonly reason: string,
  ) {
    super(`${where}: ${path} ${reason}`);
    this.name = 'UnstorableTextError';
  }
}

/** A value cannot be encoded as canonical JSON (bigint, NaN, Infinity, function, symbol, cycle). */
export class CanonicalJsonError extends EventStoreError {
  readonly code = 'NOT_CANONICAL_JSON';
  constructor(
    readonly path: string,
    reason: string,
  ) {
    super(`cannot encode ${path} as canonical JSON: ${reason}`);
    this.name = 'CanonicalJsonError';
  }
}

/** `caughtUp()` of a subscription that was stopped before it caught up. */
export class SubscriptionStoppedError extends EventStoreError {
  readonly code = 'SUBSCRIPTION_STOPPED';
  constructor(readonly subscription: string) {
    super(`subscription ${JSON.stringify(subscription)} stopped before it caught up`);
    this.name = 'SubscriptionStoppedError';
  }
}

/** The checkpoint moved under the consumer: another consumer owns the subscription now. */
export class SubscriptionOwnershipLostError extends EventStoreError {
  readonly code = 'SUBSCRIPTION_OWNERSHIP_LOST';
  constructor(readonly subscription: string) {
    super(
      `subscription ${JSON.stringify(subscription)}: checkpoint changed under this consumer; it stands by again`,
    );
    this.name = 'SubscriptionOwnershipLostError';
  }
}

/** The store was closed. */
export class EventStoreClosedError extends EventStoreError {
  readonly code = 'EVENT_STORE_CLOSED';
  constructor() {
    super('the event store is closed');
    this.name = 'EventStoreClosedError';
  }
}
