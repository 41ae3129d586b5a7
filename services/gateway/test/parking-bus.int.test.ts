import { randomUUID } from 'node:crypto';
import type { ParkedMessageView } from '@croupier/application';
import { PLAY_MONEY_CURRENCY, presetConfig } from '@croupier/contracts';
import { BullMqSettlementBus } from '@croupier/messaging';
import { useRedisPrefix } from '@croupier/testkit/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/index.js';
import { as } from './support/casino.js';
import { playUntilFunWin, until } from './support/fun-win.js';
import { eventually, RecordingBus, startSystem } from './support/settlement-play.js';

const redis = useRedisPrefix('gwpark');

/**
 * Issue 24, defect 6 on the BullMQ bus (ADR 0035): the settlement service's messages reach
 * Croupier's wallet through Redis (`wallet-ledger`). A payout the wallet refuses for good (a fun
 * win past what a balance holds, BALANCE_LIMIT) is parked by the wallet's bus handler, so its
 * job completes once instead of going through its attempts to the failed set; another player's
 * payout on the same queue is applied; an operator's retry after the fix applies it.
 */
describe('on the BullMQ bus, a payout the wallet cannot apply is parked and the others go on', () => {
  let running: Awaited<ReturnType<typeof startSystem>>;
  let bullmq: BullMqSettlementBus;
  let recording: RecordingBus;
  const sessionId = `s-fun-${randomUUID().slice(0, 8)}`;
  const fay = as('fay', 'player');
  const olga = as('olga', 'operator');

  async function parked(): Promise<ParkedMessageView[]> {
    await running.system.sync();
    return running.system.parkedMessages.list({ status: 'all' });
  }

  beforeAll(async () => {
    bullmq = new BullMqSettlementBus({
      redisUrl: redis.get().url,
      prefix: redis.get().prefix,
      // Fast retries: a refusal that was not parked would go through its attempts quickly.
      backoffMs: 50,
    });
    recording = new RecordingBus(bullmq);
    // One message at a time: a refused one in the worker's way would hold the others up.
    running = await startSystem(recording, {
      REDIS_URL: redis.get().url,
      WALLET_CONSUMER_CONCURRENCY: '1',
    });
    const { system } = running;
    await system.rounds.openSession(
      {
        sessionId,
        config: presetConfig('touch', { currency: PLAY_MONEY_CURRENCY }),
        session: { ownerId: 'fay', idleTimeoutMs: 3_600_000, fun: true },
      },
      fay,
    );
    await system.rounds.openTable(
      {
        tableId: 'real-bus',
        config: presetConfig('live'),
        dealing: { mode: 'manual', bettingWindowMs: 0 },
      },
      olga,
    );
    await system.wallets.deposit(
      { playerId: 'rita', amount: 1_000_000, currency: 'EUR', reference: 'rita-1' },
      olga,
    );
  });
  afterAll(async () => {
    await running.close();
  });

  it("parks the refused fun win (its job completes, once) and delivers another player's real payout", async () => {
    const { system } = running;
    const won = await playUntilFunWin(system, sessionId, fay, 1_000);
    const [refused] = await until(parked, (list) => list.length > 0);
    expect(refused).toMatchObject({
      consumer: 'wallet-ledger',
      status: 'parked',
      code: 'BALANCE_LIMIT',
      playerId: 'fay',
      attempts: 1,
    });
    expect(refused?.message).toMatchObject({ roundId: won.roundId, playerId: 'fay' });

    // Rita's round is settled after it, through the same queue and the same one worker.
    const dealer = as('dan', 'dealer');
    const round = await system.rounds.openRound('real-bus', dealer);
    await system.rounds.placeBets(
      round.roundId,
      'rita',
      [
        { type: 'player', amount: 1_000 },
        { type: 'banker', amount: 1_000, bankerMode: 'commission' },
      ],
      as('rita', 'player'),
    );
    await system.rounds.closeBetting(round.roundId, dealer);
    await system.rounds.deal(round.roundId, dealer);
    await eventually(
      async () => {
        expect((await system.wallets.getWallet('rita')).openStakes).toBe(0);
      },
      { timeout: 60_000 },
    );
    const ritas = recording.published.filter((message) => message.roundId === round.roundId);
    expect(ritas).toHaveLength(2);
    for (const message of ritas) expect(recording.deliveries.get(message.messageId)).toBe(1);

    // The refused payout's job was handled once and completed: parked, not retried by BullMQ,
    // nor left in the failed set. Fay's winning stake stays open: owed, not lost.
    expect(recording.deliveries.get(refused!.messageId)).toBe(1);
    const jobs = await bullmq.keptJobs();
    expect(jobs.find((job) => job.jobId === refused!.messageId)?.state).toBe('completed');
    expect((await bullmq.jobCounts()).failed).toBe(0);
    expect((await system.wallets.getWallet('fay', 'fun')).openStakes).toBe(1);
  }, 120_000);

  it('an operator retries it: parked again before the fix, applied and resolved after it', async () => {
    const { system } = running;
    const app = await buildApp(system);
    try {
      const token = await system.tokens.issue({ id: 'olga', role: 'operator' }, '5m');
      const headers = { authorization: `Bearer ${token}` };
      const [refused] = await parked();
      const retry = () =>
        app.inject({
          method: 'POST',
          url: `/v1/admin/parked-messages/${refused!.id}/retry`,
          headers,
        });

      expect((await retry()).statusCode).toBe(202);
      const again = await until(parked, ([view]) => view?.timesParked === 2);
      expect(again[0]).toMatchObject({ status: 'parked', code: 'BALANCE_LIMIT', attempts: 2 });

      // The fix: fay's fun wallet has room again (she stakes play money on her next round).
      const { round } = await system.rounds.sessionRound(sessionId, fay);
      await system.rounds.placeBets(
        round.roundId,
        'fay',
        [{ type: 'banker', amount: 40_000, bankerMode: 'commission' }],
        fay,
      );
      expect((await retry()).statusCode).toBe(202);
      const resolved = await until(parked, ([view]) => view?.status === 'resolved');
      expect(resolved[0]?.resolvedAt).not.toBeNull();
      // Her winning stake is paid at last: only the new bet is open.
      const wallet = await system.wallets.getWallet('fay', 'fun');
      expect(wallet.openStakes).toBe(1);
      // Applied by the retry, not by the bus: the job is not handed to the worker again.
      expect(recording.deliveries.get(refused!.messageId)).toBe(1);
      expect((await bullmq.jobCounts()).failed).toBe(0);
    } finally {
      await app.close();
    }
  }, 120_000);
});
