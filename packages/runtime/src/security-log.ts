import { metadataOf, randomId } from '@croupier/application';
import { securityStreamOf, type SecurityEvent } from '@croupier/contracts';
import type { EventStore, NewEvent } from '@croupier/eventstore';
import type { AuthenticationFailure, HttpApp } from '@croupier/http';

/** Sample of a failed login as the event keeps it. */
type Sample = Extract<SecurityEvent, { type: 'AuthenticationFailuresRecorded' }>['data']['first'];

interface Tally {
  count: number;
  rateLimited: number;
  readonly reasons: Record<string, number>;
  readonly first: Sample;
  last: Sample;
}

export interface FailedLoginLogOptions {
  /** How long failed logins are counted before each client's are appended as one event. */
  readonly windowMs: number;
  /**
   * Clients (addresses) counted apart in one window; the failures of any further client are
   * counted under the client `*`, so a flood from many addresses costs bounded memory.
   */
  readonly maxClients?: number;
  /** Events per append when a window is written. */
  readonly batchSize?: number;
}

/** The client under which failures past `maxClients` are counted. */
export const OTHER_CLIENTS = '*';

/**
 * The security log of failed logins: every request an API process refuses for want of a valid
 * token is counted per client (its address) in memory, and once per window (and when the
 * process stops) each client's count becomes one AuthenticationFailuresRecorded event in the
 * day's security stream, with the count by reason and the first and last failure as samples.
 * A flood of bad tokens thus costs a counter per request and an append per client per window,
 * never an append per request; the significant events list a flood as one line a window.
 * Writing is off every request's path: a failure to write is logged, not returned to anyone.
 */
export class FailedLoginLog {
  private windowStart = new Date();
  private tallies = new Map<string, Tally>();
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> = Promise.resolve();
  private readonly maxClients: number;
  private readonly batchSize: number;

  /** Told of an append that failed, with how many clients' events it lost. */
  private onError: (error: unknown, lost: number) => void = () => {};

  constructor(
    private readonly store: EventStore,
    private readonly options: FailedLoginLogOptions,
  ) {
    this.maxClients = options.maxClients ?? 10_000;
    this.batchSize = options.batchSize ?? 500;
  }

  /** Counts one failed login. */
  note(failure: AuthenticationFailure): void {
    const client =
      this.tallies.has(failure.client) || this.tallies.size < this.maxClients
        ? failure.client
        : OTHER_CLIENTS;
    const sample: Sample = {
      at: failure.at.toISOString(),
      reason: failure.reason,
      method: failure.method.slice(0, 10),
      route: failure.route.slice(0, 300),
      path: failure.path.slice(0, 300) || '/',
    };
    const tally = this.tallies.get(client);
    if (tally === undefined) {
      this.tallies.set(client, {
        count: 1,
        rateLimited: failure.rateLimited ? 1 : 0,
        reasons: { [failure.reason]: 1 },
        first: sample,
        last: sample,
      });
      return;
    }
    tally.count += 1;
    if (failure.rateLimited) tally.rateLimited += 1;
    tally.reasons[failure.reason] = (tally.reasons[failure.reason] ?? 0) + 1;
    tally.last = sample;
  }

  /** Writes every client's failures since the last flush, and starts a new window. */
  flush(): Promise<void> {
    const windowStart = this.windowStart;
    const windowEnd = new Date();
    const tallies = this.tallies;
    this.windowStart = windowEnd;
    this.tallies = new Map();
    // One window at a time, in order, so a slow store never sees two flushes race.
    this.writing = this.writing.then(() => this.write(windowStart, windowEnd, tallies));
    return this.writing;
  }

  /**
   * Flushes every window from now on, and once more when the app closes; a failure to write
   * goes to the app's log.
   */
  attach(app: HttpApp): void {
    this.onError = (error, lost) => {
      app.log.error({ err: error, lost }, 'could not record failed logins in the security log');
    };
    this.timer = setInterval(() => void this.flush(), this.options.windowMs);
    this.timer.unref();
    app.addHook('onClose', async () => {
      if (this.timer !== null) clearInterval(this.timer);
      this.timer = null;
      await this.flush();
    });
  }

  private async write(windowStart: Date, windowEnd: Date, tallies: Map<string, Tally>) {
    if (tallies.size === 0) return;
    const events: NewEvent[] = [...tallies].map(([client, tally]) => {
      const event: SecurityEvent = {
        type: 'AuthenticationFailuresRecorded',
        data: {
          client: client.slice(0, 64),
          windowStart: windowStart.toISOString(),
          windowEnd: windowEnd.toISOString(),
          ...tally,
        },
      };
      const context = {
        actor: { id: `anonymous@${client.slice(0, 64)}`, role: 'system' as const },
        correlationId: randomId(),
        causationId: null,
        now: () => windowEnd,
      };
      return { id: randomId(), ...event, metadata: metadataOf(context) };
    });
    for (let start = 0; start < events.length; start += this.batchSize) {
      const batch = events.slice(start, start + this.batchSize);
      try {
        await this.store.append(securityStreamOf(windowEnd), batch, { expectedVersion: 'any' });
      } catch (error) {
        this.onError(error, batch.length);
      }
    }
  }
}
