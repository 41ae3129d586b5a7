import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { nodeEntryArgs } from '@croupier/testkit';
import { useRedisPrefix } from '@croupier/testkit/vitest';
import { afterAll, describe, expect, it } from 'vitest';
import { BullMqSettlementBus } from '../src/index.js';
import { Ledger, settlementMessage } from './support.js';
import { eventually } from './eventually.js';

const redis = useRedisPrefix('crash');
const LOCK_MS = 1_000;
const buses: BullMqSettlementBus[] = [];
afterAll(async () => {
  await Promise.all(buses.map((bus) => bus.close()));
});

describe('a consumer process that dies mid-job', () => {
  it('has its job taken over by another consumer and applied once', async () => {
    const bus = new BullMqSettlementBus({
      redisUrl: redis.get().url,
      prefix: redis.get().prefix,
      lockDurationMs: LOCK_MS,
      stalledIntervalMs: 250,
    });
    buses.push(bus);
    const message = settlementMessage();
    await bus.publish([message]);

    const script = fileURLToPath(new URL('./fixtures/stuck-consumer.ts', import.meta.url));
    const child = spawn(process.execPath, await nodeEntryArgs(script), {
      env: {
        ...process.env,
        BUS_REDIS_URL: redis.get().url,
        BUS_PREFIX: redis.get().prefix,
        BUS_LOCK_MS: String(LOCK_MS),
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    await eventually(
      () => {
        expect(output).toContain(`started ${message.messageId}`);
      },
      { timeout: 20_000, interval: 50 },
    );
    expect((await bus.jobCounts()).active).toBe(1);
    child.kill('SIGKILL'); // the process dies holding the job: no ack, no failure recorded
    await exited;

    const ledger = new Ledger();
    await bus.consume(ledger.handler);
    await eventually(
      () => {
        expect(ledger.applied.has(message.messageId)).toBe(true);
      },
      { timeout: 20_000, interval: 50 },
    );
    expect(ledger.delivered(message.messageId)).toBe(1);
    await eventually(async () => {
      const counts = await bus.jobCounts();
      expect(counts.completed).toBe(1);
      expect(counts.active + counts.waiting + counts.failed).toBe(0);
    });
  });
});
