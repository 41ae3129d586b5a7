import type { EventStore } from '@croupier/eventstore';
import type { HttpApp } from '@croupier/http';
import { playerIdSchema, walletMessageSchema } from '@croupier/contracts';
import { z } from 'zod';
import { playerMessagePage, walletMessagePage } from '../application/wallet-messages.js';

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
  /** Pass as `from` for the next page (the last movement read; `from` again when none). */
  next: z.string(),
  /** True when the page stopped at the limit: more movements may follow now. */
  more: z.boolean(),
  messages: z.array(walletMessageSchema),
});
export type SettlementPage = z.infer<typeof settlementPageSchema>;

export const playerSettlementPageSchema = z.object({
  playerId: z.string().describe('Whose messages.'),
  fromSequence: z.number().int().describe('The first sequence asked for.'),
  nextSequence: z
    .number()
    .int()
    .describe(
      'Pass as `fromSequence` for the next page: one past the last message read (`fromSequence` again when none).',
    ),
  more: z
    .boolean()
    .describe('True when the page stopped at the limit: more messages may follow now.'),
  messages: z.array(walletMessageSchema),
});
export type PlayerSettlementPage = z.infer<typeof playerSettlementPageSchema>;

const limitSchema = z.coerce.number().int().min(1).max(1_000).default(100);

/**
 * Reconciliation: downstream systems list every public settlement message (version 2, one per
 * movement of a player's money) by global position, and fill the gaps the queue left.
 */
export function settlementRoutes(app: HttpApp, deps: { store: EventStore }): void {
  app.get(
    '/v1/settlements',
    {
      // A read of the log: nothing to refuse beyond the query's schema.
      config: { roles: ['operator', 'regulator'], problems: [] },
      schema: {
        tags: ['settlements'],
        summary:
          "Settlement messages (version 2: every movement of a player's money) by global position, for downstream systems to reconcile",
        description:
          "The messages the public queue `settlement-events` carries, rebuilt from the wallets' " +
          'events after position `from` (exclusive; 0 for the start), in global order, at most ' +
          '`limit`. Continue with `from=next`. Positions are decimal strings.',
        querystring: z.strictObject({
          from: positionSchema.default('0'),
          limit: limitSchema,
        }),
        response: { 200: settlementPageSchema },
      },
    },
    (request) => walletMessagePage(deps.store, BigInt(request.query.from), request.query.limit),
  );

  app.get(
    '/v1/settlements/players/:playerId',
    {
      config: { roles: ['operator', 'regulator'], problems: [] },
      schema: {
        tags: ['settlements'],
        summary:
          "One player's settlement messages by sequence, to fill a gap in that player's sequence",
        description:
          "The player's messages from `fromSequence` (inclusive; 1 for the first), in sequence " +
          'order, at most `limit`: the same messages, with the same `messageId`, as ' +
          '`GET /v1/settlements` and the queue `settlement-events`. Continue with ' +
          '`fromSequence=nextSequence`. A player with no wallet, or a sequence not reached yet, ' +
          'gives an empty page.',
        params: z.object({ playerId: playerIdSchema }),
        querystring: z.strictObject({
          fromSequence: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER).default(1),
          limit: limitSchema,
        }),
        response: { 200: playerSettlementPageSchema },
      },
    },
    (request) =>
      playerMessagePage(
        deps.store,
        request.params.playerId,
        request.query.fromSequence,
        request.query.limit,
      ),
  );
}
