import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { BullMqSettlementBus } from '@croupier/messaging';
import {
  freePort,
  isolatedPostgres,
  isolatedRedisPrefix,
  nodeEntryArgs,
  settlementMessage,
  type IsolatedPostgres,
  type IsolatedRedisPrefix,
} from '@croupier/testkit';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

const MAIN = fileURLToPath(new URL('../src/main.ts', import.meta.url));

/** A valid settlement message for a player the wallet has never seen. */
const newPlayerMessage = () =>
  settlementMessage({
    playerId: 'wallet-test-player',
    betType: 'player',
    bankerMode: null,
    payout: 2_000,
    commission: 0,
    position: '1',
  });

/**
 * WALLET_CONSUMER_CONCURRENCY=0 used to hand the settlement queue to another wallet system, and
 * Croupier's wallet then debited every stake and credited none (issue 12). Outside systems now
 * read a queue of their own; 0 is refused at start, saying where they read.
 */
describe('the wallet service process and WALLET_CONSUMER_CONCURRENCY', () => {
  let postgres: IsolatedPostgres;
  let redis: IsolatedRedisPrefix;
  let bus: BullMqSettlementBus;
  const children = new Set<ChildProcess>();

  beforeAll(async () => {
    postgres = await isolatedPostgres('wallet_main');
    redis = await isolatedRedisPrefix('wallet_main');
    bus = new BullMqSettlementBus({ redisUrl: redis.url, prefix: redis.prefix });
  });
  afterAll(async () => {
    for (const child of children) child.kill('SIGKILL');
    await bus.close();
    await redis.cleanup();
    await postgres.drop();
  });

  /** Starts the wallet service and resolves once /ready answers 200; `stop` ends it (SIGTERM). */
  async function startWallet(concurrency: string) {
    const port = await freePort();
    let output = '';
    const child = spawn(process.execPath, await nodeEntryArgs(MAIN), {
      env: {
        ...process.env,
        EVENTSTORE: 'postgres',
        DATABASE_URL: postgres.connectionString,
        DATABASE_SCHEMA: postgres.schema,
        REDIS_URL: redis.url,
        REDIS_PREFIX: redis.prefix,
        JWT_SECRET: 'wallet-main-test-secret-0123456789abcdef',
        PORT: String(port),
        LOG_LEVEL: 'info',
        WALLET_CONSUMER_CONCURRENCY: concurrency,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.add(child);
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    const ready = vi.waitFor(
      async () => {
        const response = await fetch(`http://127.0.0.1:${port}/ready`);
        expect(response.status).toBe(200);
      },
      { timeout: 60_000, interval: 200 },
    );
    await Promise.race([
      ready,
      exited.then((code) => {
        throw new Error(`the wallet service exited (${String(code)}) while starting: ${output}`);
      }),
    ]);
    return {
      output: () => output,
      stop: async () => {
        child.kill('SIGTERM');
        const code = await exited;
        children.delete(child);
        return code;
      },
    };
  }

  it(
    'refuses 0, naming the public queue; with 1 it takes the messages from its own queue',
    {
      timeout: 120_000,
    },
    async () => {
      const message = newPlayerMessage();
      await bus.publish([message]);
      expect(bus.queueName).toBe('wallet-ledger');
      expect((await bus.jobCounts()).waiting).toBe(1);

      const refused = await exitOf('0');
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain('WALLET_CONSUMER_CONCURRENCY');
      expect(refused.stderr).toContain('settlement-events');
      expect(await bus.jobCounts()).toMatchObject({ waiting: 1, active: 0, completed: 0 });

      const consuming = await startWallet('1');
      await vi.waitFor(
        async () => {
          expect((await bus.jobCounts()).waiting).toBe(0);
        },
        { timeout: 20_000, interval: 200 },
      );
      expect(await consuming.stop()).toBe(0);
    },
  );

  /** Starts the wallet service with a concurrency it must refuse: its exit code and stderr. */
  async function exitOf(concurrency: string) {
    const child = spawn(process.execPath, await nodeEntryArgs(MAIN), {
      env: {
        ...process.env,
        EVENTSTORE: 'postgres',
        DATABASE_URL: postgres.connectionString,
        DATABASE_SCHEMA: postgres.schema,
        REDIS_URL: redis.url,
        REDIS_PREFIX: redis.prefix,
        JWT_SECRET: 'wallet-main-test-secret-0123456789abcdef',
        WALLET_CONSUMER_CONCURRENCY: concurrency,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.add(child);
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    children.delete(child);
    return { code, stderr };
  }

  it('still refuses a negative concurrency, naming the variable', async () => {
    const { code, stderr } = await exitOf('-1');
    expect(code).toBe(2);
    expect(stderr).toContain('WALLET_CONSUMER_CONCURRENCY');
  });
});
