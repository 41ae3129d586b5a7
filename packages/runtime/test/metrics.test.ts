import { randomUUID } from 'node:crypto';
import { ProjectionRunner } from '@croupier/application';
import {
  MemoryEventStore,
  type EventStore,
  type ReadAllOptions,
  type RecordedEvent,
  type ProjectionStorage,
  type Subscription,
} from '@croupier/eventstore';
import type { HttpAppOptions } from '@croupier/http';
import { Registry } from 'prom-client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { GameFigures, LogMetrics, RefusedBets, SubscriptionMetrics } from '../src/index.js';

type Request = Parameters<NonNullable<HttpAppOptions['onProblem']>>[0];
type Problem = Parameters<NonNullable<HttpAppOptions['onProblem']>>[1];

/** A log in memory: just what the metrics read (readAll after a position, paged). */
function logOf(events: readonly RecordedEvent[]): EventStore {
  return {
    readAll: (options: ReadAllOptions = {}) =>
      Promise.resolve(
        events
          .filter((event) => options.after === undefined || event.position > options.after)
          .slice(0, options.limit),
      ),
  } as unknown as EventStore;
}

let position = 0n;
function recorded(stream: string, type: string, data: object, at: number): RecordedEvent {
  position += 1n;
  return {
    id: `event-${position}`,
    stream,
    type,
    data,
    metadata: {},
    revision: 0n,
    position,
    recordedAt: new Date(at),
  };
}

async function valueOf(registry: Registry, name: string, labels: Record<string, string> = {}) {
  const metric = await registry.getSingleMetric(name)?.get();
  return metric?.values.find((value) =>
    Object.entries(labels).every(([key, label]) => value.labels[key] === label),
  )?.value;
}

/** A store that counts the events its readers are handed: what a scrape or a start costs. */
function countingReads(store: MemoryEventStore): { store: EventStore; read: () => number } {
  let read = 0;
  // Every method delegated to the store itself (its private fields need it as the receiver).
  const counted: EventStore = {
    append: (stream, events, options) => store.append(stream, events, options),
    readStream: (stream, options) => store.readStream(stream, options),
    readAll: async (options) => {
      const events = await store.readAll(options);
      read += events.length;
      return events;
    },
    head: () => store.head(),
    subscribe: (options) => store.subscribe(options),
    verifyStream: (stream) => store.verifyStream(stream),
    close: () => store.close(),
  };
  return { store: counted, read: () => read };
}

describe('the game figures, a durable read model of the log', () => {
  const roundId = 'vip.1.1';
  const stream = `round-${roundId}`;
  let store: MemoryEventStore;
  let storage: ProjectionStorage;
  const runners: ProjectionRunner[] = [];

  beforeEach(async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    store = new MemoryEventStore();
    storage = await store.openProjectionStorage();
  });
  afterEach(async () => {
    for (const runner of runners.splice(0)) await runner.stop();
    await store.close();
    vi.useRealTimers();
  });

  /** A process serving the metrics: its runner, with the figures registered, started. */
  async function serving(from: EventStore = store) {
    const registry = new Registry();
    const runner = new ProjectionRunner(from, storage);
    runners.push(runner);
    const figures = runner.register(new GameFigures(storage));
    const metrics = new LogMetrics(registry, figures, runner);
    await runner.start();
    return { registry, metrics, runner };
  }

  const at = async (ms: number, stream: string, type: string, data: object) => {
    vi.setSystemTime(ms);
    await store.append(stream, [{ id: randomUUID(), type, data, metadata: {} }], {
      expectedVersion: 'any',
    });
  };

  async function playRound(): Promise<void> {
    await at(0, stream, 'RoundOpened', { roundId, currency: 'GBP' });
    await at(10, stream, 'BetPlaced', { roundId, type: 'banker', amount: 2_500 });
    await at(11, 'wallet-ann', 'StakeDebited', { roundId, amount: 2_500 });
    await at(1_000, stream, 'RoundCompleted', { roundId });
    await at(1_250, stream, 'RoundSettled', { roundId });
  }

  it('counts rounds, bets and stakes in the round currency, and times settlement by the store', async () => {
    await playRound();
    const { registry, metrics } = await serving();
    await metrics.refresh();
    // A second scrape finds nothing new: counts stay as they are.
    await metrics.refresh();
    expect(await valueOf(registry, 'croupier_rounds_opened_total', { table: 'vip' })).toBe(1);
    expect(await valueOf(registry, 'croupier_rounds_completed_total', { table: 'vip' })).toBe(1);
    expect(await valueOf(registry, 'croupier_bets_placed_total', { bet_type: 'banker' })).toBe(1);
    expect(
      await valueOf(registry, 'croupier_bet_stakes_minor_units_total', { currency: 'GBP' }),
    ).toBe(2_500);
    // 1.000 s to 1.250 s by the store's clock, whenever this process read them.
    const text = await registry.metrics();
    expect(text).toMatch(/^croupier_settlement_lag_seconds_sum 0\.25$/m);
    expect(text).toMatch(/^croupier_settlement_lag_seconds_count 1$/m);
    expect(text).toMatch(/^croupier_settlement_lag_seconds_bucket\{le="0\.1"\} 0$/m);
    expect(text).toMatch(/^croupier_settlement_lag_seconds_bucket\{le="0\.25"\} 1$/m);
    expect(text).toMatch(/^croupier_settlement_lag_seconds_bucket\{le="\+Inf"\} 1$/m);
  });

  it('serves what was appended since the last scrape, refunds and voids included', async () => {
    const { registry, metrics } = await serving();
    await playRound();
    await metrics.refresh();
    const next = 'vip.1.2';
    await at(2_000, `round-${next}`, 'RoundOpened', { roundId: next, currency: 'GBP' });
    await at(2_001, `round-${next}`, 'RoundVoided', { roundId: next });
    await at(2_002, 'wallet-ann', 'StakeRefunded', { roundId: next, reason: 'voided' });
    await metrics.refresh();
    expect(await valueOf(registry, 'croupier_rounds_opened_total', { table: 'vip' })).toBe(2);
    expect(await valueOf(registry, 'croupier_rounds_voided_total', { table: 'vip' })).toBe(1);
    expect(await valueOf(registry, 'croupier_stakes_refunded_total', { reason: 'voided' })).toBe(1);
  });

  it('survives a restart without reading the log again', async () => {
    await playRound();
    const first = await serving();
    await first.metrics.refresh();
    const before = await first.registry.metrics();
    await first.runner.stop();

    const counted = countingReads(store);
    const restarted = await serving(counted.store);
    await restarted.metrics.refresh();
    expect(await restarted.registry.metrics()).toBe(before);
    expect(counted.read()).toBe(0);
  });
});

describe('subscription gauges', () => {
  const subscription = (name: string, at: bigint | null): Subscription => ({
    name,
    position: () => at,
    stop: () => Promise.resolve(),
    caughtUp: () => Promise.resolve(),
  });

  it('report the checkpoints a process holds, and no outbox backlog where it runs no outbox', async () => {
    const registry = new Registry();
    const metrics = new SubscriptionMetrics(registry, logOf([]), () => [
      subscription('wallet-commission-collector', 42n),
      subscription('standing-by', null),
    ]);
    await metrics.refresh();
    expect(
      await valueOf(registry, 'croupier_subscription_position', {
        subscription: 'wallet-commission-collector',
      }),
    ).toBe(42);
    expect(
      await valueOf(registry, 'croupier_subscription_position', { subscription: 'standing-by' }),
    ).toBeUndefined();
    expect(registry.getSingleMetric('croupier_outbox_backlog_events')).toBeUndefined();
  });

  it("count the outbox's backlog with its own filter", async () => {
    const events = [
      recorded('round-t.1.1', 'RoundSettled', {}, 0),
      recorded('round-t.1.1', 'CardDealt', {}, 0),
      recorded('round-t.1.2', 'BetsRefunded', {}, 0),
    ];
    const store = {
      readAll: (options: ReadAllOptions = {}) =>
        logOf(events)
          .readAll(options)
          .then((found) =>
            found.filter((event) => options.filter?.eventTypes?.includes(event.type) ?? true),
          ),
    } as unknown as EventStore;
    const registry = new Registry();
    const metrics = new SubscriptionMetrics(
      registry,
      store,
      () => [subscription('outbox', events[0]!.position - 1n)],
      { outbox: { name: 'outbox', filter: { eventTypes: ['RoundSettled', 'BetsRefunded'] } } },
    );
    await metrics.refresh();
    expect(await valueOf(registry, 'croupier_outbox_backlog_events')).toBe(2);
  });
});

describe('refused bets', () => {
  it('counts problems answered to POSTs on the bet routes only', async () => {
    const registry = new Registry();
    const refused = new RefusedBets(registry, ['/v1/rounds/:roundId/bets']);
    const request = (method: string, url: string) =>
      ({ method, routeOptions: { url } }) as unknown as Request;
    const problem = { code: 'BETTING_CLOSED' } as Problem;
    refused.onProblem(request('POST', '/v1/rounds/:roundId/bets'), problem);
    refused.onProblem(request('DELETE', '/v1/rounds/:roundId/bets'), problem);
    refused.onProblem(request('POST', '/v1/tables/:tableId/rounds'), problem);
    expect(await valueOf(registry, 'croupier_bets_refused_total', { code: 'BETTING_CLOSED' })).toBe(
      1,
    );
  });
});
