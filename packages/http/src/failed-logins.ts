/** How long a client's failed logins are counted together. */
const WINDOW_MS = 60_000;

/**
 * Failed logins per client address, in fixed one-minute windows from the client's first: who
 * has failed too often to be heard again this minute. In memory, per process, like the request
 * rate limit; bounded to `maxClients` addresses (the oldest are forgotten first), so a flood
 * from many addresses costs memory it cannot grow without end.
 */
export class FailedLoginLimiter {
  private readonly windows = new Map<string, { readonly start: number; count: number }>();

  constructor(
    private readonly perMinute: number,
    private readonly clock: () => number = Date.now,
    private readonly maxClients = 100_000,
  ) {}

  /** Seconds until the client may try again without a valid token; 0 while it is under the limit. */
  retryAfterSeconds(client: string): number {
    const now = this.clock();
    const window = this.windows.get(client);
    if (window === undefined || window.start + WINDOW_MS <= now || window.count < this.perMinute)
      return 0;
    return Math.max(1, Math.ceil((window.start + WINDOW_MS - now) / 1_000));
  }

  /** Counts one failed login of the client. */
  note(client: string): void {
    const now = this.clock();
    const window = this.windows.get(client);
    if (window !== undefined && window.start + WINDOW_MS > now) {
      window.count += 1;
      return;
    }
    this.windows.delete(client);
    this.windows.set(client, { start: now, count: 1 });
    if (this.windows.size > this.maxClients) this.forgetOldest(now);
  }

  private forgetOldest(now: number): void {
    // Insertion order is window-start order: expired windows and then the oldest go first.
    for (const [client, window] of this.windows) {
      if (this.windows.size <= this.maxClients && window.start + WINDOW_MS > now) return;
      this.windows.delete(client);
    }
  }
}
