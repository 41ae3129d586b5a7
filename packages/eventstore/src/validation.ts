import { canonicalJson } from './canonical-json.js';
import { EventValidationError, StreamNameError, UnstorableTextError } from './errors.js';
import { CHAIN_KEYS, metadataWithoutChain } from './hash-chain.js';
import type {
  AppendOptions,
  EventFilter,
  ExpectedVersion,
  NewEvent,
  ReadAllOptions,
  ReadStreamOptions,
  SubscribeOptions,
} from './port.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Longest accepted stream name, in UTF-16 code units (leaves room for prefixes in every store). */
export const MAX_STREAM_NAME_LENGTH = 256;
// C0/C1 control characters and U+0000 (which PostgreSQL text cannot hold).
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** Rejects names the adapters cannot all store the same way. `$` names are system streams. */
export function validateStreamName(stream: unknown): asserts stream is string {
  if (typeof stream !== 'string') throw new StreamNameError(String(stream), 'must be a string');
  if (stream.length === 0) throw new StreamNameError(stream, 'must not be empty');
  if (stream.length > MAX_STREAM_NAME_LENGTH) {
    throw new StreamNameError(stream, `must be at most ${MAX_STREAM_NAME_LENGTH} characters`);
  }
  if (stream.trim() !== stream)
    throw new StreamNameError(stream, 'must not start or end with spaces');
  if (CONTROL.test(stream))
    throw new StreamNameError(stream, 'must not contain control characters');
  if (stream.startsWith('$'))
    throw new StreamNameError(stream, '"$" names are reserved for system streams');
}

export function validateExpectedVersion(options: AppendOptions | undefined): ExpectedVersion {
  const expected = (options as { expectedVersion?: unknown } | undefined)?.expectedVersion;
  if (expected === 'no-stream' || expected === 'any' || expected === 'exists') return expected;
  if (typeof expected === 'bigint' && expected >= 0n) return expected;
  throw new EventValidationError(
    `expectedVersion must be 'no-stream', 'any', 'exists' or a bigint revision >= 0n; got ${typeof expected === 'bigint' ? `${expected}n` : JSON.stringify(expected)}`,
  );
}

/**
 * Checks an append's input in the order every adapter reports it: stream name, expected version,
 * then the events, each serialized once.
 */
export function validateAppend(
  stream: string,
  events: readonly NewEvent[],
  options: AppendOptions,
): { expected: ExpectedVersion; encoded: EncodedEvent[] } {
  validateStreamName(stream);
  const expected = validateExpectedVersion(options);
  return { expected, encoded: encodeEvents(stream, events) };
}

/** An event checked and serialized once: the text every adapter stores and hashes. */
export interface EncodedEvent {
  readonly id: string;
  readonly type: string;
  /** canonicalJson(data) */
  readonly dataJson: string;
  /** canonicalJson(metadata), without chain fields */
  readonly metadataJson: string;
  /** canonicalJson({type, data, metadata}): what the chain hashes after `prevHash`. */
  readonly chainContent: string;
}

/** Validates a batch and serializes each event once (data, metadata and the hashed content). */
export function encodeEvents(stream: string, events: readonly NewEvent[]): EncodedEvent[] {
  if (!Array.isArray(events)) throw new EventValidationError('events must be an array');
  if (events.length === 0) {
    throw new EventValidationError(`append to ${JSON.stringify(stream)}: the events list is empty`);
  }
  const seen = new Set<string>();
  return events.map((event: NewEvent, index) => {
    const where = `append to ${JSON.stringify(stream)}, event #${index}`;
    if (typeof event.id !== 'string' || !UUID.test(event.id)) {
      throw new EventValidationError(
        `${where}: id must be a UUID, got ${JSON.stringify(event.id)}`,
      );
    }
    const id = event.id.toLowerCase();
    if (seen.has(id))
      throw new EventValidationError(`${where}: id ${id} appears twice in the batch`);
    seen.add(id);
    if (typeof event.type !== 'string' || event.type.length === 0 || event.type.length > 256) {
      throw new EventValidationError(
        `${where}: type must be a non-empty string of at most 256 characters`,
      );
    }
    if (CONTROL.test(event.type)) {
      throw new EventValidationError(`${where}: type must not contain control characters`);
    }
    const metadata: unknown = event.metadata;
    if (
      metadata !== undefined &&
      (metadata === null || typeof metadata !== 'object' || Array.isArray(metadata))
    ) {
      throw new EventValidationError(`${where}: metadata must be an object`);
    }
    for (const key of CHAIN_KEYS) {
      if (metadata !== undefined && Object.hasOwn(metadata, key)) {
        throw new EventValidationError(`${where}: metadata.${key} is reserved for the hash chain`);
      }
    }
    if (event.data === undefined) throw new EventValidationError(`${where}: data is required`);
    let dataJson: string;
    let metadataJson: string;
    try {
      dataJson = canonicalJson(event.data);
      metadataJson = canonicalJson(
        metadataWithoutChain(metadata as Record<string, unknown> | undefined),
      );
    } catch (error) {
      throw new EventValidationError(
        `${where}: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    const unstorable =
      unstorableTextIn(event.data, 'data') ?? unstorableTextIn(metadata ?? {}, 'metadata');
    if (unstorable !== null)
      throw new UnstorableTextError(where, unstorable.path, unstorable.reason);
    // Keys sort as data < metadata < type, so this is canonicalJson({type, data, metadata}).
    const chainContent = `{"data":${dataJson},"metadata":${metadataJson},"type":${JSON.stringify(event.type)}}`;
    return { id, type: event.type, dataJson, metadataJson, chainContent };
  });
}

/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function unstorableReason(text: string): string | null {
  if (text.includes('\u0000')) return 'must not contain U+0000';
  if (LONE_SURROGATE.test(text)) return 'must be well-formed Unicode (holds a lone surrogate)';
  return null;
}

/**
 * The first string, value or key, that PostgreSQL cannot store, with its path. Runs on values
 * canonicalJson has accepted, so there are no cycles; `toJSON` values (dates) are ASCII.
 */
function unstorableTextIn(value: unknown, path: string): { path: string; reason: string } | null {
  if (typeof value === 'string') {
    const reason = unstorableReason(value);
    return reason === null ? null : { path, reason };
  }
  if (value === null || typeof value !== 'object') return null;
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = unstorableTextIn(item, `${path}.${index}`);
      if (found !== null) return found;
    }
    return null;
  }
  for (const [key, item] of Object.entries(value)) {
    const keyReason = unstorableReason(key);
    if (keyReason !== null)
      return { path: `${path} key ${JSON.stringify(key)}`, reason: keyReason };
    const found = unstorableTextIn(item, `${path}.${key}`);
    if (found !== null) return found;
  }
  return null;
}

export function validateReadStreamOptions(options: ReadStreamOptions | undefined): {
  from: bigint | null;
  direction: 'forwards' | 'backwards';
  limit: number | null;
} {
  const direction: unknown = options?.direction ?? 'forwards';
  if (direction !== 'forwards' && direction !== 'backwards') {
    throw new EventValidationError(`direction must be 'forwards' or 'backwards'`);
  }
  const from: unknown = options?.from;
  if (from !== undefined && (typeof from !== 'bigint' || from < 0n)) {
    throw new EventValidationError('from must be a bigint revision >= 0n');
  }
  return {
    from: from ?? null,
    direction,
    limit: validateLimit(options?.limit),
  };
}

export function validateReadAllOptions(options: ReadAllOptions | undefined): {
  after: bigint;
  limit: number | null;
  filter: NormalizedFilter;
} {
  const after = options?.after ?? 0n;
  if (typeof after !== 'bigint' || after < 0n) {
    throw new EventValidationError('after must be a bigint position >= 0n');
  }
  return { after, limit: validateLimit(options?.limit), filter: normalizeFilter(options?.filter) };
}

function validateLimit(limit: unknown): number | null {
  if (limit === undefined) return null;
  if (typeof limit !== 'number' || !Number.isSafeInteger(limit) || limit <= 0) {
    throw new EventValidationError(
      `limit must be a positive integer, got ${typeof limit === 'number' ? limit : typeof limit}`,
    );
  }
  return limit;
}

/** A filter with `null` for "match everything" (what the SQL takes). */
export interface NormalizedFilter {
  readonly streamPrefix: string | null;
  readonly eventTypes: readonly string[] | null;
}

export function normalizeFilter(filter: EventFilter | undefined): NormalizedFilter {
  const streamPrefix = filter?.streamPrefix;
  if (streamPrefix !== undefined && typeof streamPrefix !== 'string') {
    throw new EventValidationError('filter.streamPrefix must be a string');
  }
  const eventTypes: unknown = filter?.eventTypes;
  if (
    eventTypes !== undefined &&
    (!Array.isArray(eventTypes) || eventTypes.some((type) => typeof type !== 'string'))
  ) {
    throw new EventValidationError('filter.eventTypes must be an array of strings');
  }
  return {
    streamPrefix: streamPrefix === undefined || streamPrefix === '' ? null : streamPrefix,
    eventTypes: eventTypes === undefined ? null : [...(eventTypes as readonly string[])],
  };
}

/** True when the event passes the filter (the SQL applies the same rule in the query). */
export function matchesFilter(filter: NormalizedFilter, stream: string, type: string): boolean {
  return (
    (filter.streamPrefix === null || stream.startsWith(filter.streamPrefix)) &&
    (filter.eventTypes === null || filter.eventTypes.includes(type))
  );
}

export function validateSubscribeOptions(options: SubscribeOptions): void {
  if (typeof options.name !== 'string' || options.name.length === 0 || options.name.length > 200) {
    throw new EventValidationError(
      'subscription name must be a non-empty string of at most 200 characters',
    );
  }
  if (typeof options.handler !== 'function')
    throw new EventValidationError('handler must be a function');
  const from = options.from;
  if (
    from !== undefined &&
    from !== 'start' &&
    from !== 'end' &&
    !(typeof from === 'bigint' && from >= 0n)
  ) {
    throw new EventValidationError(`from must be 'start', 'end' or a bigint position >= 0n`);
  }
  const checkpoints: unknown = options.checkpoints;
  if (checkpoints !== undefined && checkpoints !== 'per-event' && checkpoints !== 'per-page') {
    throw new EventValidationError(
      `checkpoints must be 'per-event' or 'per-page', not ${JSON.stringify(checkpoints)}`,
    );
  }
  const interval: unknown = options.readIntervalMs;
  if (
    interval !== undefined &&
    !(typeof interval === 'number' && Number.isInteger(interval) && interval >= 0)
  ) {
    throw new EventValidationError(
      `readIntervalMs must be a whole number of milliseconds >= 0, not ${typeof interval === 'number' ? String(interval) : `a ${typeof interval}`}`,
    );
  }
  const concurrent: unknown = options.concurrentStreams;
  if (
    concurrent !== undefined &&
    !(typeof concurrent === 'number' && Number.isInteger(concurrent) && concurrent >= 1)
  ) {
    throw new EventValidationError(
      `concurrentStreams must be a whole number >= 1, not ${typeof concurrent === 'number' ? String(concurrent) : `a ${typeof concurrent}`}`,
    );
  }
  if (typeof concurrent === 'number' && concurrent > 1 && checkpoints !== 'per-page') {
    // 'per-event' promises that a crash delivers at most the event in flight again; with several
    // in flight the checkpoint could only move past all of them together.
    throw new EventValidationError(`concurrentStreams above 1 needs checkpoints: 'per-page'`);
  }
  normalizeFilter(options.filter);
}
