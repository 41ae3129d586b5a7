import { createHmac, randomUUID } from 'node:crypto';
import { presetConfig } from '@croupier/contracts';
import type { HttpApp } from '@croupier/http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/index.js';
import { as, startCasino, TEST_SECRETS, type Casino } from './support/casino.js';

/**
 * Issue 11's hostile input against the gateway's real routes: text that cannot be stored,
 * amounts JSON cannot carry exactly, a token whose subject no stream name can hold, unknown
 * query parameters and non-JSON bodies. Each is a 4xx naming what was wrong, and none of them
 * appends anything (before, some answered 500 from the store).
 */
let casino: Casino;
let app: HttpApp;
let roundId: string;
const auth: Record<string, string> = {};

beforeAll(async () => {
  casino = await startCasino();
  app = await buildApp(casino.system);
  const { system } = casino;
  for (const [id, role] of [
    ['olga', 'operator'],
    ['sue', 'supervisor'],
    ['amy', 'player'],
  ] as const)
    auth[role] = `Bearer ${await system.tokens.issue({ id, role })}`;
  await system.rounds.openTable(
    {
      tableId: 'hostile',
      config: presetConfig('live'),
      dealing: { mode: 'manual', bettingWindowMs: 0 },
    },
    as('olga', 'operator'),
  );
  roundId = (await system.rounds.openRound('hostile', as('dan', 'dealer'))).roundId;
  await system.wallets.deposit(
    { playerId: 'amy', amount: 10_000, currency: 'EUR', reference: 'seed' },
    as('olga', 'operator'),
  );
});
afterAll(async () => {
  await app.close();
  await casino.close();
});

/** The position of the last event, to ask afterwards what a request appended. */
const lastPosition = async () => (await casino.store.readAll({ limit: 100_000 })).at(-1)?.position;

/** Events appended after `position`, outside the security log (failed logins are counted). */
const appendedAfter = async (position: bigint | undefined) =>
  (await casino.store.readAll(position === undefined ? {} : { after: position })).filter(
    (event) => !event.stream.startsWith('security-'),
  );

async function post(url: string, role: string, payload: unknown) {
  return app.inject({
    method: 'POST',
    url,
    headers: { authorization: auth[role]! },
    payload: payload as object,
  });
}

describe('hostile input changes nothing and names the field', () => {
  it.each([
    [
      'a NUL in a deposit reference',
      '/v1/wallets/amy/deposits',
      'operator',
      { amount: 1, currency: 'EUR', reference: 'ref\u0000x' },
      'body.reference',
    ],
    [
      'a lone surrogate in a deposit reference',
      '/v1/wallets/amy/deposits',
      'operator',
      { amount: 1, currency: 'EUR', reference: 'ref\ud800' },
      'body.reference',
    ],
    [
      'a deposit past 2^53 - 1',
      '/v1/wallets/amy/deposits',
      'operator',
      { amount: 2 ** 53, currency: 'EUR', reference: 'big' },
      'body.amount',
    ],
    [
      'a NUL in a dealer id',
      '/v1/tables/hostile/dealer',
      'supervisor',
      { dealerId: 'dan\u0000' },
      'body.dealerId',
    ],
    [
      // Stored, such an id would stop every table-board projection at its DealerChanged event.
      'a dealer id that is not an id (letters from other scripts, spaces)',
      '/v1/tables/hostile/dealer',
      'supervisor',
      { dealerId: '𝢬⸍ηꆮ dan' },
      'body.dealerId',
    ],
    [
      'a lone surrogate in a pause reason',
      `/v1/rounds/{round}/pause`,
      'supervisor',
      { reason: 'jam \udc00' },
      'body.reason',
    ],
    [
      'a bet of 1e300',
      `/v1/rounds/{round}/bets`,
      'player',
      { bets: [{ type: 'player', amount: 1e300, betId: randomUUID() }] },
      'body.bets.0.amount',
    ],
    [
      'a NUL in a bet type',
      `/v1/rounds/{round}/bets`,
      'player',
      { bets: [{ type: 'player\u0000', amount: 100, betId: randomUUID() }] },
      'body.bets.0.type',
    ],
  ])('%s: 400', async (_name, url, role, payload, field) => {
    const before = await lastPosition();
    const response = await post(url.replace('{round}', roundId), role, payload);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 'VALIDATION_ERROR' });
    expect(response.json<{ errors: unknown[] }>().errors).toContainEqual(
      expect.objectContaining({ field }),
    );
    expect(await appendedAfter(before)).toEqual([]);
  });

  it('refuses a token whose sub is 8,000 characters at authentication: 401 naming the claim', async () => {
    const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const now = Math.floor(Date.now() / 1000);
    const unsigned = `${part({ alg: 'HS256', typ: 'JWT' })}.${part({
      iss: 'croupier',
      aud: 'croupier-api',
      role: 'player',
      sub: 'p'.repeat(8_000),
      iat: now,
      exp: now + 600,
    })}`;
    const token = `${unsigned}.${createHmac('sha256', TEST_SECRETS.JWT_SECRET).update(unsigned).digest('base64url')}`;
    const before = await lastPosition();
    const response = await app.inject({
      method: 'POST',
      url: `/v1/rounds/${roundId}/bets`,
      headers: { authorization: `Bearer ${token}` },
      payload: { bets: [{ type: 'player', amount: 100, betId: randomUUID() }] },
    });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toMatchObject({
      code: 'UNAUTHENTICATED',
      errors: [{ field: 'token.sub' }],
    });
    expect(await appendedAfter(before)).toEqual([]);
  });

  it('answers 415 for a text/plain body and 400 naming an unknown query parameter', async () => {
    const plain = await app.inject({
      method: 'POST',
      url: '/v1/wallets/amy/deposits',
      headers: { authorization: auth.operator!, 'content-type': 'text/plain' },
      payload: '{"amount":1,"currency":"EUR","reference":"plain"}',
    });
    expect(plain.statusCode).toBe(415);
    expect(plain.json()).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE' });
    // The same deposit as JSON is taken: what the checks above count would have shown it.
    const before = await lastPosition();
    const json = await post('/v1/wallets/amy/deposits', 'operator', {
      amount: 1,
      currency: 'EUR',
      reference: 'plain',
    });
    expect(json.statusCode).toBe(201);
    expect((await appendedAfter(before)).map((event) => event.type)).toEqual(['FundsDeposited']);
    for (const url of ['/v1/wallets/amy/transactions?limit=2&offset=5', '/v1/tables?offset=5']) {
      const response = await app.inject({
        method: 'GET',
        url,
        headers: { authorization: auth.operator! },
      });
      expect(response.statusCode, url).toBe(400);
      const { errors } = response.json<{ errors: { field: string }[] }>();
      expect(errors.map((error) => error.field)).toEqual(['querystring.offset']);
    }
  });
});
