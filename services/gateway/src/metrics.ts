import type { CommandHandler, ParkedMessages, ProjectionRunner } from '@croupier/application';
import {
  openProjectionStorage,
  openSnapshotStorage,
  type EventStore,
  type Subscription,
} from '@croupier/eventstore';
import { BET_ROUTES } from '@croupier/round';
import {
  GameFigures,
  LogMetrics,
  registerCommandMetrics,
  RefusedBets,
  SubscriptionMetrics,
  type ProjectionMetrics,
} from '@croupier/runtime';
import { OUTBOX_SUBSCRIPTION } from '@croupier/settlement';
import { Gauge, Histogram, Registry } from 'prom-client';

const APPEND_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

/**
 * Times every append of a store: wrap the store a process opens before anything uses it.
 * Appends are the write path of every command, so their latency is the store's health seen from
 * the application.
 */
export function timedAppends(store: EventStore, registry: Registry): EventStore {
  const duration = new Histogram({
    name: 'croupier_eventstore_append_duration_seconds',
    help: 'Event store append latency (one stream, one round trip), failed appends included',
    labelNames: ['outcome'],
    buckets: APPEND_BUCKETS,
    registers: [registry],
  });
  const timed: EventStore = {
    append: async (stream, events, options) => {
      const end = duration.startTimer();
      try {
        const result = await store.append(stream, events, options);
        end({ outcome: 'ok' });
        return result;
      } catch (error) {
        end({ outcome: 'error' });
        throw error;
      }
    },
    readStream: (stream, options) => store.readStream(stream, options),
    readAll: (options) => store.readAll(options),
    head: () => store.head(),
    subscribe: (options) => store.subscribe(options),
    verifyStream: (stream) => store.verifyStream(stream),
    close: () => store.close(),
  };
  // The read models and the snapshots live beside the log of the store it wraps (ADR 0023, 0025).
  return Object.assign(timed, {
    openProjectionStorage: () => openProjectionStorage(store),
    openSnapshotStorage: () => openSnapshotStorage(store),
  });
}

export interface GatewayMetricsSources {
  readonly store: EventStore;
  /** The game's figures (a durable read model, ADR 0011) and the runner that keeps them. */
  readonly gameFigures: GameFigures;
  readonly readModels: ProjectionRunner;
  /** The subscriptions this process runs (settlement reactor, outbox, ...). */
  readonly subscriptions: () => readonly Subscription[];
  /** The durable read models' metrics (ADR 0023), registered on this registry too. */
  readonly projections?: ProjectionMetrics;
  /** The command handler whose state cache and snapshots are measured (ADR 0020, 0025). */
  readonly commands?: () => CommandHandler | null;
  /** The messages consumers parked (ADR 0035), whichever process parked them. */
  readonly parked?: ParkedMessages;
}

/**
 * Everything the gateway serves at /metrics besides HTTP latency: the game's figures (a read
 * model of the log), refused bets by code, subscription checkpoints and the outbox backlog. The same classes
 * (@croupier/runtime) serve them from the round, wallet and settlement processes.
 */
export class GatewayMetrics {
  readonly registry: Registry;
  private readonly log: LogMetrics;
  private readonly subscriptions: SubscriptionMetrics;
  private readonly projections: ProjectionMetrics | null;
  private readonly parked: { gauge: Gauge<'consumer'>; model: ParkedMessages } | null;
  /** Counts a refused bet request (pass as createHttpApp's `onProblem`). */
  readonly onProblem: RefusedBets['onProblem'];

  constructor(sources: GatewayMetricsSources, registry = new Registry()) {
    this.registry = registry;
    this.log = new LogMetrics(registry, sources.gameFigures, sources.readModels);
    this.subscriptions = new SubscriptionMetrics(registry, sources.store, sources.subscriptions, {
      outbox: OUTBOX_SUBSCRIPTION,
    });
    this.onProblem = new RefusedBets(registry, Object.values(BET_ROUTES)).onProblem;
    this.projections = sources.projections ?? null;
    this.projections?.registerOn(registry);
    if (sources.commands !== undefined) registerCommandMetrics(registry, sources.commands);
    // From the read model, so it counts what every process parked and stays right across
    // restarts: alert on any value above 0 (docs/operations.md, "Parked messages").
    this.parked =
      sources.parked === undefined
        ? null
        : {
            model: sources.parked,
            gauge: new Gauge({
              name: 'croupier_parked_messages',
              help: 'Messages a consumer could not apply and parked (ADR 0035), not yet resolved, by consumer',
              labelNames: ['consumer'],
              registers: [registry],
            }),
          };
  }

  /** Brings the gauges and log-derived counters up to date: call before each scrape. */
  async refresh(): Promise<void> {
    this.projections?.refresh();
    await Promise.all([this.log.refresh(), this.subscriptions.refresh(), this.refreshParked()]);
  }

  private async refreshParked(): Promise<void> {
    if (this.parked === null) return;
    const open = await this.parked.model.openByConsumer();
    for (const [consumer, count] of Object.entries(open))
      this.parked.gauge.set({ consumer }, count);
  }
}
