import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  busSummary,
  ChaosDeployment,
  Disruptions,
  killAndSupervise,
  noOutagesYet,
  OPERATOR,
  outageCycle,
  playerLoop,
  Responses,
  settleAndVerify,
  type BetFigures,
} from '../support/chaos.js';

const SECONDS = Number(process.env.CHAOS_SECONDS ?? 60);
const PLAYERS = Array.from({ length: 16 }, (_, i) => `chaos-p${i + 1}`);
const TABLES = ['chaos-a', 'chaos-b'];

/** How long each outage lasts. */
const OUTAGE_MS = 3_000;

/**
 * Chaos (issue 7): the services as separate processes on PostgreSQL and Redis, two tables dealing
 * by themselves, players betting all the while, and meanwhile: kill -9 of a random service at
 * random moments (restarted), Redis crashed and restarted, PostgreSQL down for the deployment
 * (its database refusing connections, every connection of its processes cut), Redis dropping
 * every client connection for a while. At the end every cent must be accounted for, every
 * settlement line must have reached the bus once, and every outage must have cut something.
 * The soak (test/soak) runs the same for longer, with the fuzzer and an attacker.
 */
describe('chaos: kills, a Redis crash, a PostgreSQL outage and cut Redis connections while rounds are played', () => {
  let deployment: ChaosDeployment;

  beforeAll(async () => {
    deployment = await ChaosDeployment.start({ name: 'chaos' });
  });
  afterAll(async () => {
    await deployment.close();
  });

  it('loses nothing and pays nothing twice', async () => {
    const { remote, cluster } = deployment;
    for (const [i, tableId] of TABLES.entries()) {
      // A one-deck shoe closes every few rounds, and touch shuffles a shoe per round: shoes close
      // all through the run, so the replay checks many of them.
      const created = await remote.call(deployment.url('round'), 'POST', '/v1/tables', OPERATOR, {
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
        deployment.url('wallet'),
        'POST',
        `/v1/wallets/${player}/deposits`,
        OPERATOR,
        { amount: 10_000_000, currency: 'EUR', reference: 'chaos-start' },
      );
      expect(deposit.status).toBe(201);
    }

    const disruptions = new Disruptions();
    const responses = new Responses(disruptions);
    const bets: BetFigures = { betsAccepted: 0, betsRefused: 0, refusals: {} };
    const outages = noOutagesYet();
    const started = Date.now();
    const running = () => Date.now() - started < SECONDS * 1000;

    await Promise.all([
      ...PLAYERS.map((player) => playerLoop(deployment, player, TABLES, running, responses, bets)),
      killAndSupervise(cluster, running, disruptions),
      outageCycle(deployment, outages, disruptions, {
        pauseMs: SECONDS * 200,
        outageMs: OUTAGE_MS,
      }),
    ]);

    const verdict = await settleAndVerify(deployment, TABLES, PLAYERS);
    const summary = {
      seconds: SECONDS,
      rounds: verdict.money.figures.rounds,
      settledRounds: verdict.money.figures.settledRounds,
      voidedRounds: verdict.money.figures.voidedRounds,
      bets: verdict.money.figures.bets,
      ...bets,
      responses: responses.byClass,
      unavailableDuringOutage: responses.unavailableDuringOutage,
      noAnswer: responses.noAnswer,
      kills: cluster.processes.reduce((sum, p) => sum + p.kills, 0),
      crashes: cluster.processes.reduce((sum, p) => sum + p.crashes, 0),
      failedStarts: cluster.processes.reduce((sum, p) => sum + p.failedStarts, 0),
      ...outages,
      busMessages: busSummary(verdict.bus),
      closedShoes: verdict.closedShoes,
      events: verdict.events,
      discrepancies: verdict.discrepancies,
    };
    process.stdout.write(`CHAOS ${JSON.stringify(summary)}\n`);
    if (verdict.discrepancies > 0)
      process.stdout.write(`CHAOS logs and events: ${deployment.logDir}\n`);
    expect(verdict.money.discrepancies).toEqual([]);
    expect(verdict.balanceMismatches).toEqual([]);
    expect(verdict.invalidShoes).toEqual([]);
    expect(verdict.bus.missing).toEqual([]);
    expect(verdict.bus.duplicated).toEqual([]);
    expect(verdict.bus.unexpected).toEqual([]);
    expect(verdict.bus.notCompleted).toEqual([]);
    expect(verdict.bus.misnamed).toEqual([]);
    expect(verdict.bus.expected).toBeGreaterThan(0);
    // An outage is a 503, never another 5xx (issue 11).
    expect(responses.violations).toEqual([]);
    expect(summary.kills).toBeGreaterThan(0);
    // A process dies of kill -9 only: none of an outage.
    expect(summary.crashes).toBe(0);
    expect(verdict.money.figures.bets).toBeGreaterThan(0);
    // Every outage cut the deployment's connections: one that hit nothing proves nothing.
    expect(outages.redisCrashClientsCut).toBeGreaterThan(0);
    expect(outages.redisClientsKilled).toBeGreaterThan(0);
    expect(outages.postgresBackendsTerminated).toBeGreaterThan(0);
  });
});
