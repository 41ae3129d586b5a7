import { startRedisServer, type RedisProcess } from '@croupier/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SettlementMessage } from '@croupier/contracts';
import { BullMqSettlementBus, PublishError } from '../src/index.js';
import { Ledger, settlementMessage } from './support.js';
import { eventually } from './eventually.js';

// Redis of this file's own (append-only file, fsync always, as production should run it under
// BullMQ): the test kills and restarts it without touching the shared server.
let server: RedisProcess;
const buses: BullMqSettlementBus[] = [];
beforeAll(async () => {
  server = await startRedisServer({ persistent: true });
});
afterAll(async () => {
  await Promise.all(buses.map((bus) => bus.close()));
  await server.cleanup();
});

function bus(): BullMqSettlementBus {
  const created = new BullMqSettlementBus({
    redisUrl: server.url,
    prefix: 'outage',
    publishTimeoutMs: 1_000,
    backoffMs: 50,
    lockDurationMs: 2_000,
    stalledIntervalMs: 500,
    reconnectMaxDelayMs: 200,
  });
  buses.push(created);
  return created;
}

/** Publishes like the outbox: one record at a time, retrying a rejected publish with backoff. */
function outbox(target: BullMqSettlementBus, messages: readonly SettlementMessage[]) {
  const stats = { published: 0, rejections: 0 };
  const done = (async () => {
    for (const message of messages) {
      for (;;) {
        try {
          await target.publish([message]);
          stats.published++;
          break;
        } catch (error) {
          expect(error).toBeInstanceOf(PublishError);
          stats.rejections++;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  })();
  return { stats, done };
}

describe('Redis stopped mid-run and restored', () => {
  it('rejects publish while down, then delivers every message once it is back', async () => {
    const producer = bus();
    const consumerBus = bus();
    const ledger = new Ledger();
    await consumerBus.consume(ledger.handler, { concurrency: 4 });
    const messages = Array.from({ length: 120 }, (_, i) =>
      settlementMessage({ playerId: `p${i % 7}` }),
    );
    const run = outbox(producer, messages);

    await eventually(
      () => {
        expect(ledger.applied.size).toBeGreaterThanOrEqual(30);
      },
      { timeout: 20_000 },
    );
    await server.stop('SIGKILL');

    // While down: publish rejects (fast, no offline buffering), also on a bus that never connected.
    // Neither is sent later behind the caller's back: nothing was handed over.
    const refused = [settlementMessage(), settlementMessage()] as const;
    await expect(producer.publish([refused[0]])).rejects.toBeInstanceOf(PublishError);
    await expect(bus().publish([refused[1]])).rejects.toThrow(/not reachable/);
    await eventually(
      () => {
        expect(run.stats.rejections).toBeGreaterThanOrEqual(3);
      },
      { timeout: 20_000 },
    );
    const publishedBeforeRestart = run.stats.published;
    expect(publishedBeforeRestart).toBeLessThan(messages.length);
    await server.start();
    await run.done;
    expect(run.stats.published).toBe(messages.length);
    await eventually(
      () => {
        expect(ledger.applied.size).toBe(messages.length);
      },
      { timeout: 30_000 },
    );
    for (const message of messages) expect(ledger.applied.has(message.messageId)).toBe(true);
    for (const message of refused) expect(ledger.delivered(message.messageId)).toBe(0);
    await eventually(
      async () => {
        const counts = await producer.jobCounts();
        expect(counts.completed).toBe(messages.length); // one job per message, none doubled
        expect(counts.failed + counts.waiting + counts.active + counts.delayed).toBe(0);
      },
      { timeout: 30_000 },
    );
  }, 120_000);
});
