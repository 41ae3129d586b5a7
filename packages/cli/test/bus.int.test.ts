import { BullMqSettlementBus, type SettlementConsumer } from '@croupier/messaging';
import {
  isolatedRedisPrefix,
  settlementMessage,
  type IsolatedRedisPrefix,
} from '@croupier/testkit';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { run, type CommandIo } from '../src/index.js';

/** A Player win of 1,000 paying 2,000 to `playerId`. */
const message = (playerId: string) =>
  settlementMessage({
    playerId,
    betType: 'player',
    bankerMode: null,
    payout: 2_000,
    commission: 0,
    position: '1',
  });

function captured(): CommandIo & { out: () => string; err: () => string } {
  let out = '';
  let err = '';
  return {
    stdout: (text) => (out += text),
    stderr: (text) => (err += text),
    interactive: false,
    out: () => out,
    err: () => err,
  };
}

async function casino(...argv: string[]) {
  const io = captured();
  const code = await run(argv, io);
  return { code, out: io.out(), err: io.err() };
}

/**
 * `croupier bus failed` and `croupier bus replay-failed` on a real Redis, under a key prefix of
 * this file's own, found through REDIS_URL and REDIS_PREFIX as the services find it.
 */
describe('croupier bus: failed settlement messages, listed and replayed', () => {
  let redis: IsolatedRedisPrefix;
  let bus: BullMqSettlementBus;
  let consumer: SettlementConsumer;
  /** Whether the wallet stand-in applies messages; it refuses them until the fault is fixed. */
  let walletUp = false;
  const applied = new Set<string>();
  const poison = message('mallory');
  const refused = [message('amy'), message('bob')];

  beforeAll(async () => {
    redis = await isolatedRedisPrefix('cli_bus');
    vi.stubEnv('REDIS_URL', redis.url);
    vi.stubEnv('REDIS_PREFIX', redis.prefix);
    // The services' queue, with one attempt per message so a failure is final at once.
    bus = new BullMqSettlementBus({ redisUrl: redis.url, prefix: redis.prefix, attempts: 1 });
    consumer = await bus.consume((settlement) => {
      if (!walletUp || settlement.playerId === 'mallory')
        return Promise.reject(new Error(`wallet unavailable for ${settlement.playerId}`));
      applied.add(settlement.messageId);
      return Promise.resolve();
    });
    await bus.publish([...refused, poison]);
    await vi.waitFor(
      async () => {
        expect((await bus.jobCounts()).failed).toBe(3);
      },
      { timeout: 15_000, interval: 100 },
    );
  });
  afterAll(async () => {
    vi.unstubAllEnvs();
    await consumer.close();
    await bus.close();
    await redis.cleanup();
  });

  it('lists the failed jobs with their reason, and the queue counts', async () => {
    const { code, out } = await casino('bus', 'failed');
    expect(code).toBe(0);
    expect(out).toContain(`Queue ${redis.prefix.replace(/:+$/, '')}:wallet-ledger:`);
    expect(out).toContain('3 failed');
    for (const job of [...refused, poison]) {
      expect(out).toContain(job.messageId);
      expect(out).toContain(`wallet unavailable for ${job.playerId}`);
    }
    expect(out).toContain(`settlement live.1.1 amy bet ${refused[0]!.betId} payout 2000 EUR`);

    const json = await casino('bus', 'failed', '--json', '--limit', '2');
    const listed = JSON.parse(json.out) as {
      counts: { failed: number };
      failed: { jobId: string; attemptsMade: number; failedReason: string }[];
    };
    expect(listed.counts.failed).toBe(3);
    expect(listed.failed).toHaveLength(2);
    expect(listed.failed[0]).toMatchObject({ attemptsMade: 1 });
  });

  it('replays the jobs named, then all the others; what still fails goes back to the failed set', async () => {
    walletUp = true;
    const one = await casino('bus', 'replay-failed', '--job', refused[0]!.messageId);
    expect(one.code).toBe(0);
    expect(one.out).toContain(
      `Replayed 1 job(s) with a fresh budget of attempts: ${refused[0]!.messageId}`,
    );
    await vi.waitFor(() => {
      expect(applied.has(refused[0]!.messageId)).toBe(true);
    });

    // A job that is not (or no longer) failed is left alone, and said so: exit code 1.
    const again = await casino('bus', 'replay-failed', '--job', refused[0]!.messageId, '--json');
    expect(again.code).toBe(1);
    expect(JSON.parse(again.out)).toEqual({ replayed: [], notFailed: [refused[0]!.messageId] });

    const rest = await casino('bus', 'replay-failed', '--json');
    expect(rest.code).toBe(0);
    expect((JSON.parse(rest.out) as { replayed: string[] }).replayed.sort()).toEqual(
      [refused[1]!.messageId, poison.messageId].sort(),
    );
    await vi.waitFor(
      async () => {
        expect(applied.has(refused[1]!.messageId)).toBe(true);
        expect(await bus.jobCounts()).toMatchObject({ failed: 1, completed: 2 });
      },
      { timeout: 15_000, interval: 100 },
    );
    const { out } = await casino('bus', 'failed');
    expect(out).toContain(poison.messageId);
    expect(out).not.toContain(refused[1]!.messageId);
  });

  it('says what is missing or wrong, and when Redis does not answer', async () => {
    expect((await casino('bus')).code).toBe(2);
    expect((await casino('bus', 'purge')).err).toContain('unknown "purge"');
    expect((await casino('bus', 'failed', '--limit', '0')).err).toContain('--limit must be');

    vi.stubEnv('REDIS_URL', undefined);
    const unset = await casino('bus', 'failed');
    expect(unset.code).toBe(2);
    expect(unset.err).toContain('REDIS_URL: is required');

    vi.stubEnv('REDIS_URL', 'redis://:hunter2@127.0.0.1:1');
    const down = await casino('bus', 'failed');
    expect(down.code).toBe(3);
    expect(down.err).toContain('Redis does not answer');
    expect(down.err).not.toContain('hunter2');
    vi.stubEnv('REDIS_URL', redis.url);
  });
});
