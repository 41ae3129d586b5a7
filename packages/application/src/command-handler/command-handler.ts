import { DomainError } from '@croupier/contracts';
import { backoffs, type EventStore } from '@croupier/eventstore';
import type { CommandContext } from '../context.js';
import type { SnapshotPolicy, SnapshotRefusal } from '../snapshots.js';
import type { Aggregate, DomainEvent, Handled, HandleOptions, Loaded } from './aggregate.js';
import { decideAndAppend, type Appending, type RetryPolicy } from './decide-and-append.js';
import { MAX_BATCH, runBatch, type Queued } from './group-commit.js';
import { StreamSnapshots } from './snapshotting.js';
import { StreamQueue } from './stream-queue.js';
import { StreamStates } from './stream-states.js';

/** The handler's state cache and snapshots, as counted since it was made (for metrics). */
export interface CommandHandlerStats {
  readonly cache: {
    /** Streams held now, over all aggregates. */
    readonly size: number;
    /** The most held per aggregate. */
    readonly capacity: number;
    readonly hits: number;
    readonly misses: number;
    /** Streams dropped to make room (least recently used first). */
    readonly evictions: number;
  };
  readonly snapshots: {
    /** Loads that started from a snapshot. */
    readonly used: number;
    /** Snapshots found and refused, by reason (the load read the stream whole). */
    readonly refused: Readonly<Record<SnapshotRefusal['reason'], number>>;
    readonly written: number;
    /** Snapshots that could not be read or written. */
    readonly failures: number;
  };
}

export interface CommandHandlerOptions {
  /**
   * After another process appended to the stream first. Default: 10 attempts, full-jitter
   * backoff of 10 ms, 20 ms… up to 200 ms (ADR 0007).
   */
  readonly retry?: RetryPolicy;
  /** Folded states kept per aggregate, least recently used out first. Default 20,000. */
  readonly cacheSize?: number;
  /**
   * Told the position of every append (an idempotent retry's too): the read models' runner waits
   * for it before a read, so the process reads its own writes (docs/adr/0023).
   */
  readonly onAppended?: (position: bigint) => void;
  /**
   * Snapshots of the aggregates that opt in (`Aggregate.snapshot`), docs/adr/0025. Without it,
   * a stream not cached is read whole.
   */
  readonly snapshots?: SnapshotPolicy;
}

const NO_REFUSALS: Readonly<Record<SnapshotRefusal['reason'], number>> = {
  'schema-version': 0,
  digest: 0,
  chain: 0,
  decode: 0,
};

export const DEFAULT_RETRY: RetryPolicy = {
  maxAttempts: 10,
  backoff: backoffs.fullJitter({ baseMs: 5, capMs: 200 }),
};

/**
 * The one command handler: fold the stream, decide, append with the revision folded, and on a
 * concurrent append read again and decide again, as its retry policy says. A domain error from
 * `decide` rejects the command with nothing appended. With deterministic event ids, a step retried
 * after a crash finds its events already stored and changes nothing.
 *
 * A stream this process has seen is decided on from its cached state, without a read. Only an
 * append can confirm such a decision (its expected version checks nobody appended since); a
 * conflict, a refusal or a decision to do nothing is taken again on the stream as read from the
 * store, so a stale cache can cost a round trip but never change an outcome (ADR 0020).
 *
 * One instance per process, made by the composition root with its policy and handed to every
 * service, so its cache and its queues are visible where the process is wired (ADR 0007):
 * commands on one stream run one after another within it, and each stream's last folded state
 * is kept, so a long-lived stream costs no more to decide on than a new one.
 *
 * It composes its parts: the states of the streams (stream-states.ts, over the state cache and
 * the snapshots), deciding and appending one command (decide-and-append.ts), the per-stream
 * queue (stream-queue.ts) and the batches it appends as one (group-commit.ts).
 */
export class CommandHandler {
  readonly #states: StreamStates;
  readonly #snapshots: StreamSnapshots | null;
  readonly #appending: Appending;
  readonly #queue: StreamQueue<Queued>;

  constructor(
    readonly store: EventStore,
    options: CommandHandlerOptions = {},
  ) {
    const retry = options.retry ?? DEFAULT_RETRY;
    const cacheSize = options.cacheSize ?? 20_000;
    const snapshots = options.snapshots ?? null;
    this.#snapshots = snapshots === null ? null : new StreamSnapshots(store, snapshots);
    if (snapshots !== null && (!Number.isInteger(snapshots.every) || snapshots.every < 1))
      throw new RangeError('snapshots.every must be a positive integer');
    if (!Number.isInteger(retry.maxAttempts) || retry.maxAttempts < 1)
      throw new RangeError('retry.maxAttempts must be a positive integer');
    if (!Number.isInteger(cacheSize) || cacheSize < 0)
      throw new RangeError('cacheSize must be a non-negative integer');
    this.#states = new StreamStates(store, cacheSize, this.#snapshots);
    this.#appending = { store, states: this.#states, retry, onAppended: options.onAppended };
    this.#queue = new StreamQueue<Queued>(
      (stream, batch) => this.#run(stream, batch),
      (first, next) => next.aggregate === first.aggregate,
      MAX_BATCH,
    );
  }

  /**
   * Keeps `aggregate`'s cached state of the streams named with `streamPrefix` current as other
   * aggregates of this process append to them (a stream this process opened is then decided on
   * with no read by the follower too). As any cached state, it is confirmed by the follower's
   * append with the revision it holds as the expected version (ADR 0020, 0046).
   */
  follow<Command, Event extends DomainEvent, State>(
    aggregate: Aggregate<Command, Event, State>,
    streamPrefix: string,
  ): void {
    this.#states.follow(aggregate, streamPrefix);
  }

  /** Folded states held in memory, over all aggregates (at most cacheSize per aggregate). */
  get cachedStates(): number {
    return this.#states.size;
  }

  /** The state cache's and the snapshots' counters, for metrics. */
  stats(): CommandHandlerStats {
    const snapshots = this.#snapshots;
    return {
      cache: { size: this.cachedStates, capacity: this.#states.capacity, ...this.#states.counts },
      snapshots: {
        used: snapshots?.used ?? 0,
        refused: { ...(snapshots?.refused ?? NO_REFUSALS) },
        written: snapshots?.writer.written ?? 0,
        failures: (snapshots?.writer.failures ?? 0) + (snapshots?.readFailures ?? 0),
      },
    };
  }

  /** Resolves once every snapshot queued so far is written (tests, shutdown). */
  flushSnapshots(): Promise<void> {
    return this.#snapshots?.writer.flush() ?? Promise.resolve();
  }

  /**
   * Asks a question of a stream's state before touching another stream (a guard of the decider,
   * ADR 0019), on the cached state when held, with no read. A refusal (a `DomainError`) on the
   * cached state is asked again on the stream as read, so a stale cache never refuses what the
   * stream allows. An answer the cache allows is confirmed later by the append on this stream,
   * with the cached revision as its expected version (ADR 0020, 0022): the caller must only use it
   * where that append comes, and where a refusal then is handled (the bet workflow's release).
   */
  async ask<Command, Event extends DomainEvent, State, Answer>(
    aggregate: Aggregate<Command, Event, State>,
    stream: string,
    question: (state: State) => Answer,
  ): Promise<Answer> {
    const cached = this.#states.cached<State>(aggregate, stream);
    if (cached !== undefined) {
      try {
        return question(cached.state);
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
      }
    }
    return question((await this.load(aggregate, stream)).state);
  }

  /**
   * Reads a stream and folds it through the decider: from the last state seen when cached, else
   * from the stream's last snapshot when the aggregate takes them, else from the first event.
   */
  async load<Command, Event extends DomainEvent, State>(
    aggregate: Aggregate<Command, Event, State>,
    stream: string,
  ): Promise<Loaded<State>> {
    const { state, revision } = await this.#states.load(aggregate, stream);
    return { state, revision };
  }

  /** Decides `command` on the stream's current state and appends what it decided. */
  handle<Command, Event extends DomainEvent, State>(
    aggregate: Aggregate<Command, Event, State>,
    stream: string,
    command: Command | ((state: State) => Command),
    context: CommandContext,
    options: HandleOptions<Event> = {},
  ): Promise<Handled<Event, State>> {
    return new Promise((resolve, reject) => {
      this.#queue.push(stream, {
        aggregate: aggregate,
        command,
        context,
        options: options as HandleOptions<DomainEvent>,
        resolve: resolve as Queued['resolve'],
        reject,
      });
    });
  }

  /** One run of a stream's queue: a command alone, or a batch appended as one. */
  async #run(stream: string, batch: readonly Queued[]): Promise<void> {
    if (batch.length === 1) return this.#runAlone(stream, batch[0]!);
    await runBatch(this.#appending, stream, batch, (s, queued) => this.#runAlone(s, queued)).catch(
      (error: unknown) => {
        // Not a command's own failure (those are each command's answer): answer every one
        // still waiting with it; an answered promise ignores a second answer.
        for (const queued of batch) queued.reject(error);
      },
    );
  }

  async #runAlone(stream: string, queued: Queued): Promise<void> {
    try {
      queued.resolve(
        await decideAndAppend(
          this.#appending,
          queued.aggregate,
          stream,
          queued.command,
          queued.context,
          queued.options,
        ),
      );
    } catch (error) {
      queued.reject(error);
    }
  }
}
