import { randomUUID } from 'node:crypto';
import { presetConfig } from '@croupier/contracts';
import { MemoryEventStore, type EventStore, type Subscription } from '@croupier/eventstore';
import type { HttpApp } from '@croupier/http';
import { BullMqSettlementBus } from '@croupier/messaging';
import { SubscriptionMetrics } from '@croupier/runtime';
import { OUTBOX_SUBSCRIPTION } from '@croupier/settlement';
import { sample, startRedisServer, type RedisProcess } from '@croupier/testkit';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, GatewayMetrics, loadConfig, System, timedAppends } from '../src/index.js';
import { as, startCasino, TEST_SECRETS, waitForWallets, type Casino } from './support/casino.js';

describe('/metrics: the game, the outbox and the store, from the log', () => {
  let casino: Casino;
  let app: HttpApp;
  let registry: Registry;
  let store: EventStore;
  let operatorToken: string;
  const scrape = async (target = app) => {
    const response = await target.inject({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: `Bearer ${operatorToken}` },
    });
    expect(response.statusCode).toBe(200);
    return response.body;
  };

  beforeAll(async () => {
    registry = new Registry();
    store = timedAppends(new MemoryEventStore(), registry);
    casino = await startCasino(store);
    const { system } = casino;
    const metrics = new GatewayMetrics(
      {
        store,
        gameFigures: system.gameFigures,
        readModels: system.readModels,
        subscriptions: () => system.runningSubscriptions,
      },
      registry,
    );
    app = await buildApp(system, false, { metrics });
    operatorToken = await system.tokens.issue({ id: 'olga', role: 'operator' });

    const operator = as('olga', 'operator');
    const dealer = as('dan', 'dealer');
    await system.rounds.openTable(
      {
        tableId: 'metrics',
        config: presetConfig('live'),
        dealing: { mode: 'manual', bettingWindowMs: 0 },
      },
      operator,
    );
    for (const playerId of ['alice', 'bob'])
      await system.wallets.deposit(
        { playerId, amount: 100_000, currency: 'EUR', reference: `m-${playerId}` },
        operator,
      );
    const first = await system.rounds.openRound('metrics', dealer);
    await system.rounds.placeBets(
      first.roundId,
      'alice',
      [
        { type: 'banker', amount: 1_000, bankerMode: 'commission' },
        { type: 'player_pair', amount: 100 },
      ],
      as('alice', 'player'),
    );
    await system.rounds.placeBets(
      first.roundId,
      'bob',
      [{ type: 'player', amount: 700 }],
      as('bob', 'player'),
    );
    await system.rounds.closeBetting(first.roundId, dealer);
    await system.rounds.deal(first.roundId, dealer);
    await waitForWallets(system, ['alice', 'bob']);

    const second = await system.rounds.openRound('metrics', dealer);
    await system.rounds.placeBets(
      second.roundId,
      'bob',
      [{ type: 'banker', amount: 500, bankerMode: 'commission' }],
      as('bob', 'player'),
    );
    await system.rounds.pause(second.roundId, 'camera offline', as('sue', 'supervisor'));
    await system.rounds.void(second.roundId, 'camera not restored', as('sue', 'supervisor'));
    await waitForWallets(system, ['alice', 'bob']);

    // Refused bets, through the API: betting closed (the round is voided), and funds short.
    const bob = `Bearer ${await system.tokens.issue({ id: 'bob', role: 'player' })}`;
    const bet = (roundId: string, amount: number) =>
      app.inject({
        method: 'POST',
        url: `/v1/rounds/${roundId}/bets`,
        headers: { authorization: bob },
        payload: { bets: [{ type: 'player', amount, betId: randomUUID() }] },
      });
    expect((await bet(second.roundId, 500)).statusCode).toBe(409);
    const third = await system.rounds.openRound('metrics', dealer);
    expect((await bet(third.roundId, 200_000)).statusCode).toBe(422);
  });
  afterAll(async () => {
    await app.close();
    await casino.close();
  });

  it('counts rounds by table, bets and stakes by type, refunds, refused bets and the settlement lag', async () => {
    const text = await scrape();
    const table = { table: 'metrics' };
    expect(sample(text, 'croupier_rounds_opened_total', table)).toBe(3);
    expect(sample(text, 'croupier_rounds_completed_total', table)).toBe(1);
    expect(sample(text, 'croupier_rounds_voided_total', table)).toBe(1);
    expect(sample(text, 'croupier_bets_placed_total', { bet_type: 'banker' })).toBe(2);
    expect(sample(text, 'croupier_bets_placed_total', { bet_type: 'player' })).toBe(1);
    expect(sample(text, 'croupier_bets_placed_total', { bet_type: 'player_pair' })).toBe(1);
    expect(
      sample(text, 'croupier_bet_stakes_minor_units_total', {
        bet_type: 'banker',
        currency: 'EUR',
      }),
    ).toBe(1_500);
    expect(sample(text, 'croupier_stakes_refunded_total', { reason: 'voided' })).toBe(1);
    expect(sample(text, 'croupier_bets_refused_total', { code: 'BETTING_CLOSED' })).toBe(1);
    expect(sample(text, 'croupier_bets_refused_total', { code: 'INSUFFICIENT_FUNDS' })).toBe(1);
    expect(sample(text, 'croupier_settlement_lag_seconds_count')).toBe(1);
    expect(sample(text, 'croupier_settlement_lag_seconds_sum')).toBeGreaterThanOrEqual(0);
    expect(sample(text, 'croupier_settlement_lag_seconds_sum')).toBeLessThan(30);
    expect(
      sample(text, 'croupier_http_request_duration_seconds_count', {
        method: 'POST',
        route: '/v1/rounds/:roundId/bets',
        status: '409',
      }),
    ).toBe(1);
    expect(
      sample(text, 'croupier_eventstore_append_duration_seconds_count', { outcome: 'ok' }),
    ).toBeGreaterThan(10);
  });

  it('reports each subscription checkpoint and an empty outbox once everything is published', async () => {
    // The commission collector reads at most once a second and moves its checkpoint past events
    // it skips at most once a second (ADR 0022): its position moves soon, not at once.
    let text = await scrape();
    for (let attempt = 0; attempt < 100; attempt++) {
      if (
        (sample(text, 'croupier_subscription_position', {
          subscription: 'wallet-commission-collector',
        }) ?? 0) > 0
      )
        break;
      await new Promise((resolve) => setTimeout(resolve, 100));
      text = await scrape();
    }
    for (const name of ['settlement', 'settlement-outbox', 'wallet-commission-collector'])
      expect(
        sample(text, 'croupier_subscription_position', { subscription: name }),
      ).toBeGreaterThan(0);
    expect(sample(text, 'croupier_outbox_backlog_events')).toBe(0);
  });

  it('counts the outbox backlog as the settlement records after its checkpoint', async () => {
    const behind = new Registry();
    const records = (
      await store.readAll({ filter: { eventTypes: ['RoundSettled', 'BetsRefunded'] } })
    ).length;
    expect(records).toBe(2);
    const stuck: Subscription = {
      name: 'settlement-outbox',
      position: () => 0n,
      stop: () => Promise.resolve(),
      caughtUp: () => Promise.resolve(),
    };
    const standby: Subscription = { ...stuck, name: 'settlement', position: () => null };
    const metrics = new SubscriptionMetrics(behind, store, () => [stuck, standby], {
      outbox: OUTBOX_SUBSCRIPTION,
    });
    await metrics.refresh();
    const text = await behind.metrics();
    expect(sample(text, 'croupier_outbox_backlog_events')).toBe(records);
    expect(sample(text, 'croupier_subscription_position', { subscription: 'settlement' })).toBe(
      undefined,
    );
  });

  it('counts every event once: scraping again, rebuilding the read models or restarting change nothing', async () => {
    const names = [
      ['croupier_rounds_opened_total', { table: 'metrics' }],
      ['croupier_bets_placed_total', { bet_type: 'banker' }],
      ['croupier_settlement_lag_seconds_count', {}],
    ] as const;
    const before = await scrape();
    const rebuild = await app.inject({
      method: 'POST',
      url: '/v1/admin/rebuild',
      headers: { authorization: `Bearer ${operatorToken}` },
    });
    expect(rebuild.statusCode).toBe(200);
    const after = await scrape();
    // A process started now reads the same log: the same counts, so Prometheus sees no reset.
    const restarted = await buildApp(casino.system);
    const fresh = await scrape(restarted);
    await restarted.close();
    for (const [name, labels] of names) {
      expect(sample(after, name, labels)).toBe(sample(before, name, labels));
      expect(sample(fresh, name, labels)).toBe(sample(before, name, labels));
    }
  });
});

describe('/ready with the BullMQ bus', () => {
  let redis: RedisProcess;
  let system: System;
  let app: HttpApp;
  let store: EventStore;

  beforeAll(async () => {
    redis = await startRedisServer({ persistent: false });
    store = new MemoryEventStore();
    const config = loadConfig({
      EVENTSTORE: 'pglite',
      ...TEST_SECRETS,
      AUTO_TABLES: '',
      LOG_LEVEL: 'silent',
      REDIS_URL: redis.url,
    });
    const bus = new BullMqSettlementBus({
      redisUrl: redis.url,
      prefix: 'ready-test',
      publishTimeoutMs: 500,
      reconnectMaxDelayMs: 100,
    });
    system = await System.create({
      config,
      logger: pino({ level: 'silent' }),
      store,
      bus,
      autoDeal: false,
      sweepIntervalMs: 3_600_000,
    });
    await system.start();
    app = await buildApp(system);
  });
  afterAll(async () => {
    await redis.start();
    await app.close();
    await system.stop();
    await store.close();
    await redis.cleanup();
  });

  const ready = async () => {
    const response = await app.inject({ method: 'GET', url: '/ready' });
    return { status: response.statusCode, body: response.json<Record<string, unknown>>() };
  };
  const eventually = async (status: number) => {
    for (let attempt = 0; attempt < 100; attempt++) {
      const answer = await ready();
      if (answer.status === status) return answer;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`/ready never answered ${status}`);
  };

  it('answers 503 naming Redis while Redis is down, and 200 again once it is back', async () => {
    expect(await ready()).toEqual({
      status: 200,
      body: { status: 'ready', checks: { eventStore: true, redis: true } },
    });
    await redis.stop('SIGKILL');
    expect(await eventually(503)).toEqual({
      status: 503,
      body: { status: 'not ready', checks: { eventStore: true, redis: false } },
    });
    // Liveness is not readiness: the process is fine, only a dependency is not.
    expect((await app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);
    await redis.start();
    expect((await eventually(200)).body).toMatchObject({ checks: { redis: true } });
  });

  it('answers 503 naming the store when the store does not answer', async () => {
    const broken = new MemoryEventStore();
    await broken.close();
    const lonely = await System.create({
      config: system.config,
      logger: pino({ level: 'silent' }),
      store: broken,
      bus: new BullMqSettlementBus({ redisUrl: redis.url, prefix: 'ready-test-2' }),
      autoDeal: false,
    });
    const brokenApp = await buildApp(lonely);
    const response = await brokenApp.inject({ method: 'GET', url: '/ready' });
    expect(response.statusCode).toBe(503);
    expect(response.json()).toMatchObject({ checks: { eventStore: false, redis: true } });
    await brokenApp.close();
    await lonely.bus.close();
  });
});

describe('gateway settings', () => {
  let casino: Casino;
  beforeAll(async () => {
    casino = await startCasino(undefined, { METRICS_PUBLIC: 'true' });
  });
  afterAll(async () => {
    await casino.close();
  });

  it('serves /metrics without a token when METRICS_PUBLIC is set', async () => {
    const app = await buildApp(casino.system);
    const response = await app.inject({ method: 'GET', url: '/metrics' });
    expect(response.statusCode).toBe(200);
    expect(response.body).toMatch(/croupier_rounds_opened_total/);
    await app.close();
  });

  it('keeps the console its own stricter policy, and the API its security headers', async () => {
    const app = await buildApp(casino.system);
    const page = await app.inject({ method: 'GET', url: '/console' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-security-policy']).toBe(
      "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'",
    );
    expect(page.headers['x-frame-options']).toBe('DENY');
    const api = await app.inject({ method: 'GET', url: '/v1/tables' });
    expect(api.headers['x-content-type-options']).toBe('nosniff');
    expect(api.headers['strict-transport-security']).toMatch(/max-age/);
    await app.close();
  });

  it('reads RATE_LIMIT_PER_MINUTE', async () => {
    expect(loadConfig({ EVENTSTORE: 'pglite', ...TEST_SECRETS }).RATE_LIMIT_PER_MINUTE).toBe(6_000);
    const limited = await startCasino(undefined, { RATE_LIMIT_PER_MINUTE: '2' });
    const app = await buildApp(limited.system);
    const statuses = [];
    for (let i = 0; i < 3; i++)
      statuses.push((await app.inject({ method: 'GET', url: '/v1/tables' })).statusCode);
    expect(statuses).toEqual([401, 401, 429]);
    await app.close();
    await limited.close();
  });
});
