import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEventStore, type EventStore } from '@croupier/eventstore';
import { TokenAuthority } from '@croupier/http';
import {
  isolatedPostgres,
  startRedisServer,
  type IsolatedPostgres,
  type RedisProcess,
} from '@croupier/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, httpTransport } from '../support/api.js';
import { Cluster, CLUSTER_SECRETS } from '../support/cluster.js';
import { DEPLOYMENT } from '../support/harness.js';
import { checkMoney, settledEverywhere } from '../support/invariants.js';
import { fund, openTable, playRound } from '../support/play.js';

/**
 * Two settlement instances: one is active per subscription (a PostgreSQL advisory lock), the
 * other stands by. Killing the active one hands its work over, and nothing is settled twice.
 */
const FAILOVER =
  'settlement failover between two processes (distributed run only: it starts processes of its own, the same in both runs)';

describe.skipIf(DEPLOYMENT === 'single')(FAILOVER, () => {
  let postgres: IsolatedPostgres;
  let redis: RedisProcess;
  let cluster: Cluster;
  let store: EventStore;
  let api: ApiClient;
  beforeAll(async () => {
    postgres = await isolatedPostgres('failover');
    redis = await startRedisServer({ persistent: true });
    cluster = await Cluster.create({
      databaseUrl: postgres.connectionString,
      schema: postgres.schema,
      redisUrl: redis.url,
      redisPrefix: postgres.schema,
      logDir: mkdtempSync(join(tmpdir(), 'croupier-failover-')),
    });
    store = await createEventStore({
      kind: 'postgres',
      connectionString: postgres.connectionString,
      schema: postgres.schema,
    });
    const route = (path: string) =>
      cluster.url(path.startsWith('/v1/wallets') ? 'wallet' : 'round');
    api = new ApiClient(httpTransport(route), new TokenAuthority(CLUSTER_SECRETS.JWT_SECRET));
  });
  afterAll(async () => {
    await cluster.stop();
    await store.close();
    await redis.cleanup();
    await postgres.drop();
  });

  it('keeps settling when either instance is killed, exactly once', async () => {
    await openTable(api, 'failover', 'generic');
    await fund(api, ['kim'], 1_000_000);
    const play = async (rounds: number) => {
      for (let i = 0; i < rounds; i++) {
        const round = await playRound(api, 'failover', {
          kim: [{ type: 'banker', amount: 1_000 }],
        });
        expect(round.settlement?.lines).toHaveLength(1);
      }
    };
    await play(3);
    // Whichever was active, killing each in turn makes the other take over at least once.
    await cluster.get('settlement-1').kill();
    await play(3);
    await cluster.get('settlement-1').start();
    await cluster.get('settlement-2').kill();
    await play(3);
    await cluster.get('settlement-2').start();
    const report = checkMoney(await settledEverywhere(store));
    expect(report.discrepancies).toEqual([]);
    expect(report.figures.settledRounds).toBe(9);
  });
});
