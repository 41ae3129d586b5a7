import type { EventStore, RecordedEvent } from '@croupier/eventstore';

/**
 * A read model kept in memory and fed from the global event log. It is disposable by design:
 * rebuilding it is replaying the log into an empty one (docs/adr/0006-read-models.md).
 */
export interface Projection {
  readonly name: string;
  /** Applies one event; called in global order, each event once per hub run. */
  apply(event: RecordedEvent): void;
  /** Empties the read model, for a rebuild. */
  reset(): void;
}

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

export interface ProjectionHubOptions {
  /** Events per read. Default 1000. */
  readonly batchSize?: number;
  /** Idle polling interval when nothing wakes the hub. Default 100 ms. */
  readonly pollIntervalMs?: number;
  readonly onError?: (error: unknown) => void;
}

/**
 * Feeds projections from one cursor over the global log: catches up from the start, then tails,
 * polling (and woken early by `wake()` after a local append). `sync()` resolves once every event
 * committed before the call has been applied, which lets a reactor read its projection as of
 * the event it is handling.
 */
export class ProjectionHub {
  private readonly projections: Projection[] = [];
  private cursor: bigint | undefined = undefined;
  private running = false;
  private loop: Promise<void> | null = null;
  private wakeUp: (() => void) | null = null;
  /** Passes begun and finished: a pass reads to the end of the log as it was when it began. */
  private passesStarted = 0;
  private passesDone = 0;
  private readonly passWaiters: {
    pass: number;
    resolve: () => void;
    reject: (e: unknown) => void;
  }[] = [];
  private readonly batchSize: number;
  private readonly pollIntervalMs: number;

  constructor(
    private readonly store: EventStore,
    private readonly options: ProjectionHubOptions = {},
  ) {
    this.batchSize = options.batchSize ?? 1000;
    this.pollIntervalMs = options.pollIntervalMs ?? 100;
  }

  register<P extends Projection>(projection: P): P {
    if (this.running) throw new Error('register projections before starting the hub');
    this.projections.push(projection);
    return projection;
  }

  /** Position of the last event applied, or null before the first. */
  get position(): bigint | null {
    return this.cursor ?? null;
  }

  /**
   * Starts feeding; resolves once the projections have caught up with the log (a store that is
   * away at start-up is waited for: a process starts once it can serve).
   */
  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
    for (;;) {
      try {
        await this.sync();
        return;
      } catch (error) {
        if (this.stopping()) throw error;
        await new Promise((resolve) => setTimeout(resolve, this.pollIntervalMs));
      }
    }
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wake();
    await this.loop;
    for (const waiter of this.passWaiters.splice(0))
      waiter.reject(new Error('projection hub stopped'));
  }

  /** Asks for a read now rather than at the next poll. */
  wake(): void {
    this.wakeUp?.();
  }

  /**
   * Resolves when everything committed before this call is applied; rejects with the store's
   * error when the pass that would have applied it fails, so a request that reads the
   * projections answers at once (503 during an outage) instead of waiting for the store.
   */
  sync(): Promise<void> {
    // The pass in progress may have read before the caller's event committed: wait for the next.
    const pass = this.passesStarted + 1;
    this.wake();
    return new Promise((resolve, reject) => {
      this.passWaiters.push({ pass, resolve, reject });
    });
  }

  /** Empties every projection and replays the whole log into them. */
  async rebuild(): Promise<void> {
    await this.stop();
    for (const projection of this.projections) projection.reset();
    this.cursor = undefined;
    await this.start();
  }

  /** Read through a method: `stop()` flips `running` while `run()` awaits. */
  private stopping(): boolean {
    return !this.running;
  }

  private async run(): Promise<void> {
    while (this.running) {
      const pass = ++this.passesStarted;
      let failed = false;
      try {
        for (;;) {
          const events = await this.store.readAll({
            ...(this.cursor === undefined ? {} : { after: this.cursor }),
            limit: this.batchSize,
          });
          for (const event of events) {
            for (const projection of this.projections) {
              // One faulty read model must not stall or double-apply the others.
              try {
                projection.apply(event);
              } catch (error) {
                this.options.onError?.(new ProjectionError(projection.name, event, error));
              }
            }
            this.cursor = event.position;
          }
          if (events.length < this.batchSize) break;
        }
        this.passesDone = pass;
        for (let i = this.passWaiters.length - 1; i >= 0; i--) {
          const waiter = this.passWaiters[i]!;
          if (waiter.pass <= this.passesDone) {
            this.passWaiters.splice(i, 1);
            waiter.resolve();
          }
        }
      } catch (error) {
        failed = true;
        this.options.onError?.(error);
        for (let i = this.passWaiters.length - 1; i >= 0; i--) {
          const waiter = this.passWaiters[i]!;
          if (waiter.pass <= pass) {
            this.passWaiters.splice(i, 1);
            waiter.reject(error);
          }
        }
      }
      if (this.stopping()) break;
      // After a failure the next pass waits a poll interval, whoever waits: no busy loop
      // against a store that is away.
      const pause = !failed && this.passWaiters.length > 0 ? 0 : this.pollIntervalMs;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, pause);
        this.wakeUp = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wakeUp = null;
    }
  }
}
