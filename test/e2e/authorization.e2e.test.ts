import { randomUUID } from 'node:crypto';
import { presetConfig, type Role } from '@croupier/contracts';
import { TokenAuthority, type HttpApp } from '@croupier/http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, TEST_SECRETS, type Harness } from '../support/harness.js';
import { fund, openRound, openTable, placeBets, type RoundView } from '../support/play.js';
import {
  endpointsOf,
  eventsAfter,
  expectProblem,
  fillPath,
  handMadeToken,
  internalApp,
  isStateEvent,
  lastPosition,
  type Endpoint,
} from '../support/surface.js';

/**
 * Who may call what: every endpoint of the gateway and of the services' internal routes, as
 * every role and with every kind of bad token. The table below is the intended policy, written
 * out by hand; the test checks the running API against it, and that it names every route (a
 * new route fails this test until its row is written).
 */

const EVERYONE = ['player', 'dealer', 'supervisor', 'operator', 'regulator'] as const;
const STAFF_AND_SELF = ['player', 'supervisor', 'operator', 'regulator'] as const;
const DEALING = ['dealer', 'supervisor'] as const;

interface Rule {
  /** Roles that may call it, or 'public' (no token needed). */
  readonly roles: readonly Role[] | 'public';
  /** A player may call it only for their own :playerId. */
  readonly selfOnly?: true;
}

const PUBLIC: Rule = { roles: 'public' };
const SYSTEM: Rule = { roles: ['system'] };

const POLICY: Record<string, Rule> = {
  // Probes, documentation and the console page (its API calls need a token).
  'GET /health': PUBLIC,
  'GET /ready': PUBLIC,
  'GET /docs': PUBLIC,
  'GET /docs/': PUBLIC,
  'GET /docs/static/index.html': PUBLIC,
  'GET /docs/static/swagger-initializer.js': PUBLIC,
  'GET /docs/json': PUBLIC,
  'GET /docs/yaml': PUBLIC,
  'GET /console': PUBLIC,
  'GET /console/console.js': PUBLIC,
  'GET /console/console.css': PUBLIC,
  'GET /console/roads.js': PUBLIC,
  // Business figures: the operator's and the regulator's (METRICS_PUBLIC is off by default).
  'GET /metrics': { roles: ['operator', 'regulator'] },

  'POST /v1/tables': { roles: ['operator'] },
  'GET /v1/tables': { roles: EVERYONE },
  'GET /v1/tables/:tableId': { roles: EVERYONE },
  'GET /v1/tables/:tableId/roads': { roles: EVERYONE },
  'POST /v1/tables/:tableId/close': { roles: ['operator'] },
  'POST /v1/tables/:tableId/dealer': { roles: ['supervisor', 'operator'] },
  'POST /v1/tables/:tableId/shoes': { roles: DEALING },
  'POST /v1/tables/:tableId/shoes/current/close': { roles: ['supervisor', 'operator'] },
  'POST /v1/tables/:tableId/rounds': { roles: DEALING },

  'GET /v1/rounds/:roundId': { roles: EVERYONE },
  // A player bets, clears and rebets as themselves: the player id is the token's subject.
  'POST /v1/rounds/:roundId/bets': { roles: ['player'] },
  'DELETE /v1/rounds/:roundId/bets': { roles: ['player'] },
  'POST /v1/rounds/:roundId/rebet': { roles: ['player'] },
  'POST /v1/rounds/:roundId/close-betting': { roles: DEALING },
  'POST /v1/rounds/:roundId/deal': { roles: DEALING },
  'POST /v1/rounds/:roundId/confirm': { roles: DEALING },
  'POST /v1/rounds/:roundId/cut-card': { roles: DEALING },
  'POST /v1/rounds/:roundId/cards': { roles: DEALING },
  'POST /v1/rounds/:roundId/pause': { roles: DEALING },
  'POST /v1/rounds/:roundId/resume': { roles: ['supervisor'] },
  'POST /v1/rounds/:roundId/void': { roles: ['supervisor'] },
  'POST /v1/rounds/:roundId/cards/:shoePosition/correction': { roles: ['supervisor'] },

  'GET /v1/shoes/:shoeId': { roles: EVERYONE },
  'POST /v1/shoes/:shoeId/burn': { roles: DEALING },

  'POST /v1/wallets/:playerId/deposits': { roles: ['operator'] },
  'POST /v1/wallets/:playerId/withdrawals': { roles: ['operator'] },
  'GET /v1/wallets/:playerId': { roles: STAFF_AND_SELF, selfOnly: true },
  'GET /v1/wallets/:playerId/transactions': { roles: STAFF_AND_SELF, selfOnly: true },
  'GET /v1/players/:playerId/history': { roles: STAFF_AND_SELF, selfOnly: true },
  'GET /v1/players/:playerId/history.csv': { roles: ['operator', 'supervisor', 'regulator'] },

  'GET /v1/audit/rounds/:roundId': { roles: ['regulator', 'operator', 'supervisor'] },
  'GET /v1/audit/shoes/:shoeId/replay': { roles: ['regulator', 'operator'] },
  'GET /v1/audit/shoes/:shoeId/export': { roles: ['regulator', 'operator'] },
  'GET /v1/significant-events': { roles: ['operator', 'supervisor', 'regulator'] },
  'GET /v1/settlements': { roles: ['operator', 'regulator'] },
  'POST /v1/admin/rebuild': { roles: ['operator'] },

  // Service to service: service tokens only.
  'POST /internal/v1/tables/:tableId/shoes': SYSTEM,
  'GET /internal/v1/shoes/:shoeId': SYSTEM,
  'POST /internal/v1/shoes/:shoeId/rounds/:roundId/draw': SYSTEM,
  'GET /internal/v1/shoes/:shoeId/rounds/:roundId/cards': SYSTEM,
  'POST /internal/v1/shoes/:shoeId/rounds/:roundId/cards': SYSTEM,
  'POST /internal/v1/shoes/:shoeId/rounds/:roundId/correction': SYSTEM,
  'POST /internal/v1/shoes/:shoeId/rounds/:roundId/cut-card': SYSTEM,
  'POST /internal/v1/shoes/:shoeId/burn': SYSTEM,
  'POST /internal/v1/shoes/:shoeId/close': SYSTEM,
  'POST /internal/v1/wallets/:playerId/stakes': SYSTEM,
  'POST /internal/v1/wallets/:playerId/stakes/:betId/refund': SYSTEM,
};

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
  let internal: HttpApp;
  let round: RoundView;
  let endpoints: Endpoint[];
  let counter = 0;

  beforeAll(async () => {
    harness = await startHarness({ store: 'postgres' });
    internal = await internalApp(harness.system);
    await openTable(harness.api, 'authz', 'live');
    await openTable(harness.api, 'authz-closable', 'live');
    await fund(harness.api, ['amy', 'bob'], 1_000_000);
    round = await openRound(harness.api, 'authz');
    await placeBets(harness.api, round.roundId, 'amy', [{ type: 'player', amount: 100 }]);
    endpoints = [
      ...endpointsOf(harness.app, 'gateway'),
      ...endpointsOf(internal, 'internal').filter((e) => e.url.startsWith('/internal/')),
    ];
  });
  afterAll(async () => {
    await internal.close();
    await harness.close();
  });

  const tokens = () => harness.system.tokens;
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
    });
    const bodies: Record<string, unknown> = {
      'POST /v1/tables': { tableId: `authz-new-${n}`, preset: 'live' },
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
    };
    const body = bodies[keyOf(endpoint)];
    return { url, body };
  }

  async function call(endpoint: Endpoint, caller: Caller) {
    const { url, body } = requestFor(endpoint, caller);
    const authorization = await caller.authorization();
    const app = endpoint.surface === 'internal' ? internal : harness.app;
    const response = await app.inject({
      method: endpoint.method,
      url,
      headers: authorization === undefined ? {} : { authorization },
      ...(body === undefined ? {} : { payload: body as object }),
    });
    return {
      response,
      what: `${caller.name}: ${endpoint.method} ${url} -> ${response.statusCode}`,
    };
  }

  it('has a row for every route, and every row names a route', () => {
    const served = new Set(endpoints.map(keyOf));
    expect(endpoints.length).toBeGreaterThan(50);
    expect([...served].filter((key) => POLICY[key] === undefined)).toEqual([]);
    expect(Object.keys(POLICY).filter((key) => !served.has(key))).toEqual([]);
  });

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
    for (const url of [
      '/v1/wallets/bob',
      '/v1/wallets/bob/transactions',
      '/v1/players/bob/history',
    ]) {
      const response = await harness.app.inject({
        method: 'GET',
        url,
        headers: { authorization: amy },
      });
      expect(expectProblem(response, url).code).toBe('FORBIDDEN');
    }
    const own = await harness.app.inject({
      method: 'GET',
      url: '/v1/wallets/amy',
      headers: { authorization: amy },
    });
    expect(own.statusCode).toBe(200);
    // A bet is placed for the token's subject, whatever the body says.
    const fresh = await openRound(harness.api, 'authz-own').catch(async () => {
      await openTable(harness.api, 'authz-own', 'live');
      return openRound(harness.api, 'authz-own');
    });
    const response = await harness.app.inject({
      method: 'POST',
      url: `/v1/rounds/${fresh.roundId}/bets`,
      headers: { authorization: amy },
      payload: { bets: [{ type: 'player', amount: 100, betId: randomUUID() }], playerId: 'bob' },
    });
    expect(expectProblem(response, 'a playerId in a bet body').code).toBe('VALIDATION_ERROR');
    await placeBets(harness.api, fresh.roundId, 'bob', [{ type: 'banker', amount: 100 }]);
    await placeBets(harness.api, fresh.roundId, 'amy', [{ type: 'player', amount: 100 }]);
    const seen = await harness.app.inject({
      method: 'GET',
      url: `/v1/rounds/${fresh.roundId}`,
      headers: { authorization: amy },
    });
    expect(seen.json<RoundView>().bets.map((bet) => bet.playerId)).toEqual(['amy']);
    // Clearing bets clears only the caller's own.
    const cleared = await harness.app.inject({
      method: 'DELETE',
      url: `/v1/rounds/${fresh.roundId}/bets`,
      headers: { authorization: amy },
    });
    expect(cleared.statusCode).toBe(200);
    const asSupervisor = await harness.api
      .as('supervisor')
      .get<RoundView>(`/v1/rounds/${fresh.roundId}`);
    expect(
      asSupervisor.body.bets.filter((bet) => bet.status !== 'cleared').map((bet) => bet.playerId),
    ).toEqual(['bob']);
  });
});
