import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Role } from '@croupier/contracts';
import type { EventStore, RecordedEvent } from '@croupier/eventstore';
import { TokenAuthority } from '@croupier/http';
import fc from 'fast-check';
import { ACCESS_POLICY } from '../support/access-policy.js';
import { betIdReuseAttacker, type AttackFigures } from '../support/bet-id-reuse-attacker.js';
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
  sleep,
  type BetFigures,
} from '../support/chaos.js';
import { CLUSTER_SECRETS } from '../support/cluster.js';
import {
  BET_ID,
  describeRequest,
  fuzzRequests,
  type FuzzRequest,
  type Principal,
} from '../support/fuzz-requests.js';
import { deliver, deploymentEndpoints, type Endpoint } from '../support/surface.js';

/**
 * The soak (issue 11): the chaos deployment (services as separate processes, PostgreSQL, Redis,
 * two settlement instances) with kills, Redis crashes, PostgreSQL outages and cut Redis
 * connections, while players bet, the HTTP fuzzer sends hostile requests to every process and a
 * bet-id reuse attacker tries to win back lost stakes, until SOAK_ROUNDS rounds are settled.
 * Then the invariants; one JSON line; exit 1 when any fails. Not part of CI: a release gate.
 */
const ROUNDS = Number(process.env.SOAK_ROUNDS ?? 1_000);
const BETTING_WINDOW_MS = Number(process.env.SOAK_BETTING_WINDOW_MS ?? 1_000);
const OUTAGE_MS = Number(process.env.SOAK_OUTAGE_MS ?? 3_000);
/** Pause between two outages of a cycle (Redis crash, PostgreSQL away, Redis clients cut). */
const OUTAGE_PAUSE_MS = Number(process.env.SOAK_OUTAGE_PAUSE_MS ?? 15_000);
const FUZZ_SEED = Number(process.env.FUZZ_SEED ?? 20_261_129);
/** How often the soak says on stderr how far it is. */
const PROGRESS_EVERY_MS = 30_000;
/** Give up (and fail) when the rounds are not settled by then. */
const MAX_MINUTES = Number(process.env.SOAK_MAX_MINUTES ?? 180);

/**
 * The model-based test (e2e/model.e2e.test.ts) beside the chaos, with a long budget: its runs of
 * commands and concurrent batches on a one-process system of its own (the chaos would make its
 * every 503 a tolerated unknown, so it runs on a quiet system while the soak loads the machine).
 */
const MODEL_RUNS = Number(process.env.SOAK_MODEL_RUNS ?? 200);
const MODEL_STEPS = Number(process.env.SOAK_MODEL_STEPS ?? 40);

const PLAYERS = Array.from({ length: 12 }, (_, i) => `soak-p${i + 1}`);
const ATTACKER = 'soak-mallory';
const TABLES = ['soak-a', 'soak-b', 'soak-c'];
const FUZZ_TABLE = 'soak-fuzz';
const FUZZ_PLAYERS = ['soak-fuzz-amy', 'soak-fuzz-bob'];

/** RoundSettled events in the store so far, read incrementally. */
class SettledRounds {
  private cursor: bigint | undefined;
  count = 0;
  constructor(private readonly store: EventStore) {}
  async refresh(): Promise<number> {
    for (;;) {
      const page: RecordedEvent[] = await this.store.readAll({
        ...(this.cursor === undefined ? {} : { after: this.cursor }),
        limit: 1_000,
      });
      for (const event of page) if (event.type === 'RoundSettled') this.count++;
      if (page.length > 0) this.cursor = page.at(-1)!.position;
      if (page.length < 1_000) return this.count;
    }
  }
}

/** The fuzzer: hostile requests at every process of the deployment, one after another. */
async function fuzzer(
  deployment: ChaosDeployment,
  endpoints: readonly Endpoint[],
  running: () => boolean,
  responses: Responses,
): Promise<void> {
  const { cluster, remote } = deployment;
  const authority = new TokenAuthority(CLUSTER_SECRETS.JWT_SECRET);
  const tokens = new Map<Principal, string>();
  for (const role of ['dealer', 'supervisor', 'operator', 'regulator', 'system'] as Role[])
    tokens.set(role, await authority.issue({ id: `soak-fuzz-${role}`, role }));
  tokens.set('player', await authority.issue({ id: FUZZ_PLAYERS[0]!, role: 'player' }));
  tokens.set('trespasser', await authority.issue({ id: FUZZ_PLAYERS[1]!, role: 'player' }));
  tokens.set('garbage', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.AAAA');
  // The fuzzer's ids are its own table's and players': it must not close the soak's tables.
  let current = { roundId: `${FUZZ_TABLE}.1.1`, shoeId: `${FUZZ_TABLE}.1` };
  const ids = () => ({
    tableId: [FUZZ_TABLE, 'nope', 'soak-fuzz-new'],
    roundId: [current.roundId, `${FUZZ_TABLE}.1.2`, `${FUZZ_TABLE}.9.9`],
    shoeId: [current.shoeId, `${FUZZ_TABLE}.99`],
    playerId: [...FUZZ_PLAYERS, 'nobody'],
    shoePosition: ['0', '1', '7', '415'],
    betId: [BET_ID, '00000000-0000-0000-0000-000000000000'],
  });
  const requests = fuzzRequests({ endpoints, ids, distributed: true });
  for (let batch = 0; running(); batch++) {
    const table = await remote
      .call<{ currentRound: { roundId: string } | null }>(
        deployment.url('round'),
        'GET',
        `/v1/tables/${FUZZ_TABLE}`,
        OPERATOR,
      )
      .catch(() => null);
    const roundId = table?.status === 200 ? table.body.currentRound?.roundId : undefined;
    // A round id is `<table>.<shoe number>.<round number>`; its shoe's, `<table>.<shoe number>`.
    if (typeof roundId === 'string')
      current = { roundId, shoeId: roundId.split('.').slice(0, 2).join('.') };
    for (const request of fc.sample(requests, { numRuns: 50, seed: FUZZ_SEED + batch })) {
      if (!running()) return;
      await send(request);
    }
  }

  async function send(request: FuzzRequest): Promise<void> {
    const token = tokens.get(request.principal);
    const process = cluster.get(request.endpoint.surface);
    try {
      const answer = await deliver(process.url, {
        method: request.method,
        url: request.url,
        headers: {
          ...request.headers,
          ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
          ...(request.contentType === undefined ? {} : { 'content-type': request.contentType }),
        },
        ...(request.payload === undefined ? {} : { payload: request.payload }),
      });
      responses.record(answer.statusCode, describeRequest(request), answer.body);
    } catch {
      responses.noAnswer++;
    }
  }
}

/** Voids every round still open (the fuzzer's table deals by hand, and leaves rounds open). */
async function voidOpenRounds(deployment: ChaosDeployment): Promise<void> {
  const open = new Set<string>();
  for (let cursor: bigint | undefined; ;) {
    const page = await deployment.store.readAll({
      ...(cursor === undefined ? {} : { after: cursor }),
      limit: 1_000,
    });
    for (const event of page) {
      if (event.type === 'RoundOpened') open.add(event.stream.slice('round-'.length));
      if (event.type === 'RoundCompleted' || event.type === 'RoundVoided')
        open.delete(event.stream.slice('round-'.length));
    }
    if (page.length < 1_000) break;
    cursor = page.at(-1)!.position;
  }
  for (const roundId of open) {
    if (TABLES.some((table) => roundId.startsWith(`${table}.`))) continue;
    await deployment.remote
      .call(
        deployment.url('round'),
        'POST',
        `/v1/rounds/${roundId}/void`,
        { role: 'supervisor', sub: 'soak-supervisor' },
        { reason: 'soak over' },
      )
      .catch(() => undefined);
  }
}

/**
 * Runs the model-based test in a vitest of its own and answers whether it passed, with the
 * tail of its output (the replay line and the shrunk commands when it failed).
 */
async function modelBasedTest(): Promise<{ passed: boolean; output: string }> {
  if (MODEL_RUNS === 0) return { passed: true, output: 'skipped (SOAK_MODEL_RUNS=0)' };
  // The soak's budget, not the suite's 5-minute test timeout, bounds its runs: 200 runs beside
  // the chaos on 2 cores take longer than 5 minutes (a timeout there was no finding).
  const timeout = `--testTimeout=${MAX_MINUTES * 60_000}`;
  const args = ['vitest', 'run', '--reporter=dot', timeout, 'e2e/model.e2e.test.ts'];
  const child = spawn('npx', args, {
    cwd: fileURLToPath(new URL('..', import.meta.url)),
    env: {
      ...process.env,
      // A fresh draw each soak (CI repeats one seed): the long run is for finding what CI's
      // sequences do not reach.
      MODEL_SEED: process.env.MODEL_SEED ?? 'random',
      MODEL_RUNS: String(MODEL_RUNS),
      MODEL_STEPS: String(MODEL_STEPS),
      MODEL_TIME_LIMIT_MS: String(MAX_MINUTES * 60_000),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { passed: code === 0, output: output.slice(-4_000) };
}

async function soak(): Promise<boolean> {
  const started = Date.now();
  const deployment = await ChaosDeployment.start({
    name: 'soak',
    env: {
      // The fuzzer and the players send thousands of requests from one address.
      RATE_LIMIT_PER_MINUTE: '10000000',
      LOG_LEVEL: 'warn',
    },
  });
  // Interrupted (Ctrl-C, a CI timeout), it stops what it started: its processes, Redis and
  // database, so nothing is left running or holding ports.
  const interrupt = (signal: NodeJS.Signals) => {
    process.stderr.write(`[soak] ${signal}: stopping the deployment\n`);
    void deployment.close().finally(() => process.exit(130));
  };
  process.once('SIGINT', interrupt);
  process.once('SIGTERM', interrupt);
  try {
    const { remote, cluster } = deployment;
    for (const [i, tableId] of TABLES.entries()) {
      const created = await remote.call(deployment.url('round'), 'POST', '/v1/tables', OPERATOR, {
        tableId,
        // A one-deck shoe closes every few rounds, and touch shuffles a shoe per round: shoes
        // close all through the run, so the replay checks many of them.
        ...(i === 0
          ? { preset: 'generic', config: { decks: 1, cutCard: 14 } }
          : { preset: i === 1 ? 'touch' : 'generic' }),
        dealing: { mode: 'auto', bettingWindowMs: BETTING_WINDOW_MS },
      });
      if (created.status !== 201) throw new Error(`table ${tableId}: ${created.status}`);
    }
    await remote.call(deployment.url('round'), 'POST', '/v1/tables', OPERATOR, {
      tableId: FUZZ_TABLE,
      preset: 'generic',
    });
    for (const player of [...PLAYERS, ATTACKER, ...FUZZ_PLAYERS]) {
      const deposit = await remote.call(
        deployment.url('wallet'),
        'POST',
        `/v1/wallets/${player}/deposits`,
        OPERATOR,
        { amount: 100_000_000, currency: 'EUR', reference: 'soak-start' },
      );
      if (deposit.status !== 201) throw new Error(`deposit for ${player}: ${deposit.status}`);
    }

    // Asked before the chaos starts: every process must be up to say which routes it serves.
    const endpoints = await deploymentEndpoints(cluster.processes, Object.keys(ACCESS_POLICY));
    const disruptions = new Disruptions();
    const responses = new Responses(disruptions);
    const fuzzResponses = new Responses(disruptions);
    const bets: BetFigures = { betsAccepted: 0, betsRefused: 0, refusals: {} };
    const attack: AttackFigures = { bets: 0, attempts: 0, successes: 0 };
    const outages = noOutagesYet();
    const failedRestarts = { count: 0 };
    const settled = new SettledRounds(deployment.store);
    let done = false;
    let timedOut = false;
    const running = () => !done;
    let lastProgress = Date.now();
    const counter = (async () => {
      while (!done) {
        await sleep(2_000);
        const count = await settled.refresh().catch(() => settled.count);
        if (count >= ROUNDS) done = true;
        if (Date.now() - lastProgress >= PROGRESS_EVERY_MS) {
          lastProgress = Date.now();
          // Progress on stderr, so a long soak is seen to be alive; stdout keeps its one line.
          process.stderr.write(
            `[soak] ${Math.round((Date.now() - started) / 1000)} s: ${count}/${ROUNDS} rounds settled, ` +
              `${attack.attempts} attacks (${attack.successes} won), kills ${cluster.processes.reduce((n, p) => n + p.kills, 0)}\n`,
          );
        }
        if (Date.now() - started > MAX_MINUTES * 60_000) {
          timedOut = true;
          done = true;
        }
      }
    })();
    const outageLoop = async () => {
      while (running())
        await outageCycle(deployment, outages, disruptions, {
          pauseMs: OUTAGE_PAUSE_MS,
          outageMs: OUTAGE_MS,
          running,
        });
    };
    const model = modelBasedTest();
    await Promise.all([
      counter,
      ...PLAYERS.map((player) => playerLoop(deployment, player, TABLES, running, responses, bets)),
      betIdReuseAttacker(deployment, ATTACKER, TABLES, running, responses, attack),
      fuzzer(deployment, endpoints, running, fuzzResponses),
      killAndSupervise(cluster, running, disruptions, [4_000, 8_000], failedRestarts),
      outageLoop(),
    ]);

    const modelVerdict = await model;
    for (const service of cluster.processes) if (!service.running) await service.startRetrying();
    await voidOpenRounds(deployment);
    const verdict = await settleAndVerify(
      deployment,
      [...TABLES, FUZZ_TABLE],
      [...PLAYERS, ATTACKER, ...FUZZ_PLAYERS],
    );
    const violations = [...responses.violations, ...fuzzResponses.violations];
    const byClass: Record<string, number> = { ...responses.byClass };
    for (const [key, count] of Object.entries(fuzzResponses.byClass))
      byClass[key] = (byClass[key] ?? 0) + count;
    const invariants = {
      everyCentAccountedFor: verdict.money.discrepancies.length === 0,
      balancesMatchTheLog: verdict.balanceMismatches.length === 0,
      everySettlementLineOnTheBusOnce:
        verdict.bus.missing.length +
          verdict.bus.duplicated.length +
          verdict.bus.unexpected.length +
          verdict.bus.notCompleted.length +
          verdict.bus.misnamed.length ===
        0,
      everyShoeReplaysValid: verdict.invalidShoes.length === 0,
      no5xxButOutage503: violations.length === 0,
      attackerNeverSucceeded: attack.successes === 0,
      modelBasedTestPassed: modelVerdict.passed,
      roundsReached: !timedOut,
    };
    const passed = Object.values(invariants).every(Boolean);
    const summary = {
      soak: passed ? 'passed' : 'failed',
      roundsTarget: ROUNDS,
      settledRounds: verdict.money.figures.settledRounds,
      rounds: verdict.money.figures.rounds,
      voidedRounds: verdict.money.figures.voidedRounds,
      bets: verdict.money.figures.bets,
      requests: responses.total + fuzzResponses.total,
      fuzzRequests: fuzzResponses.total,
      responses: byClass,
      unavailableDuringOutage:
        responses.unavailableDuringOutage + fuzzResponses.unavailableDuringOutage,
      noAnswer: responses.noAnswer + fuzzResponses.noAnswer,
      players: bets,
      attacker: attack,
      modelBasedTest: { runs: MODEL_RUNS, steps: MODEL_STEPS, passed: modelVerdict.passed },
      outages: {
        kills: cluster.processes.reduce((sum, p) => sum + p.kills, 0),
        crashes: cluster.processes.reduce((sum, p) => sum + p.crashes, 0),
        failedStarts: cluster.processes.reduce((sum, p) => sum + p.failedStarts, 0),
        failedRestarts: failedRestarts.count,
        ...outages,
      },
      busMessages: busSummary(verdict.bus),
      closedShoes: verdict.closedShoes,
      events: verdict.events,
      invariants,
      failures: {
        money: verdict.money.discrepancies.slice(0, 5),
        balances: verdict.balanceMismatches.slice(0, 5),
        shoes: verdict.invalidShoes.slice(0, 5),
        responses: violations.length,
        responseSamples: violations.slice(0, 5),
        modelBasedTest: modelVerdict.passed ? undefined : modelVerdict.output,
      },
      logs: passed ? undefined : deployment.logDir,
      durationSeconds: Math.round((Date.now() - started) / 1000),
    };
    process.stdout.write(`${JSON.stringify(summary)}\n`);
    return passed;
  } finally {
    await deployment.close();
  }
}

soak().then(
  (passed) => {
    process.exit(passed ? 0 : 1);
  },
  (error: unknown) => {
    process.stderr.write(
      `soak failed to run: ${error instanceof Error ? error.stack : String(error)}\n`,
    );
    process.exit(1);
  },
);
