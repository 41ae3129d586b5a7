import { backoffs, Deferred, WakeSignal } from './backoff.js';
import { SubscriptionOwnershipLostError, SubscriptionStoppedError } from './errors.js';
import type { RecordedEvent, SubscribeOptions, Subscription } from './port.js';
import { normalizeFilter, type NormalizedFilter } from './validation.js';

export interface SubscriptionTuning {
  /**
   * Fallback poll when no wake-up arrives (ms); with a session that can tell (`awaiting`), only
   * while an event committed is not yet visible to it.
   */
  readonly pollIntervalMs: number;
  /**
   * Fallback poll when the session knows of no event it has not read (ms, default
   * `pollIntervalMs`): every commit it waits for wakes it, so this only bounds the latency of a
   * lost wake-up (ADR 0045). Never shorter than `pollIntervalMs`.
   */
  readonly idlePollIntervalMs?: number;
  /** How often a standby consumer tries to take the lease (ms). */
  readonly lockRetryMs: number;
  /** Cap of the exponential backoff after an error (ms). */
  readonly maxBackoffMs: number;
  /** Events read per page. */
  readonly pageSize: number;
  /**
   * How long a checkpoint may stay behind events the filter skipped (ms, default 1,000): moving it past them
   * only saves scanning them again, so it is stored with the next handled event or after this.
   */
  readonly idleCheckpointMs?: number;
}

/** Events after a position that pass the filter, read in one snapshot of the log. */
export interface LogPage {
  readonly events: RecordedEvent[];
  /** The newest position in the same snapshot, matched or not; null when the log is empty. */
  readonly head: bigint | null;
}

/**
 * One consumer's hold on a subscription name in one store: the single-active-consumer lease, the
 * stored checkpoint and the log. A session that breaks throws; the consumer opens another.
 */
export interface ConsumerSession {
  /** Takes the lease if nobody holds it; true when this session holds it. */
  tryAcquire(): Promise<boolean>;
  /** The stored checkpoint, or null when none is stored yet. */
  loadCheckpoint(): Promise<bigint | null>;
  /** Stores a first checkpoint unless one exists; returns the one stored. */
  createCheckpoint(position: bigint): Promise<bigint>;
  /** Moves the checkpoint from `from` to `to` (compare-and-swap); false when it was not at `from`. */
  storeCheckpoint(from: bigint, to: bigint): Promise<boolean>;
  /** The newest position of the log, or null when it is empty. */
  head(): Promise<bigint | null>;
  readPage(after: bigint, filter: NormalizedFilter, limit: number): Promise<LogPage>;
  /**
   * Whether an event committed is known not to be read yet (waiting to become visible): the
   * consumer then polls at `pollIntervalMs`, otherwise at `idlePollIntervalMs`. A session without
   * it is polled at `pollIntervalMs`.
   */
  awaiting?(): boolean;
  /** Releases the lease (if held) and the session's resources. */
  close(): Promise<void>;
}

/** What a session tells its consumer. */
export interface SessionSignals {
  /** New events may be there, or the lease may be free. */
  readonly wake: () => void;
  /** The session's connection failed; its next call throws. */
  readonly broken: (error: unknown) => void;
}

export interface CheckpointedSubscriptionInit {
  readonly options: SubscribeOptions;
  readonly tuning: SubscriptionTuning;
  readonly openSession: (signals: SessionSignals) => Promise<ConsumerSession>;
  readonly onStopped: (subscription: CheckpointedSubscription) => void;
}

/**
 * A checkpointed consumer of a store's log, for every store that can read it in position order
 * (SQL, memory). Life cycle: open a session, stand by until it holds the subscription's lease,
 * load the checkpoint, then read pages after it and call the handler one event at a time (or, with
 * `concurrentStreams`, one task per stream of the page), storing the checkpoint after each event
 * or page with compare-and-swap. Any failure other than the handler's is reported, backed off,
 * and the whole cycle restarts from the stored checkpoint.
 */
export class CheckpointedSubscription implements Subscription {
  readonly name: string;
  readonly #init: CheckpointedSubscriptionInit;
  readonly #filter: NormalizedFilter;
  readonly #signal = new WakeSignal();
  readonly #caughtUp = new Deferred<void>();
  /** Resolved by `stop()`: ends a handler's backoff without taking a wake-up meant for the loop. */
  readonly #stopRequested = new Deferred<void>();
  readonly #done: Promise<void>;
  #stopping = false;
  /** A method, not a field read: the flag changes while this object awaits. */
  #stopped(): boolean {
    return this.#stopping;
  }
  #position: bigint | null = null;

  constructor(init: CheckpointedSubscriptionInit) {
    this.#init = init;
    this.name = init.options.name;
    this.#filter = normalizeFilter(init.options.filter);
    this.#done = this.#run();
  }

  position(): bigint | null {
    return this.#position;
  }

  caughtUp(): Promise<void> {
    return this.#caughtUp.promise;
  }

  async stop(): Promise<void> {
    this.#stopping = true;
    this.#stopRequested.resolve();
    this.#signal.wake();
    await this.#done;
  }

  async #run(): Promise<void> {
    let failures = 0;
    try {
      while (!this.#stopped()) {
        let session: ConsumerSession | null = null;
        try {
          session = await this.#init.openSession({
            wake: () => {
              this.#signal.wake();
            },
            broken: (error) => {
              this.#report(error);
              this.#signal.wake();
            },
          });
          if (!(await this.#acquire(session))) break;
          failures = 0;
          await this.#consume(session);
        } catch (error) {
          this.#report(error);
          if (this.#stopped()) break;
          failures += 1;
          await this.#pause(
            backoffs.exponential({ capMs: this.#init.tuning.maxBackoffMs })(failures),
          );
        } finally {
          await session?.close().catch((error: unknown) => {
            this.#report(error);
          });
        }
      }
    } finally {
      this.#caughtUp.reject(new SubscriptionStoppedError(this.name));
      this.#init.onStopped(this);
    }
  }

  /** Stands by until this consumer holds the lease; false when stopped meanwhile. */
  async #acquire(session: ConsumerSession): Promise<boolean> {
    while (!this.#stopped()) {
      if (await session.tryAcquire()) return true;
      await this.#pause(this.#init.tuning.lockRetryMs);
    }
    return false;
  }

  async #consume(session: ConsumerSession): Promise<void> {
    // `stored` is the checkpoint in the store, `checkpoint` how far this consumer has read. They
    // differ between a handled event and its page's end in 'per-page' mode, and while only
    // events the filter skipped lie between them (stored at most every `idleCheckpointMs`:
    // reading those again after a crash costs a scan, never a delivery).
    let stored = await this.#loadCheckpoint(session);
    let storedAt = Date.now();
    let checkpoint = stored;
    this.#position = stored;
    const { pageSize, pollIntervalMs, idleCheckpointMs = 1_000 } = this.#init.tuning;
    const idlePollMs = Math.max(pollIntervalMs, this.#init.tuning.idlePollIntervalMs ?? 0);
    const pollMs = () => (session.awaiting?.() === false ? idlePollMs : pollIntervalMs);
    const perEvent = (this.#init.options.checkpoints ?? 'per-event') === 'per-event';
    const store = async () => {
      if (checkpoint === stored) return;
      await this.#storeCheckpoint(session, stored, checkpoint);
      stored = checkpoint;
      storedAt = Date.now();
    };
    const { readIntervalMs = 0, concurrentStreams = 1 } = this.#init.options;
    let readAt = 0;
    let atEnd = false;
    try {
      while (!this.#stopped()) {
        // Woken sooner than its read interval (every append in the process wakes it): wait, so
        // that the appends of the interval are read together.
        // A backlog (the last page was full) is read on at once.
        const early = readAt + readIntervalMs - Date.now();
        if (early > 0 && atEnd) await this.#pause(early);
        if (this.#stopped()) return;
        readAt = Date.now();
        const page = await session.readPage(checkpoint, this.#filter, pageSize);
        if (concurrentStreams > 1) {
          // Per page only (validated): the checkpoint moves when every task of the page is done,
          // or, stopped, past the events handled before the first one that was not.
          const handled = await this.#handleByStream(page.events, concurrentStreams);
          if (handled > 0) checkpoint = page.events[handled - 1]!.position;
          if (handled < page.events.length || this.#stopped()) return;
        } else {
          for (const event of page.events) {
            if (!(await this.#handle(event))) return;
            checkpoint = event.position;
            if (perEvent) await store();
            if (this.#stopped()) return;
          }
        }
        // A page shorter than asked reached the end of the snapshot: everything up to its head
        // has been seen, and events the filter skipped move the checkpoint, so they are not
        // scanned again.
        const reachedEnd = page.events.length < pageSize;
        atEnd = reachedEnd;
        if (reachedEnd && page.head !== null && page.head > checkpoint) checkpoint = page.head;
        // Handled events are stored at once (after each, or after the page); skipped ones may
        // wait, since reading them again delivers nothing.
        if (page.events.length > 0 || Date.now() - storedAt >= idleCheckpointMs) await store();
        if (reachedEnd) {
          this.#caughtUp.resolve();
          const poll = pollMs();
          await this.#signal.wait(checkpoint === stored ? poll : Math.min(poll, idleCheckpointMs));
        }
      }
    } finally {
      // Stopping (or failing) with handled events not yet stored: store them, so a clean stop
      // delivers nothing twice. A failure here leaves them to be delivered again (at least once).
      await store().catch(() => undefined);
    }
  }

  /**
   * Handles a page as one task per stream, at most `limit` at once, each stream's events in their
   * order, each event as `#handle` does (retried until it succeeds, never skipped). Resolves when
   * every task has finished, never earlier, so the caller cannot store a checkpoint past a
   * task still running. Returns how many of the page's first events were all handled: the whole
   * page, unless stopped.
   */
  async #handleByStream(events: readonly RecordedEvent[], limit: number): Promise<number> {
    const byStream = new Map<string, number[]>();
    events.forEach((event, index) => {
      const indexes = byStream.get(event.stream);
      if (indexes === undefined) byStream.set(event.stream, [index]);
      else indexes.push(index);
    });
    const waiting = [...byStream.values()];
    const handled = events.map(() => false);
    const task = async (): Promise<void> => {
      for (let stream = waiting.shift(); stream !== undefined; stream = waiting.shift()) {
        for (const index of stream) {
          if (this.#stopped() || !(await this.#handle(events[index]!))) return;
          handled[index] = true;
        }
      }
    };
    const tasks = Array.from({ length: Math.min(limit, waiting.length) }, task);
    // `#handle` does not throw; were a task to, its siblings still finish before this returns.
    const outcomes = await Promise.allSettled(tasks);
    for (const outcome of outcomes) if (outcome.status === 'rejected') throw outcome.reason;
    const firstUnhandled = handled.indexOf(false);
    return firstUnhandled === -1 ? events.length : firstUnhandled;
  }

  /** Calls the handler until it succeeds (the event is never skipped); false when stopped. */
  async #handle(event: RecordedEvent): Promise<boolean> {
    for (let failures = 1; ; failures += 1) {
      try {
        await this.#init.options.handler(event);
        return true;
      } catch (error) {
        this.#report(error);
        if (this.#stopped()) return false;
        await this.#backOff(
          backoffs.exponential({ capMs: this.#init.tuning.maxBackoffMs })(failures),
        );
        if (this.#stopped()) return false;
      }
    }
  }

  /**
   * A handler's backoff: sleeps, waking early only when stopped. Unlike `#pause` it leaves the
   * wake signal alone, so several tasks can back off at once and a wake-up that arrives meanwhile
   * still makes the loop read again after the page.
   */
  async #backOff(ms: number): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, ms);
      }),
      this.#stopRequested.promise,
    ]);
    clearTimeout(timer);
  }

  async #loadCheckpoint(session: ConsumerSession): Promise<bigint> {
    const stored = await session.loadCheckpoint();
    if (stored !== null) return stored;
    const from = this.#init.options.from ?? 'start';
    let start: bigint;
    if (from === 'start') start = 0n;
    else if (from === 'end') start = (await session.head()) ?? 0n;
    else start = from;
    // Stored at once: a restart before the first event must not re-resolve 'end' later.
    return session.createCheckpoint(start);
  }

  async #storeCheckpoint(session: ConsumerSession, from: bigint, to: bigint): Promise<void> {
    if (!(await session.storeCheckpoint(from, to))) {
      throw new SubscriptionOwnershipLostError(this.name);
    }
    this.#position = to;
  }

  /** Sleeps, waking early only when stopped. */
  async #pause(ms: number): Promise<void> {
    const deadline = Date.now() + ms;
    while (!this.#stopped() && Date.now() < deadline) {
      await this.#signal.wait(deadline - Date.now());
    }
  }

  #report(error: unknown): void {
    try {
      this.#init.options.onError?.(error);
    } catch {
      // A failing error reporter must not stop the consumer.
    }
  }
}

/** The subscriptions a store has started and not yet stopped: it stops them all when it closes. */
export class RunningSubscriptions {
  readonly #tuning: SubscriptionTuning;
  readonly #running = new Set<CheckpointedSubscription>();

  constructor(tuning: SubscriptionTuning) {
    this.#tuning = tuning;
  }

  start(
    options: SubscribeOptions,
    openSession: CheckpointedSubscriptionInit['openSession'],
  ): Subscription {
    const subscription = new CheckpointedSubscription({
      options,
      tuning: this.#tuning,
      openSession,
      onStopped: (stopped) => this.#running.delete(stopped),
    });
    this.#running.add(subscription);
    return subscription;
  }

  /** Stops every one, each after its handler in flight; never rejects. */
  async stopAll(): Promise<void> {
    await Promise.allSettled([...this.#running].map((subscription) => subscription.stop()));
  }
}
