import type { EventStore, ReadAllOptions, RecordedEvent, Subscription } from '@croupier/eventstore';
import type { HttpAppOptions } from '@croupier/http';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { LogMetrics, RefusedBets, SubscriptionMetrics } from '../src/index.js';

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

describe('the game read from the log', () => {
  it('counts rounds, bets and stakes in the round currency, and times settlement by the store', async () => {
    const roundId = 'vip.1.1';
    const stream = `round-${roundId}`;
    const events = [
      recorded(stream, 'RoundOpened', { roundId, currency: 'GBP' }, 0),
      recorded(stream, 'BetPlaced', { roundId, type: 'banker', amount: 2_500 }, 10),
      recorded('wallet-ann', 'StakeDebited', { roundId, amount: 2_500 }, 11),
      recorded(stream, 'RoundCompleted', { roundId }, 1_000),
      recorded(stream, 'RoundSettled', { roundId }, 1_250),
    ];
    const registry = new Registry();
    const game = new LogMetrics(registry, logOf(events));
    await game.catchUp();
    // A second scrape reads nothing new: counts stay as they are.
    await game.catchUp();
    expect(await valueOf(registry, 'croupier_rounds_opened_total', { table: 'vip' })).toBe(1);
    expect(await valueOf(registry, 'croupier_rounds_completed_total', { table: 'vip' })).toBe(1);
    expect(await valueOf(registry, 'croupier_bets_placed_total', { bet_type: 'banker' })).toBe(1);
    expect(
      await valueOf(registry, 'croupier_bet_stakes_minor_units_total', { currency: 'GBP' }),
    ).toBe(2_500);
    // 1.000 s to 1.250 s by the store's clock, whenever this process read them.
    expect(await registry.metrics()).toMatch(/^croupier_settlement_lag_seconds_sum 0\.25$/m);
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
