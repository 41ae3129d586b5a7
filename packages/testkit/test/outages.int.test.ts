import { createConnection, createServer } from 'node:net';
import pg from 'pg';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  findPostgres,
  isolatedDatabase,
  startRedisServer,
  startTcpRelay,
  throughRelay,
  type IsolatedDatabase,
  type RedisProcess,
} from '../src/index.js';

async function connect(connectionString: string, applicationName: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString, application_name: applicationName });
  client.on('error', () => undefined);
  await client.connect();
  return client;
}

describe('a PostgreSQL outage of one database', () => {
  let database: IsolatedDatabase;
  beforeAll(async () => {
    database = await isolatedDatabase('tk');
  });
  afterAll(async () => {
    await database.drop();
  });

  it('cuts the named connections, refuses new ones while it lasts, then lets them in', async () => {
    const [round, settlement, bystander] = await Promise.all([
      connect(database.connectionString, 'outage-round'),
      connect(database.connectionString, 'outage-settlement:subscription'),
      connect(database.connectionString, 'another-deployment'),
    ]);
    try {
      const outage = database.outage('outage-', 1_000);
      await new Promise((resolve) => setTimeout(resolve, 300));
      await expect(connect(database.connectionString, 'outage-late')).rejects.toThrow(
        /not currently accepting connections/,
      );
      expect(await outage).toEqual({
        terminated: 2,
        byApplication: { 'outage-round': 1, 'outage-settlement:subscription': 1 },
      });
      await expect(round.query('SELECT 1')).rejects.toThrow();
      await expect(settlement.query('SELECT 1')).rejects.toThrow();
      expect((await bystander.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
      const back = await connect(database.connectionString, 'outage-round');
      await back.end();
    } finally {
      await Promise.all([round, settlement, bystander].map((c) => c.end().catch(() => undefined)));
    }
  });
});

describe('a redis-server of the test own', () => {
  let server: RedisProcess;
  beforeAll(async () => {
    server = await startRedisServer({ persistent: false });
  });
  afterAll(async () => {
    await server.cleanup();
  });

  it('counts its clients and cuts them all, its data kept', async () => {
    const clients = [new Redis(server.url), new Redis(server.url)];
    try {
      await Promise.all(clients.map((client) => client.set('kept', 'yes')));
      expect(await server.clients()).toBe(2);
      expect(await server.dropClients()).toBe(2);
      // ioredis reconnects by itself; the data never went away.
      expect(await clients[0]!.get('kept')).toBe('yes');
    } finally {
      for (const client of clients) client.disconnect();
    }
  });
});

describe('a TCP relay a test can cut', () => {
  it('carries PostgreSQL, breaks its connections and refuses new ones while cut, then carries again', async () => {
    const server = await findPostgres();
    const target = new URL(server.connectionString);
    const relay = await startTcpRelay({ host: target.hostname, port: Number(target.port || 5432) });
    const url = throughRelay(server.connectionString, relay);
    try {
      const client = await connect(url, 'relay-test');
      expect((await client.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
      expect(relay.open).toBe(1);
      expect(relay.cut()).toBe(1);
      await expect(client.query('SELECT 1')).rejects.toThrow();
      await expect(connect(url, 'relay-late')).rejects.toThrow();
      relay.restore();
      const back = await connect(url, 'relay-back');
      expect((await back.query('SELECT 2 AS two')).rows).toEqual([{ two: 2 }]);
      await back.end();
      await client.end().catch(() => undefined);
    } finally {
      await relay.close();
    }
  });

  it('holds what the server sends until it closes, then writes it in one piece; or until released', async () => {
    // A server that answers 'ready;', then 'fatal;' and closes: as soon as the client answers
    // (so the two reach it in two reads), or after 500 ms if it does not.
    const server = createServer((socket) => {
      socket.on('error', () => undefined);
      const timer = setTimeout(() => socket.end('fatal;'), 500);
      socket.once('data', () => {
        if (socket.writableEnded) return;
        clearTimeout(timer);
        socket.end('fatal;');
      });
      socket.write('ready;');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const relay = await startTcpRelay({
      host: '127.0.0.1',
      port: (server.address() as { port: number }).port,
    });
    /** What a client reads, read by read; it answers its first read. */
    const reads = (): Promise<string[]> =>
      new Promise((resolve) => {
        const socket = createConnection({ host: '127.0.0.1', port: relay.port });
        const chunks: string[] = [];
        socket.on('data', (chunk: Buffer) => {
          if (chunks.push(chunk.toString()) === 1) socket.write('go');
        });
        socket.on('close', () => {
          resolve(chunks);
        });
      });
    try {
      expect(await reads()).toEqual(['ready;', 'fatal;']);
      relay.holdReplies(true);
      expect(await reads()).toEqual(['ready;fatal;']);
      const released = reads();
      await new Promise((resolve) => setTimeout(resolve, 20));
      relay.holdReplies(false);
      expect(await released).toEqual(['ready;', 'fatal;']);
    } finally {
      await relay.close();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
