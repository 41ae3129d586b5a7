import { createServer, type Socket } from 'node:net';
import { PGlite } from '@electric-sql/pglite';
import { CancelledError, DeadlineExceededError, UnavailableError } from '@eventstore/db-client';
import { DomainError } from '@croupier/contracts';
import {
  EventStoreClosedError,
  EventValidationError,
  WrongExpectedVersionError,
} from '@croupier/eventstore';
import { Redis } from 'ioredis';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createHttpApp, outageOf, ServiceUnavailableError, TokenAuthority } from '../src/index.js';

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

/** What a promise rejected with. */
async function rejectionOf(work: () => Promise<unknown>): Promise<unknown> {
  try {
    await work();
  } catch (error) {
    return error;
  }
  throw new Error('it did not fail');
}

/** A server that accepts connections and closes each at once: a peer that hangs up. */
async function hangingUp(): Promise<{ port: number; close: () => Promise<void> }> {
  const server = createServer((socket) => {
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    close: () =>
      new Promise((resolve) => {
        server.close(() => {
          resolve();
        });
      }),
  };
}

describe('outageOf: failures of the real drivers are outages', () => {
  it('pg: a refused connection, a pool that cannot connect in time, a connection cut', async () => {
    const port = await closedPort();
    const refused = await rejectionOf(() =>
      new pg.Pool({ host: '127.0.0.1', port, connectionTimeoutMillis: 2_000 }).query('SELECT 1'),
    );
    expect(outageOf(refused)).toEqual({ dependency: 'network', reason: 'ECONNREFUSED' });

    const peer = await hangingUp();
    try {
      const cut = await rejectionOf(() =>
        new pg.Client({ host: '127.0.0.1', port: peer.port }).connect(),
      );
      expect(outageOf(cut)).not.toBeNull();
    } finally {
      await peer.close();
    }

    // A server that accepts the connection and never answers: the pool's deadline.
    const held = new Set<Socket>();
    const silent = createServer((socket) => held.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const pool = new pg.Pool({
        host: '127.0.0.1',
        port: (silent.address() as { port: number }).port,
        connectionTimeoutMillis: 200,
      });
      const late = await rejectionOf(() => pool.query('SELECT 1'));
      expect(outageOf(late)?.dependency).toBe('event store');
      await pool.end();
    } finally {
      for (const socket of held) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('pg: the server-side SQLSTATEs of a server going away or refusing', () => {
    const sqlError = (code: string, message = 'server says no') =>
      Object.assign(new pg.DatabaseError(message, 0, 'error'), { code });
    for (const code of ['08006', '08001', '57P01', '57P02', '57P03', '53300', '57014'])
      expect(outageOf(sqlError(code)), code).toEqual({
        dependency: 'event store',
        reason: `SQLSTATE ${code}`,
      });
    expect(
      outageOf(sqlError('55000', 'database "t_1" is not currently accepting connections')),
    ).toMatchObject({ dependency: 'event store' });
    // Not outages: a bad value, a unique violation, another 55000.
    for (const code of ['22P02', '23505', '42P01', '55000'])
      expect(outageOf(sqlError(code)), code).toBeNull();
  });

  it('PGlite closed, and the event store closed under a request', async () => {
    const db = new PGlite();
    await db.close();
    expect(outageOf(await rejectionOf(() => db.query('SELECT 1')))).toMatchObject({
      dependency: 'event store',
    });
    expect(outageOf(new EventStoreClosedError())).toEqual({
      dependency: 'event store',
      reason: 'closed',
    });
    // PGlite compiles its WebAssembly first: slow on a loaded machine.
  }, 180_000);

  it('ioredis: a closed connection, and MaxRetriesPerRequestError', async () => {
    const port = await closedPort();
    const offline = new Redis({ port, lazyConnect: true, enableOfflineQueue: false });
    offline.on('error', () => undefined);
    expect(outageOf(await rejectionOf(() => offline.get('x')))).toMatchObject({
      dependency: 'redis',
    });
    offline.disconnect();

    const retrying = new Redis({ port, maxRetriesPerRequest: 0, retryStrategy: () => 50 });
    retrying.on('error', () => undefined);
    const gaveUp = await rejectionOf(() => retrying.get('x'));
    retrying.disconnect();
    expect((gaveUp as Error).name).toBe('MaxRetriesPerRequestError');
    expect(outageOf(gaveUp)).toMatchObject({ dependency: 'redis' });

    const closed = new Redis({ port, lazyConnect: true });
    closed.disconnect();
    expect(outageOf(await rejectionOf(() => closed.get('x')))).toEqual({
      dependency: 'redis',
      reason: 'Connection is closed.',
    });
  });

  it('BullMQ publishing that failed (the bus names it PUBLISH_FAILED)', () => {
    const failed = Object.assign(new Error('publish of 1 message(s) failed: timeout'), {
      code: 'PUBLISH_FAILED',
    });
    expect(outageOf(failed)).toMatchObject({ dependency: 'redis' });
  });

  it('fetch from one service to another: refused, hung up, timed out; a downstream 503', async () => {
    const port = await closedPort();
    const refused = await rejectionOf(() => fetch(`http://127.0.0.1:${port}/`));
    expect(outageOf(refused)).toEqual({ dependency: 'service', reason: 'ECONNREFUSED' });
    const peer = await hangingUp();
    try {
      const reset = await rejectionOf(() => fetch(`http://127.0.0.1:${peer.port}/`));
      expect(outageOf(reset)?.dependency).toBe('service');
    } finally {
      await peer.close();
    }
    const timedOut = await rejectionOf(() =>
      fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(0) }),
    );
    expect(outageOf(timedOut)?.dependency).toBe('service');
    expect(outageOf(new ServiceUnavailableError('http://wallet', '503'))).toEqual({
      dependency: 'service',
      reason: '503',
    });
  });

  it('EventStoreDB client errors of an unreachable or leaderless cluster', () => {
    for (const error of [
      new UnavailableError(undefined, 'no connection'),
      new DeadlineExceededError(undefined, 'deadline'),
      new CancelledError(undefined, 'cancelled'),
    ])
      expect(outageOf(error), error.constructor.name).toMatchObject({ dependency: 'event store' });
  });

  it('finds an outage among the causes of a wrapping error', () => {
    const wrapped = new Error('projection failed', {
      cause: new Error('read failed', { cause: new Error('Connection terminated unexpectedly') }),
    });
    expect(outageOf(wrapped)).toMatchObject({ dependency: 'event store' });
    const both = new AggregateError([new Error('x'), new Error('Connection is closed.')], 'all');
    expect(outageOf(both)).toMatchObject({ dependency: 'redis' });
  });
});

describe('outageOf: bugs and refusals are not outages', () => {
  it('leaves them to their own answers', () => {
    for (const error of [
      new Error('boom'),
      new TypeError("Cannot read properties of undefined (reading 'x')"),
      new DomainError('INSUFFICIENT_FUNDS', 'not enough'),
      new EventValidationError('bad event'),
      new WrongExpectedVersionError('round-1', 1n, 2n),
      Object.assign(new Error('invalid input syntax'), { code: '22P02' }),
      null,
      'a string',
      42,
    ])
      expect(outageOf(error), String(error)).toBeNull();
  });
});

describe('the error handler answers an outage 503 UNAVAILABLE with Retry-After', () => {
  it('whatever route it happens on; an ordinary bug stays 500', async () => {
    const tokens = new TokenAuthority('outage-test-secret-0123456789abcdef0123');
    const app = await createHttpApp({ title: 't', version: '1', tokens });
    const port = await closedPort();
    app.get('/store', { config: { public: true } }, () =>
      new pg.Pool({ host: '127.0.0.1', port }).query('SELECT 1'),
    );
    app.post(
      '/bus',
      { config: { public: true }, schema: { body: z.object({ n: z.number() }) } },
      () => {
        throw Object.assign(new Error('Redis did not answer'), { code: 'PUBLISH_FAILED' });
      },
    );
    app.get('/bug', { config: { public: true } }, () => {
      throw new Error('a bug');
    });
    try {
      for (const [method, url] of [
        ['GET', '/store'],
        ['POST', '/bus'],
      ] as const) {
        const response = await app.inject({
          method,
          url,
          ...(method === 'POST' ? { payload: { n: 1 } } : {}),
        });
        expect(response.statusCode, url).toBe(503);
        expect(response.headers['retry-after'], url).toBe('1');
        expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
        expect(response.json()).toMatchObject({ status: 503, code: 'UNAVAILABLE' });
      }
      const bug = await app.inject({ method: 'GET', url: '/bug' });
      expect(bug.statusCode).toBe(500);
      expect(bug.headers['retry-after']).toBeUndefined();
    } finally {
      await app.close();
    }
  });
});
