/** How long to wait before retry number `attempt` (1 for the first retry), in milliseconds. */
export type Backoff = (attempt: number) => number;

/**
 * The retry strategies every part of Croupier uses, by name, so each loop says which it follows
 * and with what bounds (like BullMQ's `backoffs`), instead of a formula of its own.
 */
export const backoffs = {
  /**
   * base · 2^(attempt−1), capped, with ±`jitter` (a fraction) around it: reconnecting to a store
   * or a queue, retrying a failed step. Defaults: 100 ms, 200 ms, 400 ms… up to 5 s, ±20 %.
   */
  exponential:
    ({ baseMs = 100, capMs = 5_000, jitter = 0.2 } = {}): Backoff =>
    (attempt) => {
      const exponential = Math.min(capMs, baseMs * 2 ** Math.max(0, attempt - 1));
      return Math.round(exponential * (1 - jitter + Math.random() * 2 * jitter));
    },
  /**
   * A random wait in [0, min(cap, base · 2^attempt)) ("full jitter"): writers that lost an
   * optimistic-concurrency race spread out instead of colliding again. Defaults: 5 ms, up to 200.
   */
  fullJitter:
    ({ baseMs = 5, capMs = 200 } = {}): Backoff =>
    (attempt) =>
      Math.random() * Math.min(capMs, baseMs * 2 ** attempt),
} as const;

/**
 * A wake-up signal for a polling loop: `wait(ms)` resolves after `ms`, or at once when `wake()`
 * was called since the last wait (so a wake-up that arrives while the loop is busy is not lost).
 */
export class WakeSignal {
  #pending = false;
  #resolve: (() => void) | null = null;

  wake(): void {
    this.#pending = true;
    const resolve = this.#resolve;
    this.#resolve = null;
    resolve?.();
  }

  async wait(ms: number): Promise<void> {
    if (this.#pending) {
      this.#pending = false;
      return;
    }
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.#resolve = null;
        resolve();
      }, ms);
      this.#resolve = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.#pending = false;
  }
}

/** A promise with its settle functions; its rejection is marked handled until someone awaits it. */
export class Deferred<T> {
  readonly promise: Promise<T>;
  settled = false;
  #resolve!: (value: T) => void;
  #reject!: (error: unknown) => void;

  constructor() {
    this.promise = new Promise<T>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
    this.promise.catch(() => undefined);
  }

  resolve(value: T): void {
    if (this.settled) return;
    this.settled = true;
    this.#resolve(value);
  }

  reject(error: unknown): void {
    if (this.settled) return;
    this.settled = true;
    this.#reject(error);
  }
}
