import { createHmac } from 'node:crypto';
import { connect } from 'node:net';
import { Writable } from 'node:stream';
import { createEventStore, type EventStore } from '@croupier/eventstore';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createHttpApp,
  principalOf,
  ServiceTokens,
  TokenAuthority,
  withoutQueryCredentials,
  type AuthenticationFailure,
  type HttpApp,
  type HttpAppOptions,
} from '../src/index.js';

/**
 * What issue 11 found at the HTTP edge, one finding per block: each test fails on the code before
 * the fix (a 500, a 400 where 415 is due, a token in a log line, a stalled socket kept open).
 */
const SECRET = 'hardening-test-secret-0123456789abcdef0123';
const tokens = new TokenAuthority(SECRET);

const apps: HttpApp[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

async function appWith(options: Partial<HttpAppOptions> = {}): Promise<HttpApp> {
  const app = await createHttpApp({ title: 't', version: '1', tokens, ...options });
  apps.push(app);
  app.post(
    '/v1/echo',
    { config: { roles: ['player'] }, schema: { body: z.strictObject({ text: z.string() }) } },
    (request) => ({ by: principalOf(request).id, text: request.body.text }),
  );
  app.get(
    '/v1/items',
    {
      config: { roles: ['player'] },
      schema: { querystring: z.strictObject({ limit: z.coerce.number().int().default(5) }) },
    },
    (request) => ({ limit: request.query.limit }),
  );
  app.get('/v1/ping', { config: { roles: ['player'] } }, () => ({ pong: true }));
  return app;
}

const bearer = async (id = 'amy') => `Bearer ${await tokens.issue({ id, role: 'player' })}`;

/** An HS256 token signed by hand with any claims: what an identity system might send. */
function signed(claims: Record<string, unknown>): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const unsigned = `${part({ alg: 'HS256', typ: 'JWT' })}.${part({ iss: 'croupier', aud: 'croupier-api', role: 'player', ...claims })}`;
  return `${unsigned}.${createHmac('sha256', SECRET).update(unsigned).digest('base64url')}`;
}

class LogCapture extends Writable {
  readonly lines: string[] = [];
  override _write(chunk: Buffer, _encoding: string, done: () => void): void {
    this.lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    done();
  }
  get text(): string {
    return this.lines.join('\n');
  }
}

describe('failed logins are limited per address before anything is read or recorded', () => {
  it('answers 429 with Retry-After past the limit, while valid tokens from the address go on', async () => {
    const failures: AuthenticationFailure[] = [];
    const app = await appWith({
      failedLoginsPerMinute: 3,
      onAuthenticationFailure: (failure) => failures.push(failure),
    });
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      const response = await app.inject({
        method: 'GET',
        url: '/v1/ping',
        headers: { authorization: `Bearer not.a.token${i}` },
      });
      statuses.push(response.statusCode);
      if (response.statusCode === 429) {
        expect(response.json()).toMatchObject({ code: 'RATE_LIMITED' });
        expect(Number(response.headers['retry-after'])).toBeGreaterThan(0);
      }
    }
    expect(statuses).toEqual([401, 401, 401, 429, 429, 429]);
    // No token at all is limited the same way.
    expect((await app.inject({ method: 'GET', url: '/v1/ping' })).statusCode).toBe(429);
    const valid = await app.inject({
      method: 'GET',
      url: '/v1/ping',
      headers: { authorization: await bearer() },
    });
    expect(valid.statusCode).toBe(200);
    // Another address has its own budget.
    const elsewhere = await app.inject({
      method: 'GET',
      url: '/v1/ping',
      remoteAddress: '10.1.1.1',
    });
    expect(elsewhere.statusCode).toBe(401);
    expect(failures.map((f) => [f.reason, f.rateLimited])).toEqual([
      ['invalid', false],
      ['invalid', false],
      ['invalid', false],
      ['rate-limited', true],
      ['rate-limited', true],
      ['rate-limited', true],
      ['rate-limited', true],
      ['missing', false],
    ]);
  });
});

describe('credentials in the query are redacted everywhere', () => {
  const secrets = ['eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl', 'sk-live-4242', 'hunter2'];
  const url = `/v1/ping?token=${secrets[0]}&api_key=${secrets[1]}&password=${secrets[2]}&limit=7`;

  it('in the request log, in warnings and in the problem the client gets', async () => {
    const capture = new LogCapture();
    const failures: AuthenticationFailure[] = [];
    const app = await appWith({
      logger: { level: 'info', stream: capture },
      onAuthenticationFailure: (failure) => failures.push(failure),
    });
    const refused = await app.inject({ method: 'GET', url });
    expect(refused.statusCode).toBe(401);
    const missing = await app.inject({
      method: 'GET',
      url: `/v1/nowhere?access_token=${secrets[1]}`,
    });
    expect(missing.statusCode).toBe(404);
    const written = [capture.text, refused.body, missing.body, JSON.stringify(failures)].join('\n');
    for (const secret of secrets) expect(written).not.toContain(secret);
    expect(capture.text).toContain(
      '/v1/ping?token=[redacted]&api_key=[redacted]&password=[redacted]&limit=7',
    );
    expect(refused.json()).toMatchObject({
      instance: '/v1/ping?token=[redacted]&api_key=[redacted]&password=[redacted]&limit=7',
    });
    expect(failures[0]!.path).toBe(
      '/v1/ping?token=[redacted]&api_key=[redacted]&password=[redacted]&limit=7',
    );
  });

  it('whatever the parameter is called when the value is a JWT, and leaves the rest', () => {
    expect(
      withoutQueryCredentials('/v1/x?access_token=a&authorization=b&apikey=c&jwt=d&secret=e'),
    ).toBe(
      '/v1/x?access_token=[redacted]&authorization=[redacted]&apikey=[redacted]&jwt=[redacted]&secret=[redacted]',
    );
    expect(withoutQueryCredentials(`/v1/x?q=${secrets[0]}`)).toBe('/v1/x?q=[redacted]');
    expect(withoutQueryCredentials('/v1/tables?limit=10&from=2026-01-01')).toBe(
      '/v1/tables?limit=10&from=2026-01-01',
    );
  });
});

describe('text that cannot be stored', () => {
  let store: EventStore | undefined;
  afterEach(async () => {
    await store?.close();
    store = undefined;
  });

  it('is a 400 naming the field when it reaches the store past every schema, not a 500', async () => {
    store = await createEventStore({ kind: 'memory' });
    const app = await appWith();
    const events = store;
    // A header no schema reads, copied into an event: what the store boundary is there for.
    app.post('/v1/notes', { config: { roles: ['player'] } }, async (request) => {
      // The header carries JSON string escapes: \u0000, \ud800.
      const note = JSON.parse(`"${String(request.headers['x-note'])}"`) as string;
      await events.append('notes-1', [{ id: crypto.randomUUID(), type: 'Noted', data: { note } }], {
        expectedVersion: 'any',
      });
      return { ok: true };
    });
    for (const note of ['nul\\u0000byte', 'half a pair \\ud800']) {
      const response = await app.inject({
        method: 'POST',
        url: '/v1/notes',
        headers: { authorization: await bearer(), 'x-note': note },
      });
      expect(response.statusCode, note).toBe(400);
      expect(response.json()).toMatchObject({
        code: 'VALIDATION_ERROR',
        errors: [{ field: 'data.note' }],
      });
    }
  });
});

describe('tokens must expire, within a bounded lifetime, issued in the past', () => {
  const now = () => Math.floor(Date.now() / 1000);

  it.each([
    ['no exp', { sub: 'amy', iat: now() }, 'token.exp', /no exp claim/],
    [
      'a lifetime past 24 h',
      { sub: 'amy', iat: now(), exp: now() + 25 * 3600 },
      'token.exp',
      /lives/,
    ],
    [
      'iat in the future',
      { sub: 'amy', iat: now() + 600, exp: now() + 700 },
      'token.iat',
      /future/,
    ],
    [
      'an 8,000-character sub',
      { sub: 'a'.repeat(8_000), iat: now(), exp: now() + 60 },
      'token.sub',
      /sub claim/,
    ],
    [
      'a sub with a NUL',
      { sub: 'amy\u0000', iat: now(), exp: now() + 60 },
      'token.sub',
      /sub claim/,
    ],
  ])('refuses a token with %s: 401 naming the claim', async (_name, claims, field, detail) => {
    const app = await appWith();
    const response = await app.inject({
      method: 'GET',
      url: '/v1/ping',
      headers: { authorization: `Bearer ${signed(claims)}` },
    });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toMatchObject({ code: 'UNAUTHENTICATED', errors: [{ field }] });
    expect(response.json<{ detail: string }>().detail).toMatch(detail);
    expect(response.body).not.toContain('a'.repeat(100));
  });

  it('accepts a token within its bounds, iat a little ahead of our clock included', async () => {
    const app = await appWith();
    const response = await app.inject({
      method: 'GET',
      url: '/v1/ping',
      headers: {
        authorization: `Bearer ${signed({ sub: 'amy', iat: now() + 30, exp: now() + 3600 })}`,
      },
    });
    expect(response.statusCode).toBe(200);
  });

  it('answers a token verified before from memory until it expires, then refuses it as expired', async () => {
    let clock = Date.parse('2026-03-01T10:00:00Z');
    const authority = new TokenAuthority(SECRET, {}, () => clock);
    const token = await authority.issue({ id: 'amy', role: 'player' }, '30m');
    // The principal says when its token expires (a live feed ends then).
    const amy = {
      id: 'amy',
      role: 'player',
      expiresAt: Date.parse('2026-03-01T10:30:00Z') / 1_000,
    };
    expect(await authority.verify(token)).toEqual(amy);
    clock += 29 * 60_000;
    expect(await authority.verify(token)).toEqual(amy);
    clock += 60_000; // at exp
    await expect(authority.verify(token)).rejects.toMatchObject({
      code: 'UNAUTHENTICATED',
      details: { reason: 'expired' },
    });
    // One character changed in the signature is another string: verified, and refused.
    const at = token.length - 10; // inside the signature, clear of base64's padding bits
    const tampered = `${token.slice(0, at)}${token[at] === 'A' ? 'B' : 'A'}${token.slice(at + 1)}`;
    clock -= 10 * 60_000;
    await expect(authority.verify(tampered)).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
  });

  it('never issues a token longer than its role may live: 24 h for people, 1 h for services', async () => {
    await expect(tokens.issue({ id: 'amy', role: 'player' }, '25h')).rejects.toThrow(RangeError);
    await expect(tokens.issue({ id: 'round', role: 'system' }, '2h')).rejects.toThrow(RangeError);
    const service = await tokens.issue({ id: 'round', role: 'system' });
    const claims = JSON.parse(Buffer.from(service.split('.')[1]!, 'base64url').toString()) as {
      iat: number;
      exp: number;
    };
    expect(claims.exp - claims.iat).toBe(3600);
  });

  it('a service renews its token before it expires', async () => {
    let clock = Date.parse('2026-03-01T10:00:00Z');
    const authority = new TokenAuthority(SECRET, { serviceMaxLifetimeSeconds: 3600 }, () => clock);
    const credentials = new ServiceTokens(authority, 'round-service');
    const first = await credentials.token();
    clock += 20 * 60_000;
    expect(await credentials.token()).toBe(first);
    clock += 20 * 60_000; // 40 minutes: past half its life
    const second = await credentials.token();
    expect(second).not.toBe(first);
    clock += 30 * 60_000; // 70 minutes: the first has expired, the second has not
    await expect(authority.verify(first)).rejects.toMatchObject({ details: { reason: 'expired' } });
    await expect(authority.verify(await credentials.token())).resolves.toEqual({
      id: 'round-service',
      role: 'system',
      // Renewed again at 70 minutes, half the second's life gone: it expires an hour later.
      expiresAt: Date.parse('2026-03-01T12:10:00Z') / 1_000,
    });
  });
});

describe('bodies are JSON, queries are strict', () => {
  it('answers 415 for a text/plain body, as the docs say, and names what was sent', async () => {
    const app = await appWith();
    const response = await app.inject({
      method: 'POST',
      url: '/v1/echo',
      headers: { authorization: await bearer(), 'content-type': 'text/plain' },
      payload: '{"text":"hi"}',
    });
    expect(response.statusCode).toBe(415);
    expect(response.json()).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE' });
    expect(response.json<{ detail: string }>().detail).toContain('text/plain');
  });

  it('answers 400 naming an unknown query parameter, on routes with and without a query', async () => {
    const app = await appWith();
    const authorization = await bearer();
    const known = await app.inject({
      method: 'GET',
      url: '/v1/items?limit=2',
      headers: { authorization },
    });
    expect(known.json()).toEqual({ limit: 2 });
    for (const url of ['/v1/items?limit=2&page=3', '/v1/ping?page=3']) {
      const response = await app.inject({ method: 'GET', url, headers: { authorization } });
      expect(response.statusCode, url).toBe(400);
      expect(response.json()).toMatchObject({
        code: 'VALIDATION_ERROR',
        errors: [{ field: 'querystring.page' }],
      });
    }
  });

  it('refuses to register an API route whose query is not strict', async () => {
    const app = await appWith();
    expect(() =>
      app.get(
        '/v1/loose',
        { config: { roles: ['player'] }, schema: { querystring: z.object({ q: z.string() }) } },
        () => ({}),
      ),
    ).toThrow(/strict/);
  });
});

/** Sends raw bytes to a listening app and resolves with everything it answers before closing. */
async function rawExchange(app: HttpApp, bytes: string): Promise<string> {
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = new URL(address);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => socket.write(bytes));
    let answer = '';
    socket.on('data', (chunk: Buffer) => {
      answer += chunk.toString('latin1');
    });
    socket.on('error', reject);
    socket.on('close', () => {
      resolve(answer);
    });
  });
}

describe('sockets are bounded', () => {
  it('answers a request that stalls half-way 408 REQUEST_TIMEOUT and closes the socket', async () => {
    const app = await appWith({ limits: { requestTimeoutMs: 200 } });
    // Headers promise 100 bytes of body; one arrives, then nothing.
    const answer = await rawExchange(
      app,
      `POST /v1/echo HTTP/1.1\r\nHost: x\r\nAuthorization: ${await bearer()}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{`,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(answer).toMatch(/content-type: application\/problem\+json/i);
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toMatchObject({
      code: 'REQUEST_TIMEOUT',
      status: 408,
    });
  });

  it('answers headers that never end 408 too', async () => {
    const app = await appWith({ limits: { requestTimeoutMs: 200 } });
    const answer = await rawExchange(app, 'GET /v1/ping HTTP/1.1\r\nHost: x\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('answers headers over the size limit 431 HEADERS_TOO_LARGE', async () => {
    const app = await appWith({ limits: { maxHeaderSize: 2_048 } });
    const answer = await rawExchange(
      app,
      `GET /v1/ping HTTP/1.1\r\nHost: x\r\nX-Filler: ${'a'.repeat(4_096)}\r\n\r\n`,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 431 /);
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toMatchObject({
      code: 'HEADERS_TOO_LARGE',
      status: 431,
    });
  });
});
