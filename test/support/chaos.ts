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
  type RedisProcess,
} from '@croupier/testkit';
import { Cluster, CLUSTER_SECRETS, type ServiceProcess } from './cluster.js';
import {
  allEvents,
  checkBus,
  checkMoney,
  roundsFinished,
  settledEverywhere,
  type BusReport,
  type MoneyReport,
} from './invariants.js';
import { Remote } from './remote.js';

/**
 * The chaos deployment and what is done to it (issue 7), shared by the CI's short chaos test
 * and the soak: the services as separate processes on a PostgreSQL database and a Redis of
 * their own, players betting, processes killed and restarted, Redis crashed and its clients
 * cut, PostgreSQL taken away, and at the end the invariants checked from the log.
 */

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
export const between = (min: number, max: number) => min + Math.random() * (max - min);

export const OPERATOR = { role: 'operator', sub: 'chaos-operator' } as const;

/** The deployment under chaos, and the tools to hurt it. */
export class ChaosDeployment {
  readonly remote = new Remote(CLUSTER_SECRETS.JWT_SECRET);

  private constructor(
    readonly database: IsolatedDatabase,
    readonly redis: RedisProcess,
    readonly cluster: Cluster,
    /** A connection of the test's own to the deployment's store, outside any outage. */
    readonly store: EventStore,
    readonly appName: string,
    readonly logDir: string,
  ) {}

  static async start(options: {
    readonly name: string;
    readonly env?: Record<string, string>;
  }): Promise<ChaosDeployment> {
    const appName = `${options.name}_${randomUUID().slice(0, 8)}`;
    const schema = 'chaos';
    const logDir = mkdtempSync(join(tmpdir(), `croupier-${options.name}-`));
    // A database of its own: the outage takes it offline without touching other tests.
    const database = await isolatedDatabase(options.name);
    const redis = await startRedisServer({ persistent: true });
    const cluster = await Cluster.create({
      databaseUrl: database.connectionString,
      schema,
      redisUrl: redis.url,
      redisPrefix: appName,
      logDir,
      env: { DATABASE_APPLICATION_NAME: appName, ORPHAN_GRACE_MS: '1000', ...options.env },
    });
    const store = await createEventStore({
      kind: 'postgres',
      connectionString: database.connectionString,
      schema,
    });
    return new ChaosDeployment(database, redis, cluster, store, appName, logDir);
  }

  url(service: 'round' | 'wallet'): string {
    return this.cluster.url(service);
  }

  async close(): Promise<void> {
    await this.cluster.stop();
    await this.store.close();
    await this.redis.cleanup();
    await this.database.drop();
  }

  /** On failure: every event next to the processes' logs, for the post-mortem. */
  keepEvidence(events: readonly RecordedEvent[]): void {
    writeFileSync(
      join(this.logDir, 'events.json'),
      JSON.stringify(events, (_key, value: unknown) =>
        typeof value === 'bigint' ? value.toString() : value,
      ),
    );
  }
}

/**
 * Times when a dependency or a process was down, or just back (clients reconnect with backoff):
 * a 503 then is the answer the API promises; a 503 at any other time is not.
 */
export class Disruptions {
  private readonly windows: { from: number; to: number | null }[] = [];

  constructor(private readonly graceMs = 5_000) {}

  begin(): () => void {
    const window = { from: Date.now(), to: null as number | null };
    this.windows.push(window);
    return () => {
      window.to = Date.now();
    };
  }

  /** Whether `at` falls in a disruption or within the grace after one. */
  covers(at = Date.now()): boolean {
    return this.windows.some((w) => w.from <= at && (w.to === null || at <= w.to + this.graceMs));
  }
}

/** Every answer the clients got, by status class, and the ones the API must never give. */
export class Responses {
  readonly byClass: Record<string, number> = {};
  /** 503s while something was down: the promised answer. */
  unavailableDuringOutage = 0;
  /** Requests that got no answer at all (the process was killed under them). */
  noAnswer = 0;
  /** Answers ≥ 500 other than a 503 during a disruption: each is a failure of the run. */
  readonly violations: string[] = [];

  constructor(private readonly disruptions: Disruptions) {}

  record(status: number, what: string, body: unknown): void {
    const key = `${Math.floor(status / 100)}xx`;
    this.byClass[key] = (this.byClass[key] ?? 0) + 1;
    if (status < 500) return;
    if (status === 503 && this.disruptions.covers()) {
      this.unavailableDuringOutage++;
      return;
    }
    if (this.violations.length < 10_000)
      this.violations.push(`${status} ${what}: ${JSON.stringify(body).slice(0, 300)}`);
  }

  get total(): number {
    return Object.values(this.byClass).reduce((sum, n) => sum + n, 0);
  }
}

/** Bets the players got accepted and refused. */
export interface BetFigures {
  betsAccepted: number;
  betsRefused: number;
  /** Refused bets by answer: the problem code, or the status when there is none. */
  refusals: Record<string, number>;
}

/**
 * A player: looks at a random table, bets on the round taking bets, again and again while
 * `running()`. A request that dies with a process is retried with the same bet id: it counts once.
 */
export async function playerLoop(
  deployment: ChaosDeployment,
  player: string,
  tables: readonly string[],
  running: () => boolean,
  responses: Responses,
  figures: BetFigures,
): Promise<void> {
  const as = { role: 'player', sub: player } as const;
  while (running()) {
    try {
      const tableId = tables[Math.floor(Math.random() * tables.length)]!;
      const table = await deployment.remote.call<{
        currentRound: { roundId: string; status: string } | null;
      }>(deployment.url('round'), 'GET', `/v1/tables/${tableId}`, as);
      responses.record(table.status, `GET /v1/tables/${tableId}`, table.body);
      const current = table.body.currentRound;
      if (table.status === 200 && current?.status === 'betting') {
        const bets = [
          {
            type: Math.random() < 0.5 ? 'banker' : 'player',
            amount: 100 * (1 + Math.floor(Math.random() * 10)),
            betId: randomUUID(),
          },
        ];
        for (let attempt = 0; attempt < 3; attempt++) {
          try {
            const placed = await deployment.remote.call(
              deployment.url('round'),
              'POST',
              `/v1/rounds/${current.roundId}/bets`,
              as,
              { bets },
            );
            responses.record(placed.status, `POST /v1/rounds/:roundId/bets`, placed.body);
            const code = (placed.body as { code?: string } | null)?.code;
            // A 503 is retried, as a client told Retry-After would.
            if (placed.status === 503) {
              await sleep(1_000);
              continue;
            }
            // DUPLICATE_BET: an earlier attempt was placed, its answer lost with the process.
            if (placed.status === 201 || code === 'DUPLICATE_BET') figures.betsAccepted++;
            else {
              figures.betsRefused++;
              const why = code ?? String(placed.status);
              figures.refusals[why] = (figures.refusals[why] ?? 0) + 1;
            }
            break;
          } catch {
            responses.noAnswer++;
            await sleep(200);
          }
        }
      }
    } catch {
      responses.noAnswer++;
    }
    await sleep(between(30, 120));
  }
}

/**
 * kill -9 of a random service every few seconds, restarted after a moment; and a supervisor
 * that restarts any process found down that nobody holds (it crashed by itself, or its restart
 * was not ready in time: counted in `failedRestarts`), as an orchestrator would. Both run while
 * `running()`.
 */
export function killAndSupervise(
  cluster: Cluster,
  running: () => boolean,
  disruptions: Disruptions,
  pauseMs: readonly [number, number] = [2_500, 5_000],
  failedRestarts: { count: number } = { count: 0 },
): Promise<void> {
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
      await sleep(between(...pauseMs));
      if (!running()) break;
      const victim = cluster.processes[Math.floor(Math.random() * cluster.processes.length)]!;
      if (held.has(victim)) continue;
      held.add(victim);
      const over = disruptions.begin();
      try {
        await victim.kill();
        await sleep(between(200, 1_500));
        await restart(victim);
      } catch {
        // Not ready in time (a loaded machine, the store away): the supervisor tries again.
        failedRestarts.count++;
      } finally {
        over();
      }
    }
  };
  const supervisor = async () => {
    const restarting: Promise<void>[] = [];
    while (running()) {
      for (const service of cluster.processes) {
        if (!service.running && !held.has(service)) {
          const over = disruptions.begin();
          // Caught at once (and thrown below): a failure must not go unhandled meanwhile.
          const started = restart(service)
            .catch(() => {
              failedRestarts.count++;
            })
            .finally(over);
          restarting.push(started);
        }
      }
      await sleep(500);
    }
    await Promise.all(restarting);
  };
  return Promise.all([killer(), supervisor()]).then(() => undefined);
}

/** What the outages cut: one that cut nothing proves nothing. */
export interface OutageFigures {
  redisCrashes: number;
  /** Client connections open when Redis crashed (the crash cut them all). */
  redisCrashClientsCut: number;
  postgresOutages: number;
  postgresBackendsTerminated: number;
  postgresTerminatedByProcess: Record<string, number>;
  redisDrops: number;
  /** Client connections Redis dropped (CLIENT KILL) while it stayed up. */
  redisClientsKilled: number;
}

export function noOutagesYet(): OutageFigures {
  return {
    redisCrashes: 0,
    redisCrashClientsCut: 0,
    postgresOutages: 0,
    postgresBackendsTerminated: 0,
    postgresTerminatedByProcess: {},
    redisDrops: 0,
    redisClientsKilled: 0,
  };
}

/**
 * One cycle of outages, `pauseMs` apart, each lasting `outageMs`: Redis crashes (its
 * append-only file survives) and comes back; PostgreSQL goes away for the deployment (its
 * database refuses connections, every connection of its processes is cut); Redis stays up but
 * drops every client connection again and again.
 */
export async function outageCycle(
  deployment: ChaosDeployment,
  figures: OutageFigures,
  disruptions: Disruptions,
  options: { pauseMs: number; outageMs: number; running?: () => boolean },
): Promise<void> {
  const going = options.running ?? (() => true);
  const { redis, database, appName } = deployment;
  await sleep(options.pauseMs);
  if (!going()) return;
  let over = disruptions.begin();
  try {
    figures.redisCrashClientsCut += await redis.clients();
    await redis.stop('SIGKILL');
    figures.redisCrashes++;
    await sleep(options.outageMs);
  } finally {
    await redis.start();
    over();
  }
  await sleep(options.pauseMs);
  if (!going()) return;
  over = disruptions.begin();
  try {
    const cut = await database.outage(`${appName}-`, options.outageMs);
    figures.postgresOutages++;
    figures.postgresBackendsTerminated += cut.terminated;
    for (const [name, count] of Object.entries(cut.byApplication))
      figures.postgresTerminatedByProcess[name] =
        (figures.postgresTerminatedByProcess[name] ?? 0) + count;
  } finally {
    over();
  }
  await sleep(options.pauseMs);
  if (!going()) return;
  over = disruptions.begin();
  try {
    const until = Date.now() + options.outageMs;
    figures.redisDrops++;
    while (Date.now() < until) {
      figures.redisClientsKilled += await redis.dropClients();
      await sleep(250);
    }
  } finally {
    over();
  }
}

/** What the log and the bus say once the money has come to rest. */
export interface Verdict {
  readonly money: MoneyReport;
  readonly bus: BusReport;
  /** Players whose balance the wallet service serves differs from a rebuild from the log. */
  readonly balanceMismatches: string[];
  readonly closedShoes: number;
  readonly invalidShoes: string[];
  readonly events: number;
  /** Every discrepancy found, of any kind. */
  readonly discrepancies: number;
}

/**
 * Calm after the storm: every process up, the tables closed, the money allowed to come to rest;
 * then every invariant checked from the log: every cent accounted for and every stake closed
 * exactly once (checkMoney), every settlement line on the bus once (checkBus), the balances the
 * wallet serves equal to a rebuild, every closed shoe replaying valid.
 */
export async function settleAndVerify(
  deployment: ChaosDeployment,
  tables: readonly string[],
  players: readonly string[],
): Promise<Verdict> {
  const { cluster, remote, store } = deployment;
  for (const service of cluster.processes) if (!service.running) await service.startRetrying();
  for (const tableId of tables) {
    for (let attempt = 0; ; attempt++) {
      const closed = await remote
        .call(deployment.url('round'), 'POST', `/v1/tables/${tableId}/close`, OPERATOR, {
          reason: 'chaos run over',
        })
        .catch(() => null);
      // A conflict: closed already (by an attempt whose answer was lost, or by the fuzzer).
      if (closed?.status === 200 || closed?.status === 409) break;
      if (attempt >= 30) throw new Error(`table ${tableId} not closed: ${closed?.status}`);
      await sleep(1_000);
    }
  }
  // A closed table's dealer still finishes the round in progress.
  await roundsFinished(store, 120_000).catch(async (error: unknown) => {
    deployment.keepEvidence(await allEvents(store));
    throw error;
  });
  const events = await settledEverywhere(store, 300_000);
  const money = checkMoney(events);

  // Every settlement line reached the bus exactly once (completed jobs are kept a day).
  const bullmq = new BullMqSettlementBus({
    redisUrl: deployment.redis.url,
    prefix: deployment.appName,
  });
  let jobs: KeptJob[];
  try {
    for (const deadline = Date.now() + 120_000; ; await sleep(200)) {
      const counts = await bullmq.jobCounts();
      const pending = counts.waiting + counts.active + counts.delayed + counts.prioritized;
      if (pending === 0 || Date.now() > deadline) break;
    }
    jobs = await bullmq.keptJobs();
  } finally {
    await bullmq.close();
  }
  const bus = checkBus(events, jobs);

  // Balances the wallet service serves (its live state) equal a full rebuild from the log.
  const balanceMismatches: string[] = [];
  for (const player of players) {
    const view = await remote.call<{ balance: number }>(
      deployment.url('wallet'),
      'GET',
      `/v1/wallets/${player}`,
      OPERATOR,
    );
    const rebuilt = money.balances.get(player);
    if (view.body.balance !== rebuilt)
      balanceMismatches.push(`${player}: served ${view.body.balance}, rebuilt ${rebuilt}`);
  }
  // Every closed shoe replays as valid from its events alone.
  const closedShoes = events
    .filter((e) => e.type === 'ShoeClosed')
    .map((e) => e.stream.slice('shoe-'.length));
  const invalidShoes: string[] = [];
  for (const shoeId of closedShoes) {
    const rounds = new Map<string, RecordedEvent[]>();
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
  const discrepancies =
    money.discrepancies.length +
    balanceMismatches.length +
    invalidShoes.length +
    bus.missing.length +
    bus.duplicated.length +
    bus.unexpected.length +
    bus.notCompleted.length +
    bus.misnamed.length;
  if (discrepancies > 0) deployment.keepEvidence(events);
  return {
    money,
    bus,
    balanceMismatches,
    closedShoes: closedShoes.length,
    invalidShoes,
    events: events.length,
    discrepancies,
  };
}

/** The bus figures of a verdict, for a one-line summary. */
export function busSummary(bus: BusReport) {
  return {
    expected: bus.expected,
    found: bus.found,
    missing: bus.missing.length,
    duplicated: bus.duplicated.length,
    unexpected: bus.unexpected.length,
    notCompleted: bus.notCompleted.length,
    misnamed: bus.misnamed.length,
  };
}
