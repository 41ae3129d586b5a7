/**
 * Snapshots of aggregate states, beside the log (docs/adr/0025): a stream's folded state at one
 * revision, so a process that has not cached a long stream (a player's wallet) reads the snapshot
 * and the events after it instead of the whole stream. A snapshot is a cache of the log, never a
 * record: the stream stays complete, audits read it whole, and the command handler
 * (packages/application) checks every snapshot against the hash chain before using it.
 * Implementations: SQL (PostgreSQL, PGlite) and memory.
 */

/** One aggregate's state of one stream at one revision. */
export interface Snapshot {
  readonly stream: string;
  /** The aggregate (decider) whose state this is: a stream may be read by several. */
  readonly aggregate: string;
  /** The aggregate's snapshot schema version when it was taken; another version is not used. */
  readonly schemaVersion: number;
  /** Revision of the last event folded into `state`. */
  readonly revision: bigint;
  /** The stored `hash` of the event at `revision`: loading checks the stream still holds it. */
  readonly eventHash: string;
  /** The state as JSON (the aggregate's own encoding). */
  readonly state: unknown;
  /** Digest over every field above, made and checked by the command handler. */
  readonly digest: string;
}

/** Where snapshots are kept: the newest per stream and aggregate is what is read. */
export interface SnapshotStorage {
  /** The stream's snapshot of the highest revision for this aggregate, if any. */
  latest(stream: string, aggregate: string): Promise<Snapshot | undefined>;
  /**
   * Stores snapshots in one statement (one transaction) and drops older ones of the same stream
   * and aggregate. A snapshot older than one stored already is kept beside it, never used.
   */
  save(snapshots: readonly Snapshot[]): Promise<void>;
  /** Releases what the storage holds (not a store it shares its connection with). */
  close(): Promise<void>;
}
