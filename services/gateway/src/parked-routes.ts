import { parkedIdSchema, PARKING_CONSUMERS } from '@croupier/contracts';
import { contextOf, type HttpApp } from '@croupier/http';
import { z } from 'zod';
import type { System } from './system.js';

const parkedMessageSchema = z.object({
  id: z.string(),
  consumer: z.enum(PARKING_CONSUMERS),
  messageId: z.string(),
  status: z.enum(['parked', 'retrying', 'resolved']),
  code: z.string(),
  detail: z.string(),
  attempts: z.number().int(),
  playerId: z.string().nullable(),
  message: z.record(z.string(), z.unknown()),
  timesParked: z.number().int(),
  firstParkedAt: z.string(),
  lastParkedAt: z.string(),
  retriedAt: z.string().nullable(),
  resolvedAt: z.string().nullable(),
});

/**
 * The messages consumers parked rather than retry forever (ADR 0035), for operators: the list,
 * and a retry once what refused a message is fixed. The retry is recorded here; the consumer's
 * own process tries the message again and records it resolved, or parked once more.
 */
export function parkedMessageRoutes(app: HttpApp, system: System): void {
  app.get(
    '/v1/admin/parked-messages',
    {
      config: { roles: ['operator'], problems: [] },
      schema: {
        tags: ['admin'],
        summary:
          'Messages a consumer could not apply and set aside so the others go on (a payout its wallet refuses, a record failing again and again), oldest first: open ones (parked, or waiting for their retry) by default',
        querystring: z.strictObject({
          status: z.enum(['open', 'resolved', 'all']).default('open'),
          limit: z.coerce.number().int().min(1).max(1_000).default(100),
        }),
        response: { 200: z.object({ messages: z.array(parkedMessageSchema) }) },
      },
    },
    async (request) => ({
      messages: await system.parkedMessages.list({
        status: request.query.status,
        limit: request.query.limit,
      }),
    }),
  );

  app.post(
    '/v1/admin/parked-messages/:id/retry',
    {
      config: { roles: ['operator'], problems: ['PARKED_MESSAGE_NOT_FOUND', 'NOT_PARKED'] },
      schema: {
        tags: ['admin'],
        summary:
          "Tries a parked message again, once what refused it is fixed: recorded at once (202), tried by the consumer's own process, which records it resolved or parks it again",
        params: z.object({ id: parkedIdSchema }),
        response: {
          202: z.object({ id: z.string(), status: z.enum(['parked', 'retrying', 'resolved']) }),
        },
      },
    },
    async (request, reply) => {
      const { consumer, messageId } = request.params.id;
      await system.parking.requestRetry(consumer, messageId, contextOf(request));
      const { status } = await system.parking.state(consumer, messageId);
      return reply.status(202).send({
        id: `${consumer}.${messageId}`,
        status: status === 'none' ? 'parked' : status,
      });
    },
  );
}
