import { z } from 'zod';
import { eventSchema } from './common.js';

/**
 * The consumers that park a message they cannot apply rather than retry it forever (ADR 0035):
 * each one's name is the first part of its parked streams, `parked-<consumer>.<messageId>`.
 * - `wallet-ledger`: Croupier's wallet applying the settlement service's messages (either bus);
 * - `settlement-outbox`: the settlement service publishing them;
 * - `settlement`: the settlement reactor settling, refunding and resettling rounds;
 * - `wallet-commission-collector`: collecting accrued commission at a dealer change;
 * - `operator-wallet-feed`: seamless mode turning settlement records into the operator's credits
 *   (and applying play money to fun wallets);
 * - `operator-wallet-outbox`: seamless mode's credits and rollbacks to the operator's wallet.
 */
export const PARKING_CONSUMERS = [
  'wallet-ledger',
  'settlement-outbox',
  'settlement',
  'wallet-commission-collector',
  'operator-wallet-feed',
  'operator-wallet-outbox',
] as const;
export const parkingConsumerSchema = z.enum(PARKING_CONSUMERS);
export type ParkingConsumer = z.infer<typeof parkingConsumerSchema>;

/**
 * A message's id within its consumer: a message id, an event id, a call's key (dots allowed:
 * a consumer's name has none, so the first dot of `<consumer>.<messageId>` ends it).
 */
export const parkedMessageIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.:@-]{0,199}$/, 'must be 1-200 letters, digits or _ . : @ -');

/** `<consumer>.<messageId>`: how an operator names a parked message (the stream's id part). */
export const parkedIdSchema = z
  .string()
  .max(300)
  .transform((id, context) => {
    const dot = id.indexOf('.');
    const consumer = parkingConsumerSchema.safeParse(id.slice(0, Math.max(0, dot)));
    const messageId = parkedMessageIdSchema.safeParse(id.slice(dot + 1));
    if (dot < 0 || !consumer.success || !messageId.success) {
      context.addIssue({
        code: 'custom',
        message: `must be <consumer>.<messageId>, the consumer one of ${PARKING_CONSUMERS.join(', ')}`,
      });
      return z.NEVER;
    }
    return { consumer: consumer.data, messageId: messageId.data };
  });

export const parkedIdOf = (consumer: ParkingConsumer, messageId: string): string =>
  `${consumer}.${messageId}`;

const parkedMessageFields = {
  consumer: parkingConsumerSchema,
  messageId: parkedMessageIdSchema,
};

/**
 * A consumer could not apply a message and set it aside, to go on with the others: refused in a
 * way retrying cannot fix (a domain error such as BALANCE_LIMIT), or failing `attempts` times.
 * `message` is what the consumer needs to try it again (the message itself, or where its event
 * is in the log); `playerId` is the player it concerns, when one does.
 */
export const messageParked = eventSchema(
  'MessageParked',
  z
    .object({
      ...parkedMessageFields,
      /** The error's stable code (`BALANCE_LIMIT`), or its name when it has none. */
      code: z.string().min(1).max(100),
      detail: z.string().max(2_000),
      attempts: z.number().int().positive(),
      playerId: z.string().min(1).max(64).nullable(),
      message: z.record(z.string(), z.unknown()),
    })
    .strict(),
);

/** An operator asked for a parked message to be tried again (after fixing what refused it). */
export const parkedMessageRetried = eventSchema(
  'ParkedMessageRetried',
  z.object({ ...parkedMessageFields }).strict(),
);

/** A parked message was applied after all: nothing is owed for it any more. */
export const parkedMessageResolved = eventSchema(
  'ParkedMessageResolved',
  z.object({ ...parkedMessageFields }).strict(),
);

export const parkedMessageEventSchema = z.discriminatedUnion('type', [
  messageParked,
  parkedMessageRetried,
  parkedMessageResolved,
]);
export type ParkedMessageEvent = z.infer<typeof parkedMessageEventSchema>;
