import { createEventStore, type EventStore, type RecordedEvent } from '@croupier/eventstore';
import { TokenAuthority, type AuthenticationFailure, type HttpApp } from '@croupier/http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createServiceApp,
  FailedLoginLog,
  OTHER_CLIENTS,
  type ServiceAppSettings,
} from '../src/index.js';

const SECRET = 'security-log-test-secret-0123456789abcdef';

const settings: ServiceAppSettings = {
  JWT_SECRET: SECRET,
  LOG_LEVEL: 'silent',
  RATE_LIMIT_PER_MINUTE: 0,
  METRICS_PUBLIC: false,
  RATE_LIMIT_FAILED_LOGINS_PER_MINUTE: 20,
  // One window for the whole test: what is written comes from the flush when the app closes.
  FAILED_LOGIN_WINDOW_MS: 3_600_000,
  TOKEN_MAX_LIFETIME: 86_400,
  SERVICE_TOKEN_MAX_LIFETIME: 3_600,
  HTTP_REQUEST_TIMEOUT_MS: 30_000,
  HTTP_CONNECTION_TIMEOUT_MS: 120_000,
  HTTP_KEEP_ALIVE_TIMEOUT_MS: 72_000,
  HTTP_MAX_HEADER_SIZE: 16_384,
};

/**
 * A service run alone keeps the security trail as the gateway does: failed logins counted per
 * client and written once per window as AuthenticationFailuresRecorded, so a flood of bad
 * tokens costs a counter per request, not an append; past the failed-login limit a client is
 * answered 429 before anything else, while valid tokens from the same address go on.
 */
describe('a service process records failed logins in the security log, aggregated', () => {
  let store: EventStore;
  let app: HttpApp;

  beforeEach(async () => {
    store = await createEventStore({ kind: 'memory' });
    app = await createServiceApp({ title: 'a service', settings, store });
    app.get('/v1/things', { config: { roles: ['operator'] } }, () => ({ things: [] }));
  });
  afterEach(async () => {
    await app.close();
    await store.close();
  });

  const securityEvents = async (): Promise<RecordedEvent[]> =>
    (await store.readAll({ limit: 1_000 })).filter((event) => event.stream.startsWith('security-'));

  it('turns a flood of 200 bad tokens into one event, 429 past the limit, valid clients unaffected', async () => {
    const flooder = '198.51.100.7';
    const operator = `Bearer ${await new TokenAuthority(SECRET).issue({ id: 'olga', role: 'operator' })}`;
    const statuses = new Map<number, number>();
    for (let i = 0; i < 200; i++) {
      const response = await app.inject({
        method: 'GET',
        url: `/v1/things?access_token=stolen-${i}`,
        headers: { authorization: `Bearer forged.token.${i}` },
        remoteAddress: flooder,
      });
      statuses.set(response.statusCode, (statuses.get(response.statusCode) ?? 0) + 1);
      if (i % 20 === 0) {
        // A valid client at the same address, in the middle of the flood, is served.
        const valid = await app.inject({
          method: 'GET',
          url: '/v1/things',
          headers: { authorization: operator },
          remoteAddress: flooder,
        });
        expect(valid.statusCode).toBe(200);
      }
    }
    expect(Object.fromEntries(statuses)).toEqual({ 401: 20, 429: 180 });
    // Another client: no token, twice.
    for (let i = 0; i < 2; i++) {
      const response = await app.inject({
        method: 'GET',
        url: '/v1/things',
        remoteAddress: '203.0.113.9',
      });
      expect(response.statusCode).toBe(401);
    }
    // A refused role is not a failed login, nor is an unknown route.
    const dealer = await new TokenAuthority(SECRET).issue({ id: 'dan', role: 'dealer' });
    const forbidden = await app.inject({
      method: 'GET',
      url: '/v1/things',
      headers: { authorization: `Bearer ${dealer}` },
    });
    expect(forbidden.statusCode).toBe(403);
    expect((await app.inject({ method: 'GET', url: '/v1/nothing-here' })).statusCode).toBe(404);

    // 202 failed logins, not one append yet.
    expect(await securityEvents()).toEqual([]);
    await app.close();
    const recorded = await securityEvents();
    expect(recorded.map((event) => event.type)).toEqual([
      'AuthenticationFailuresRecorded',
      'AuthenticationFailuresRecorded',
    ]);
    expect(recorded[0]!.stream).toMatch(/^security-\d{4}-\d{2}-\d{2}$/);
    const byClient = Object.fromEntries(
      recorded.map((event) => [(event.data as { client: string }).client, event.data]),
    );
    expect(byClient[flooder]).toMatchObject({
      count: 200,
      rateLimited: 180,
      reasons: { invalid: 20, 'rate-limited': 180 },
      first: { reason: 'invalid', method: 'GET', route: '/v1/things' },
      last: { reason: 'rate-limited', path: '/v1/things?access_token=[redacted]' },
    });
    expect(byClient['203.0.113.9']).toMatchObject({
      count: 2,
      rateLimited: 0,
      reasons: { missing: 2 },
      first: { path: '/v1/things' },
    });
    expect(recorded[0]!.metadata).toMatchObject({ actor: { role: 'system' } });
    const written = JSON.stringify(recorded.map(({ data, metadata }) => ({ data, metadata })));
    expect(written).not.toContain('stolen-');
    expect(written).not.toContain('forged.token');
  });
});

describe('FailedLoginLog', () => {
  const failure = (client: string, reason: AuthenticationFailure['reason'] = 'invalid') => ({
    client,
    reason,
    method: 'GET',
    route: '/v1/things',
    path: '/v1/things',
    at: new Date(),
    rateLimited: reason === 'rate-limited',
  });

  it('writes one event per client per window, windows back to back, nothing for an empty one', async () => {
    const store = await createEventStore({ kind: 'memory' });
    const log = new FailedLoginLog(store, { windowMs: 60_000 });
    for (let i = 0; i < 3; i++) log.note(failure('10.0.0.1'));
    await log.flush();
    await log.flush();
    log.note(failure('10.0.0.1', 'expired'));
    await log.flush();
    const events = (await store.readAll({ limit: 100 })).map(
      (event) => event.data as { count: number; windowStart: string; windowEnd: string },
    );
    expect(events.map((data) => data.count)).toEqual([3, 1]);
    expect(events[1]!.windowStart >= events[0]!.windowEnd).toBe(true);
    await store.close();
  });

  it('counts clients past its bound together, so a flood from many addresses stays bounded', async () => {
    const store = await createEventStore({ kind: 'memory' });
    const log = new FailedLoginLog(store, { windowMs: 60_000, maxClients: 2 });
    for (const client of ['a', 'b', 'c', 'd', 'a', 'e']) log.note(failure(client));
    await log.flush();
    const counts = Object.fromEntries(
      (await store.readAll({ limit: 100 })).map((event) => {
        const data = event.data as { client: string; count: number };
        return [data.client, data.count];
      }),
    );
    expect(counts).toEqual({ a: 2, b: 1, [OTHER_CLIENTS]: 3 });
    await store.close();
  });
});
