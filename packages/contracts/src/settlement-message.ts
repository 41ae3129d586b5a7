import { z } from 'zod';
import {
  isoTimestampSchema,
  minorUnitsSchema,
  playerIdSchema,
  positiveMinorUnitsSchema,
  roundIdSchema,
  shoeIdSchema,
  tableIdSchema,
  uuidSchema,
} from './ids.js';
import { publishedJsonSchema } from './json-schema.js';
import { bankerModeSchema, betTypeSchema, currencySchema } from './table-config.js';

/**
 * Version 1 of the settlement message: one per bet settled or refunded. Since version 2 (every
 * movement of a player's money, `walletMessageSchema`) it is what the settlement service tells
 * Croupier's own wallet, on a queue of its own (`wallet-ledger`); it stays documented, as
 * docs/settlement-message.v1.schema.json, for consumers moving to version 2.
 */
export const SETTLEMENT_MESSAGE_SCHEMA = 'croupier.settlement.v1';

/** A message's position: its event's in the store, the cursor of `GET /v1/settlements` (both versions). */
export const messagePositionSchema = z
  .string()
  .regex(/^\d+$/)
  .describe(
    "The event's global position in Croupier's store, a decimal integer string (may exceed 2^53): the reconciliation cursor.",
  );

export const settlementMessageSchema = z
  .object({
    schema: z
      .literal(SETTLEMENT_MESSAGE_SCHEMA)
      .describe('Message schema and version; a new version is a new value.'),
    messageId: uuidSchema.describe(
      'Unique per message and stable across re-sends (the BullMQ job id): deduplicate on it.',
    ),
    kind: z
      .enum(['settlement', 'refund', 'adjustment'])
      .describe(
        'settlement: a bet resolved by a dealt round; refund: a stake returned; adjustment: a settled bet paid again after its round was voided or its result corrected.',
      ),
    roundId: roundIdSchema.describe('The round: <tableId>.<shoe number>.<round number>.'),
    tableId: tableIdSchema.describe('The table the round was played at.'),
    shoeId: shoeIdSchema.describe('The shoe the round was dealt from: <tableId>.<shoe number>.'),
    playerId: playerIdSchema.describe('The player whose bet this is.'),
    betId: uuidSchema.describe(
      'The bet. Its stake is closed by exactly one settlement or refund message; each later resettlement of its round (voided or corrected after settlement) adds one adjustment message for it.',
    ),
    betType: betTypeSchema
      .nullable()
      .describe(
        "The bet's type; null on a refund, which returns the stake whatever the bet, and on an adjustment (the bet's settlement message names it).",
      ),
    bankerMode: bankerModeSchema
      .nullable()
      .describe('Banker bets: commission or no_commission; null otherwise.'),
    seat: z
      .number()
      .int()
      .min(1)
      .max(9)
      .nullable()
      .describe('Seat number on seated (land-based) tables; null elsewhere.'),
    stake: positiveMinorUnitsSchema.describe(
      'The amount staked, in minor units of currency (debited when the bet was placed).',
    ),
    payout: minorUnitsSchema.describe(
      'Amount to credit, minor units: stake plus winnings on a win, the stake on a push or refund, 0 on a loss.',
    ),
    result: z.enum(['win', 'lose', 'push', 'refund']).describe('How the bet ended.'),
    commission: minorUnitsSchema.describe(
      'Commission on a Banker win, minor units: already withheld from payout (deducted) or owed by the seat (accrued).',
    ),
    commissionMode: z
      .enum(['deducted', 'accrued'])
      .nullable()
      .describe('How commission is taken at the table; null on a refund.'),
    currency: currencySchema.describe('ISO 4217 code of every amount in the message.'),
    adjustment: z
      .object({
        previousPayout: minorUnitsSchema.describe('What the bet had been paid.'),
        delta: z
          .number()
          .int()
          .describe('payout - previousPayout: credit it (a negative delta takes money back).'),
        commissionDelta: z
          .number()
          .int()
          .describe('Change of the commission (owed, on accrued-commission tables).'),
      })
      .strict()
      .nullable()
      .describe(
        'Adjustments: what changes for a bet settled before (apply delta, not payout). Null on settlements and refunds; always present.',
      ),
    reason: z
      .enum(['voided', 'cleared', 'corrected'])
      .nullable()
      .describe(
        'Why, on refunds and adjustments (null on settlements). A refund: the round was voided, or the player cleared the bet. An adjustment: the settled round was voided, or its result corrected.',
      ),
    settlementId: uuidSchema.describe(
      'The settlement record (RoundSettled.settlementId) or refund record (BetsRefunded.refundId).',
    ),
    shiftId: uuidSchema.describe(
      'The dealer shift of the round (accrued commission is owed per shift, collected at its end).',
    ),
    eventId: uuidSchema.describe('The event the message comes from (several messages share one).'),
    position: messagePositionSchema,
    verificationHash: z
      .string()
      .regex(/^[0-9a-f]{64}$/)
      .describe(
        "The event's hash in its round's hash chain (hex sha256): checkable against the audit API.",
      ),
    occurredAt: isoTimestampSchema.describe(
      'When the settlement or refund was recorded (ISO 8601).',
    ),
  })
  .strict()
  .describe(
    'One bet settled or refunded by Croupier, as wallet systems receive it. Amounts are integers in minor units.',
  );

export type SettlementMessage = z.infer<typeof settlementMessageSchema>;

/** Identifies the version 1 JSON Schema (docs/settlement-message.v1.schema.json). */
export const SETTLEMENT_MESSAGE_JSON_SCHEMA_ID = 'urn:croupier:settlement-message:v1';

/** The message contract as JSON Schema (draft 2020-12), for wallet systems not written in TypeScript. */
export function settlementMessageJsonSchema(): Record<string, unknown> {
  return publishedJsonSchema(
    settlementMessageSchema,
    SETTLEMENT_MESSAGE_JSON_SCHEMA_ID,
    'Croupier settlement message, v1',
  );
}
