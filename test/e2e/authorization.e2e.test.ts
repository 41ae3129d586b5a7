import { randomUUID } from 'node:crypto';
import { presetConfig, type Role } from '@croupier/contracts';
import { TokenAuthority, type HttpApp } from '@croupier/http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCESS_POLICY as POLICY } from '../support/access-policy.js';
import { DEPLOYMENT, startHarness, TEST_SECRETS, type Harness } from '../support/harness.js';
import { fund, openRound, openTable, placeBets, type RoundView } from '../support/play.js';
import {
  deliver,
  deploymentEndpoints,
  endpointsOf,
  eventsAfter,
  expectProblem,
  fillPath,
  handMadeToken,
  internalApp,
  isStateEvent,
  lastPosition,
  type Endpoint,
  type Server,
} from '../support/surface.js';

/**
 * Who may call what: every endpoint of the gateway and of the services' internal routes, as
 * every role and with every kind of bad token, against the intended policy written out by hand
 * (test/support/access-policy.ts). In one process the routes are read from the apps themselves,
 * so a new route fails this test until its row is written. In the distributed deployment every
 * process is asked over HTTP for the routes it serves, each as the Ingress routes it (services
 * first, the gateway for the rest): the same matrix, against every process.
 */

const keyOf = (endpoint: Endpoint) => `${endpoint.method} ${endpoint.url}`;

/** Someone presenting a token, or a way of not presenting a valid one. */
interface Caller {
  readonly name: string;
  /** The role, when the token is valid. */
  readonly role?: Role;
  /** The player id a player-token acts on in :playerId (another player's for the trespasser). */
  readonly playerId?: string;
  readonly authorization: () => Promise<string | undefined>;
}

describe('the authorization matrix: every endpoint x every role and every bad token', () => {
  let harness: Harness;
  let internal: HttpApp | null = null;
  let round: RoundView;
  let sessionId: string;
  let endpoints: Endpoint[];
  let counter = 0;

  beforeAll(async () => {
    harness = await startHarness({
      store: 'memory',
      gateway: true,
      // Hundreds of bad tokens from one address, each to be answered 401: the failed-login
      // limit, which would answer 429 instead, has tests of its own (packages/runtime).
      env: { RATE_LIMIT_FAILED_LOGINS_PER_MINUTE: '0' },
    });
    await openTable(harness.api, 'authz', 'live');
    await openTable(harness.api, 'authz-closable', 'live');
    await fund(harness.api, ['amy', 'bob'], 1_000_000);
    round = await openRound(harness.api, 'authz');
    await placeBets(harness.api, round.roundId, 'amy', [{ type: 'player', amount: 100 }]);
    // Amy's own table: the session routes are called on it (she owns it, as the player callers).
    sessionId = (
      await harness.api.as('player', 'amy').post<{ sessionId: string }>('/v1/sessions', {
        preset: 'touch',
      })
    ).body.sessionId;
    if (harness.cluster === null) {
      internal = await internalApp(harness.system);
      endpoints = [
        ...endpointsOf(harness.app, 'gateway'),
        ...endpointsOf(internal, 'internal').filter((e) => e.url.startsWith('/internal/')),
      ];
    } else {
      endpoints = await deploymentEndpoints(harness.cluster.processes, Object.keys(POLICY));
    }
  });
  afterAll(async () => {
    await internal?.close();
    await harness.close();
  });

  /** Who serves an endpoint: an app of this process, or a process of the deployment. */
  const serverOf = (endpoint: Endpoint): Server => {
    if (harness.cluster !== null) return harness.cluster.get(endpoint.surface).url;
    return endpoint.surface === 'internal' ? internal! : harness.app;
  };

  const tokens = () => harness.tokens;
  const issue = (role: Role, id: string, expiresIn?: number) =>
    tokens()
      .issue({ id, role }, expiresIn)
      .then((token) => `Bearer ${token}`);

  const roleCallers = (): Caller[] => [
    ...(['player', 'dealer', 'supervisor', 'operator', 'regulator', 'system'] as const).map(
      (role): Caller => ({
        name: role,
        role,
        playerId: 'amy',
        authorization: () => issue(role, role === 'player' ? 'amy' : `${role}-1`),
      }),
    ),
    {
      name: "player on another player's id",
      role: 'player',
      playerId: 'bob',
      authorization: () => issue('player', 'amy'),
    },
  ];

  const badCallers = (): Caller[] => {
    const secret = TEST_SECRETS.JWT_SECRET;
    return [
      { name: 'no token', authorization: () => Promise.resolve(undefined) },
      {
        name: 'expired operator token',
        authorization: () => issue('operator', 'op', Math.floor(Date.now() / 1000) - 60),
      },
      {
        name: 'operator token with a wrong signature',
        authorization: async () =>
          `Bearer ${await new TokenAuthority('another-secret-0123456789abcdef0123456789').issue({
            id: 'op',
            role: 'operator',
          })}`,
      },
      {
        name: 'token with an unknown role',
        authorization: () => issue('croupier' as Role, 'mallory'),
      },
      {
        name: 'unsigned token (alg none)',
        authorization: () =>
          Promise.resolve(
            `Bearer ${handMadeToken({ sub: 'op', role: 'operator' }, secret, 'none')}`,
          ),
      },
      {
        name: 'token for another audience',
        authorization: () =>
          Promise.resolve(
            `Bearer ${handMadeToken({ sub: 'op', role: 'operator', aud: 'elsewhere' }, secret)}`,
          ),
      },
      {
        name: 'token from another issuer',
        authorization: () =>
          Promise.resolve(
            `Bearer ${handMadeToken({ sub: 'op', role: 'operator', iss: 'evil' }, secret)}`,
          ),
      },
      {
        name: 'token without a subject',
        authorization: () =>
          Promise.resolve(`Bearer ${handMadeToken({ role: 'operator' }, secret)}`),
      },
      {
        name: 'system token signed with the wrong key',
        authorization: async () =>
          `Bearer ${await new TokenAuthority('another-secret-0123456789abcdef0123456789').issue({
            id: 'round-service',
            role: 'system',
          })}`,
      },
      { name: 'garbage bearer', authorization: () => Promise.resolve('Bearer not.a.jwt') },
      { name: 'basic credentials', authorization: () => Promise.resolve('Basic b3A6b3A=') },
    ];
  };

  /** The intended outcome: may this caller call this endpoint? */
  function allowed(endpoint: Endpoint, caller: Caller): boolean {
    const rule = POLICY[keyOf(endpoint)]!;
    if (rule.roles === 'public') return true;
    if (caller.role === undefined || !rule.roles.includes(caller.role)) return false;
    if (rule.ownSessionOnly && caller.role === 'player') return false;
    return !(rule.selfOnly && caller.role === 'player' && caller.playerId !== 'amy');
  }

  /** A request a caller with the right role could make: valid ids and a well-formed body. */
  function requestFor(endpoint: Endpoint, caller: Caller) {
    const n = ++counter;
    const shoeId = round.shoeId;
    const closing = /^\/v1\/tables\/:tableId\/(close|shoes\/current\/close)$/.test(endpoint.url);
    const url = fillPath(endpoint.url, {
      tableId: closing ? 'authz-closable' : 'authz',
      roundId: round.roundId,
      shoeId,
      playerId: caller.playerId ?? 'amy',
      shoePosition: '0',
      betId: randomUUID(),
      which: 'latest',
      id: 'settlement-outbox.authz-none',
      sessionId,
      seat: '1',
    });
    const bodies: Record<string, unknown> = {
      'POST /v1/tables': { tableId: `authz-new-${n}`, preset: 'live' },
      'POST /v1/sessions': { preset: 'touch' },
      'POST /v1/sessions/:sessionId/deal': { rebet: 0 },
      'POST /v1/tables/:tableId/close': { reason: 'authorization test' },
      'POST /v1/tables/:tableId/dealer': { dealerId: 'dan' },
      'POST /v1/rounds/:roundId/bets': {
        bets: [{ type: 'banker', amount: 100, betId: randomUUID() }],
      },
      'POST /v1/rounds/:roundId/rebet': { multiplier: 1 },
      'POST /v1/rounds/:roundId/cards': { card: 'AS' },
      'POST /v1/rounds/:roundId/pause': { reason: 'authorization test' },
      'POST /v1/rounds/:roundId/void': { reason: 'authorization test' },
      'POST /v1/rounds/:roundId/cards/:shoePosition/correction': { card: 'AS', reason: 'test' },
      'POST /v1/shoes/:shoeId/burn': { card: 'AS' },
      'POST /v1/wallets/:playerId/deposits': {
        amount: 100,
        currency: 'EUR',
        reference: `authz-${n}`,
      },
      'POST /v1/wallets/:playerId/withdrawals': { amount: 1, reference: `authz-${n}` },
      'POST /internal/v1/tables/:tableId/shoes': { number: 90 + n, config: presetConfig('live') },
      'POST /internal/v1/shoes/:shoeId/rounds/:roundId/draw': { roundNumber: 1 },
      'POST /internal/v1/shoes/:shoeId/rounds/:roundId/cards': {
        roundNumber: 1,
        index: 0,
        card: 'AS',
        hand: 'player',
      },
      'POST /internal/v1/shoes/:shoeId/rounds/:roundId/correction': {
        position: 0,
        card: 'AS',
        reason: 'test',
      },
      'POST /internal/v1/shoes/:shoeId/rounds/:roundId/cut-card': { roundNumber: 1 },
      'POST /internal/v1/shoes/:shoeId/burn': { shownCard: 'AS' },
      'POST /internal/v1/shoes/:shoeId/close': { reason: 'operator' },
      'POST /internal/v1/wallets/:playerId/stakes': {
        roundId: round.roundId,
        currency: 'EUR',
        stakes: [{ betId: randomUUID(), amount: 100 }],
      },
      'POST /internal/v1/wallets/:playerId/stakes/:betId/refund': { reason: 'cleared' },
      // Well formed, signed by nobody: the store is checked against it and fails to verify.
      'POST /v1/audit/checkpoints/verify': {
        checkpoint: {
          format: 'croupier-checkpoint/1',
          sequence: 1,
          position: '1',
          at: new Date().toISOString(),
          count: 1,
          changedRoot: 'a'.repeat(64),
          previous: '0'.repeat(64),
          head: 'b'.repeat(64),
          signer: { keyId: '0123456789abcdef', publicKey: `${'A'.repeat(43)}=` },
          signature: 'AAAA',
        },
      },
    };
    const body = bodies[keyOf(endpoint)];
    return { url, body };
  }

  async function call(endpoint: Endpoint, caller: Caller) {
    const { url, body } = requestFor(endpoint, caller);
    const authorization = await caller.authorization();
    const response = await deliver(serverOf(endpoint), {
      method: endpoint.method,
      url,
      headers: authorization === undefined ? {} : { authorization },
      ...(body === undefined ? {} : { payload: body as object }),
    });
    const where = harness.cluster === null ? '' : ` at ${endpoint.surface}`;
    return {
      response,
      what: `${caller.name}: ${endpoint.method} ${url}${where} -> ${response.statusCode}`,
    };
  }

  it.runIf(DEPLOYMENT === 'single')(
    'has a row for every route, and every row names a route (single-process run: routes read from the apps)',
    () => {
      const served = new Set(endpoints.map(keyOf));
      expect(endpoints.length).toBeGreaterThan(50);
      expect([...served].filter((key) => POLICY[key] === undefined)).toEqual([]);
      expect(Object.keys(POLICY).filter((key) => !served.has(key))).toEqual([]);
    },
  );

  // The processes cannot be asked for their route tables: the single-process run reads them
  // from the very route functions the services register, internal routes included.
  it.runIf(DEPLOYMENT === 'distributed')(
    'has every row served by a process, and a row for every route a process documents (distributed run: the processes asked over HTTP)',
    async () => {
      const cluster = harness.cluster!;
      const served = new Set(endpoints.map(keyOf));
      expect(Object.keys(POLICY).filter((key) => !served.has(key))).toEqual([]);
      // Every process serves its own probes, documentation and metrics.
      for (const process of cluster.processes)
        expect(endpoints.filter((e) => e.surface === process.id).map(keyOf), process.id).toEqual(
          expect.arrayContaining(['GET /health', 'GET /ready', 'GET /metrics']),
        );
      for (const process of cluster.processes) {
        const document = (await (await fetch(`${process.url}/docs/json`)).json()) as {
          paths: Record<string, Record<string, unknown>>;
        };
        const documented = Object.entries(document.paths).flatMap(([path, operations]) =>
          Object.keys(operations).map(
            (method) => `${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`,
          ),
        );
        expect(documented.length, process.id).toBeGreaterThan(0);
        expect(
          documented.filter((key) => POLICY[key] === undefined),
          process.id,
        ).toEqual([]);
      }
    },
  );

  it('refuses every forbidden combination with 401/403 problem+json, and changes nothing', async () => {
    const before = await lastPosition(harness.store);
    const refused: string[] = [];
    for (const endpoint of endpoints) {
      for (const caller of [...roleCallers(), ...badCallers()]) {
        if (allowed(endpoint, caller)) continue;
        const { response, what } = await call(endpoint, caller);
        const problem = expectProblem(response, what);
        if (caller.role === undefined) {
          expect(problem.code, what).toBe('UNAUTHENTICATED');
          expect(response.statusCode, what).toBe(401);
        } else {
          expect(problem.code, what).toBe('FORBIDDEN');
          expect(response.statusCode, what).toBe(403);
        }
        refused.push(what);
      }
    }
    // Failed logins are recorded in the security log; nothing else may have been written.
    const written = (await eventsAfter(harness.store, before)).filter(isStateEvent);
    expect(written.map((event) => `${event.stream} ${event.type}`)).toEqual([]);
    expect(refused.length).toBeGreaterThan(600);
  });

  it('lets every allowed combination through: a 2xx, or a domain refusal that is not 401/403', async () => {
    const outcomes = new Map<string, number>();
    for (const endpoint of endpoints) {
      for (const caller of roleCallers()) {
        if (!allowed(endpoint, caller)) continue;
        const { response, what } = await call(endpoint, caller);
        expect(response.statusCode, what).toBeLessThan(500);
        expect([401, 403], what).not.toContain(response.statusCode);
        if (response.statusCode >= 400)
          expect(expectProblem(response, what).code, what).not.toBe('NOT_FOUND');
        outcomes.set(what, response.statusCode);
      }
      // Public routes need no token at all.
      if (POLICY[keyOf(endpoint)]!.roles === 'public') {
        const { response, what } = await call(endpoint, badCallers()[0]!);
        expect(response.statusCode, what).toBeLessThan(400);
      }
    }
    const succeeded = [...outcomes.values()].filter((status) => status < 300).length;
    // Most allowed calls do what they ask; the rest are refused by the game's rules.
    expect(succeeded).toBeGreaterThan(outcomes.size / 2);
  });

  it('keeps a player to their own wallet, movements and history, and their own bets in a round', async () => {
    const amy = await issue('player', 'amy');
    /** A request as the API's clients make it (to the process serving it, when distributed). */
    const asAmy = async (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object) => {
      const response = await harness.api.raw(method, url, payload, amy);
      return {
        statusCode: response.status,
        headers: response.headers,
        body: typeof response.body === 'string' ? response.body : JSON.stringify(response.body),
        value: response.body,
      };
    };
    for (const url of [
      '/v1/wallets/bob',
      '/v1/wallets/bob/transactions',
      '/v1/players/bob/history',
    ]) {
      expect(expectProblem(await asAmy('GET', url), url).code).toBe('FORBIDDEN');
    }
    const own = await asAmy('GET', '/v1/wallets/amy');
    expect(own.statusCode).toBe(200);
    // A bet is placed for the token's subject, whatever the body says.
    const fresh = await openRound(harness.api, 'authz-own').catch(async () => {
      await openTable(harness.api, 'authz-own', 'live');
      return openRound(harness.api, 'authz-own');
    });
    const response = await asAmy('POST', `/v1/rounds/${fresh.roundId}/bets`, {
      bets: [{ type: 'player', amount: 100, betId: randomUUID() }],
      playerId: 'bob',
    });
    expect(expectProblem(response, 'a playerId in a bet body').code).toBe('VALIDATION_ERROR');
    await placeBets(harness.api, fresh.roundId, 'bob', [{ type: 'banker', amount: 100 }]);
    await placeBets(harness.api, fresh.roundId, 'amy', [{ type: 'player', amount: 100 }]);
    const seen = await asAmy('GET', `/v1/rounds/${fresh.roundId}`);
    expect((seen.value as RoundView).bets.map((bet) => bet.playerId)).toEqual(['amy']);
    // Clearing bets clears only the caller's own.
    const cleared = await asAmy('DELETE', `/v1/rounds/${fresh.roundId}/bets`);
    expect(cleared.statusCode).toBe(200);
    const asSupervisor = await harness.api
      .as('supervisor')
      .get<RoundView>(`/v1/rounds/${fresh.roundId}`);
    expect(
      asSupervisor.body.bets.filter((bet) => bet.status !== 'cleared').map((bet) => bet.playerId),
    ).toEqual(['bob']);
  });
});
