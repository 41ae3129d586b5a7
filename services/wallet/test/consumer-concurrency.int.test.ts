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
 * WALLET_CONSUMER_CONCURRENCY=0 hands the settlement queue to another wallet system: the wallet
 * service starts, serves, and leaves every message in the queue; with a concurrency it takes them.
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
    'with 0 serves but leaves the messages in the queue; with 1 it takes them',
    {
      timeout: 120_000,
    },
    async () => {
      const message = newPlayerMessage();
      await bus.publish([message]);
      expect((await bus.jobCounts()).waiting).toBe(1);

      const idle = await startWallet('0');
      // Long enough for a worker to have picked the job up (BullMQ polls at once on start).
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      expect(await bus.jobCounts()).toMatchObject({ waiting: 1, active: 0, completed: 0 });
      expect(idle.output()).toContain('leaves the settlement messages to another wallet system');
      expect(await idle.stop()).toBe(0);

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

  it('still refuses a negative concurrency, naming the variable', async () => {
    const child = spawn(process.execPath, await nodeEntryArgs(MAIN), {
      env: {
        ...process.env,
        EVENTSTORE: 'postgres',
        DATABASE_URL: postgres.connectionString,
        DATABASE_SCHEMA: postgres.schema,
        JWT_SECRET: 'wallet-main-test-secret-0123456789abcdef',
        WALLET_CONSUMER_CONCURRENCY: '-1',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.add(child);
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    children.delete(child);
    expect(code).toBe(2);
    expect(stderr).toContain('WALLET_CONSUMER_CONCURRENCY');
  });
});
