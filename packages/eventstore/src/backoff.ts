/** Exponential backoff: 100 ms, 200 ms, 400 ms... capped (5 s by default), with ±20 % jitter. */
export function backoffDelay(attempt: number, baseMs = 100, capMs = 5_000): number {
  const exponential = Math.min(capMs, baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(exponential * (0.8 + Math.random() * 0.4));
}

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
