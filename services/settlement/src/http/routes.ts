import { settlementMessageSchema, streams, type SettlementMessage } from '@croupier/contracts';
import type { EventStore } from '@croupier/eventstore';
import type { HttpApp } from '@croupier/http';
import { z } from 'zod';
import { OUTBOX_EVENTS, settlementMessagesOf } from '../application/outbox.js';

/**
 * A global position on the wire: a decimal string. Positions are unsigned 128-bit integers (the
 * PostgreSQL adapter packs transaction id and sequence, docs/adr/0002), far past 2^53.
 */
const positionSchema = z
  .string()
  .regex(/^\d{1,39}$/, 'must be a decimal position (0 for the start)')
  // zod runs every check even after one failed: BigInt() must not see what the regex refused.
  .refine((text) => !/^\d{1,39}$/.test(text) || BigInt(text) < 2n ** 128n, 'must be below 2^128');

export const settlementPageSchema = z.object({
  /** The cursor the page was read after. */
  from: z.string(),
  /** Pass as `from` for the next page (the last record read; `from` again when none). */
  next: z.string(),
  /** True when the page stopped at the limit: more records follow now. */
  more: z.boolean(),
  messages: z.array(settlementMessageSchema),
});
export type SettlementPage = z.infer<typeof settlementPageSchema>;

/**
 * The messages the outbox publishes, in global order after `from` (the outbox itself publishes a
 * page's rounds at once, each round's records in order): at most
 * `limit` messages, never splitting a record's messages across pages (a record with more
 * messages than `limit` comes whole, alone).
 */
export async function settlementPage(
  store: EventStore,
  from: bigint,
  limit: number,
): Promise<SettlementPage> {
  const events = await store.readAll({
    after: from,
    limit,
    filter: { streamPrefix: streams.round(''), eventTypes: OUTBOX_EVENTS },
  });
  const messages: SettlementMessage[] = [];
  let next = from;
  let cut = false;
  for (const event of events) {
    const ofEvent = settlementMessagesOf(event);
    if (messages.length > 0 && messages.length + ofEvent.length > limit) {
      cut = true;
      break;
    }
    messages.push(...ofEvent);
    next = event.position;
  }
  return {
    from: from.toString(),
    next: next.toString(),
    more: cut || events.length === limit,
    messages,
  };
}

/** Reconciliation: wallet systems list what they should have received, and fill the gaps. */
export function settlementRoutes(app: HttpApp, deps: { store: EventStore }): void {
  app.get(
    '/v1/settlements',
    {
      // A read of the log: nothing to refuse beyond the query's schema.
      config: { roles: ['operator', 'regulator'], problems: [] },
      schema: {
        tags: ['settlements'],
        summary:
          'Settlement messages by global position (the bus contract), for wallet systems to reconcile',
        description:
          'Messages of the settlement and refund records after position `from` (exclusive; 0 for the ' +
          'start), in global order, at most `limit` messages, a record never split. Continue with ' +
          '`from=next`. Positions are decimal strings.',
        querystring: z.strictObject({
          from: positionSchema.default('0'),
          limit: z.coerce.number().int().min(1).max(1_000).default(100),
        }),
        response: { 200: settlementPageSchema },
      },
    },
    (request) => settlementPage(deps.store, BigInt(request.query.from), request.query.limit),
  );
}
