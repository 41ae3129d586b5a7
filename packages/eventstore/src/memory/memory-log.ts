import type { AppendResult, ReadDirection, RecordedEvent, StreamState } from '../port.js';
import type { StoredEventLocation } from '../append-rules.js';
import { GENESIS_HASH, sha256Hex } from '../hash-chain.js';
import { encodePosition } from '../position.js';
import { matchesFilter, type EncodedEvent, type NormalizedFilter } from '../validation.js';

/**
 * An event as the log keeps it: the canonical JSON text that the SQL stores send to the database,
 * parsed afresh for every reader, so no caller shares (or can change) another's objects.
 */
interface StoredEvent extends StoredEventLocation {
  readonly id: string;
  readonly type: string;
  readonly dataJson: string;
  /** The caller's metadata, without the chain fields. */
  readonly metadataJson: string;
  readonly prevHash: string;
  readonly hash: string;
  readonly recordedAt: number;
}

/** The one place a stored event becomes the port's. */
function toRecordedEvent(stored: StoredEvent): RecordedEvent {
  return {
    id: stored.id,
    stream: stored.stream,
    type: stored.type,
    data: JSON.parse(stored.dataJson) as unknown,
    metadata: {
      ...(JSON.parse(stored.metadataJson) as Record<string, unknown>),
      prevHash: stored.prevHash,
      hash: stored.hash,
    },
    revision: stored.revision,
    position: stored.position,
    recordedAt: new Date(stored.recordedAt),
  };
}

/** The index of `revision` in a stream of `length` events, or `length` past its end. */
function indexOf(revision: bigint, length: number): number {
  return revision < BigInt(length) ? Number(revision) : length;
}

/**
 * The memory store's data: every event in global order, each stream's events in revision order,
 * and an index of every event id. Nothing here checks the port's rules; the store does, and then
 * writes, so one append is one synchronous step that no other can interleave with.
 *
 * Positions have the SQL stores' shape (ADR 0002): each append is a "transaction" numbered in the
 * high 64 bits, each event takes the next store-wide sequence in the low ones. In one process
 * commit order is call order, so both simply count up; the shape is kept so that code tested on
 * this store meets the same values as in production: 128-bit, with gaps between appends (a
 * position narrowed to a number, or `position + 1n` taken for the next event, fails here too).
 */
export class MemoryLog {
  readonly #events: StoredEvent[] = [];
  readonly #streams = new Map<string, StoredEvent[]>();
  readonly #byId = new Map<string, StoredEvent>();
  #transactions = 0n;
  #sequence = 0n;

  /** Where an event id is stored, if it is. */
  locate(id: string): StoredEventLocation | undefined {
    return this.#byId.get(id);
  }

  streamState(stream: string): StreamState {
    return this.#streams.get(stream)?.at(-1)?.revision ?? 'no-stream';
  }

  /** Appends a checked batch: chained onto the stream's last hash, at the next positions. */
  write(stream: string, encoded: readonly EncodedEvent[]): AppendResult {
    const history = this.#streams.get(stream) ?? [];
    this.#transactions += 1n;
    const recordedAt = Date.now();
    let prevHash = history.at(-1)?.hash ?? GENESIS_HASH;
    const appended = encoded.map((event, index): StoredEvent => {
      // The same bytes the SQL stores hash: prevHash followed by the canonical content.
      const hash = sha256Hex(prevHash + event.chainContent);
      const stored = {
        id: event.id,
        stream,
        type: event.type,
        dataJson: event.dataJson,
        metadataJson: event.metadataJson,
        prevHash,
        hash,
        revision: BigInt(history.length + index),
        position: encodePosition(this.#transactions, this.#sequence + BigInt(index + 1)),
        recordedAt,
      };
      prevHash = hash;
      return stored;
    });
    this.#sequence += BigInt(appended.length);
    history.push(...appended);
    this.#streams.set(stream, history);
    this.#events.push(...appended);
    for (const stored of appended) this.#byId.set(stored.id, stored);
    const last = appended.at(-1)!;
    return { revision: last.revision, position: last.position, idempotent: false };
  }

  /** A stream's events from a revision (inclusive), in either direction; [] when it is missing. */
  readStream(
    stream: string,
    from: bigint | null,
    direction: ReadDirection,
    limit: number | null,
  ): RecordedEvent[] {
    const history = this.#streams.get(stream) ?? [];
    if (direction === 'forwards') {
      const start = from === null ? 0 : indexOf(from, history.length);
      const end = limit === null ? history.length : start + limit;
      return history.slice(start, end).map(toRecordedEvent);
    }
    const end = from === null ? history.length : indexOf(from + 1n, history.length);
    const start = limit === null ? 0 : Math.max(0, end - limit);
    return history.slice(start, end).reverse().map(toRecordedEvent);
  }

  /** Events strictly after a position that pass the filter, in global order. */
  readAll(after: bigint, filter: NormalizedFilter, limit: number | null): RecordedEvent[] {
    const matched: RecordedEvent[] = [];
    for (let index = this.#firstAfter(after); index < this.#events.length; index += 1) {
      const stored = this.#events[index]!;
      if (!matchesFilter(filter, stored.stream, stored.type)) continue;
      matched.push(toRecordedEvent(stored));
      if (matched.length === limit) break;
    }
    return matched;
  }

  /** The newest position, or null when the log is empty. */
  head(): bigint | null {
    return this.#events.at(-1)?.position ?? null;
  }

  /** Index of the first event whose position is greater than `after` (binary search). */
  #firstAfter(after: bigint): number {
    let low = 0;
    let high = this.#events.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.#events[middle]!.position > after) high = middle;
      else low = middle + 1;
    }
    return low;
  }
}
