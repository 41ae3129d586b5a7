import type { EventFilter, EventStore, Subscription } from '@croupier/eventstore';
import { Gauge, type Registry } from 'prom-client';

/** The backlog is counted up to this many records; more reads as this number. */
export const BACKLOG_CAP = 5_000;

/** An outbox: the subscription that forwards records to the bus, and which records it takes. */
export interface OutboxSubscription {
  readonly name: string;
  readonly filter: EventFilter;
}

/**
 * Records stored but not yet forwarded to the bus: those after the outbox's checkpoint that its
 * filter takes. Counted, not subtracted: PostgreSQL positions pack a transaction id and a
 * sequence (docs/adr/0002), so a difference of positions is no number of events. Null where this
 * process does not hold the outbox (a standby instance): the active one reports it.
 */
export async function outboxBacklog(
  store: EventStore,
  outbox: Subscription,
  filter: EventFilter,
  cap = BACKLOG_CAP,
): Promise<number | null> {
  const position = outbox.position();
  if (position === null) return null;
  const pending = await store.readAll({ after: position, limit: cap, filter });
  return pending.length;
}

/**
 * Gauges of a process's subscriptions: each one's checkpoint and, where the process runs an
 * outbox (`outbox` given), its backlog. Call `refresh()` before a scrape.
 */
export class SubscriptionMetrics {
  private readonly positions: Gauge<'subscription'>;
  private readonly backlog: Gauge | null;

  constructor(
    registry: Registry,
    private readonly store: EventStore,
    private readonly subscriptions: () => readonly Subscription[],
    private readonly options: { readonly outbox?: OutboxSubscription } = {},
  ) {
    this.positions = new Gauge({
      name: 'croupier_subscription_position',
      help:
        'Checkpoint of each subscription this process holds (global position; on PostgreSQL ' +
        'transaction id << 64 | sequence, so compare it only with itself: it must keep moving)',
      labelNames: ['subscription'],
      registers: [registry],
    });
    this.backlog =
      options.outbox === undefined
        ? null
        : new Gauge({
            name: 'croupier_outbox_backlog_events',
            help: `Settlement records not yet published to the bus (counted up to ${BACKLOG_CAP})`,
            registers: [registry],
          });
  }

  async refresh(): Promise<void> {
    this.positions.reset();
    // A standby reports 0, so summing over instances gives the active one's backlog.
    this.backlog?.set(0);
    const outbox = this.options.outbox;
    for (const subscription of this.subscriptions()) {
      const position = subscription.position();
      // A standby holds no checkpoint of its own: the active instance reports it.
      if (position !== null)
        this.positions.set({ subscription: subscription.name }, Number(position));
      if (this.backlog !== null && outbox !== undefined && subscription.name === outbox.name) {
        const backlog = await outboxBacklog(this.store, subscription, outbox.filter);
        if (backlog !== null) this.backlog.set(backlog);
      }
    }
  }
}
