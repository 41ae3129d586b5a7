import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createHttpApp,
  principalOf,
  redactSecrets,
  TokenAuthority,
  withoutUrlPassword,
  type HttpApp,
  type HttpAppOptions,
} from '../src/index.js';

const SECRET = 'unit-test-secret-0123456789abcdef01234';
const tokens = new TokenAuthority(SECRET);

/** A log destination that keeps every line, to search for what must never be written. */
class LogCapture extends Writable {
  readonly lines: string[] = [];
  override _write(chunk: Buffer, _encoding: string, done: () => void): void {
    this.lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    done();
  }
  get text(): string {
    return this.lines.join('\n');
  }
  entries(): Record<string, unknown>[] {
    return this.lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  }
}

const apps: HttpApp[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

async function appWith(options: Partial<HttpAppOptions> = {}): Promise<HttpApp> {
  const app = await createHttpApp({ title: 't', version: '1', tokens, ...options });
  apps.push(app);
  app.post(
    '/v1/echo',
    {
      config: { roles: ['player', 'operator'] },
      schema: { body: z.looseObject({ text: z.string() }) },
    },
    (request) => ({ by: principalOf(request).id, length: request.body.text.length }),
  );
  app.get('/v1/ping', { config: { roles: ['player', 'operator', 'system'] } }, () => ({
    pong: true,
  }));
  return app;
}

const bearer = async (
  role: 'player' | 'operator' | 'regulator' | 'system' | 'dealer',
  id: string,
) => `Bearer ${await tokens.issue({ id, role })}`;

describe('rate limiting per client', () => {
  it('answers 429 problem+json with Retry-After once a client is over its limit, per principal', async () => {
    const app = await appWith({ rateLimitPerMinute: 3 });
    const amy = await bearer('player', 'amy');
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      statuses.push(
        (await app.inject({ method: 'GET', url: '/v1/ping', headers: { authorization: amy } }))
          .statusCode,
      );
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    const limited = await app.inject({
      method: 'GET',
      url: '/v1/ping',
      headers: { authorization: amy },
    });
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(limited.json()).toMatchObject({ code: 'RATE_LIMITED', status: 429 });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    // Another player has a budget of their own, from the same address.
    const bob = await bearer('player', 'bob');
    expect(
      (await app.inject({ method: 'GET', url: '/v1/ping', headers: { authorization: bob } }))
        .statusCode,
    ).toBe(200);
    // The same subject with another role is another client.
    const amyOperator = await bearer('operator', 'amy');
    expect(
      (
        await app.inject({
          method: 'GET',
          url: '/v1/ping',
          headers: { authorization: amyOperator },
        })
      ).statusCode,
    ).toBe(200);
    const scrape = await app.inject({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: await bearer('regulator', 'reg') },
    });
    expect(scrape.body).toMatch(/croupier_http_rate_limited_total\{route="\/v1\/ping"\} 2/);
  });

  it('limits requests without a valid token by address, so token guessing is limited too', async () => {
    const app = await appWith({ rateLimitPerMinute: 2 });
    const statuses: number[] = [];
    for (const authorization of [undefined, 'Bearer nope', 'Bearer still.not.it', undefined]) {
      statuses.push(
        (
          await app.inject({
            method: 'GET',
            url: '/v1/ping',
            headers: authorization === undefined ? {} : { authorization },
          })
        ).statusCode,
      );
    }
    expect(statuses).toEqual([401, 401, 429, 429]);
    const elsewhere = await app.inject({
      method: 'GET',
      url: '/v1/ping',
      remoteAddress: '10.0.0.9',
    });
    expect(elsewhere.statusCode).toBe(401);
    // Unknown routes are limited as well.
    expect((await app.inject({ method: 'GET', url: '/nowhere' })).statusCode).toBe(429);
  });

  it('never limits service tokens, health or readiness probes', async () => {
    const app = await appWith({ rateLimitPerMinute: 1 });
    const service = await bearer('system', 'round-service');
    for (let i = 0; i < 5; i++) {
      expect(
        (await app.inject({ method: 'GET', url: '/v1/ping', headers: { authorization: service } }))
          .statusCode,
      ).toBe(200);
      expect((await app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);
      expect((await app.inject({ method: 'GET', url: '/ready' })).statusCode).toBe(200);
    }
  });

  it('is off with a limit of 0', async () => {
    const app = await appWith({ rateLimitPerMinute: 0 });
    for (let i = 0; i < 20; i++)
      expect((await app.inject({ method: 'GET', url: '/v1/ping' })).statusCode).toBe(401);
  });
});

describe('request bodies', () => {
  it('answers 413 problem+json for a body over the limit, before authentication matters', async () => {
    const app = await appWith();
    const operator = await bearer('operator', 'op');
    const small = await app.inject({
      method: 'POST',
      url: '/v1/echo',
      headers: { authorization: operator },
      payload: { text: 'x'.repeat(60 * 1024) },
    });
    expect(small.statusCode).toBe(200);
    const large = await app.inject({
      method: 'POST',
      url: '/v1/echo',
      headers: { authorization: operator },
      payload: { text: 'x'.repeat(64 * 1024 + 1) },
    });
    expect(large.statusCode).toBe(413);
    expect(large.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(large.json()).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', status: 413 });
  });

  it('answers 415 problem+json for a media type it does not read', async () => {
    const app = await appWith();
    const response = await app.inject({
      method: 'POST',
      url: '/v1/echo',
      headers: { authorization: await bearer('operator', 'op'), 'content-type': 'text/xml' },
      payload: '<text>hi</text>',
    });
    expect(response.statusCode).toBe(415);
    expect(response.json()).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE', status: 415 });
  });

  it('refuses prototype-pollution keys', async () => {
    const app = await appWith();
    const response = await app.inject({
      method: 'POST',
      url: '/v1/echo',
      headers: {
        authorization: await bearer('operator', 'op'),
        'content-type': 'application/json',
      },
      payload: '{"text":"a","__proto__":{"polluted":true}}',
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 'VALIDATION_ERROR' });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('URLs the router cannot read', () => {
  it('answers a path parameter over 100 characters and bad percent-encoding as problems', async () => {
    const app = await appWith();
    app.get('/v1/things/:id', { config: { roles: ['operator'] } }, () => ({ ok: true }));
    const long = await app.inject({ method: 'GET', url: `/v1/things/${'a'.repeat(101)}` });
    expect(long.statusCode).toBe(414);
    expect(long.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(long.json()).toMatchObject({ code: 'URI_TOO_LONG', status: 414 });
    expect(long.headers['x-correlation-id']).toBeDefined();
    const garbled = await app.inject({ method: 'GET', url: '/v1/things/%E0%A4%A' });
    expect(garbled.statusCode).toBe(400);
    expect(garbled.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(garbled.json()).toMatchObject({ code: 'VALIDATION_ERROR', status: 400 });
  });
});

describe('security headers', () => {
  it('sends helmet headers on answers and on problems, and no-store on authenticated ones', async () => {
    const app = await appWith();
    const ok = await app.inject({
      method: 'GET',
      url: '/v1/ping',
      headers: { authorization: await bearer('player', 'amy') },
    });
    const refused = await app.inject({ method: 'GET', url: '/v1/ping' });
    for (const response of [ok, refused]) {
      expect(response.headers['x-content-type-options']).toBe('nosniff');
      expect(response.headers['x-frame-options']).toBe('DENY');
      expect(response.headers['strict-transport-security']).toMatch(/max-age=31536000/);
      expect(response.headers['referrer-policy']).toBe('no-referrer');
      expect(response.headers['content-security-policy']).toMatch(/frame-ancestors 'none'/);
      expect(response.headers['content-security-policy']).toMatch(/script-src 'self'(;|$)/);
      expect(response.headers['x-powered-by']).toBeUndefined();
    }
    expect(ok.headers['cache-control']).toBe('no-store');
  });

  it('lets the documentation page load: scripts from its own origin only', async () => {
    const app = await appWith();
    const page = await app.inject({ method: 'GET', url: '/docs/' });
    expect(page.statusCode).toBe(200);
    expect(page.body).not.toMatch(/<script>(?!\s*<\/script>)/);
    expect(page.headers['content-security-policy']).toMatch(/default-src 'self'/);
  });
});

describe('authentication failures and logs', () => {
  async function loggingApp() {
    const capture = new LogCapture();
    const app = await appWith({ logger: { level: 'info', stream: capture } });
    app.get('/v1/headers', { config: { roles: ['operator'] } }, (request) => {
      // What a careless debug line would do: log every header, and the configuration.
      request.log.info(
        {
          headers: request.headers,
          config: {
            JWT_SECRET: SECRET,
            SHOE_SEED_KEY: 'seed-key-0123456789abcdef0123456789abcd',
            DATABASE_URL: 'postgres://croupier:hunter2@db:5432/casino',
            PORT: 8080,
          },
        },
        'debugging',
      );
      return { ok: true };
    });
    return { app, capture };
  }

  it('never writes a bearer token, a secret or a database password to the log', async () => {
    const { app, capture } = await loggingApp();
    const authorization = await bearer('operator', 'op');
    const response = await app.inject({
      method: 'GET',
      url: '/v1/headers',
      headers: { authorization, cookie: 'session=abc123def' },
    });
    expect(response.statusCode).toBe(200);
    const token = authorization.slice('Bearer '.length);
    expect(capture.text).toContain('debugging');
    expect(capture.text).not.toContain(token);
    expect(capture.text).not.toContain(token.split('.')[2]!);
    expect(capture.text).not.toContain('abc123def');
    expect(capture.text).not.toContain(SECRET);
    expect(capture.text).not.toContain('seed-key-0123456789');
    expect(capture.text).not.toContain('hunter2');
    const debug = capture.entries().find((entry) => entry.msg === 'debugging')!;
    expect(debug).toMatchObject({
      headers: { authorization: '[redacted]', cookie: '[redacted]' },
      config: {
        JWT_SECRET: '[redacted]',
        SHOE_SEED_KEY: '[redacted]',
        DATABASE_URL: 'postgres://croupier:[redacted]@db:5432/casino',
        PORT: 8080,
      },
    });
  });

  it('logs a failed login as a warning with the reason and the client address, never the token', async () => {
    const { app, capture } = await loggingApp();
    const forged = await new TokenAuthority('another-secret-0123456789abcdef0123456').issue({
      id: 'mallory',
      role: 'operator',
    });
    const expired = await tokens.issue(
      { id: 'op', role: 'operator' },
      Math.floor(Date.now() / 1000) - 5,
    );
    await app.inject({
      method: 'GET',
      url: '/v1/ping',
      headers: { authorization: `Bearer ${forged}` },
      remoteAddress: '203.0.113.7',
    });
    await app.inject({
      method: 'GET',
      url: '/v1/ping',
      headers: { authorization: `Bearer ${expired}` },
    });
    await app.inject({ method: 'GET', url: '/v1/ping' });
    await app.inject({
      method: 'GET',
      url: '/v1/headers',
      headers: { authorization: await bearer('player', 'amy') },
    });
    const warnings = capture.entries().filter((entry) => entry.level === 40);
    expect(warnings.map((w) => [w.msg, w.reason])).toEqual([
      ['authentication failed', 'signature'],
      ['authentication failed', 'expired'],
      ['authentication failed', 'missing'],
      ['access denied', 'forbidden'],
    ]);
    expect(warnings[0]).toMatchObject({ ip: '203.0.113.7', route: '/v1/ping', method: 'GET' });
    expect(warnings[3]).toMatchObject({ subject: 'amy', role: 'player', route: '/v1/headers' });
    expect(capture.text).not.toContain(forged);
    expect(capture.text).not.toContain(expired);
  });

  it('accepts the bearer scheme in any case, as HTTP says', async () => {
    const app = await appWith();
    const token = (await bearer('player', 'amy')).slice('Bearer '.length);
    const response = await app.inject({
      method: 'GET',
      url: '/v1/ping',
      headers: { authorization: `bearer ${token}` },
    });
    expect(response.statusCode).toBe(200);
  });
});

describe('redaction helpers', () => {
  it('blanks secret-named fields at any depth and passwords in URLs, and leaves the rest', () => {
    expect(
      redactSecrets({
        a: { b: [{ apiKey: 'k', client_secret: 's', password: 'p', seedKey: 'x', keys: 3 }] },
        REDIS_URL: 'redis://:pw@host:6379',
        note: 'see https://example.org/x',
      }),
    ).toEqual({
      a: {
        b: [
          {
            apiKey: '[redacted]',
            client_secret: '[redacted]',
            password: '[redacted]',
            seedKey: '[redacted]',
            keys: 3,
          },
        ],
      },
      REDIS_URL: 'redis://:[redacted]@host:6379',
      note: 'see https://example.org/x',
    });
    expect(withoutUrlPassword('postgres://u@h/db')).toBe('postgres://u@h/db');
  });
});

describe('/metrics', () => {
  it('needs an operator or regulator token by default, and counts requests by route template', async () => {
    const app = await appWith();
    const amy = await bearer('player', 'amy');
    await app.inject({ method: 'GET', url: '/v1/ping', headers: { authorization: amy } });
    await app.inject({ method: 'GET', url: '/v1/ping' });
    expect((await app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(401);
    expect(
      (await app.inject({ method: 'GET', url: '/metrics', headers: { authorization: amy } }))
        .statusCode,
    ).toBe(403);
    for (const role of ['operator', 'regulator'] as const) {
      const scrape = await app.inject({
        method: 'GET',
        url: '/metrics',
        headers: { authorization: await bearer(role, 'staff') },
      });
      expect(scrape.statusCode).toBe(200);
      expect(scrape.headers['content-type']).toMatch(/^text\/plain/);
      expect(scrape.body).toMatch(
        /croupier_http_request_duration_seconds_count\{method="GET",route="\/v1\/ping",status="200"\} 1/,
      );
      expect(scrape.body).toMatch(
        /croupier_http_problems_total\{method="GET",route="\/v1\/ping",code="UNAUTHENTICATED"\} 1/,
      );
      expect(scrape.body).toMatch(/croupier_http_auth_failures_total\{reason="missing"\} 2/);
      expect(scrape.body).toMatch(/process_cpu_user_seconds_total/);
    }
  });

  it('is public when configured so, and runs the scrape hook first', async () => {
    let scrapes = 0;
    const app = await appWith({
      metrics: {
        public: true,
        processMetrics: false,
        beforeScrape: () => {
          scrapes++;
          return Promise.resolve();
        },
      },
    });
    const scrape = await app.inject({ method: 'GET', url: '/metrics' });
    expect(scrape.statusCode).toBe(200);
    expect(scrapes).toBe(1);
    expect(scrape.body).not.toMatch(/process_cpu_user_seconds_total/);
  });
});
