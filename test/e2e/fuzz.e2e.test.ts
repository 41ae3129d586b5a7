import { isErrorCode, type Role } from '@croupier/contracts';
import type { RecordedEvent } from '@croupier/eventstore';
import type { HttpApp } from '@croupier/http';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCESS_POLICY } from '../support/access-policy.js';
import {
  BET_ID,
  BODY_LIMIT,
  describeRequest,
  fuzzRequests,
  roleFor,
  type FuzzRequest,
  type Principal,
} from '../support/fuzz-requests.js';
import { startHarness, type Harness } from '../support/harness.js';
import { fund, openRound, openTable, placeBets, type RoundView } from '../support/play.js';
import {
  deliver,
  deploymentEndpoints,
  endpointsOf,
  eventsAfter,
  fillPath,
  internalApp,
  isStateEvent,
  paramsOf,
  type Endpoint,
  type Server,
} from '../support/surface.js';

/**
 * Hostile input at every endpoint: malformed, oversized, wrongly typed and out-of-order
 * requests, as every role and as nobody. Whatever comes in, the answer is a 2xx (a request that
 * happens to be valid) or a 4xx problem+json, never a 5xx and never a hang; a refused request
 * appends no event; the process stays up.
 *
 * FUZZ_RUNS batches of up to 10 requests (default 600: ~3,200 random requests, half of them at the
 * game's commands, plus a fixed sweep of every endpoint with every kind of bad body and query,
 * ~500 more), seed FUZZ_SEED (fixed by default, so CI repeats the same run; a failure prints the
 * seed and path to replay it). About 30 s.
 *
 * In the distributed deployment the same runs go over HTTP to the process that serves each
 * route (every service process, internal routes included; the gateway's own read side is fuzzed
 * in the single-process run), and what a request sets off crosses processes and Redis. A route
 * every process serves (probes, /docs, /metrics) counts as one, sent to a process at random. It
 * took about as long here as in one process (15 s for 600 runs), so the runs are the same.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 600);
const SEED = Number(process.env.FUZZ_SEED ?? 20_261_129);
const REQUEST_TIMEOUT_MS = 10_000;
interface Outcome {
  readonly request: FuzzRequest;
  readonly correlationId: string;
  readonly status: number;
  /** The problem's code, for a refusal. */
  readonly code?: string;
}

/**
 * The one refusal that records something, by design: opening the first round of a new scanner
 * shoe loads the shoe (ShoeShuffled, after closing the finished one) and answers INVALID_DEAL
 * "burn it first"; the next request burns it. A retry appends nothing more.
 */
function refusalMayRecord(
  outcome: Outcome,
  event: RecordedEvent,
  sealed: ReadonlySet<string>,
): boolean {
  if (outcome.request.method !== 'POST') return false;
  const url = outcome.request.endpoint.url;
  if (url === '/v1/tables/:tableId/rounds')
    return (
      outcome.code === 'INVALID_DEAL' &&
      event.stream.startsWith('shoe-') &&
      (event.type === 'ShoeShuffled' || event.type === 'ShoeClosed')
    );
  // A deal commits to the round before the shoe draws (ADR 0033). A round the shoe has sealed
  // (a void of the same batch that landed in between, or, in the distributed run, the internal
  // seal route fuzzed with a service token) gets no cards: the deal is refused ROUND_FINISHED
  // with its DealStarted (and the BettingClosed of its first append) recorded, true facts of a
  // deal that found the shoe closed to it, never of bad input.
  return (
    url === '/v1/rounds/:roundId/deal' &&
    outcome.code === 'ROUND_FINISHED' &&
    (event.type === 'DealStarted' || event.type === 'BettingClosed') &&
    sealed.has(event.stream)
  );
}

/** Services that append by themselves, in reaction to events already in the store. */
const REACTORS = new Set(['settlement', 'wallet-consumer', 'commission-collector']);

describe('HTTP fuzz: every endpoint, every role, hostile input', () => {
  let harness: Harness;
  let internal: HttpApp | null = null;
  let endpoints: Endpoint[];
  let round: RoundView;
  let cursor: bigint | undefined;
  const tokens = new Map<Principal, string>();
  const successes = new Map<string, number>();
  const statuses = new Map<number, number>();
  /** Round streams whose round a shoe has sealed: no deal can draw for them any more. */
  const sealedRounds = new Set<string>();
  let sent = 0;

  beforeAll(async () => {
    harness = await startHarness({
      store: 'memory',
      env: {
        // The fuzz sends thousands of requests from one address: the limiter is tested elsewhere.
        RATE_LIMIT_PER_MINUTE: '10000000',
        RATE_LIMIT_FAILED_LOGINS_PER_MINUTE: '0',
        // A stake the fuzz debits through the wallet's internal route belongs to no bet: the
        // round process would refund it at a moment of its own (it sweeps every 5 s). The sweep
        // has tests of its own (money.e2e.test.ts).
        ORPHAN_GRACE_MS: '3600000',
      },
    });
    await openTable(harness.api, 'fuzz', 'live');
    await openTable(harness.api, 'fuzz-scan', 'live', { cardSource: 'scanner' });
    await fund(harness.api, ['fuzz-amy', 'fuzz-bob'], 10_000_000);
    round = await openRound(harness.api, 'fuzz');
    await placeBets(harness.api, round.roundId, 'fuzz-amy', [{ type: 'player', amount: 100 }]);
    if (harness.cluster === null) {
      internal = await internalApp(harness.system);
      endpoints = [
        ...endpointsOf(harness.app, 'gateway'),
        ...endpointsOf(internal, 'internal').filter((e) => e.url.startsWith('/internal/')),
      ];
    } else {
      endpoints = await deploymentEndpoints(harness.cluster.processes, Object.keys(ACCESS_POLICY));
    }
    const issue = (role: Role, id: string) => harness.tokens.issue({ id, role });
    for (const role of ['dealer', 'supervisor', 'operator', 'regulator', 'system'] as const)
      tokens.set(role, await issue(role, `fuzz-${role}`));
    tokens.set('player', await issue('player', 'fuzz-amy'));
    tokens.set('trespasser', await issue('player', 'fuzz-bob'));
    tokens.set('garbage', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.AAAA');
    cursor = (await eventsAfter(harness.store, undefined)).at(-1)?.position;
  }, 120_000);
  afterAll(async () => {
    await internal?.close();
    await harness.close();
    const top = [...successes.entries()].sort((a, b) => b[1] - a[1]).slice(0, 12);
    process.stdout.write(
      `fuzz: ${sent} requests; statuses ${JSON.stringify(Object.fromEntries([...statuses].sort()))}; ` +
        `succeeded most: ${top.map(([key, count]) => `${key} x${count}`).join(', ')}\n`,
    );
  });

  const validIds = () => ({
    tableId: ['fuzz', 'fuzz-scan', 'nope', 'fuzz-new'],
    roundId: [round.roundId, 'fuzz.1.1', 'fuzz.1.2', 'fuzz.9.9', 'fuzz-scan.1.1'],
    shoeId: [round.shoeId, 'fuzz.1', 'fuzz-scan.1', 'fuzz.99'],
    playerId: ['fuzz-amy', 'fuzz-bob', 'nobody'],
    shoePosition: ['0', '1', '7', '415'],
    betId: [BET_ID, '00000000-0000-0000-0000-000000000000'],
  });

  /** Valid ids for a path parameter (a stand-in for one this test does not know). */
  const idsFor = (name: string): string[] =>
    (validIds() as Record<string, string[] | undefined>)[name] ?? ['x'];

  const requestArb = () =>
    fuzzRequests({ endpoints, ids: validIds, distributed: harness.cluster !== null });

  // ---- sending and judging --------------------------------------------------------------

  /** Who serves an endpoint: an app of this process, or a process of the deployment. */
  const serverOf = (endpoint: Endpoint): Server => {
    if (harness.cluster !== null) return harness.cluster.get(endpoint.surface).url;
    return endpoint.surface === 'internal' ? internal! : harness.app;
  };

  async function send(request: FuzzRequest, correlationId: string): Promise<Outcome> {
    const token = tokens.get(request.principal);
    const headers: Record<string, string> = {
      ...request.headers,
      'x-correlation-id': correlationId,
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
      ...(request.contentType === undefined ? {} : { 'content-type': request.contentType }),
    };
    const response = await deliver(
      serverOf(request.endpoint),
      {
        method: request.method,
        url: request.url,
        headers,
        ...(request.payload === undefined ? {} : { payload: request.payload }),
      },
      REQUEST_TIMEOUT_MS,
    ).catch((error: unknown) => {
      throw new Error(
        `no answer (${error instanceof Error ? error.message : String(error)}): ${describeRequest(request)}`,
      );
    });
    sent++;
    statuses.set(response.statusCode, (statuses.get(response.statusCode) ?? 0) + 1);
    const what = `${describeRequest(request)} -> ${response.statusCode} ${response.body.slice(0, 300)}`;
    expect(response.statusCode, what).toBeLessThan(500);
    if (response.statusCode >= 400) {
      expect(String(response.headers['content-type']), what).toMatch(/^application\/problem\+json/);
      const problem = JSON.parse(response.body) as { status?: unknown; code?: unknown };
      expect(problem.status, what).toBe(response.statusCode);
      expect(isErrorCode(problem.code), what).toBe(true);
      return { request, correlationId, status: response.statusCode, code: String(problem.code) };
    }
    const key = `${request.principal} ${request.method} ${request.endpoint.url}`;
    successes.set(key, (successes.get(key) ?? 0) + 1);
    return { request, correlationId, status: response.statusCode };
  }

  /** Waits until reactions to earlier successes (settlement, payouts) have all been appended. */
  async function quiet(): Promise<void> {
    let idle = 0;
    for (let attempt = 0; attempt < 100 && idle < 3; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 60));
      const fresh = await eventsAfter(harness.store, cursor);
      if (fresh.length === 0) idle++;
      else {
        idle = 0;
        cursor = fresh.at(-1)!.position;
      }
    }
  }

  /**
   * Judges what a batch appended: no event may carry the correlation id of a refused request;
   * and when nothing in the batch succeeded (and the system was quiet before), nothing at all.
   */
  async function checkAppends(outcomes: readonly Outcome[]): Promise<void> {
    const fresh: RecordedEvent[] = await eventsAfter(harness.store, cursor);
    if (fresh.length > 0) cursor = fresh.at(-1)!.position;
    for (const event of fresh)
      if (event.type === 'RoundSealed')
        sealedRounds.add(`round-${(event.data as { roundId: string }).roundId}`);
    const state = fresh.filter(isStateEvent);
    const refused = new Map(
      outcomes.filter((o) => o.status >= 400).map((o) => [o.correlationId, o] as const),
    );
    const recorded = state.filter((event) => {
      const outcome = refused.get(String(event.metadata.correlationId));
      return outcome === undefined || !refusalMayRecord(outcome, event, sealedRounds);
    });
    for (const event of recorded) {
      const outcome = refused.get(String(event.metadata.correlationId));
      expect(
        outcome,
        `${event.type} appended to ${event.stream} by a refused request: ${outcome === undefined ? '' : `${describeRequest(outcome.request)} -> ${outcome.code}`}`,
      ).toBeUndefined();
    }
    const changes = outcomes.filter((o) => o.status < 400 && o.request.method !== 'GET');
    if (changes.length === 0) {
      // Nothing but reactions may land: events a service appends by itself, caused by an event
      // appended before this batch (a payout that follows a deal of an earlier batch, which the
      // distributed deployment may deliver after its quiet spell) or by such a reaction.
      const batch = new Set(outcomes.map((o) => o.correlationId));
      const caused = new Set(
        fresh.filter((e) => batch.has(String(e.metadata.correlationId))).map((e) => e.id),
      );
      const reactions = new Set<string>();
      for (const event of fresh) {
        const { actor, causationId } = event.metadata as {
          actor?: { id?: string; role?: string };
          causationId?: string | null;
        };
        if (
          actor?.role === 'system' &&
          REACTORS.has(String(actor.id)) &&
          typeof causationId === 'string' &&
          !caused.has(causationId) &&
          !batch.has(String(event.metadata.correlationId))
        )
          reactions.add(event.id);
      }
      expect(
        recorded
          .filter((event) => !reactions.has(event.id))
          .map((event) => `${event.stream} ${event.type}`),
        'a batch of refused requests and reads appended events',
      ).toEqual([]);
    } else {
      // Settlement and payouts follow a deal on their own: let them land before the next batch.
      await quiet();
    }
  }

  /** Every process is still up and serving. */
  async function healthy(): Promise<void> {
    const servers: Server[] =
      harness.cluster === null ? [harness.app] : harness.cluster.processes.map((p) => p.url);
    for (const server of servers) {
      const health = await deliver(server, { method: 'GET', url: '/health', headers: {} });
      expect(health.statusCode).toBe(200);
    }
    const tables = await harness.api.as('operator').get('/v1/tables');
    expect(tables.status).toBe(200);
  }

  // ---- the tests ----------------------------------------------------------------------------

  it('answers every endpoint a 4xx problem+json for every kind of bad body, as an allowed caller', async () => {
    const bodies: { payload?: string; contentType?: string }[] = [
      { payload: '{', contentType: 'application/json' },
      { payload: '', contentType: 'application/json' },
      { payload: 'null', contentType: 'application/json' },
      { payload: '[]', contentType: 'application/json' },
      { payload: '"text"', contentType: 'application/json' },
      { payload: '{"__proto__":{"polluted":true}}', contentType: 'application/json' },
      {
        payload: '{"constructor":{"prototype":{"polluted":true}}}',
        contentType: 'application/json',
      },
      { payload: `${'['.repeat(50_000)}${']'.repeat(50_000)}`, contentType: 'application/json' },
      { payload: JSON.stringify({ x: 'y'.repeat(BODY_LIMIT) }), contentType: 'application/json' },
      { payload: '<x/>', contentType: 'application/xml' },
      { payload: 'a=1', contentType: 'application/x-www-form-urlencoded' },
      {
        payload: '{"reason":"\\u0000\\ud800","card":1e309,"amount":-0}',
        contentType: 'application/json',
      },
    ];
    const queries = [
      '',
      '?limit=-1',
      '?limit=1e309&from=..',
      '?from=-1&to=yesterday&tableId=UPPER',
      '?from=340282366920938463463374607431768211456',
      '?limit=NaN&limit=2',
      '?__proto__[polluted]=1&constructor[prototype][polluted]=1',
      `?x=${'y'.repeat(10_000)}`,
    ];
    let index = 0;
    for (const endpoint of endpoints) {
      const outcomes: Outcome[] = [];
      const params = Object.fromEntries(
        paramsOf(endpoint.url).map((name) => [name, idsFor(name)[0]!]),
      );
      const path = fillPath(endpoint.url, params);
      const requests =
        endpoint.method === 'GET'
          ? queries.map((query) => ({ url: `${path}${query}` }))
          : bodies.map((body) => ({ url: path, ...body }));
      for (const request of requests) {
        outcomes.push(
          await send(
            {
              endpoint,
              method: endpoint.method,
              principal: roleFor(endpoint),
              headers: {},
              ...request,
            },
            `sweep-${index++}`,
          ),
        );
      }
      // Only bodiless routes may accept these (close-betting, deal, rebuild, ...).
      for (const outcome of outcomes) {
        if (outcome.request.payload !== undefined && outcome.request.payload.length > BODY_LIMIT)
          expect(outcome.status, describeRequest(outcome.request)).toBe(413);
      }
      await checkAppends(outcomes);
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    await healthy();
  });

  it(`survives ${RUNS} random batches of hostile requests: 4xx problems, no 5xx, no hang, no stray event`, async () => {
    await quiet();
    let batch = 0;
    const result = await fc.check(
      fc.asyncProperty(
        fc.array(requestArb(), { minLength: 1, maxLength: 10 }),
        async (requests) => {
          batch++;
          const outcomes: Outcome[] = [];
          for (const [i, request] of requests.entries())
            outcomes.push(await send(request, `fuzz-${batch}-${i}`));
          await checkAppends(outcomes);
        },
      ),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    );
    // fast-check's own report prints every request of the batch in full (bodies of 200 KB):
    // name the seed and path to replay, and the failed assertion, which is short.
    if (result.failed) {
      const error = result.errorInstance;
      throw new Error(
        `fuzz failed at run ${result.numRuns} (replay: FUZZ_SEED=${result.seed}, path "${result.counterexamplePath}"): ` +
          (error instanceof Error ? error.message : String(error)).slice(0, 2_000),
      );
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('polluted');
    await healthy();
    expect(sent).toBeGreaterThan(RUNS * 3);
  });
});
