import { significantEventSchema } from '@croupier/audit';
import { principalOf, type HttpApp } from '@croupier/http';
import { faultLimitsOf } from '@croupier/round';
import { z } from 'zod';
import { SupervisionFeed, type FeedMessage } from './supervision-feed.js';
import type { System } from './system.js';

/** A comment line every so often keeps proxies and the idle-socket timeout from closing it. */
const HEARTBEAT_MS = 15_000;

const pausedRoundSchema = z.object({
  roundId: z.string(),
  tableId: z.string(),
  shoeId: z.string(),
  cardSource: z.string(),
  status: z.string(),
  cards: z.number().int(),
  reason: z.string().nullable(),
  pausedAt: z.string().nullable(),
  voidsAt: z.string().nullable(),
});

/** One server-sent event: `significant` (its id is the log position) or `paused-rounds`. */
function frame(message: FeedMessage): string {
  if (message.kind === 'significant')
    return `id: ${message.position}\nevent: significant\ndata: ${JSON.stringify(message.event)}\n\n`;
  return `event: paused-rounds\ndata: ${JSON.stringify({ rounds: message.rounds })}\n\n`;
}

/**
 * What supervisors watch (the seed's fault policy, 000: the supervisor is notified): the paused
 * rounds, and a live feed of them and of every significant event, as server-sent events.
 */
export function supervisionRoutes(app: HttpApp, system: System): void {
  const feed = new SupervisionFeed({
    store: system.store,
    watch: system.dealingWatch,
    limits: faultLimitsOf(system.config),
    syncWatch: () => system.readModels.syncToHead([system.dealingWatch.name]),
    onError: (error) => {
      app.log.warn({ err: error }, 'supervision feed: reading the log failed, retrying');
    },
  });
  const streams = new Set<() => void>();
  // Open feeds would hold the server open: they end when it closes (clients reconnect).
  app.addHook('preClose', (done) => {
    for (const end of streams) end();
    feed.stop();
    done();
  });

  app.get(
    '/v1/supervision/paused-rounds',
    {
      config: { roles: ['supervisor', 'operator', 'regulator'], problems: [] },
      schema: {
        tags: ['supervision'],
        summary:
          'Rounds paused now, longest first: why, since when, and when the watchdog voids them unless a supervisor resumes them first',
        response: { 200: z.object({ rounds: z.array(pausedRoundSchema) }) },
      },
    },
    async () => ({ rounds: await feed.pausedRounds() }),
  );

  app.get(
    '/v1/supervision/feed',
    {
      config: { roles: ['supervisor', 'operator', 'regulator'], problems: [] },
      schema: {
        tags: ['supervision'],
        summary:
          'Live feed for supervisors. With `Accept: text/event-stream`, server-sent events: `significant` events (id: the log position; send Last-Event-ID to resume after it, else the latest 50 come first) and `paused-rounds` (every paused round, sent first and whenever a round is paused, resumed or voided). The stream ends when the token expires, after a last `token-expired` event: reconnect with a fresh token and the last id seen. Otherwise, JSON: what the stream would send first',
        headers: z.object({ 'last-event-id': z.string().regex(/^\d+$/).optional() }),
        produces: ['text/event-stream', 'application/json'],
        response: {
          200: z.object({
            events: z.array(significantEventSchema),
            rounds: z.array(pausedRoundSchema),
          }),
        },
      },
    },
    async (request, reply) => {
      const lastSeen = request.headers['last-event-id'];
      const after = lastSeen === undefined ? null : BigInt(lastSeen);
      // A client that does not ask for a stream (a script, a probe) gets one answer, not a stream.
      if (!(request.headers.accept ?? '').includes('text/event-stream'))
        return feed.snapshot(after);
      reply.hijack();
      const raw = reply.raw;
      raw.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        connection: 'keep-alive',
        'x-accel-buffering': 'no',
        'x-correlation-id': request.id,
      });
      raw.write('retry: 3000\n\n');
      // An object, not a flag: the listener's callbacks and `end` change it while this awaits.
      const stream = { open: true };
      const send = (message: FeedMessage) => {
        if (stream.open) raw.write(frame(message));
      };
      const heartbeat = setInterval(() => {
        if (stream.open) raw.write(': keep-alive\n\n');
      }, HEARTBEAT_MS);
      // The token was checked once, at the request: the stream lives no longer than it does. At
      // its `exp` the client is told why (`token-expired`) and the stream ends; it reconnects
      // with a fresh token, sending the last id it saw.
      const { expiresAt } = principalOf(request);
      const expiry =
        expiresAt === undefined
          ? undefined
          : setTimeout(
              () => {
                if (stream.open)
                  raw.write(
                    `event: token-expired\ndata: ${JSON.stringify({ expiredAt: new Date(expiresAt * 1_000).toISOString() })}\n\n`,
                  );
                end();
              },
              Math.max(0, expiresAt * 1_000 - Date.now()),
            );
      let unlisten: () => void = () => undefined;
      const end = () => {
        if (!stream.open) return;
        stream.open = false;
        clearInterval(heartbeat);
        clearTimeout(expiry);
        unlisten();
        streams.delete(end);
        raw.end();
      };
      streams.add(end);
      request.raw.on('close', end);
      try {
        unlisten = await feed.listen(send, after);
        // Closed by the client while it was being sent what it missed.
        if (!stream.open) unlisten();
      } catch (error) {
        request.log.warn({ err: error }, 'supervision feed: could not start');
        end();
      }
      return reply;
    },
  );
}
