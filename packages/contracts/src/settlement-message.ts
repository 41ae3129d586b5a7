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
import { bankerModeSchema, betTypeSchema, currencySchema } from './table-config.js';

/**
 * The public message wallet systems consume: one per bet settled or refunded. Versioned by
 * `schema`; a new version is a new schema, never a silent change (docs/settlement-messages.md).
 */
export const SETTLEMENT_MESSAGE_SCHEMA = 'croupier.settlement.v1';

export const settlementMessageSchema = z
  .object({
    schema: z.literal(SETTLEMENT_MESSAGE_SCHEMA),
    /** Unique per message and stable across re-sends: deduplicate on it. */
    messageId: uuidSchema,
    kind: z.enum(['settlement', 'refund']),
    roundId: roundIdSchema,
    tableId: tableIdSchema,
    shoeId: shoeIdSchema,
    playerId: playerIdSchema,
    betId: uuidSchema,
    /** The bet's type (null on a refund, which returns the stake whatever the bet). */
    betType: betTypeSchema.nullable(),
    bankerMode: bankerModeSchema.nullable(),
    seat: z.number().int().min(1).max(9).nullable(),
    stake: positiveMinorUnitsSchema,
    /** Amount to credit: stake plus winnings, the stake on a push or refund, 0 on a loss. */
    payout: minorUnitsSchema,
    result: z.enum(['win', 'lose', 'push', 'refund']),
    /** Commission on a Banker win: withheld from payout (deducted) or owed by the seat (accrued). */
    commission: minorUnitsSchema,
    commissionMode: z.enum(['deducted', 'accrued']).nullable(),
    currency: currencySchema,
    /** Why a stake was refunded (refunds only). */
    reason: z.enum(['voided', 'cleared']).nullable(),
    /** RoundSettled.settlementId or BetsRefunded.refundId. */
    settlementId: uuidSchema,
    /** The dealer shift of the round (accrued commission is owed per shift). */
    shiftId: uuidSchema,
    /** The event the message comes from, its global position (decimal) and its chain hash. */
    eventId: uuidSchema,
    position: z.string().regex(/^\d+$/),
    verificationHash: z.string().regex(/^[0-9a-f]{64}$/),
    occurredAt: isoTimestampSchema,
  })
  .strict();

export type SettlementMessage = z.infer<typeof settlementMessageSchema>;
