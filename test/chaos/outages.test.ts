import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEventStore, type EventStore } from '@croupier/eventstore';
import {
  isolatedPostgres,
  startRedisServer,
  startTcpRelay,
  throughRelay,
  type IsolatedPostgres,
  type RedisProcess,
  type TcpRelay,
} from '@croupier/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cluster, CLUSTER_SECRETS } from '../support/cluster.js';
import { checkMoney, settledEverywhere } from '../support/invariants.js';
import { Remote } from '../support/remote.js';

const operator = { role: 'operator', sub: 'outage-operator' } as const;
const dealer = { role: 'dealer', sub: 'outage-dealer' } as const;
const player = { role: 'player', sub: 'outage-p1' } as const;

/**
 * A store or Redis outage is `503 UNAVAILABLE` with `Retry-After`, never a 500 and never a
 * hang (issue 11): the services as separate processes reach PostgreSQL and Redis through TCP
 * relays this test cuts, so every connection breaks and every new one is reset, as in a
 * network failure, while the servers other tests use stay up. Bets, deposits and reads are
 * sent during each outage; after it the same requests (same bet id, same reference) succeed
 * once, and the money is right to the cent.
 */
describe('outages of PostgreSQL and Redis, cut at the network', () => {
  let database: IsolatedPostgres;
  let redis: RedisProcess;
  let postgresRelay: TcpRelay;
  let redisRelay: TcpRelay;
  let cluster: Cluster;
  let store: EventStore;
  const remote = new Remote(CLUSTER_SECRETS.JWT_SECRET);

  beforeAll(async () => {
    database = await isolatedPostgres('outage');
    const server = new URL(database.connectionString);
    postgresRelay = await startTcpRelay({
      host: server.hostname,
      port: Number(server.port || 5432),
    });
    redis = await startRedisServer({ persistent: false });
    redisRelay = await startTcpRelay({ host: '127.0.0.1', port: redis.port });
    cluster = await Cluster.create({
      databaseUrl: throughRelay(database.connectionString, postgresRelay),
      schema: database.schema,
      redisUrl: `redis://127.0.0.1:${redisRelay.port}`,
      redisPrefix: `outage_${randomUUID().slice(0, 8)}`,
      logDir: mkdtempSync(join(tmpdir(), 'croupier-outage-')),
      settlementInstances: 1,
    });
    store = await createEventStore({
      kind: 'postgres',
      connectionString: database.connectionString,
      schema: database.schema,
    });
  });
  afterAll(async () => {
    await cluster.stop();
    await store.close();
    await postgresRelay.close();
    await redisRelay.close();
    await redis.cleanup();
    await database.drop();
  });

  /** The requests a client keeps sending through an outage: commands and reads, each service. */
  const traffic = (roundId: string, betId: string, reference: string) => [
    {
      what: 'bet',
      send: () =>
        remote.call(cluster.url('round'), 'POST', `/v1/rounds/${roundId}/bets`, player, {
          bets: [{ betId, type: 'banker', amount: 500 }],
        }),
    },
    {
      what: 'deposit',
      send: () =>
        remote.call(cluster.url('wallet'), 'POST', `/v1/wallets/${player.sub}/deposits`, operator, {
          amount: 1_000,
          currency: 'EUR',
          reference,
        }),
    },
    {
      what: 'table read',
      send: () => remote.call(cluster.url('round'), 'GET', '/v1/tables/outage-t', player),
    },
    {
      what: 'round read',
      send: () => remote.call(cluster.url('round'), 'GET', `/v1/rounds/${roundId}`, player),
    },
    {
      what: 'wallet read',
      send: () => remote.call(cluster.url('wallet'), 'GET', `/v1/wallets/${player.sub}`, player),
    },
  ];

  /** Sends until it succeeds (the outage is over and the processes reconnected). */
  async function succeeds(
    send: () => ReturnType<Remote['call']>,
    accept: readonly number[],
  ): Promise<number> {
    for (let attempt = 0; ; attempt++) {
      const answer = await send().catch(() => null);
      if (answer !== null) {
        expect(answer.status, JSON.stringify(answer.body)).not.toBe(500);
        if (accept.includes(answer.status)) return answer.status;
      }
      if (attempt > 600) throw new Error(`still ${answer?.status ?? 'no answer'} after the outage`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  it('answers 503 with Retry-After while PostgreSQL is cut off, then serves again', async () => {
    const round = cluster.url('round');
    expect(
      (
        await remote.call(round, 'POST', '/v1/tables', operator, {
          tableId: 'outage-t',
          preset: 'generic',
        })
      ).status,
    ).toBe(201);
    await succeeds(
      () =>
        remote.call(cluster.url('wallet'), 'POST', `/v1/wallets/${player.sub}/deposits`, operator, {
          amount: 10_000,
          currency: 'EUR',
          reference: 'outage-start',
        }),
      [201],
    );
    const opened = await remote.call<{ roundId: string }>(
      round,
      'POST',
      '/v1/tables/outage-t/rounds',
      dealer,
    );
    expect(opened.status).toBe(201);
    const { roundId } = opened.body;
    const betId = randomUUID();

    expect(postgresRelay.cut()).toBeGreaterThan(0);
    for (const request of traffic(roundId, betId, 'outage-pg')) {
      const answer = await request.send();
      expect(answer.status, `${request.what}: ${JSON.stringify(answer.body)}`).toBe(503);
      expect(answer.headers.get('retry-after'), request.what).toMatch(/^\d+$/);
      expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(answer.body).toMatchObject({ code: 'UNAVAILABLE', status: 503 });
    }
    postgresRelay.restore();

    // The same requests again: each counts once (bet id, reference), whatever the outage did.
    const [bet, deposit, ...reads] = traffic(roundId, betId, 'outage-pg');
    expect(await succeeds(bet!.send, [201, 409])).toBeLessThan(500);
    expect(await succeeds(deposit!.send, [201, 200])).toBeLessThan(500);
    for (const read of reads) await succeeds(read.send, [200]);

    expect(
      (await remote.call(round, 'POST', `/v1/rounds/${roundId}/close-betting`, dealer)).status,
    ).toBe(200);
    expect((await remote.call(round, 'POST', `/v1/rounds/${roundId}/deal`, dealer)).status).toBe(
      200,
    );
    const events = await settledEverywhere(store, 60_000);
    expect(checkMoney(events).discrepancies).toEqual([]);
    const debits = events.filter(
      (e) => e.type === 'StakeDebited' && (e.data as { betId: string }).betId === betId,
    );
    expect(debits).toHaveLength(1);
    expect(
      events.filter(
        (e) =>
          e.type === 'FundsDeposited' &&
          (e.data as { reference: string }).reference === 'outage-pg',
      ),
    ).toHaveLength(1);
  });

  it('keeps taking bets while Redis is cut off, says it is not ready, and settles once it is back', async () => {
    const round = cluster.url('round');
    const opened = await remote.call<{ roundId: string }>(
      round,
      'POST',
      '/v1/tables/outage-t/rounds',
      dealer,
    );
    expect(opened.status).toBe(201);
    const { roundId } = opened.body;
    const betId = randomUUID();

    expect(redisRelay.cut()).toBeGreaterThan(0);
    try {
      // Nothing a client asks for needs Redis: the settlement bus is behind the outbox.
      for (const request of traffic(roundId, betId, 'outage-redis')) {
        const answer = await request.send();
        expect(answer.status, `${request.what}: ${JSON.stringify(answer.body)}`).toBeLessThan(300);
      }
      expect(
        (await remote.call(round, 'POST', `/v1/rounds/${roundId}/close-betting`, dealer)).status,
      ).toBe(200);
      expect((await remote.call(round, 'POST', `/v1/rounds/${roundId}/deal`, dealer)).status).toBe(
        200,
      );
      // The settlement service cannot publish, and says so to its orchestrator.
      const ready = await fetch(`${cluster.url('settlement')}/ready`);
      expect(ready.status).toBe(503);
    } finally {
      redisRelay.restore();
    }
    const events = await settledEverywhere(store, 60_000);
    expect(checkMoney(events).discrepancies).toEqual([]);
    const closing = events.filter(
      (e) =>
        (e.type === 'PayoutCredited' || e.type === 'StakeRefunded') &&
        (e.data as { betId: string }).betId === betId,
    );
    expect(closing).toHaveLength(1);
    expect(events.some((e) => e.type === 'RoundSettled' && e.stream === `round-${roundId}`)).toBe(
      true,
    );
  });
});
