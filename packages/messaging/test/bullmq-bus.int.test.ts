import { randomUUID } from 'node:crypto';
import { useRedisPrefix } from '@croupier/testkit/vitest';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import {
  BullMqSettlementBus,
  createSettlementBus,
  InProcessSettlementBus,
  PublishError,
  WALLET_LEDGER_QUEUE,
  type BullMqSettlementBusOptions,
} from '../src/index.js';
import { Ledger, settlementMessage } from './support.js';
import { eventually } from './eventually.js';

const redis = useRedisPrefix('bus');
const open: BullMqSettlementBus[] = [];

/** A bus on a key prefix of its own inside the file's prefix. */
function busFor(name: string, options: Partial<BullMqSettlementBusOptions> = {}) {
  const bus = new BullMqSettlementBus({
    redisUrl: redis.get().url,
    prefix: `${redis.get().prefix}${name}`,
    backoffMs: 20,
    ...options,
  });
  open.push(bus);
  return bus;
}

/** A raw BullMQ producer on the bus's queue, to put in what Croupier never would. */
async function rawAdd(bus: BullMqSettlementBus, jobId: string, data: unknown): Promise<void> {
  const connection = new Redis(redis.get().url, { maxRetriesPerRequest: null });
  const queue = new Queue(bus.queueName, { connection, prefix: bus.prefix });
  try {
    await queue.add('settlement', data, { jobId });
  } finally {
    await queue.close();
    connection.disconnect();
  }
}

afterEach(async () => {
  await Promise.all(open.splice(0).map((bus) => bus.close()));
});

describe('BullMqSettlementBus', () => {
  it('delivers every published message, validated, to the consumer', async () => {
    const bus = busFor('roundtrip');
    expect(bus.queueName).toBe(WALLET_LEDGER_QUEUE);
    const ledger = new Ledger();
    await bus.consume(ledger.handler, { concurrency: 4 });
    const messages = Array.from({ length: 25 }, (_, i) =>
      settlementMessage({ playerId: `p${i % 5}`, payout: 100 * (i + 1) }),
    );
    await bus.publish(messages.slice(0, 10));
    await bus.publish(messages.slice(10));
    await eventually(() => {
      expect(ledger.applied.size).toBe(25);
    });
    for (const message of messages) expect(ledger.applied.get(message.messageId)).toEqual(message);
    expect((await bus.jobCounts()).completed).toBe(25);
    expect(await bus.ready()).toBe(true);
  });

  it('sends a message that fails validation to the failed set, never to the handler', async () => {
    const bus = busFor('invalid');
    const ledger = new Ledger();
    const bad = settlementMessage();
    const valid = settlementMessage();
    await rawAdd(bus, 'not-a-message', { hello: 'world' });
    await rawAdd(bus, bad.messageId, { ...bad, payout: -5 });
    const mismatched = settlementMessage();
    await rawAdd(bus, randomUUID(), mismatched); // job id is not the message id
    await bus.publish([valid]);
    await bus.consume(ledger.handler);
    await eventually(async () => {
      expect((await bus.failed()).map((job) => job.jobId).sort()).toHaveLength(3);
      expect(ledger.applied.size).toBe(1);
    });
    const failed = await bus.failed();
    expect(failed.map((job) => job.jobId)).toContain('not-a-message');
    expect(failed.map((job) => job.jobId)).toContain(bad.messageId);
    // Unrecoverable: one attempt, not the ten the job was given.
    for (const job of failed) expect(job.attemptsMade).toBe(1);
    expect(failed.find((job) => job.jobId === bad.messageId)?.failedReason).toMatch(/payout/);
    expect(ledger.applied.has(valid.messageId)).toBe(true);
    expect(ledger.deliveries.has(bad.messageId)).toBe(false);
    expect(ledger.deliveries.has(mismatched.messageId)).toBe(false);
  });

  it('refuses to publish an invalid message', async () => {
    const bus = busFor('refuse');
    await expect(bus.publish([{ ...settlementMessage(), stake: 0 }])).rejects.toThrow(/stake/);
    expect((await bus.jobCounts()).waiting).toBe(0);
  });

  it('keeps one job for a message published twice, and applies it once', async () => {
    const bus = busFor('dedupe');
    const ledger = new Ledger();
    const message = settlementMessage();
    await bus.publish([message]);
    await bus.publish([message, message]); // a re-send, and a duplicate inside one batch
    expect((await bus.jobCounts()).waiting).toBe(1);

    await bus.consume(ledger.handler); // concurrency 1: jobs in publish order
    await eventually(() => {
      expect(ledger.applied.size).toBe(1);
    });
    // Re-sent after completion (the outbox replays its last event after a crash): still one job.
    await bus.publish([message]);
    const sentinel = settlementMessage();
    await bus.publish([sentinel]);
    await eventually(() => {
      expect(ledger.applied.has(sentinel.messageId)).toBe(true);
    });
    expect(ledger.delivered(message.messageId)).toBe(1);
    expect((await bus.jobCounts()).completed).toBe(2);
  });

  it('lists every kept job with its state and message, a page at a time', async () => {
    const bus = busFor('kept');
    const messages = Array.from({ length: 5 }, () => settlementMessage());
    await bus.publish(messages.slice(0, 3));
    const ledger = new Ledger();
    const consumer = await bus.consume(ledger.handler);
    await eventually(() => {
      expect(ledger.applied.size).toBe(3);
    });
    await consumer.close();
    await bus.publish(messages.slice(3));
    const kept = await bus.keptJobs(2);
    expect(kept.map((job) => [job.jobId, job.state]).sort()).toEqual(
      messages.map((message, i) => [message.messageId, i < 3 ? 'completed' : 'waiting']).sort(),
    );
    for (const job of kept) expect((job.data as { messageId: string }).messageId).toBe(job.jobId);
  });

  it('retries a handler that throws until it applies, with backoff', async () => {
    const bus = busFor('retry');
    const ledger = new Ledger();
    const flaky = settlementMessage();
    let failures = 0;
    await bus.consume(async (message) => {
      if (message.messageId === flaky.messageId && failures < 3) {
        failures++;
        throw new Error('wallet database unavailable');
      }
      await ledger.handler(message);
    });
    await bus.publish([flaky, settlementMessage()]);
    await eventually(() => {
      expect(ledger.applied.size).toBe(2);
    });
    expect(failures).toBe(3);
    expect(ledger.delivered(flaky.messageId)).toBe(1);
    expect((await bus.jobCounts()).failed).toBe(0);
  });

  it('keeps a message that used up its attempts as failed, and replays it on demand', async () => {
    const errors: string[] = [];
    const bus = busFor('replay', {
      attempts: 2,
      onError: (_error, context) => {
        if (context.source === 'job' && context.jobId !== undefined) errors.push(context.jobId);
      },
    });
    const ledger = new Ledger();
    let walletDown = true;
    const message = settlementMessage();
    await bus.consume(async (received) => {
      if (walletDown) throw new Error('wallet down');
      await ledger.handler(received);
    });
    await bus.publish([message]);
    await eventually(async () => {
      expect((await bus.jobCounts()).failed).toBe(1);
    });
    const [failed] = await bus.failed();
    expect(failed?.jobId).toBe(message.messageId);
    expect(failed?.attemptsMade).toBe(2);
    expect(failed?.failedReason).toBe('wallet down');
    expect(failed?.data).toEqual(message);
    expect(errors).toContain(message.messageId);

    walletDown = false;
    expect(await bus.replayFailed()).toEqual([message.messageId]);
    await eventually(() => {
      expect(ledger.applied.size).toBe(1);
    });
    expect((await bus.jobCounts()).failed).toBe(0);
    expect(await bus.replayFailed()).toEqual([]);
  });

  it('closes gracefully: a job in flight finishes before close resolves', async () => {
    const bus = busFor('close');
    let release!: () => void;
    const started = new Promise<void>((resolve) => {
      release = resolve;
    });
    let finished = false;
    const consumer = await bus.consume(async () => {
      release();
      await new Promise((resolve) => setTimeout(resolve, 300));
      finished = true;
    });
    await bus.publish([settlementMessage()]);
    await started;
    await consumer.close();
    expect(finished).toBe(true);
    await eventually(async () => {
      expect((await bus.jobCounts()).completed).toBe(1);
    });
  });
});

describe('createSettlementBus', () => {
  it('is BullMQ with a Redis URL and in-process without one', async () => {
    const bullmq = createSettlementBus({ redisUrl: redis.get().url, prefix: redis.get().prefix });
    const local = createSettlementBus({ redisUrl: undefined, prefix: 'x' });
    expect(bullmq).toBeInstanceOf(BullMqSettlementBus);
    expect(local).toBeInstanceOf(InProcessSettlementBus);
    await Promise.all([bullmq.close(), local.close()]);
    await expect(bullmq.publish([settlementMessage()])).rejects.toBeInstanceOf(PublishError);
  });
});
