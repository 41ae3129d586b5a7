import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { replayShoe } from '@croupier/audit';
import { createEventStore, type EventStore, type RecordedEvent } from '@croupier/eventstore';
import { BullMqSettlementBus, type KeptJob } from '@croupier/messaging';
import {
  isolatedDatabase,
  startRedisServer,
  type IsolatedDatabase,
  type PostgresOutage,
  type RedisProcess,
} from '@croupier/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cluster, CLUSTER_SECRETS, type ServiceProcess } from '../support/cluster.js';
import {
  allEvents,
  checkBus,
  checkMoney,
  roundsFinished,
  settledEverywhere,
} from '../support/invariants.js';
import { Remote } from '../support/remote.js';

const SECONDS = Number(process.env.CHAOS_SECONDS ?? 60);
const PLAYERS = Array.from({ length: 16 }, (_, i) => `chaos-p${i + 1}`);
const TABLES = ['chaos-a', 'chaos-b'];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const between = (min: number, max: number) => min + Math.random() * (max - min);

/** How long each outage lasts. */
const OUTAGE_MS = 3_000;

/**
 * Chaos (issue 7): the services as separate processes on PostgreSQL and Redis, two tables dealing
 * by themselves, players betting all the while, and meanwhile: kill -9 of a random service at
 * random moments (restarted), Redis crashed and restarted, PostgreSQL down for the deployment
 * (its database refusing connections, every connection of its processes cut), Redis dropping
 * every client connection for a while. At the end every cent must be accounted for, every
 * settlement line must have reached the bus once, and every outage must have cut something.
 */
describe('chaos: kills, a Redis crash, a PostgreSQL outage and cut Redis connections while rounds are played', () => {
  let database: IsolatedDatabase;
  let redis: RedisProcess;
  let cluster: Cluster;
  let store: EventStore;
  const remote = new Remote(CLUSTER_SECRETS.JWT_SECRET);
  const appName = `chaos_${randomUUID().slice(0, 8)}`;
  const schema = 'chaos';
  const logDir = mkdtempSync(join(tmpdir(), 'croupier-chaos-'));

  /** On failure: every event next to the processes' logs, for the post-mortem. */
  const keepEvidence = (events: readonly RecordedEvent[]) => {
    writeFileSync(
      join(logDir, 'events.json'),
      JSON.stringify(events, (_key, value: unknown) =>
        typeof value === 'bigint' ? value.toString() : value,
      ),
    );
    process.stdout.write(`CHAOS logs and events: ${logDir}\n`);
  };

  beforeAll(async () => {
    // A database of its own: the outage takes it offline without touching other tests.
    database = await isolatedDatabase('chaos');
    redis = await startRedisServer({ persistent: true });
    cluster = await Cluster.create({
      databaseUrl: database.connectionString,
      schema,
      redisUrl: redis.url,
      redisPrefix: appName,
      logDir,
      env: { DATABASE_APPLICATION_NAME: appName, ORPHAN_GRACE_MS: '1000' },
    });
    store = await createEventStore({
      kind: 'postgres',
      connectionString: database.connectionString,
      schema,
    });
  });
  afterAll(async () => {
    await cluster.stop();
    await store.close();
    await redis.cleanup();
    await database.drop();
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
      /** Refused bets by answer: the problem code, or the status when there is none. */
      refusals: {} as Record<string, number>,
      requestErrors: 0,
      /** Client connections open when Redis crashed (the crash cut them all). */
      redisCrashClientsCut: 0,
      /** Client connections Redis dropped (CLIENT KILL) while it stayed up. */
      redisClientsKilled: 0,
      postgres: null as PostgresOutage | null,
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
                else {
                  figures.betsRefused++;
                  const why = (placed.body as { code?: string }).code ?? String(placed.status);
                  figures.refusals[why] = (figures.refusals[why] ?? 0) + 1;
                }
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

    // Processes the killer holds down; any other one found down crashed by itself, and is
    // started again as an orchestrator would.
    const held = new Set<ServiceProcess>();
    const restart = async (service: ServiceProcess) => {
      held.add(service);
      try {
        await service.startRetrying();
      } finally {
        held.delete(service);
      }
    };
    const killer = async () => {
      while (running()) {
        await sleep(between(2_500, 5_000));
        if (!running()) break;
        const victim = cluster.processes[Math.floor(Math.random() * cluster.processes.length)]!;
        if (held.has(victim)) continue;
        held.add(victim);
        await victim.kill();
        await sleep(between(200, 1_500));
        await restart(victim);
      }
    };
    const supervisor = async () => {
      const restarting: Promise<void>[] = [];
      while (running()) {
        for (const service of cluster.processes) {
          // Caught at once (and thrown below): a failure must not go unhandled meanwhile.
          if (!service.running && !held.has(service)) {
            const started = restart(service);
            started.catch(() => undefined);
            restarting.push(started);
          }
        }
        await sleep(500);
      }
      await Promise.all(restarting);
    };

    const outages = async () => {
      // Redis crashes (its append-only file survives) and comes back.
      await sleep(SECONDS * 250);
      figures.redisCrashClientsCut = await redis.clients();
      await redis.stop('SIGKILL');
      await sleep(OUTAGE_MS);
      await redis.start();
      // PostgreSQL goes away for the deployment: its database refuses connections and every
      // connection of its processes (pools, subscriptions, lease sessions) is cut.
      await sleep(SECONDS * 200);
      figures.postgres = await database.outage(`${appName}-`, OUTAGE_MS);
      // Redis stays up but drops every client connection, again and again, for a while.
      await sleep(SECONDS * 200);
      const until = Date.now() + OUTAGE_MS;
      while (Date.now() < until) {
        figures.redisClientsKilled += await redis.dropClients();
        await sleep(250);
      }
    };

    await Promise.all([...PLAYERS.map(playerLoop), killer(), supervisor(), outages()]);

    // Calm: every process up, the tables closed, the money allowed to come to rest.
    for (const service of cluster.processes) if (!service.running) await service.startRetrying();
    for (const tableId of TABLES) {
      const closed = await remote.call(round(), 'POST', `/v1/tables/${tableId}/close`, operator, {
        reason: 'chaos run over',
      });
      expect(closed.status).toBe(200);
    }
    // A closed table's dealer still finishes the round in progress.
    await roundsFinished(store, 60_000).catch(async (error: unknown) => {
      keepEvidence(await allEvents(store));
      throw error;
    });
    const events = await settledEverywhere(store, 180_000);
    const report = checkMoney(events);

    // Every settlement line reached the bus exactly once (completed jobs are kept a day).
    const bus = new BullMqSettlementBus({ redisUrl: redis.url, prefix: appName });
    let jobs: KeptJob[];
    try {
      for (const deadline = Date.now() + 60_000; ; await sleep(200)) {
        const counts = await bus.jobCounts();
        const pending = counts.waiting + counts.active + counts.delayed + counts.prioritized;
        if (pending === 0 || Date.now() > deadline) break;
      }
      jobs = await bus.keptJobs();
    } finally {
      await bus.close();
    }
    const delivery = checkBus(events, jobs);

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
    const postgres = figures.postgres ?? { terminated: 0, byApplication: {} };
    const summary = {
      seconds: SECONDS,
      rounds: report.figures.rounds,
      settledRounds: report.figures.settledRounds,
      voidedRounds: report.figures.voidedRounds,
      bets: report.figures.bets,
      betsAccepted: figures.betsAccepted,
      betsRefused: figures.betsRefused,
      refusals: figures.refusals,
      requestErrors: figures.requestErrors,
      kills: cluster.processes.reduce((sum, p) => sum + p.kills, 0),
      crashes: cluster.processes.reduce((sum, p) => sum + p.crashes, 0),
      failedStarts: cluster.processes.reduce((sum, p) => sum + p.failedStarts, 0),
      redisCrashClientsCut: figures.redisCrashClientsCut,
      redisClientsKilled: figures.redisClientsKilled,
      postgresBackendsTerminated: postgres.terminated,
      postgresTerminatedByProcess: postgres.byApplication,
      busMessages: {
        expected: delivery.expected,
        found: delivery.found,
        missing: delivery.missing.length,
        duplicated: delivery.duplicated.length,
        unexpected: delivery.unexpected.length,
        notCompleted: delivery.notCompleted.length,
        misnamed: delivery.misnamed.length,
      },
      closedShoes: closedShoes.length,
      events: events.length,
      discrepancies:
        report.discrepancies.length +
        invalidShoes.length +
        delivery.missing.length +
        delivery.duplicated.length +
        delivery.unexpected.length +
        delivery.notCompleted.length +
        delivery.misnamed.length,
    };
    process.stdout.write(`CHAOS ${JSON.stringify(summary)}\n`);
    if (summary.discrepancies > 0) keepEvidence(events);
    expect(report.discrepancies).toEqual([]);
    expect(invalidShoes).toEqual([]);
    expect(delivery.missing).toEqual([]);
    expect(delivery.duplicated).toEqual([]);
    expect(delivery.unexpected).toEqual([]);
    expect(delivery.notCompleted).toEqual([]);
    expect(delivery.misnamed).toEqual([]);
    expect(delivery.expected).toBeGreaterThan(0);
    expect(summary.kills).toBeGreaterThan(0);
    // A process dies of kill -9 only: none of an outage.
    expect(summary.crashes).toBe(0);
    expect(report.figures.bets).toBeGreaterThan(0);
    // Every outage cut the deployment's connections: one that hit nothing proves nothing.
    expect(summary.redisCrashClientsCut).toBeGreaterThan(0);
    expect(summary.redisClientsKilled).toBeGreaterThan(0);
    expect(summary.postgresBackendsTerminated).toBeGreaterThan(0);
  });
});
