import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { replayShoe } from '@croupier/audit';
import { createEventStore, type EventStore } from '@croupier/eventstore';
import {
  isolatedPostgres,
  startRedisServer,
  withClient,
  type IsolatedPostgres,
  type RedisProcess,
} from '@croupier/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cluster, CLUSTER_SECRETS } from '../support/cluster.js';
import { checkMoney, settledEverywhere } from '../support/invariants.js';
import { Remote } from '../support/remote.js';

const SECONDS = Number(process.env.CHAOS_SECONDS ?? 60);
const PLAYERS = Array.from({ length: 16 }, (_, i) => `chaos-p${i + 1}`);
const TABLES = ['chaos-a', 'chaos-b'];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const between = (min: number, max: number) => min + Math.random() * (max - min);

/**
 * Chaos (issue 7): the services as separate processes on PostgreSQL and Redis, two tables dealing
 * by themselves, players betting all the while, and meanwhile: kill -9 of a random service at
 * random moments (restarted), Redis crashed and restarted, PostgreSQL connections cut for a
 * while. At the end every cent must be accounted for.
 */
describe('chaos: kills, a Redis crash and cut PostgreSQL connections while rounds are played', () => {
  let postgres: IsolatedPostgres;
  let redis: RedisProcess;
  let cluster: Cluster;
  let store: EventStore;
  const remote = new Remote(CLUSTER_SECRETS.JWT_SECRET);
  const appName = `chaos_${randomUUID().slice(0, 8)}`;

  beforeAll(async () => {
    postgres = await isolatedPostgres('chaos');
    redis = await startRedisServer({ persistent: true });
    cluster = await Cluster.create({
      databaseUrl: postgres.connectionString,
      schema: postgres.schema,
      redisUrl: redis.url,
      redisPrefix: appName,
      logDir: mkdtempSync(join(tmpdir(), 'croupier-chaos-')),
      env: { DATABASE_APPLICATION_NAME: appName, ORPHAN_GRACE_MS: '1000' },
    });
    store = await createEventStore({
      kind: 'postgres',
      connectionString: postgres.connectionString,
      schema: postgres.schema,
    });
  });
  afterAll(async () => {
    await cluster.stop();
    await store.close();
    await redis.cleanup();
    await postgres.drop();
  });

  it('loses nothing and pays nothing twice', async () => {
    const round = () => cluster.url('round');
    const wallet = () => cluster.url('wallet');
    const operator = { role: 'operator', sub: 'chaos-operator' } as const;
    for (const [i, tableId] of TABLES.entries()) {
      // A one-deck shoe closes every few rounds, and touch shuffles a shoe per round: shoes close
      // all through the run, so the replay checks many of them.
      const created = await remote.call(round(), 'POST', '/v1/tables', operator, {
        tableId,
        ...(i === 0
          ? { preset: 'generic', config: { decks: 1, cutCard: 14 } }
          : { preset: 'touch' }),
        dealing: { mode: 'auto', bettingWindowMs: 300 },
      });
      expect(created.status).toBe(201);
    }
    for (const player of PLAYERS) {
      const deposit = await remote.call(
        wallet(),
        'POST',
        `/v1/wallets/${player}/deposits`,
        operator,
        {
          amount: 10_000_000,
          currency: 'EUR',
          reference: 'chaos-start',
        },
      );
      expect(deposit.status).toBe(201);
    }

    const figures = {
      betsAccepted: 0,
      betsRefused: 0,
      requestErrors: 0,
      kills: 0,
      redisOutages: 0,
      postgresOutages: 0,
    };
    const started = Date.now();
    const running = () => Date.now() - started < SECONDS * 1000;

    const playerLoop = async (player: string) => {
      while (running()) {
        try {
          const tableId = TABLES[Math.floor(Math.random() * TABLES.length)]!;
          const table = await remote.call<{
            currentRound: { roundId: string; status: string } | null;
          }>(round(), 'GET', `/v1/tables/${tableId}`, { role: 'player', sub: player });
          const current = table.body.currentRound;
          if (table.status === 200 && current?.status === 'betting') {
            const betId = randomUUID();
            const bets = [
              {
                type: Math.random() < 0.5 ? 'banker' : 'player',
                amount: 100 * (1 + Math.floor(Math.random() * 10)),
                betId,
              },
            ];
            // A request that dies with a process is retried with the same bet id: it counts once.
            for (let attempt = 0; attempt < 3; attempt++) {
              try {
                const placed = await remote.call(
                  round(),
                  'POST',
                  `/v1/rounds/${current.roundId}/bets`,
                  { role: 'player', sub: player },
                  { bets },
                );
                // DUPLICATE_BET: an earlier attempt was placed, its answer lost with the process.
                const stands =
                  placed.status === 201 ||
                  (placed.body as { code?: string }).code === 'DUPLICATE_BET';
                if (stands) figures.betsAccepted++;
                else figures.betsRefused++;
                break;
              } catch {
                figures.requestErrors++;
                await sleep(200);
              }
            }
          }
        } catch {
          figures.requestErrors++;
        }
        await sleep(between(30, 120));
      }
    };

    const killer = async () => {
      while (running()) {
        await sleep(between(2_500, 5_000));
        if (!running()) break;
        const victim = cluster.processes[Math.floor(Math.random() * cluster.processes.length)]!;
        await victim.kill();
        figures.kills++;
        await sleep(between(200, 1_500));
        await victim.start();
      }
    };

    const outages = async () => {
      // Redis crashes (its append-only file survives) and comes back.
      await sleep(SECONDS * 300);
      await redis.stop('SIGKILL');
      figures.redisOutages++;
      await sleep(3_000);
      await redis.start();
      // PostgreSQL drops every connection of the deployment, again and again, for a while.
      await sleep(SECONDS * 300);
      figures.postgresOutages++;
      const until = Date.now() + 3_000;
      while (Date.now() < until) {
        await withClient(postgres.connectionString, (client) =>
          client.query(
            `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name LIKE $1 AND pid <> pg_backend_pid()`,
            [`${appName}-%`],
          ),
        );
        await sleep(250);
      }
    };

    await Promise.all([...PLAYERS.map(playerLoop), killer(), outages()]);

    // Calm: every process up, the tables closed, the money allowed to come to rest.
    for (const process of cluster.processes) if (!process.running) await process.start();
    for (const tableId of TABLES) {
      const closed = await remote.call(round(), 'POST', `/v1/tables/${tableId}/close`, operator, {
        reason: 'chaos run over',
      });
      expect(closed.status).toBe(200);
    }
    const events = await settledEverywhere(store, 180_000);
    const report = checkMoney(events);

    // Balances the wallet service serves (its live state) equal a full rebuild from the log.
    for (const player of PLAYERS) {
      const view = await remote.call<{ balance: number }>(
        wallet(),
        'GET',
        `/v1/wallets/${player}`,
        operator,
      );
      expect(view.body.balance, player).toBe(report.balances.get(player));
    }
    // Every closed shoe replays as valid from its events alone.
    const closedShoes = events
      .filter((e) => e.type === 'ShoeClosed')
      .map((e) => e.stream.slice('shoe-'.length));
    const invalidShoes: string[] = [];
    for (const shoeId of closedShoes) {
      const rounds = new Map<string, typeof events>();
      for (const event of events) {
        if (!event.stream.startsWith(`round-${shoeId}.`)) continue;
        const roundId = event.stream.slice('round-'.length);
        rounds.set(roundId, [...(rounds.get(roundId) ?? []), event]);
      }
      const replay = replayShoe({
        shoeId,
        shoe: events.filter((e) => e.stream === `shoe-${shoeId}`),
        rounds: [...rounds].map(([roundId, roundEvents]) => ({ roundId, events: roundEvents })),
      });
      if (!replay.verdict.ok)
        invalidShoes.push(`${shoeId}: ${JSON.stringify(replay.verdict.findings).slice(0, 400)}`);
    }
    const summary = {
      seconds: SECONDS,
      rounds: report.figures.rounds,
      settledRounds: report.figures.settledRounds,
      voidedRounds: report.figures.voidedRounds,
      bets: report.figures.bets,
      ...figures,
      kills: cluster.processes.reduce((sum, p) => sum + p.kills, 0),
      closedShoes: closedShoes.length,
      events: events.length,
      discrepancies: report.discrepancies.length + invalidShoes.length,
    };
    process.stdout.write(`CHAOS ${JSON.stringify(summary)}\n`);
    expect(report.discrepancies).toEqual([]);
    expect(invalidShoes).toEqual([]);
    expect(summary.kills).toBeGreaterThan(0);
    expect(report.figures.bets).toBeGreaterThan(0);
  });
});
