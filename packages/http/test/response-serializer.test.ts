import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createHttpApp, TokenAuthority, type HttpApp } from '../src/index.js';

const tokens = new TokenAuthority('unit-test-secret-0123456789abcdef01234');

/** An app with one public route answering `body` under a schema that allows `{ id }` only. */
async function appAnswering(body: unknown, validateResponses?: boolean): Promise<HttpApp> {
  const app = await createHttpApp({
    title: 't',
    version: '1',
    tokens,
    ...(validateResponses === undefined ? {} : { validateResponses }),
  });
  app.get(
    '/v1/thing',
    {
      config: { public: true },
      schema: { response: { 200: z.object({ id: z.string(), count: z.number().int() }) } },
    },
    () => body as never,
  );
  return app;
}

describe('responses checked against their schemas, or written as they are', () => {
  let app: HttpApp | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  it('validates by default: a response its schema refuses is a 500', async () => {
    app = await appAnswering({ id: 'a', count: 'many' });
    const response = await app.inject({ method: 'GET', url: '/v1/thing' });
    expect(response.statusCode).toBe(500);
  });

  it('validating, refuses a response the schema would change (a key it strips), so production, unvalidated, never sends what tests never saw', async () => {
    app = await appAnswering({ id: 'a', count: 1, secret: 'internal' });
    const response = await app.inject({ method: 'GET', url: '/v1/thing' });
    expect(response.statusCode).toBe(500);
  });

  it('answers the same content validated and not', async () => {
    const body = { count: 3, id: 'a' };
    app = await appAnswering(body, true);
    const validated = await app.inject({ method: 'GET', url: '/v1/thing' });
    await app.close();
    app = await appAnswering(body, false);
    const unvalidated = await app.inject({ method: 'GET', url: '/v1/thing' });
    expect(validated.statusCode).toBe(200);
    expect(unvalidated.statusCode).toBe(200);
    expect(unvalidated.json()).toEqual(validated.json());
    expect(unvalidated.body).toBe(JSON.stringify(body));
  });

  it('not validating, writes the response as it is, unchecked', async () => {
    app = await appAnswering({ id: 'a', count: 'many' }, false);
    const response = await app.inject({ method: 'GET', url: '/v1/thing' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ id: 'a', count: 'many' });
  });
});
