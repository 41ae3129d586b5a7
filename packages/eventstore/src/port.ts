/**
 * The EventStore port. Every adapter (postgres, pglite, esdb, memory) implements this interface and
 * passes the same contract suite (`test/contract.ts`). Revisions and positions are `bigint`
 * everywhere; adapters convert their driver's types at their edge.
 */

/**
 * What the caller believes about the stream before appending:
 * - `'no-stream'`: the stream must not exist yet (it has no event);
 * - `'exists'`: the stream must hold at least one event;
 * - `'any'`: no check;
 * - a `bigint`: the revision of the stream's last event (0-based: the first event is revision 0n),
 *   as in EventStoreDB.
 */
export type ExpectedVersion = 'no-stream' | 'any' | 'exists' | bigint;

/** The revision a stream is at: that of its last event, or `'no-stream'` when it has none. */
export type StreamState = bigint | 'no-stream';

/** An event to append. `data` and `metadata` must be JSON values (no bigint, no NaN/Infinity). */
export interface NewEvent {
  /** A UUID, unique across the whole store; a retried command reuses it, so a retry cannot double. */
  readonly id: string;
  readonly type: string;
  readonly data: unknown;
  /** Caller metadata. `prevHash` and `hash` are reserved: the store adds them. */
  readonly metadata?: Readonly<Record<string, unknown>>;
}

/** An event as stored. */
export interface RecordedEvent {
  readonly id: string;
  readonly stream: string;
  readonly type: string;
  readonly data: unknown;
  /** The caller's metadata plus the stream hash chain: `prevHash` and `hash` (hex sha256). */
  readonly metadata: Readonly<Record<string, unknown>>;
  /** 0-based index of the event in its stream. */
  readonly revision: bigint;
  /** Global position: strictly increasing in commit order across the whole store. */
  readonly position: bigint;
  readonly recordedAt: Date;
}

export interface AppendOptions {
  readonly expectedVersion: ExpectedVersion;
}

export interface AppendResult {
  /** Revision of the last appended event (the stream's new version). */
  readonly revision: bigint;
  /** Global position of the last appended event. */
  readonly position: bigint;
  /**
   * True when the stream already held this very batch (same ids, consecutive revisions) from an
   * earlier append, so nothing was written: `revision` and `position` are the original's. A
   * caller that decided on a cached state then knows the stream may be past what it holds.
   */
  readonly idempotent: boolean;
}

export type ReadDirection = 'forwards' | 'backwards';

export interface ReadStreamOptions {
  /** First revision to return (inclusive). Default: the start (forwards) or the end (backwards). */
  readonly from?: bigint;
  readonly direction?: ReadDirection;
  /** Maximum number of events. Default: all. */
  readonly limit?: number;
}

/** Selects events by stream name prefix and/or event type. An omitted field matches everything. */
export interface EventFilter {
  readonly streamPrefix?: string;
  readonly eventTypes?: readonly string[];
}

export interface ReadAllOptions {
  /** Return only events whose position is strictly greater. Default: from the beginning. */
  readonly after?: bigint;
  readonly limit?: number;
  readonly filter?: EventFilter;
}

/** Where the log ends, 0n for an empty log. */
export interface LogHead {
  /** The newest position `readAll` reaches now: nothing at or below it commits later. */
  readonly readable: bigint;
  /**
   * The newest committed position: every event committed before the call is at or below it.
   * Ahead of `readable` while an older transaction still runs, where the SQL stores hold back
   * what commits after it so that a late commit at a lower position is never skipped.
   */
  readonly committed: bigint;
}

/** Where a subscription starts when no checkpoint is stored under its name. */
export type SubscriptionStart = 'start' | 'end' | bigint;

export interface SubscribeOptions {
  /** Names the checkpoint and the single-active-consumer lease. */
  readonly name: string;
  /** Used only when no checkpoint is stored yet. Default `'start'`. A bigint means "after it". */
  readonly from?: SubscriptionStart;
  readonly filter?: EventFilter;
  /**
   * Called once per event, one at a time, in global order (with `concurrentStreams`, in order
   * within each stream); at least once (an event whose checkpoint was not stored before a crash
   * is delivered again). A throw retries the same event
   * after a backoff; it is never skipped.
   */
  readonly handler: (event: RecordedEvent) => Promise<void>;
  /** Reports handler failures, lost connections and lost ownership; the subscription keeps going. */
  readonly onError?: (error: unknown) => void;
  /**
   * When the checkpoint is stored: `'per-event'` (default) after each handled event, so a crash
   * delivers at most the event in flight again; `'per-page'` once after each page of events (up
   * to the page size), for handlers whose effects are idempotent (ids derived from the event, a
   * decider that records each effect once): a crash then delivers the page's handled events
   * again, which changes nothing, and a busy subscription writes one checkpoint per page instead
   * of one per event (ADR 0022). Either way, a stop stores what was handled.
   */
  readonly checkpoints?: 'per-event' | 'per-page';
  /**
   * The shortest time between two reads of the log, ms (default 0). A subscription is woken by
   * every append it may care about, in its process and (through NOTIFY) in others; one whose
   * events need no prompt answer reads what arrived in the interval at once instead of once per
   * wake-up (ADR 0022). Latency grows by up to this much.
   */
  readonly readIntervalMs?: number;
  /**
   * How many streams of a page are handled at once (default 1: one event at a time, in global
   * order). Above 1, needs `checkpoints: 'per-page'`: a page's events are split by stream, each
   * stream's events are handled in their order by one task, at most this many tasks run at once,
   * and the checkpoint moves past the page only when every task finished (a stop stores the
   * handled prefix of the page). Events of different streams may then be handled in any order;
   * for handlers whose effects on one stream depend on nothing another stream's events do (the
   * settlement of a round, ADR 0022). A store may handle fewer at once (EventStoreDB: one).
   */
  readonly concurrentStreams?: number;
}

export interface Subscription {
  readonly name: string;
  /** Finishes the in-flight handler, releases the consumer lease and closes its resources. */
  stop(): Promise<void>;
  /**
   * Resolves once this consumer has processed everything up to the store's end at least once.
   * Rejects with `SubscriptionStoppedError` if stopped before that.
   */
  caughtUp(): Promise<void>;
  /** The last stored checkpoint (position after which the next event is read), or null. */
  position(): bigint | null;
}

export type StreamVerification =
  | {
      readonly ok: true;
      readonly stream: string;
      readonly events: number;
      readonly lastHash: string | null;
    }
  | {
      readonly ok: false;
      readonly stream: string;
      /** Revision of the first event that does not verify. */
      readonly brokenAt: bigint;
      readonly reason: string;
      readonly expected?: string;
      readonly found?: string;
    };

export interface EventStore {
  /** Appends atomically, checking `expectedVersion` inside the store; idempotent by event id. */
  append(
    stream: string,
    events: readonly NewEvent[],
    options: AppendOptions,
  ): Promise<AppendResult>;
  /** A stream's events; `[]` when the stream does not exist. */
  readStream(stream: string, options?: ReadStreamOptions): Promise<RecordedEvent[]>;
  /** Events of every stream in global order; never skips one that commits later at a lower position. */
  readAll(options?: ReadAllOptions): Promise<RecordedEvent[]>;
  /** The log's newest positions, read together (`sync` waits on them, docs/adr/0002). */
  head(): Promise<LogHead>;
  /** Starts a checkpointed, single-active-consumer subscription to all events. */
  subscribe(options: SubscribeOptions): Subscription;
  /** Recomputes the stream's hash chain from its stored events. */
  verifyStream(stream: string): Promise<StreamVerification>;
  /** Stops every subscription of this store and releases its connections. */
  close(): Promise<void>;
}
