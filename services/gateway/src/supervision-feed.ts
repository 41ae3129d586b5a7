import {
  CurrencyBook,
  CUT_CARD_WATCH_TYPES,
  CutCardWatch,
  significantEventOf,
  SIGNIFICANT_EVENT_TYPES,
  type SignificantEvent,
} from '@croupier/audit';
import type { EventStore } from '@croupier/eventstore';
import type { DealingWatch, FaultLimits, WatchedRound } from '@croupier/round';

/** A paused round as supervisors are shown it: why, since when, and when it is voided. */
export interface PausedRoundView {
  readonly roundId: string;
  readonly tableId: string;
  readonly shoeId: string;
  readonly cardSource: string;
  readonly status: string;
  readonly cards: number;
  readonly reason: string | null;
  readonly pausedAt: string | null;
  /** When the watchdog voids it unless resumed first; null when that limit is off. */
  readonly voidsAt: string | null;
}

/** One message of the feed: a significant event, or the paused rounds as they now stand. */
export type FeedMessage =
  | { readonly kind: 'significant'; readonly position: bigint; readonly event: SignificantEvent }
  | { readonly kind: 'paused-rounds'; readonly rounds: readonly PausedRoundView[] };

type Listener = (message: FeedMessage) => void;

/**
 * What the feed reads: the significant events' types, and the shoe events the cut-card watch
 * derives its alerts from (ADR 0043).
 */
const FEED_TYPES = [...new Set<string>([...SIGNIFICANT_EVENT_TYPES, ...CUT_CARD_WATCH_TYPES])];

/** Events that change which rounds are paused. */
const PAUSE_CHANGES = new Set(['RoundPaused', 'RoundResumed', 'RoundVoided']);

export interface SupervisionFeedOptions {
  readonly store: EventStore;
  readonly watch: DealingWatch;
  readonly limits: FaultLimits;
  /** Brings the dealing-watch model up to the log's head before it is read. */
  readonly syncWatch: () => Promise<void>;
  /** How often the log is read while someone listens (ms). Default 500. */
  readonly pollMs?: number;
  /** Significant events kept for a listener that connects. Default 50. */
  readonly backlog?: number;
  readonly onError?: (error: unknown) => void;
}

/**
 * Supervisors' live feed (the seed's fault policy, 000: "the supervisor is notified"): one reader
 * of the log per process, reading the significant events after the last it read while anyone
 * listens, and handing each to every listener, with the paused rounds whenever a pause, a resume
 * or a void passes. A listener that connects gets the latest events first, or those after the
 * position it last saw (an SSE `Last-Event-ID`).
 */
export class SupervisionFeed {
  private readonly listeners = new Set<Listener>();
  private readonly recent: { position: bigint; event: SignificantEvent }[] = [];
  /** Tables' and wallets' currencies, learned from their openings and deposits in the feed. */
  private readonly currencies = new CurrencyBook();
  /** Scanner shoes whose cut card is not reported yet, from the shoe events read so far. */
  private readonly cutCards = new CutCardWatch();
  private cursor: bigint | undefined;
  private timer: NodeJS.Timeout | null = null;
  private reading: Promise<void> | null = null;

  constructor(private readonly options: SupervisionFeedOptions) {}

  /** Adds a listener; resolves once it has been sent what it missed. Returns its removal. */
  async listen(listener: Listener, after: bigint | null): Promise<() => void> {
    await this.read();
    for (const { position, event } of this.recent) {
      if (after === null || position > after) listener({ kind: 'significant', position, event });
    }
    // Listening from here on: every event read after those above reaches it too.
    this.listeners.add(listener);
    listener({ kind: 'paused-rounds', rounds: await this.pausedRounds() });
    this.timer ??= setInterval(() => void this.read(), this.options.pollMs ?? 500);
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0 && this.timer !== null) {
        clearInterval(this.timer);
        this.timer = null;
      }
    };
  }

  /** What a listener would be sent first, at once: the latest events (after `after`) and the paused rounds. */
  async snapshot(
    after: bigint | null,
  ): Promise<{ events: SignificantEvent[]; rounds: PausedRoundView[] }> {
    await this.read();
    const events = this.recent
      .filter(({ position }) => after === null || position > after)
      .map(({ event }) => event);
    return { events, rounds: await this.pausedRounds() };
  }

  /** Stops reading and forgets every listener. */
  stop(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    this.listeners.clear();
  }

  /** Reads the significant events after the cursor, one reader at a time. */
  private read(): Promise<void> {
    this.reading ??= this.readOnce()
      .catch((error: unknown) => {
        this.options.onError?.(error);
      })
      .finally(() => {
        this.reading = null;
      });
    return this.reading;
  }

  private async readOnce(): Promise<void> {
    const keep = this.options.backlog ?? 50;
    let pauseChanged = false;
    // The first read of a process catches up with the whole log and tells no one.
    const live = this.cursor !== undefined;
    for (;;) {
      const page = await this.options.store.readAll({
        ...(this.cursor === undefined ? {} : { after: this.cursor }),
        limit: 1_000,
        filter: { eventTypes: FEED_TYPES },
      });
      for (const recorded of page) {
        this.currencies.learn(recorded);
        const event =
          this.cutCards.observe(recorded) ??
          significantEventOf(recorded, this.currencies.currencyOf(recorded));
        if (event === null) continue;
        this.recent.push({ position: recorded.position, event });
        if (this.recent.length > keep) this.recent.shift();
        if (!live) continue;
        if (PAUSE_CHANGES.has(recorded.type)) pauseChanged = true;
        for (const listener of this.listeners)
          listener({ kind: 'significant', position: recorded.position, event });
      }
      if (page.length > 0) this.cursor = page.at(-1)!.position;
      else this.cursor ??= 0n;
      if (page.length < 1_000) break;
    }
    if (pauseChanged && this.listeners.size > 0) {
      const rounds = await this.pausedRounds();
      for (const listener of this.listeners) listener({ kind: 'paused-rounds', rounds });
    }
  }

  /** Every paused round, longest paused first, with its void deadline. */
  async pausedRounds(): Promise<PausedRoundView[]> {
    await this.options.syncWatch();
    const { voidAfterPauseMs } = this.options.limits;
    return (await this.options.watch.paused()).map((round: WatchedRound) => ({
      roundId: round.roundId,
      tableId: round.tableId,
      shoeId: round.shoeId,
      cardSource: round.cardSource,
      status: round.status,
      cards: round.cards.length,
      reason: round.pauseReason,
      pausedAt: round.pausedAt === null ? null : new Date(round.pausedAt).toISOString(),
      voidsAt:
        round.pausedAt === null || voidAfterPauseMs === 0
          ? null
          : new Date(round.pausedAt + voidAfterPauseMs).toISOString(),
    }));
  }
}
