import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { DomainError } from '@croupier/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createHttpApp, principalOf, TokenAuthority, type HttpApp } from '../src/index.js';

const tokens = new TokenAuthority('unit-test-secret-0123456789abcdef01234');

describe('the HTTP app every service builds on', () => {
  let app: HttpApp;
  beforeAll(async () => {
    app = await createHttpApp({
      title: 't',
      version: '1',
      tokens,
      readiness: () => Promise.resolve({ store: false }),
    });
    app.post(
      '/v1/things/:id',
      {
        config: { roles: ['operator'] },
        schema: {
          params: z.object({ id: z.string().regex(/^[a-z]+$/) }),
          body: z.object({ amount: z.number().int().positive() }).strict(),
        },
      },
      (request) => {
        if (request.body.amount > 100)
          throw new DomainError('INSUFFICIENT_FUNDS', 'not enough', { field: 'amount' });
        return { id: request.params.id, by: principalOf(request).id };
      },
    );
    app.post('/v1/things/:id/close', { config: { roles: ['operator'] } }, () => ({ closed: true }));
    app.get('/v1/crash', { config: { roles: ['operator'] } }, () => {
      throw new Error('secret internals');
    });
  });
  afterAll(async () => {
    await app.close();
  });

  const call = async (
    url: string,
    body: unknown,
    role?: 'operator' | 'player',
    headers: Record<string, string> = {},
  ) =>
    app.inject({
      method: 'POST',
      url,
      payload: body as object,
      headers: {
        ...headers,
        ...(role
          ? { authorization: `Bearer ${await tokens.issue({ id: `${role}-7`, role })}` }
          : {}),
      },
    });

  it('serves an allowed role and says who called', async () => {
    const response = await call('/v1/things/abc', { amount: 5 }, 'operator');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ id: 'abc', by: 'operator-7' });
  });

  it('takes an empty JSON body as none, on a command that takes no body', async () => {
    const authorization = `Bearer ${await tokens.issue({ id: 'operator-7', role: 'operator' })}`;
    const post = (url: string, payload: string, contentType = 'application/json') =>
      app.inject({
        method: 'POST',
        url,
        payload,
        headers: { authorization, 'content-type': contentType },
      });
    const empty = await post('/v1/things/abc/close', '');
    expect(empty.statusCode, empty.body).toBe(200);
    expect(empty.json()).toEqual({ closed: true });
    expect(
      (await post('/v1/things/abc/close', '', 'application/json; charset=utf-8')).statusCode,
    ).toBe(200);
    // A command with a body still needs it, and bad JSON or a poisoned prototype is still refused.
    const missing = await post('/v1/things/abc', '');
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toMatchObject({ code: 'VALIDATION_ERROR' });
    expect((await post('/v1/things/abc', '{"amount":')).statusCode).toBe(400);
    const poisoned = await post('/v1/things/abc', '{"amount":1,"__proto__":{"x":1}}');
    expect(poisoned.statusCode).toBe(400);
  });

  it('answers 401 without a token and 403 for another role, as problem+json', async () => {
    const anonymous = await call('/v1/things/abc', { amount: 5 });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(anonymous.json()).toMatchObject({
      code: 'UNAUTHENTICATED',
      status: 401,
      instance: '/v1/things/abc',
    });
    const player = await call('/v1/things/abc', { amount: 5 }, 'player');
    expect(player.json()).toMatchObject({ code: 'FORBIDDEN', status: 403 });
  });

  it('names the field of a validation error and of a domain error', async () => {
    const invalid = await call('/v1/things/abc', { amount: -1 }, 'operator');
    expect(invalid.statusCode).toBe(400);
    expect(invalid.json()).toMatchObject({
      code: 'VALIDATION_ERROR',
      errors: [{ field: 'body.amount' }],
    });
    const params = await call('/v1/things/ABC', { amount: 1 }, 'operator');
    expect(params.json()).toMatchObject({
      code: 'VALIDATION_ERROR',
      errors: [{ field: 'params.id' }],
    });
    const refused = await call('/v1/things/abc', { amount: 500 }, 'operator');
    expect(refused.statusCode).toBe(422);
    expect(refused.json()).toMatchObject({
      code: 'INSUFFICIENT_FUNDS',
      detail: 'not enough',
      errors: [{ field: 'amount' }],
    });
  });

  it('keeps the correlation id a client sends, and makes one otherwise', async () => {
    const given = await call('/v1/things/abc', { amount: 5 }, 'operator', {
      'x-correlation-id': 'req-42',
    });
    expect(given.headers['x-correlation-id']).toBe('req-42');
    const made = await call('/v1/things/abc', { amount: 5 }, 'operator');
    expect(made.headers['x-correlation-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('hides internal errors behind a 500 problem with the correlation id', async () => {
    const response = await app.inject({
      method: 'GET',
      url: '/v1/crash',
      headers: { authorization: `Bearer ${await tokens.issue({ id: 'op', role: 'operator' })}` },
    });
    expect(response.statusCode).toBe(500);
    expect(response.body).not.toMatch(/secret internals/);
    expect(response.json()).toMatchObject({
      code: 'INTERNAL_ERROR',
      correlationId: response.headers['x-correlation-id'],
    });
  });

  it('reports health, and readiness from its checks', async () => {
    expect((await app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);
    const ready = await app.inject({ method: 'GET', url: '/ready' });
    expect(ready.statusCode).toBe(503);
    expect(ready.json()).toEqual({ status: 'not ready', checks: { store: false } });
  });

  it('refuses a token with a role that is not one', async () => {
    await expect(tokens.verify('x.y.z')).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
    expect(() => new TokenAuthority('short')).toThrow(/at least 32/);
  });
});

describe('closing', () => {
  it('finishes a command in flight and refuses what arrives meanwhile with a 503 problem', async () => {
    const app = await createHttpApp({
      title: 't',
      version: '1',
      tokens,
      readiness: () => Promise.resolve({ store: true }),
    });
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let started = () => {};
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    app.post('/v1/slow', { config: { public: true } }, async () => {
      started();
      await gate;
      return { done: true };
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = app.server.address() as AddressInfo;
    // One kept-alive connection: a command in flight on it, then a second request after the
    // close began (a connection busy with a request is not cut as idle).
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
    const ended = new Promise<void>((resolve) => {
      socket.on('close', () => {
        resolve();
      });
    });
    socket.write(
      'POST /v1/slow HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}',
    );
    await running;
    const closed = app.close();
    await new Promise((resolve) => setTimeout(resolve, 50));
    socket.write('GET /health HTTP/1.1\r\nHost: t\r\n\r\n');
    await new Promise((resolve) => setTimeout(resolve, 50));
    release();
    await closed;
    await ended;
    const [first, second] = received.split(/(?=HTTP\/1\.1 )/);
    expect(first).toMatch(/^HTTP\/1\.1 200 /);
    expect(first).toContain('{"done":true}');
    expect(second).toMatch(/^HTTP\/1\.1 503 /);
    expect(second).toMatch(/content-type: application\/problem\+json/i);
    expect(second).toMatch(/retry-after: 1/i);
    expect(second).toContain('"code":"UNAVAILABLE"');
  });
});
