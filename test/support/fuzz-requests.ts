import type { Role } from '@croupier/contracts';
import { presetConfig } from '@croupier/contracts';
import fc from 'fast-check';
import { fillPath, paramsOf, type Endpoint, type Method } from './surface.js';

/**
 * The HTTP fuzzer's request generator: hostile, malformed, oversized, wrongly typed and
 * out-of-order requests at every endpoint, as every role and as nobody. The fuzz test judges
 * each answer in detail; the soak sends the same requests while the deployment is under chaos.
 */

/** Maximum request body the services accept (their default). */
export const BODY_LIMIT = 64 * 1024;
/** Bet ids the generator reuses, so requests collide with each other. */
export const BET_ID = '3f1c8a52-6d0e-4f7a-9b1e-2c4d5e6f7a80';
export const OTHER_BET_ID = '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';

/** Who sends a request: a role's token, none, a garbage token, or another player's. */
export type Principal = Role | 'none' | 'garbage' | 'trespasser';

export interface FuzzRequest {
  readonly endpoint: Endpoint;
  readonly method: Method;
  readonly url: string;
  readonly principal: Principal;
  readonly payload?: string;
  readonly contentType?: string;
  readonly headers: Record<string, string>;
}

export interface FuzzTarget {
  /** The endpoints to fuzz (one process's routes, or the deployment's). */
  readonly endpoints: readonly Endpoint[];
  /** Plausible values of each path parameter, read as requests are drawn. */
  readonly ids: () => Readonly<Record<string, readonly string[]>>;
  /** The distributed deployment: a route several processes serve counts as one. */
  readonly distributed: boolean;
}

/** A short description of a request, for failure messages. */
export function describeRequest(request: FuzzRequest): string {
  const payload =
    request.payload === undefined
      ? ''
      : ` ${request.contentType ?? '(no content-type)'} ${request.payload.length > 200 ? `${request.payload.slice(0, 200)}... (${request.payload.length} chars)` : request.payload}`;
  return `${request.principal}: ${request.method} ${request.url.slice(0, 300)}${payload}`;
}

/** A role the route is meant for, so that requests also get past authorization. */
export const roleFor = (endpoint: Endpoint): Principal => {
  if (endpoint.url.startsWith('/internal/')) return 'system';
  // A player's own table (003, 004) and a player's seat (002).
  if (/^\/v1\/sessions|\/seats/.test(endpoint.url)) return 'player';
  if (/\/(bets|rebet)$|\/bets\/:betId$|\/v1\/wallets\/:playerId$|history$/.test(endpoint.url))
    return 'player';
  if (
    /deposits|withdrawals|play-money|admin|\/v1\/tables$|\/:tableId\/close$|settlements|metrics/.test(
      endpoint.url,
    )
  )
    return 'operator';
  if (/audit/.test(endpoint.url)) return 'regulator';
  if (/\/(close-betting|deal|confirm|cut-card|cards|pause|rounds|burn)$/.test(endpoint.url))
    return 'dealer';
  return 'supervisor';
};

/** The game's commands: weighted up, so rounds move on and requests come out of order. */
export const isGameCommand = (endpoint: Endpoint) =>
  !endpoint.url.startsWith('/internal/') &&
  endpoint.method !== 'GET' &&
  /\/(bets|rebet|close-betting|deal|confirm|cards|pause|resume|void|rounds|burn|deposits|withdrawals|dealer)$/.test(
    endpoint.url,
  );

/** Requests against `target`, each a batch's member in the fuzz test or one shot in the soak. */
export function fuzzRequests(target: FuzzTarget): fc.Arbitrary<FuzzRequest> {
  const endpoints = target.endpoints;

  const hostileStrings = fc.constantFrom(
    '',
    ' ',
    '-1',
    '0',
    '1.5',
    'NaN',
    'Infinity',
    '-Infinity',
    '1e309',
    '99999999999999999999999999999',
    '0x10',
    'null',
    'true',
    '[]',
    '{}',
    '__proto__',
    'constructor',
    'prototype',
    '..',
    '../../etc/passwd',
    '%2e%2e%2f',
    '%00',
    '\u0000',
    '😀🂡',
    'ＡＢＣ',
    'e\u0301',
    '\u202e',
    "'; DROP TABLE events; --",
    '<script>alert(1)</script>',
    '${7*7}',
    'a'.repeat(300),
    'fuzz.1.999999',
    'FUZZ',
  );
  const hostileNumbers = fc.oneof(
    fc.constantFrom(
      -1,
      0,
      -0,
      0.5,
      1.5,
      1e21,
      Number.MAX_SAFE_INTEGER,
      Number.MAX_SAFE_INTEGER + 2,
      -Number.MAX_SAFE_INTEGER,
      Number.MAX_VALUE,
      Number.MIN_VALUE,
    ),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
  );
  const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
    hostileStrings,
    hostileNumbers,
    fc.constantFrom(null, true, false, [], {}, [1, 2], { nested: { deeper: [null] } }),
    fc.string({ unit: 'grapheme', maxLength: 40 }),
  );

  /** Valid ids for a path parameter (a stand-in for one the caller does not know). */
  const idsFor = (name: string): readonly string[] => target.ids()[name] ?? ['x'];

  const paramValue = (name: string) =>
    fc.oneof(
      {
        weight: 3,
        arbitrary: fc.constantFrom(...idsFor(name)),
      },
      { weight: 1, arbitrary: hostileStrings.map((text) => encodeURIComponent(text) || '%20') },
      {
        weight: 1,
        arbitrary: fc
          .string({ unit: 'grapheme', minLength: 1, maxLength: 20 })
          .map(encodeURIComponent),
      },
    );

  /** A value for a field: usually a plausible one, sometimes anything. */
  const field = (...plausible: unknown[]) =>
    fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom(...plausible) },
      { weight: 1, arbitrary: hostileValue },
    );

  const card = field('AS', '10H', 'KD', '9C', 'ZZ', 'A', '11S', 'as');
  const betType = field(
    'player',
    'banker',
    'tie',
    'player_pair',
    'banker_pair',
    'lucky_six',
    'dragon',
  );
  const amount = field(100, 500, 1_000, 50_000, 600_000, 0, -100, 1.5);
  const reason = field('fuzz', 'camera offline', 'operator', 'completed', 'voided', 'cleared');

  /** Near-valid bodies per route: the right shape, with fields replaced by hostile values. */
  const templates: Record<string, fc.Arbitrary<Record<string, unknown>>> = {
    'POST /v1/tables': fc.record(
      {
        tableId: field('fuzz-t1', 'fuzz-t2', 'fuzz', 'UPPER', ''),
        preset: field('live', 'touch', 'single-deck', 'nope'),
        config: fc.oneof(
          fc.constant({ minBet: -5 }),
          fc.constant({ cardSource: 'scanner' }),
          fc.dictionary(fc.string({ maxLength: 10 }), hostileValue, { maxKeys: 4 }),
        ),
        dealing: fc.oneof(
          fc.constant({ mode: 'auto', bettingWindowMs: -1 }),
          fc.constant({ mode: 'manual', bettingWindowMs: 1e12 }),
          hostileValue,
        ),
      },
      { requiredKeys: [] },
    ),
    'POST /v1/rounds/:roundId/bets': fc.record({
      bets: fc.oneof(
        fc.array(
          fc.record(
            {
              type: betType,
              amount,
              bankerMode: field('commission', 'no_commission', 'free'),
              seat: field(1, 7, 0, 10, null),
              betId: field(BET_ID, OTHER_BET_ID, 'not-a-uuid'),
            },
            { requiredKeys: ['type', 'amount'] },
          ),
          { maxLength: 20 },
        ),
        hostileValue,
      ),
    }),
    'POST /v1/rounds/:roundId/rebet': fc.record(
      { multiplier: field(1, 2, 3, 0) },
      { requiredKeys: [] },
    ),
    'POST /v1/wallets/:playerId/deposits': fc.record(
      {
        amount,
        currency: field('EUR', 'USD', 'eur', 'EURO'),
        reference: field('fuzz-ref', '', 'x'.repeat(200)),
      },
      { requiredKeys: [] },
    ),
    'POST /v1/wallets/:playerId/withdrawals': fc.record(
      { amount, reference: field('fuzz-ref', '') },
      { requiredKeys: [] },
    ),
    'POST /v1/tables/:tableId/close': fc.record({ reason }),
    'POST /v1/tables/:tableId/dealer': fc.record({ dealerId: field('dan', '', 'x'.repeat(100)) }),
    'POST /v1/rounds/:roundId/cards': fc.record({ card }),
    'POST /v1/rounds/:roundId/cards/:shoePosition/correction': fc.record({ card, reason }),
    'POST /v1/rounds/:roundId/pause': fc.record({ reason }),
    'POST /v1/rounds/:roundId/void': fc.record({ reason }),
    'POST /v1/shoes/:shoeId/burn': fc.record({ card }),
    'POST /internal/v1/tables/:tableId/shoes': fc.record({
      number: field(1, 2, 0, -1),
      config: fc.oneof(fc.constant(presetConfig('live')), hostileValue),
    }),
    'POST /internal/v1/shoes/:shoeId/rounds/:roundId/draw': fc.record({
      roundNumber: field(1, 2, 0),
    }),
    'POST /internal/v1/shoes/:shoeId/rounds/:roundId/seal': fc.constant({}),
    'POST /internal/v1/shoes/:shoeId/rounds/:roundId/cards': fc.record({
      roundNumber: field(1, 2),
      index: field(0, 5, 6, -1),
      card,
      hand: field('player', 'banker', 'dealer'),
    }),
    'POST /internal/v1/shoes/:shoeId/rounds/:roundId/correction': fc.record({
      position: field(0, 3, -1),
      card,
      reason,
    }),
    'POST /internal/v1/shoes/:shoeId/rounds/:roundId/cut-card': fc.record({
      roundNumber: field(1, 0),
    }),
    'POST /internal/v1/shoes/:shoeId/burn': fc.record({ shownCard: card }),
    'POST /internal/v1/shoes/:shoeId/close': fc.record({ reason }),
    'POST /internal/v1/wallets/:playerId/stakes': fc.record({
      roundId: field('fuzz.1.1', 'fuzz.1.2'),
      currency: field('EUR', 'USD'),
      stakes: fc.oneof(
        fc.array(fc.record({ betId: field(BET_ID, OTHER_BET_ID), amount }), { maxLength: 25 }),
        hostileValue,
      ),
    }),
    'POST /internal/v1/wallets/:playerId/stakes/:betId/refund': fc.record({ reason }),
  };

  /** Adds keys no schema expects, prototype-pollution ones among them (as JSON text). */
  const withExtraKeys = (body: fc.Arbitrary<Record<string, unknown>>) =>
    fc
      .tuple(
        body,
        fc.constantFrom('__proto__', 'constructor', 'prototype', 'extra', 'playerId', 'role'),
        hostileValue,
      )
      .map(([object, key, value]) => {
        const text = JSON.stringify(object);
        const extra = `${JSON.stringify(key)}:${JSON.stringify(key === 'constructor' ? { prototype: { polluted: true } } : (value ?? null))}`;
        return text === '{}' ? `{${extra}}` : `${text.slice(0, -1)},${extra}}`;
      });

  const deepNesting = fc
    .integer({ min: 100, max: 20_000 })
    .chain((depth) =>
      fc.constantFrom(
        `${'['.repeat(depth)}${']'.repeat(depth)}`,
        `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`,
      ),
    );
  const invalidJson = fc.constantFrom(
    '{',
    '{"a":}',
    "{'a':1}",
    '{"a":1,}',
    'NaN',
    '{"amount": NaN}',
    '{"amount": Infinity}',
    '[1,2',
    '\u0000',
    '\uFEFF{}',
    '{"a":"\\ud800"}',
    'null',
    '"just a string"',
    '12',
    'true',
  );
  const oversized = fc
    .integer({ min: BODY_LIMIT + 1, max: 3 * BODY_LIMIT })
    .map((size) => JSON.stringify({ reason: 'x'.repeat(size), bets: [] }));

  const payloadFor = (
    endpoint: Endpoint,
  ): fc.Arbitrary<{ payload?: string; contentType?: string }> => {
    const template = templates[`${endpoint.method} ${endpoint.url}`];
    const json = (text: fc.Arbitrary<string>) =>
      text.map((payload) => ({ payload, contentType: 'application/json' }));
    const options: fc.WeightedArbitrary<{ payload?: string; contentType?: string }>[] = [
      { weight: 2, arbitrary: fc.constant({}) },
      { weight: 2, arbitrary: json(fc.json({ depthSize: 'small' })) },
      { weight: 1, arbitrary: json(fc.jsonValue().map((value) => JSON.stringify(value))) },
      { weight: 1, arbitrary: json(invalidJson) },
      { weight: 1, arbitrary: json(deepNesting) },
      { weight: 1, arbitrary: json(oversized) },
      {
        weight: 1,
        arbitrary: fc.record({
          payload: fc.constantFrom('a=1&b=2', '<x/>', 'plain text', '--b\r\n\r\n--b--', '{"a":1}'),
          contentType: fc.constantFrom(
            'text/plain',
            'application/xml',
            'application/x-www-form-urlencoded',
            'multipart/form-data; boundary=b',
            'application/json; charset=utf-16',
            'application/vnd.evil+json',
            'application/json, text/plain',
            '',
            '*/*',
          ),
        }),
      },
    ];
    if (template !== undefined) {
      options.push(
        { weight: 6, arbitrary: json(template.map((body) => JSON.stringify(body))) },
        { weight: 2, arbitrary: json(withExtraKeys(template)) },
      );
    }
    return fc.oneof(...options);
  };

  const queryFor = fc.dictionary(
    fc.constantFrom('limit', 'from', 'to', 'tableId', 'after', '__proto__', 'constructor', 'x'),
    fc.oneof(
      hostileStrings,
      fc.constantFrom('10', '0', '1', '2026-01-01T00:00:00Z', '5000', '100000'),
    ),
    { maxKeys: 3 },
  );

  const principal = fc.constantFrom<Principal>(
    'player',
    'trespasser',
    'dealer',
    'supervisor',
    'operator',
    'regulator',
    'system',
    'none',
    'garbage',
  );

  /** Any route, each template as likely as another, whichever processes serve it. */
  const anyRoute = (): fc.Arbitrary<Endpoint> => {
    if (!target.distributed) return fc.constantFrom(...endpoints);
    const servers = new Map<string, Endpoint[]>();
    for (const endpoint of endpoints) {
      const key = `${endpoint.method} ${endpoint.url}`;
      servers.set(key, [...(servers.get(key) ?? []), endpoint]);
    }
    return fc.constantFrom(...servers.values()).chain((same) => fc.constantFrom(...same));
  };

  const requestArb = (): fc.Arbitrary<FuzzRequest> =>
    fc
      .oneof(
        { weight: 1, arbitrary: anyRoute() },
        { weight: 1, arbitrary: fc.constantFrom(...endpoints.filter(isGameCommand)) },
      )
      .chain((endpoint) =>
        fc.record({
          endpoint: fc.constant(endpoint),
          method: fc.oneof(
            { weight: 5, arbitrary: fc.constant(endpoint.method) },
            {
              weight: 1,
              arbitrary: fc.constantFrom<Method>(
                'GET',
                'POST',
                'PUT',
                'PATCH',
                'DELETE',
                'OPTIONS',
              ),
            },
          ),
          params: fc.tuple(
            ...paramsOf(endpoint.url).map((name) =>
              paramValue(name).map((v) => [name, v] as const),
            ),
          ),
          query: queryFor,
          principal: fc.oneof(
            { weight: 2, arbitrary: fc.constant(roleFor(endpoint)) },
            { weight: 3, arbitrary: principal },
          ),
          body: payloadFor(endpoint),
          actor: fc.option(
            fc.constantFrom('{"id":"x","role":"operator"}', 'not json', '{"__proto__":{}}', '{}'),
            {
              nil: undefined,
            },
          ),
        }),
      )
      .map(({ endpoint, method, params, query, principal, body, actor }) => {
        const path = fillPath(endpoint.url, Object.fromEntries(params));
        const search = new URLSearchParams(query).toString();
        const headers: Record<string, string> = {};
        if (actor !== undefined) headers['x-croupier-actor'] = actor;
        const request: FuzzRequest = {
          endpoint,
          method,
          url: search === '' ? path : `${path}?${search}`,
          principal,
          headers,
          ...(method === 'GET' || method === 'OPTIONS' ? {} : body),
        };
        return request;
      });

  return requestArb();
}
