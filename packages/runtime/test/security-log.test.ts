import { MemoryEventStore, type EventStore, type RecordedEvent } from '@croupier/eventstore';
import { TokenAuthority, type HttpApp } from '@croupier/http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createServiceApp } from '../src/index.js';

const SECRET = 'security-log-test-secret-0123456789abcdef';

/**
 * A service run alone records failed logins as the gateway does: every request refused for want
 * of a valid token becomes an AuthenticationFailed event of the day's security stream, so the
 * significant events list them whichever process they reached. The token is never recorded.
 */
describe('a service process records failed logins in the security log', () => {
  let store: EventStore;
  let app: HttpApp;

  beforeAll(async () => {
    store = new MemoryEventStore();
    app = await createServiceApp({
      title: 'a service',
      settings: {
        JWT_SECRET: SECRET,
        LOG_LEVEL: 'silent',
        RATE_LIMIT_PER_MINUTE: 0,
        METRICS_PUBLIC: false,
      },
      store,
    });
    app.get('/v1/things', { config: { roles: ['operator'] } }, () => ({ things: [] }));
  });
  afterAll(async () => {
    await app.close();
    await store.close();
  });

  const securityEvents = async (): Promise<RecordedEvent[]> =>
    (await store.readAll({ limit: 1_000 })).filter((event) => event.stream.startsWith('security-'));

  it('records a forged token and a missing one, never the token; not a refused role', async () => {
    const forged = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJtYWxsb3J5In0.forged-signature';
    const refusals = [
      await app.inject({
        method: 'GET',
        url: '/v1/things',
        headers: { authorization: `Bearer ${forged}` },
      }),
      await app.inject({ method: 'GET', url: '/v1/things?page=2' }),
    ];
    expect(refusals.map((response) => response.statusCode)).toEqual([401, 401]);
    // Signed, but a role the route does not allow: a refusal (403), not a failed login.
    const dealer = await new TokenAuthority(SECRET).issue({ id: 'dan', role: 'dealer' });
    const forbidden = await app.inject({
      method: 'GET',
      url: '/v1/things',
      headers: { authorization: `Bearer ${dealer}` },
    });
    expect(forbidden.statusCode).toBe(403);
    // A route that does not exist protects nothing: not a failed login either.
    expect((await app.inject({ method: 'GET', url: '/v1/nothing-here' })).statusCode).toBe(404);

    const recorded = await vi.waitFor(
      async () => {
        const events = await securityEvents();
        expect(events).toHaveLength(2);
        return events;
      },
      { timeout: 5_000, interval: 20 },
    );
    expect(recorded.map((event) => event.type)).toEqual([
      'AuthenticationFailed',
      'AuthenticationFailed',
    ]);
    expect(recorded.map((event) => event.data)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ reason: 'token not valid', method: 'GET', path: '/v1/things' }),
        expect.objectContaining({ reason: 'no token', method: 'GET', path: '/v1/things?page=2' }),
      ]),
    );
    expect(recorded[0]!.stream).toMatch(/^security-\d{4}-\d{2}-\d{2}$/);
    const written = JSON.stringify(recorded.map(({ data, metadata }) => ({ data, metadata })));
    expect(written).not.toContain(forged);
    expect(written).not.toContain('forged-signature');
    // Give a late append of the 403 or the 404 the time to show up, were there one.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await securityEvents()).toHaveLength(2);
  });
});
