import { presetConfig } from '@croupier/contracts';
import type { HttpApp } from '@croupier/http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/index.js';
import { as, startCasino, type Casino } from './support/casino.js';

/**
 * Supervisors are notified (the seed's fault policy, 000): a live feed of server-sent events,
 * for the roles that read significant events, of every significant event and of the paused
 * rounds. Read over a real socket, as a browser reads it.
 */
let casino: Casino;
let app: HttpApp;
let base: string;
const tokens: Record<string, string> = {};

beforeAll(async () => {
  casino = await startCasino(undefined, { DEALING_STALL_MS: '0', VOID_AFTER_PAUSE_MS: '600000' });
  app = await buildApp(casino.system);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  base = `http://127.0.0.1:${address.port}`;
  for (const role of ['player', 'supervisor', 'regulator'] as const)
    tokens[role] = await casino.system.tokens.issue({ id: `${role}-1`, role });
  await casino.system.rounds.openTable(
    {
      tableId: 'pit',
      config: presetConfig('live'),
      dealing: { mode: 'manual', bettingWindowMs: 0 },
    },
    as('olga', 'operator'),
  );
});

afterAll(async () => {
  await app.close();
  await casino.close();
});

interface Frame {
  readonly id: string | null;
  readonly event: string;
  readonly data: unknown;
}

/** Reads a feed's frames as they come; `next` waits for one that matches. */
async function openFeed(role: string, lastEventId?: string, token = tokens[role]!) {
  const controller = new AbortController();
  const response = await fetch(`${base}/v1/supervision/feed`, {
    headers: {
      authorization: `Bearer ${token}`,
      accept: 'text/event-stream',
      ...(lastEventId === undefined ? {} : { 'last-event-id': lastEventId }),
    },
    signal: controller.signal,
  });
  const frames: Frame[] = [];
  const waiters: (() => void)[] = [];
  const reading = (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of response.body!) {
      buffer += decoder.decode(chunk as Uint8Array, { stream: true });
      let end;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const fields = new Map<string, string>();
        for (const line of block.split('\n')) {
          const colon = line.indexOf(':');
          if (colon > 0) fields.set(line.slice(0, colon), line.slice(colon + 1).trimStart());
        }
        if (!fields.has('event')) continue;
        frames.push({
          id: fields.get('id') ?? null,
          event: fields.get('event')!,
          data: JSON.parse(fields.get('data') ?? 'null'),
        });
        for (const wake of waiters.splice(0)) wake();
      }
    }
  })().catch(() => undefined);
  return {
    response,
    frames,
    /** Resolves when the server ends the stream (or it is closed here). */
    ended: reading,
    async next(match: (frame: Frame) => boolean, from = 0): Promise<Frame> {
      for (let waited = 0; waited < 200; waited++) {
        const found = frames.slice(from).find(match);
        if (found !== undefined) return found;
        await Promise.race([
          new Promise<void>((resolve) => waiters.push(resolve)),
          new Promise((resolve) => setTimeout(resolve, 100)),
        ]);
      }
      throw new Error('no such frame on the feed');
    },
    async close() {
      controller.abort();
      await reading;
    },
  };
}

describe('the supervision feed', () => {
  it('refuses a player and a request without a token', async () => {
    const player = await fetch(`${base}/v1/supervision/feed`, {
      headers: { authorization: `Bearer ${tokens['player']!}` },
    });
    expect(player.status).toBe(403);
    expect((await fetch(`${base}/v1/supervision/feed`)).status).toBe(401);
  });

  it('sends the paused rounds, then each pause, resume and void as it happens', async () => {
    const feed = await openFeed('supervisor');
    expect(feed.response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const first = await feed.next((frame) => frame.event === 'paused-rounds');
    expect(first.data).toEqual({ rounds: [] });
    // The table opened before: it comes with the latest significant events.
    await feed.next(
      (frame) =>
        frame.event === 'significant' &&
        (frame.data as { type: string; tableId: string }).type === 'TableOpened',
    );
    const { system } = casino;
    const { roundId } = await system.rounds.openRound('pit', as('dan', 'dealer'));
    const seen = feed.frames.length;
    await system.rounds.pause(roundId, 'shuffler jammed', as('sue', 'supervisor'));
    const paused = await feed.next((frame) => frame.event === 'significant', seen);
    expect(paused.id).toMatch(/^\d+$/);
    expect(paused.data).toMatchObject({
      category: 'pause',
      type: 'RoundPaused',
      tableId: 'pit',
      actor: { id: 'sue', role: 'supervisor' },
    });
    const list = await feed.next(
      (frame) =>
        frame.event === 'paused-rounds' && (frame.data as { rounds: unknown[] }).rounds.length > 0,
      seen,
    );
    expect(list.data).toMatchObject({
      rounds: [{ roundId, tableId: 'pit', reason: 'shuffler jammed', status: 'betting' }],
    });
    const [round] = (list.data as { rounds: { pausedAt: string; voidsAt: string }[] }).rounds;
    expect(Date.parse(round!.voidsAt) - Date.parse(round!.pausedAt)).toBe(600_000);

    // A feed that reconnects with the last id it saw gets what came after, and nothing before.
    const again = await openFeed('regulator', paused.id!);
    await system.rounds.void(roundId, 'shuffler replaced', as('sue', 'supervisor'));
    const voided = await again.next((frame) => frame.event === 'significant');
    expect(voided.data).toMatchObject({ type: 'RoundVoided', category: 'void' });
    expect(again.frames.filter((frame) => frame.event === 'significant')).toHaveLength(1);
    await again.next(
      (frame) =>
        frame.event === 'paused-rounds' &&
        (frame.data as { rounds: unknown[] }).rounds.length === 0 &&
        again.frames.indexOf(frame) > again.frames.indexOf(voided),
    );
    await Promise.all([feed.close(), again.close()]);
  });

  it("ends the stream at the token's exp, with a last token-expired event", async () => {
    // A token that expires in two seconds: the feed must not outlive it.
    const exp = Math.floor(Date.now() / 1_000) + 2;
    const token = await casino.system.tokens.issue({ id: 'sue', role: 'supervisor' }, exp);
    const feed = await openFeed('supervisor', undefined, token);
    expect(feed.response.status).toBe(200);
    await feed.ended;
    expect(feed.frames.at(-1)).toEqual({
      id: null,
      event: 'token-expired',
      data: { expiredAt: new Date(exp * 1_000).toISOString() },
    });
    expect(feed.frames.filter((frame) => frame.event === 'token-expired')).toHaveLength(1);
  });

  it('lists the paused rounds on request too', async () => {
    const { system } = casino;
    // Left open: closing the app ends it rather than waiting for it.
    await openFeed('supervisor');
    const { roundId } = await system.rounds.openRound('pit', as('dan', 'dealer'));
    await system.rounds.pause(roundId, 'dealer unwell', as('sue', 'supervisor'));
    const response = await app.inject({
      method: 'GET',
      url: '/v1/supervision/paused-rounds',
      headers: { authorization: `Bearer ${tokens['supervisor']!}` },
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ rounds: [{ roundId, reason: 'dealer unwell' }] });
    // The feed asked without `Accept: text/event-stream` answers once, in JSON.
    const once = await app.inject({
      method: 'GET',
      url: '/v1/supervision/feed',
      headers: { authorization: `Bearer ${tokens['regulator']!}` },
    });
    expect(once.statusCode).toBe(200);
    const answer = once.json<{ rounds: { roundId: string }[]; events: { type: string }[] }>();
    expect(answer.rounds.map((round) => round.roundId)).toEqual([roundId]);
    expect(answer.events.map((event) => event.type)).toContain('RoundPaused');
    await system.rounds.resume(roundId, as('sue', 'supervisor'));
  });
});
