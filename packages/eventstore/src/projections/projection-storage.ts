/**
 * Durable read models: documents by key, one set per model and generation, each generation with
 * its checkpoint, all beside the event log (docs/adr/0023). The projection runner
 * (packages/application) reads the log and commits a batch of document changes together with
 * the checkpoints that cover them, in one transaction, so a crash can neither lose nor
 * double-apply an event. Implementations: SQL (PostgreSQL, PGlite) and memory.
 */

/** A JSON value as stored (jsonb): no bigint, no undefined, no NaN; `undefined` when absent. */
export type Document = unknown;

/** A stored document and the columns a query can order or filter it by. */
export interface StoredDocument {
  readonly key: string;
  readonly doc: Document;
  /** Groups documents for `list` (a player, a table); null for none. */
  readonly partition: string | null;
  /** Orders documents within a partition (a sequence, a time in ms); null for none. */
  readonly sort: bigint | null;
}

/** A document written by a batch. */
export interface DocumentWrite {
  readonly key: string;
  /** null deletes it. */
  readonly doc: Document;
  readonly partition: string | null;
  readonly sort: bigint | null;
}

/** One generation of a model: a set of documents and the position it has applied the log to. */
export interface ModelSlot {
  readonly model: string;
  readonly generation: number;
}

export interface ModelState extends ModelSlot {
  /** Every event at or below this position is applied (0n: none yet). */
  readonly position: bigint;
  /** Whether reads are served from this generation. */
  readonly active: boolean;
  /** Set when the model stopped on an event it could not apply. */
  readonly failure: { readonly position: bigint; readonly error: string } | null;
}

/**
 * What one batch commits for one model: its document changes, and its checkpoint moved from
 * `from` to `to` with compare-and-swap (a runner that lost its lease finds it moved and writes
 * nothing). `failure` records the event the model stopped at; `to` is then the last one applied.
 */
export interface ModelCommit extends ModelSlot {
  readonly from: bigint;
  readonly to: bigint;
  readonly writes: readonly DocumentWrite[];
  readonly failure?: { readonly position: bigint; readonly error: string } | null;
}

/** The single-active-runner lease of one model in one store (PostgreSQL: an advisory lock). */
export interface ProjectionLease {
  /** Takes the lease if nobody holds it; true when this lease holds it. */
  tryAcquire(): Promise<boolean>;
  /** Releases the lease (if held). */
  close(): Promise<void>;
}

export interface LeaseSignals {
  /**
   * New events may have been appended (NOTIFY or in-process), up to `position` where the signal
   * names it: a runner that has not read that far yet keeps polling for it (ADR 0045).
   */
  readonly wake: (position?: bigint) => void;
  /** The lease's connection failed: the lease is lost. */
  readonly broken: (error: unknown) => void;
}

export interface ListOptions {
  readonly partition?: string | null;
  /** Only documents whose `sort` is at most this (a time: what is due by then). */
  readonly sortAtMost?: bigint;
  /** Only documents whose `sort` is at least this (a time: what happened since). */
  readonly sortAtLeast?: bigint;
  readonly order?: 'asc' | 'desc';
  readonly limit?: number;
}

export interface ProjectionStorage {
  /**
   * Whether every append to the log wakes this storage's leases (it lives in the store's own
   * database: the store's in-process wake-up and its NOTIFY reach them), so a runner that has
   * read everything it was told of may poll slowly (ADR 0045). Absent or false (read models of
   * an EventStoreDB log in a PostgreSQL of their own): nothing wakes them, the runner polls.
   */
  readonly wakesOnAppends?: boolean;
  /**
   * The model's active generation, created (generation 1, at position 0) when the model has
   * none yet.
   */
  ensureModel(model: string): Promise<ModelState>;
  /** Every generation of a model, or of every model. */
  states(model?: string): Promise<ModelState[]>;
  openLease(model: string, signals: LeaseSignals): Promise<ProjectionLease>;
  /** Documents of the given keys, per model slot; absent keys are absent from the map. */
  load(
    requests: readonly (ModelSlot & { readonly keys: readonly string[] })[],
  ): Promise<Map<string, Map<string, Document>>>;
  /**
   * Commits every model's changes and checkpoint in one transaction. Throws
   * `ProjectionOwnershipLostError` (and commits nothing) when a checkpoint was not at its `from`.
   */
  commit(commits: readonly ModelCommit[]): Promise<void>;
  /** A document of the model's active generation; undefined when there is none. */
  get(model: string, key: string): Promise<Document>;
  /** Documents of the model's active generation by key, in one query; absent keys are absent. */
  getMany(model: string, keys: readonly string[]): Promise<Map<string, Document>>;
  /** Documents of the model's active generation, by partition, in `sort` order. */
  list(model: string, options?: ListOptions): Promise<StoredDocument[]>;
  /** A new, empty generation of the model (not active), for a rebuild. */
  createGeneration(model: string): Promise<ModelState>;
  /**
   * Makes `generation` the one reads are served from, and deletes the others' documents. The
   * caller holds the model's lease.
   */
  activate(model: string, generation: number): Promise<void>;
  /** Releases what the storage holds (not a store it shares its connection with). */
  close(): Promise<void>;
}

/** A model name: what names its rows and its lease. */
export function validateModelName(model: string): string {
  if (!/^[a-z][a-z0-9-]{0,62}$/.test(model))
    throw new ProjectionStorageError(
      `model name ${JSON.stringify(model)} must match [a-z][a-z0-9-]* and be at most 63 characters`,
    );
  return model;
}

/** Bad input to the projection storage. */
export class ProjectionStorageError extends Error {
  readonly code = 'INVALID_PROJECTION';
  constructor(message: string) {
    super(message);
    this.name = 'ProjectionStorageError';
  }
}

/** A commit found a checkpoint moved by someone else: this runner no longer owns those models. */
export class ProjectionOwnershipLostError extends Error {
  readonly code = 'PROJECTION_OWNERSHIP_LOST';
  constructor(readonly models: readonly string[]) {
    super(
      `projection checkpoint moved by another runner (lease lost): ${models.join(', ')}; nothing of the batch was committed`,
    );
    this.name = 'ProjectionOwnershipLostError';
  }
}
