import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TokenAuthority } from '@croupier/http';
import {
  declares,
  isolatedPostgres,
  sample,
  startRedisServer,
  type IsolatedPostgres,
  type RedisProcess,
} from '@croupier/testkit';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ApiClient, httpTransport } from '../support/api.js';
import { DEPLOYMENT } from '../support/harness.js';
import { Cluster, CLUSTER_SECRETS, type ServiceName } from '../support/cluster.js';
import {
  expectStatus,
  fund,
  openRound,
  openTable,
  placeBets,
  playRound,
  settled,
} from '../support/play.js';

/**
 * The distributed deployment without the gateway: each process serves at /metrics what it
 * knows. The round service the game read from the log and the bets it refused; the wallet its
 * commission collector's checkpoint; the settlement its checkpoints and the outbox backlog.
 */
/** Why the single-process run skips this file: it starts the same processes in both runs. */
const ONE_RUN = '(distributed run only: it starts processes of its own, the same in both runs)';

describe.skipIf(DEPLOYMENT === 'single')(
  `/metrics of the services as separate processes, without the gateway ${ONE_RUN}`,
  () => {
    let postgres: IsolatedPostgres;
    let redis: RedisProcess;
    let cluster: Cluster;
    let api: ApiClient;
    const scrape = async (service: ServiceName) => {
      const response = await api.raw<string>(
        'GET',
        `${cluster.url(service)}/metrics`,
        undefined,
        `Bearer ${await api.token('operator', 'olga')}`,
      );
      expect(response.status).toBe(200);
      return response.body;
    };

    beforeAll(async () => {
      postgres = await isolatedPostgres('metrics');
      redis = await startRedisServer({ persistent: false });
      cluster = await Cluster.create({
        databaseUrl: postgres.connectionString,
        schema: postgres.schema,
        redisUrl: redis.url,
        redisPrefix: postgres.schema,
        logDir: mkdtempSync(join(tmpdir(), 'croupier-metrics-')),
        settlementInstances: 1,
      });
      // A full URL goes where it says (the scrapes); an API path as a load balancer would send it.
      const route = (path: string) =>
        path.startsWith('http')
          ? ''
          : cluster.url(path.startsWith('/v1/wallets') ? 'wallet' : 'round');
      api = new ApiClient(httpTransport(route), new TokenAuthority(CLUSTER_SECRETS.JWT_SECRET));

      await openTable(api, 'metered', 'generic');
      await fund(api, ['mia'], 10_000);
      const round = await openRound(api, 'metered');
      const bets = [
        { type: 'banker', amount: 1_000 },
        { type: 'tie', amount: 100 },
      ];
      expectStatus(await placeBets(api, round.roundId, 'mia', bets), 201);
      // Refused: more than mia has left, then betting is over.
      const beyond = [{ type: 'player', amount: 9_000 }];
      expectStatus(await placeBets(api, round.roundId, 'mia', beyond), 422);
      expectStatus(await api.as('dealer').post(`/v1/rounds/${round.roundId}/close-betting`), 200);
      expectStatus(await placeBets(api, round.roundId, 'mia', bets), 409);
      expectStatus(await api.as('dealer').post(`/v1/rounds/${round.roundId}/deal`), 200);
      expect((await settled(api, round.roundId)).settlement?.lines).toHaveLength(2);
    });
    afterAll(async () => {
      await cluster.stop();
      await redis.cleanup();
      await postgres.drop();
    });

    it('the round service counts rounds, bets, stakes and refusals, and times settlements', async () => {
      const text = await scrape('round');
      const table = { table: 'metered' };
      expect(sample(text, 'croupier_rounds_opened_total', table)).toBe(1);
      expect(sample(text, 'croupier_rounds_completed_total', table)).toBe(1);
      expect(sample(text, 'croupier_bets_placed_total', { bet_type: 'banker' })).toBe(1);
      expect(sample(text, 'croupier_bets_placed_total', { bet_type: 'tie' })).toBe(1);
      expect(sample(text, 'croupier_bet_stakes_minor_units_total', { bet_type: 'banker' })).toBe(
        1_000,
      );
      expect(sample(text, 'croupier_bets_refused_total', { code: 'BETTING_CLOSED' })).toBe(1);
      expect(sample(text, 'croupier_bets_refused_total', { code: 'INSUFFICIENT_FUNDS' })).toBe(1);
      // Settled by the settlement process, measured here from the store's timestamps.
      expect(sample(text, 'croupier_settlement_lag_seconds_count')).toBe(1);
      expect(sample(text, 'croupier_settlement_lag_seconds_sum')).toBeLessThan(30);
      expect(
        sample(text, 'croupier_http_request_duration_seconds_count', {
          method: 'POST',
          route: '/v1/rounds/:roundId/bets',
          status: '201',
        }),
      ).toBe(1);
      // It holds no subscription: positions are the wallet's and the settlement's to report.
      expect(declares(text, 'croupier_subscription_position')).toBe(false);
    });

    it("the wallet service reports its commission collector's checkpoint, moving with the log", async () => {
      const position = async () =>
        sample(await scrape('wallet'), 'croupier_subscription_position', {
          subscription: 'wallet-commission-collector',
        }) ?? 0;
      const before = await vi.waitFor(
        async () => {
          const value = await position();
          if (value <= 0) throw new Error('the collector has not moved yet');
          return value;
        },
        { timeout: 20_000, interval: 100 },
      );
      await playRound(api, 'metered', { mia: [{ type: 'player', amount: 100 }] });
      await vi.waitFor(
        async () => {
          expect(await position()).toBeGreaterThan(before);
        },
        { timeout: 20_000, interval: 100 },
      );
      const text = await scrape('wallet');
      // The outbox is the settlement's; the game's counters are the round service's.
      expect(declares(text, 'croupier_outbox_backlog_events')).toBe(false);
      expect(declares(text, 'croupier_rounds_completed_total')).toBe(false);
    });

    it('the settlement service reports its checkpoints and an empty outbox', async () => {
      await vi.waitFor(
        async () => {
          const text = await scrape('settlement');
          for (const subscription of ['settlement', 'settlement-outbox'])
            expect(
              sample(text, 'croupier_subscription_position', { subscription }),
            ).toBeGreaterThan(0);
          expect(sample(text, 'croupier_outbox_backlog_events')).toBe(0);
        },
        { timeout: 20_000, interval: 100 },
      );
    });
  },
);
