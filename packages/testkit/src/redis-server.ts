import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { probeRedis } from './redis.js';

/** A redis-server process a test owns: it may stop, kill and restart it without disturbing others. */
export interface RedisProcess {
  readonly url: string;
  readonly port: number;
  readonly running: boolean;
  /** Stops the server: SIGKILL (a crash) by default, or SIGTERM (a clean shutdown). */
  stop(signal?: 'SIGKILL' | 'SIGTERM'): Promise<void>;
  /** Starts it again on the same port and data directory; resolves once PING answers. */
  start(): Promise<void>;
  /** Stops it for good and deletes its data directory. */
  cleanup(): Promise<void>;
  /** The client connections open now (other than the one asking). */
  clients(): Promise<number>;
  /**
   * Cuts every client connection (CLIENT KILL), as a network failure would, while the server
   * and its data stay up. Returns how many were cut.
   */
  dropClients(): Promise<number>;
}

export interface RedisProcessOptions {
  /**
   * Keep data across a stop (append-only file, fsync on every write): what production Redis
   * under BullMQ needs. Default true. False gives the shared test server's settings (no
   * persistence: a restart comes back empty).
   */
  readonly persistent?: boolean;
}

/** A free TCP port on 127.0.0.1 (the kernel's pick). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => {
        resolve(port);
      });
    });
  });
}

/** Starts a redis-server of the test's own on a free port (needs the redis-server binary). */
export async function startRedisServer(options: RedisProcessOptions = {}): Promise<RedisProcess> {
  const port = await freePort();
  const dir = await mkdtemp(join(tmpdir(), 'croupier-redis-'));
  const persistent = options.persistent ?? true;
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--save',
    '',
    '--dir',
    dir,
    '--appendonly',
    persistent ? 'yes' : 'no',
    '--appendfsync',
    'always',
    '--maxmemory-policy',
    'noeviction',
  ];
  const url = `redis://127.0.0.1:${port}`;
  let child: ChildProcess | null = null;
  let exited: Promise<void> = Promise.resolve();

  const launch = async () => {
    const server = spawn('redis-server', args, { stdio: 'ignore' });
    child = server;
    exited = new Promise((resolve) =>
      server.once('exit', () => {
        resolve();
      }),
    );
    const failed = new Promise<never>((_resolve, reject) => {
      server.once('error', (error) => {
        reject(new Error(`redis-server could not start: ${error.message}`));
      });
    });
    for (let attempt = 0; attempt < 100; attempt++) {
      const problem = await Promise.race([probeRedis(url, 500), failed]);
      if (problem === null) return;
      if (server.exitCode !== null) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`redis-server on port ${port} did not answer`);
  };

  const stop = async (signal: 'SIGKILL' | 'SIGTERM' = 'SIGKILL') => {
    const server = child;
    if (server === null) return;
    child = null;
    server.kill(signal);
    await exited;
  };

  const ask = async <T>(work: (redis: Redis) => Promise<T>): Promise<T> => {
    const redis = new Redis(url, {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
      enableOfflineQueue: false,
    });
    redis.on('error', () => undefined);
    try {
      await redis.connect();
      return await work(redis);
    } finally {
      redis.disconnect();
    }
  };

  await launch();
  return {
    url,
    port,
    get running() {
      return child !== null;
    },
    stop,
    start: async () => {
      if (child === null) await launch();
    },
    cleanup: async () => {
      await stop('SIGKILL');
      await rm(dir, { recursive: true, force: true });
    },
    clients: () =>
      ask(async (redis) => {
        const list = String(await redis.call('CLIENT', 'LIST'));
        return list.split('\n').filter((line) => line.trim().length > 0).length - 1;
      }),
    dropClients: () =>
      ask(async (redis) => {
        let cut = 0;
        for (const type of ['normal', 'pubsub'])
          cut += Number(await redis.call('CLIENT', 'KILL', 'TYPE', type, 'SKIPME', 'yes'));
        return cut;
      }),
  };
}
