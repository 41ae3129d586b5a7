import { createServer } from 'node:net';
import { DomainError } from '@croupier/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createHttpApp,
  ServiceClient,
  ServiceUnavailableError,
  TokenAuthority,
  type HttpApp,
} from '../src/index.js';

const tokens = new TokenAuthority('internal-test-secret-0123456789abcdef012');
const serviceToken = () => tokens.issue({ id: 'round', role: 'system' });

/** A port nothing listens on: bound, then released. */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => {
        resolve(port);
      });
    });
  });
}

describe('a service calling another', () => {
  let app: HttpApp;
  let url: string;
  beforeAll(async () => {
    app = await createHttpApp({
      title: 'wallet',
      version: '1',
      tokens,
      readiness: () => Promise.resolve({ store: true }),
    });
    app.post(
      '/internal/stakes',
      { config: { roles: ['system'] }, schema: { body: z.object({ amount: z.number() }) } },
      (request) => {
        if (request.body.amount === 503)
          throw new DomainError('UNAVAILABLE', "the operator's wallet did not confirm the stake");
        if (request.body.amount > 100) throw new DomainError('INSUFFICIENT_FUNDS', 'not enough');
        return { ok: true };
      },
    );
    url = await app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await app.close();
  });

  it('gets the answer, or the refusal as the DomainError it was', async () => {
    const client = new ServiceClient(url, serviceToken);
    expect(await client.call('POST', '/internal/stakes', null, { amount: 1 })).toEqual({
      ok: true,
    });
    await expect(
      client.call('POST', '/internal/stakes', null, { amount: 500 }),
    ).rejects.toMatchObject({ code: 'INSUFFICIENT_FUNDS', message: 'not enough' });
  });

  it('reports a service it cannot reach as unavailable (503 to the client), not as a refusal', async () => {
    const client = new ServiceClient(`http://127.0.0.1:${await closedPort()}`, serviceToken);
    const error: unknown = await client
      .call('POST', '/internal/stakes', null, { amount: 1 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceUnavailableError);
    expect(error).not.toBeInstanceOf(DomainError);
    expect((error as ServiceUnavailableError).code).toBe('UNAVAILABLE');
    expect((error as ServiceUnavailableError).message).toMatch(/ECONNREFUSED/);
  });

  it("passes a 503's own reason on (the peer's dependency), still as unavailable, not as a refusal", async () => {
    const client = new ServiceClient(url, serviceToken);
    const error: unknown = await client
      .call('POST', '/internal/stakes', null, { amount: 503 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceUnavailableError);
    expect((error as ServiceUnavailableError).reason).toBe(
      "503: the operator's wallet did not confirm the stake",
    );
  });

  it('answers its own client 503 UNAVAILABLE when a service it needs is down', async () => {
    const down = `http://127.0.0.1:${await closedPort()}`;
    const front = await createHttpApp({
      title: 'round',
      version: '1',
      tokens,
      readiness: () => Promise.resolve({ store: true }),
    });
    front.post('/v1/bets', { config: { public: true } }, () =>
      new ServiceClient(down, serviceToken).call('POST', '/internal/stakes', null, { amount: 1 }),
    );
    try {
      const answer = await front.inject({ method: 'POST', url: '/v1/bets', payload: {} });
      expect(answer.statusCode).toBe(503);
      expect(answer.headers['content-type']).toMatch(/application\/problem\+json/);
      expect(answer.json()).toMatchObject({ code: 'UNAVAILABLE', status: 503 });
    } finally {
      await front.close();
    }
  });
});
