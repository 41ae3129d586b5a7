import { BullMqSettlementBus } from '@croupier/messaging';
import { useRedisPrefix } from '@croupier/testkit/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  checkSettledThroughBus,
  eventually,
  context,
  expectedMessages,
  playShoe,
  RecordingBus,
  startSystem,
} from './support/settlement-play.js';

const PLAYERS = ['ana', 'ben', 'chen', 'dora', 'eli'];
const DEPOSIT = 2_000_000;
const redis = useRedisPrefix('gwbus');

describe('a shoe settled through BullMQ', () => {
  let running: Awaited<ReturnType<typeof startSystem>>;
  let bullmq: BullMqSettlementBus;
  let recording: RecordingBus;
  beforeAll(async () => {
    bullmq = new BullMqSettlementBus({
      redisUrl: redis.get().url,
      prefix: redis.get().prefix,
      backoffMs: 50,
    });
    recording = new RecordingBus(bullmq);
    running = await startSystem(recording, { REDIS_URL: redis.get().url });
  });
  afterAll(async () => {
    await running.close();
  });

  it('sends every settled round to the bus once per event, and the wallet fed by it balances', async () => {
    const { system, store } = running;
    for (const player of PLAYERS)
      await system.wallets.deposit(
        { playerId: player, amount: DEPOSIT, currency: 'EUR', reference: `seed-${player}` },
        context('operator'),
      );
    const rounds = await playShoe(system, { tableId: 'live-bus', players: PLAYERS, seed: 5 });
    expect(rounds.length).toBeGreaterThan(60);

    await eventually(
      async () => {
        const expected = await expectedMessages(store);
        expect(recording.deliveries.size).toBe(expected.length);
      },
      { timeout: 60_000, interval: 100 },
    );
    const { messages } = await checkSettledThroughBus(system, recording, PLAYERS, DEPOSIT);
    // Settlements, the voided round's refunds and cleared bets' refunds all travelled.
    expect(new Set(messages.map((m) => m.reason))).toEqual(new Set([null, 'voided', 'cleared']));
    // Once per event: each message delivered once, and the queue holds exactly one job each.
    for (const message of messages) expect(recording.deliveries.get(message.messageId)).toBe(1);
    const counts = await bullmq.jobCounts();
    expect(counts.completed).toBe(messages.length);
    expect(counts.failed).toBe(0);
    const perEvent = new Map<string, number>();
    for (const message of recording.published)
      perEvent.set(message.eventId, (perEvent.get(message.eventId) ?? 0) + 1);
    for (const eventId of new Set(messages.map((m) => m.eventId))) {
      const lines = messages.filter((m) => m.eventId === eventId).length;
      expect(perEvent.get(eventId)).toBe(lines);
    }
  }, 180_000);
});
