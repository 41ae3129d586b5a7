import { z } from 'zod';
import {
  playerIdSchema,
  positiveMinorUnitsSchema,
  roundIdSchema,
  tableIdSchema,
  uuidSchema,
} from '../ids.js';
import { currencySchema } from '../table-config.js';
import { eventSchema } from './common.js';

const reference = z.string().min(1).max(128);

export const fundsDeposited = eventSchema(
  'FundsDeposited',
  z
    .object({
      playerId: playerIdSchema,
      amount: positiveMinorUnitsSchema,
      currency: currencySchema,
      reference,
    })
    .strict(),
);
export const fundsWithdrawn = eventSchema(
  'FundsWithdrawn',
  z.object({ playerId: playerIdSchema, amount: positiveMinorUnitsSchema, reference }).strict(),
);
export const stakeDebited = eventSchema(
  'StakeDebited',
  z
    .object({
      playerId: playerIdSchema,
      betId: uuidSchema,
      roundId: roundIdSchema,
      amount: positiveMinorUnitsSchema,
    })
    .strict(),
);
export const payoutCredited = eventSchema(
  'PayoutCredited',
  z
    .object({
      playerId: playerIdSchema,
      betId: uuidSchema,
      roundId: roundIdSchema,
      settlementId: uuidSchema,
      /** The settlement line's payout (0 for a lost bet: recorded, so the bet is closed). */
      amount: z.number().int().nonnegative(),
      result: z.enum(['win', 'lose', 'push']),
    })
    .strict(),
);
export const stakeRefunded = eventSchema(
  'StakeRefunded',
  z
    .object({
      playerId: playerIdSchema,
      betId: uuidSchema,
      roundId: roundIdSchema,
      amount: positiveMinorUnitsSchema,
      reason: z.enum(['voided', 'cleared', 'bet-rejected', 'orphaned-debit']),
    })
    .strict(),
);
export const commissionAccrued = eventSchema(
  'CommissionAccrued',
  z
    .object({
      playerId: playerIdSchema,
      tableId: tableIdSchema,
      seat: z.number().int().min(1).max(9),
      /** The dealer shift the round was played in: collected when that shift ends. */
      shiftId: uuidSchema,
      betId: uuidSchema,
      settlementId: uuidSchema,
      amount: positiveMinorUnitsSchema,
    })
    .strict(),
);
export const commissionCollected = eventSchema(
  'CommissionCollected',
  z
    .object({
      playerId: playerIdSchema,
      tableId: tableIdSchema,
      shiftId: uuidSchema,
      amount: positiveMinorUnitsSchema,
      /** The DealerChanged event that ended the shift. */
      dealerChangeId: uuidSchema,
    })
    .strict(),
);

/**
 * A settled bet paid again after its round was resettled: `delta` is credited (or taken back,
 * when negative: a balance may then go below zero, as a debt the player owes). On an
 * accrued-commission table `commissionDelta` changes the commission owed.
 */
export const payoutAdjusted = eventSchema(
  'PayoutAdjusted',
  z
    .object({
      playerId: playerIdSchema,
      betId: uuidSchema,
      roundId: roundIdSchema,
      resettlementId: uuidSchema,
      delta: z.number().int(),
      commissionDelta: z.number().int(),
      tableId: tableIdSchema,
      shiftId: uuidSchema,
      reason: z.enum(['void', 'correction']),
    })
    .strict(),
);

export const walletEventSchema = z.discriminatedUnion('type', [
  fundsDeposited,
  fundsWithdrawn,
  stakeDebited,
  payoutCredited,
  stakeRefunded,
  commissionAccrued,
  commissionCollected,
  payoutAdjusted,
]);
export type WalletEvent = z.infer<typeof walletEventSchema>;
