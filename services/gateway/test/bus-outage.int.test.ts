import { BullMqSettlementBus, PublishError } from '@croupier/messaging';
import { startRedisServer, type RedisProcess } from '@croupier/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settlementMessage } from './support/message.js';
import {
  checkSettledThroughBus,
  eventually,
  context,
  expectedMessages,
  playShoe,
  RecordingBus,
  startSystem,
} from './support/settlement-play.js';

const PLAYERS = ['ivy', 'jon', 'kai', 'lea'];
const DEPOSIT = 3_000_000;

// Redis of this file's own, persistent as production runs it under BullMQ (append-only file,
// fsync always): the test kills it mid-shoe (SIGKILL) and starts it again.
let redis: RedisProcess;
let running: Awaited<ReturnType<typeof startSystem>>;
let bullmq: BullMqSettlementBus;
let recording: RecordingBus;
const outage = { rejected: 0, deliveriesAtKill: 0, deliveriesBeforeRestart: 0 };

beforeAll(async () => {
  redis = await startRedisServer({ persistent: true });
  bullmq = new BullMqSettlementBus({
    redisUrl: redis.url,
    prefix: 'gw-outage',
    backoffMs: 50,
    publishTimeoutMs: 1_000,
    lockDurationMs: 2_000,
    stalledIntervalMs: 500,
    reconnectMaxDelayMs: 200,
  });
  recording = new RecordingBus(bullmq);
  running = await startSystem(recording, { REDIS_URL: redis.url });
});
afterAll(async () => {
  await running.close();
  await redis.cleanup();
});

describe('Redis cut mid-shoe and restored', () => {
  it('delivers every settlement after recovery, balances match, nothing credited twice', async () => {
    const { system, store } = running;
    for (const player of PLAYERS)
      await system.wallets.deposit(
        { playerId: player, amount: DEPOSIT, currency: 'EUR', reference: `seed-${player}` },
        context('operator'),
      );
    await playShoe(system, {
      tableId: 'live-outage',
      players: PLAYERS,
      seed: 11,
      afterRound: async (roundNumber) => {
        if (roundNumber === 15) {
          outage.deliveriesAtKill = recording.deliveries.size;
          await redis.stop('SIGKILL');
          // While Redis is down the outbox cannot hand anything over: publish rejects.
          await expect(bullmq.publish([settlementMessage()])).rejects.toBeInstanceOf(PublishError);
          outage.rejected++;
        }
        if (roundNumber === 30) {
          outage.deliveriesBeforeRestart = recording.deliveries.size;
          await redis.start();
        }
      },
    });
    // The game went on during the outage, but the wallet heard of no settlement while it lasted
    // (at most the few in flight when Redis died).
    expect(outage.rejected).toBe(1);
    expect(outage.deliveriesBeforeRestart - outage.deliveriesAtKill).toBeLessThanOrEqual(4);

    await eventually(
      async () => {
        const expected = await expectedMessages(store);
        for (const message of expected)
          expect(recording.deliveries.has(message.messageId)).toBe(true);
      },
      { timeout: 90_000, interval: 200 },
    );
    const { messages } = await checkSettledThroughBus(system, recording, PLAYERS, DEPOSIT);
    expect(messages.length).toBeGreaterThan(outage.deliveriesBeforeRestart);
    await eventually(
      async () => {
        const counts = await bullmq.jobCounts();
        expect(counts.completed).toBe(messages.length); // one job per message, none doubled
        expect(counts.failed + counts.waiting + counts.active + counts.delayed).toBe(0);
      },
      { timeout: 30_000 },
    );
  }, 240_000);
});
