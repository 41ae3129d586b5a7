import { createHash, createHmac } from 'node:crypto';
import {
  canonicalJson,
  type EventStore,
  type Snapshot,
  type SnapshotStorage,
} from '@croupier/eventstore';

/**
 * How an aggregate's state becomes a snapshot and back (docs/adr/0025). An aggregate opts in by
 * giving one; the command handler then keeps its streams' loads short.
 */
export interface AggregateSnapshots<State> {
  /**
   * The encoding's version: raise it whenever the state's shape, `encode`/`decode` or what
   * `evolve` makes of an event changes. A snapshot of another version is ignored (the stream is
   * read whole) and reported, never trusted.
   */
  readonly version: number;
  /** The state as a JSON value (no bigint, no Map: convert them). */
  encode(state: State): unknown;
  /** The state back from `encode`'s JSON. */
  decode(json: unknown): State;
}

/** Why a snapshot was not used: each makes the handler read the stream whole, and is reported. */
export type SnapshotRefusalReason =
  /** Taken by another version of the aggregate's encoding. */
  | 'schema-version'
  /** Its digest does not match its fields: the row was changed (or the key differs). */
  | 'digest'
  /** The stream holds no event at its revision, or one of another hash: it disagrees with the chain. */
  | 'chain'
  /** `decode` threw on its state. */
  | 'decode';

export interface SnapshotRefusal {
  readonly stream: string;
  readonly aggregate: string;
  readonly revision: bigint;
  readonly reason: SnapshotRefusalReason;
  readonly detail: string;
}

/** The command handler's snapshot policy: where, how often, and who hears of a refusal. */
export interface SnapshotPolicy {
  readonly storage: SnapshotStorage;
  /** A snapshot is taken when a stream has moved this many events past its last one. */
  readonly every: number;
  /**
   * Key of the snapshots' HMAC digest: without it, one who can write the table cannot make a
   * snapshot the handler accepts. Without a key the digest is a plain sha256 (catches a changed
   * row, not a recomputed one). Every process sharing the table must use the same key.
   */
  readonly key?: string | Buffer;
  /** A snapshot found and not used (the load then read the stream whole). */
  readonly onRefused?: (refusal: SnapshotRefusal) => void;
  /** A snapshot could not be read or written; the command goes on without it. */
  readonly onError?: (error: unknown) => void;
}

/** The digest over every field of a snapshot: an HMAC with the policy's key, else sha256. */
export function snapshotDigest(
  key: string | Buffer | undefined,
  snapshot: Omit<Snapshot, 'digest'>,
): string {
  const text = canonicalJson({
    stream: snapshot.stream,
    aggregate: snapshot.aggregate,
    schemaVersion: snapshot.schemaVersion,
    revision: snapshot.revision.toString(),
    eventHash: snapshot.eventHash,
    state: snapshot.state,
  });
  return key === undefined
    ? createHash('sha256').update(text, 'utf8').digest('hex')
    : createHmac('sha256', key).update(text, 'utf8').digest('hex');
}

/** A state to be written: encoded when queued, its event's hash when known. */
interface Pending {
  readonly stream: string;
  readonly aggregate: string;
  readonly schemaVersion: number;
  readonly revision: bigint;
  readonly state: unknown;
  readonly eventHash: string | undefined;
}

/**
 * Writes snapshots off the command path: the handler queues a state and goes on; queued states
 * are written together, one statement for all of them, by one flush at a time. A stream queued
 * twice before its flush is written once, at the later revision. A failed write is reported and
 * dropped: the stream is snapshotted again `every` events later.
 */
export class SnapshotWriter {
  readonly #pending = new Map<string, Pending>();
  #flushing: Promise<void> | null = null;
  written = 0;
  failures = 0;

  constructor(
    private readonly store: EventStore,
    private readonly policy: SnapshotPolicy,
  ) {}

  queue(pending: Pending): void {
    const key = `${pending.aggregate}\u0000${pending.stream}`;
    const current = this.#pending.get(key);
    if (current !== undefined && current.revision >= pending.revision) return;
    this.#pending.set(key, pending);
    this.#flushing ??= this.#flushAll();
  }

  /** Resolves when everything queued so far is written (or reported failed). */
  async flush(): Promise<void> {
    while (this.#flushing !== null) await this.#flushing;
  }

  async #flushAll(): Promise<void> {
    try {
      // Let the command that queued finish first: its append's answer is what the caller waits for.
      await new Promise((resolve) => setImmediate(resolve));
      while (this.#pending.size > 0) {
        const batch = [...this.#pending.values()];
        this.#pending.clear();
        await this.#write(batch);
      }
    } finally {
      this.#flushing = null;
    }
  }

  async #write(batch: readonly Pending[]): Promise<void> {
    const snapshots = await Promise.all(
      batch.map(async (pending): Promise<Snapshot | null> => {
        try {
          const eventHash =
            pending.eventHash ?? (await this.#hashAt(pending.stream, pending.revision));
          if (eventHash === undefined) return null;
          const fields = { ...pending, eventHash };
          return { ...fields, digest: snapshotDigest(this.policy.key, fields) };
        } catch (error) {
          this.failures++;
          this.policy.onError?.(error);
          return null;
        }
      }),
    );
    const ready = snapshots.filter((snapshot) => snapshot !== null);
    if (ready.length === 0) return;
    try {
      await this.policy.storage.save(ready);
      this.written += ready.length;
    } catch (error) {
      this.failures += ready.length;
      this.policy.onError?.(error);
    }
  }

  /** The stored hash of the event at a revision: an append does not answer it, so it is read. */
  async #hashAt(stream: string, revision: bigint): Promise<string | undefined> {
    const [event] = await this.store.readStream(stream, { from: revision, limit: 1 });
    const hash = event?.metadata['hash'];
    return event?.revision === revision && typeof hash === 'string' ? hash : undefined;
  }
}
