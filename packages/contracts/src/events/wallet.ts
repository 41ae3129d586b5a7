import { z } from 'zod';
import {
  playerIdSchema,
  positiveMinorUnitsSchema,
  roundIdSchema,
  tableIdSchema,
  uuidSchema,
} from '../ids.js';
import { funMarkSchema, PLAY_MONEY_CURRENCY } from '../play-money.js';
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
      /** Play money (a fun session's stake, from the player's fun wallet): absent on real money. */
      fun: funMarkSchema,
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
      fun: funMarkSchema,
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
      fun: funMarkSchema,
    })
    .strict(),
);

/**
 * Play money given to a player's fun wallet (ADR 0030): a top-up to the deployment's fun balance
 * (FUN_BALANCE). The only way money enters a fun wallet; no real money is ever deposited in it.
 */
export const playMoneyGranted = eventSchema(
  'PlayMoneyGranted',
  z
    .object({
      playerId: playerIdSchema,
      amount: positiveMinorUnitsSchema,
      currency: z.literal(PLAY_MONEY_CURRENCY),
      /** The balance the grant tops the wallet up to (FUN_BALANCE when it was granted). */
      topUpTo: positiveMinorUnitsSchema,
      /** The grant's number in the wallet (1, 2, ...): names it, so a retry records it once. */
      grant: z.number().int().positive(),
      fun: z.literal(true),
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
      /** The seat whose debt is collected (002); absent before seats were owned: the whole shift. */
      seat: z.number().int().min(1).max(9).optional(),
      amount: positiveMinorUnitsSchema,
      /** The DealerChanged event that ended the shift (ADR 0008). */
      dealerChangeId: uuidSchema.optional(),
      /**
       * The TableClosed event that ended the shift: closing a table ends its last shift, and
       * every earlier one whose commission arrived late (ADR 0008, addendum).
       */
      tableClosedId: uuidSchema.optional(),
      /**
       * Collected after the table closed, when a round settled after the close accrued it: the
       * settled bet (its CommissionAccrued's settlement and bet). Absent otherwise.
       */
      accrued: z.object({ settlementId: uuidSchema, betId: uuidSchema }).strict().optional(),
    })
    .strict()
    .refine(
      (data) => (data.dealerChangeId === undefined) !== (data.tableClosedId === undefined),
      'names exactly one of dealerChangeId and tableClosedId: what ended the shift',
    )
    .refine(
      (data) => data.accrued === undefined || data.tableClosedId !== undefined,
      'accrued comes only with tableClosedId: a bet settled after the close',
    ),
);

/**
 * What ended the shifts a collection takes commission for: a dealer change, or the table's close
 * (with the bet settled after it, when that bet's commission is collected on its own).
 */
export type ShiftEnd =
  | { readonly dealerChangeId: string }
  | {
      readonly tableClosedId: string;
      readonly accrued?: { readonly settlementId: string; readonly betId: string };
    };

/** The id of the event that ended the collected shift: its DealerChanged or its TableClosed. */
export const shiftEndIdOf = (data: {
  readonly dealerChangeId?: string | undefined;
  readonly tableClosedId?: string | undefined;
}): string => data.dealerChangeId ?? data.tableClosedId!;

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
      /** The seat the bet was placed from (002), whose commission debt changes; absent before seats were owned. */
      seat: z.number().int().min(1).max(9).nullable().optional(),
      reason: z.enum(['void', 'correction']),
      fun: funMarkSchema,
    })
    .strict(),
);

/**
 * Accrued commission is owed per table, dealer shift and seat (002: "which seat number" owes
 * the 5%). A record without a seat (written before seats were owned) is seat 0.
 */
export const commissionDebtKey = (
  tableId: string,
  shiftId: string,
  seat: number | null | undefined,
): string => `${tableId}/${shiftId}/${seat ?? 0}`;

export const walletEventSchema = z.discriminatedUnion('type', [
  fundsDeposited,
  fundsWithdrawn,
  stakeDebited,
  payoutCredited,
  stakeRefunded,
  commissionAccrued,
  commissionCollected,
  payoutAdjusted,
  playMoneyGranted,
]);
export type WalletEvent = z.infer<typeof walletEventSchema>;

/** The commission records of a wallet: what changes a debt per table, shift and seat. */
export type CommissionRecord = Extract<
  WalletEvent,
  { type: 'CommissionAccrued' | 'CommissionCollected' | 'PayoutAdjusted' }
>;

/**
 * Applies a commission record to a wallet's debts (key: `commissionDebtKey`), in place. The one
 * fold the wallet, its audit and the balance read model share. Answers what the record gives
 * back to the balance: commission collected and then reduced by a resettlement. A record written
 * before seats were owned names no seat: a collection then takes the whole shift, an adjustment
 * changes the lowest seat of the shift owing anything.
 */
export function foldCommissionDebt(owed: Map<string, number>, record: CommissionRecord): number {
  const { tableId, shiftId } = record.data;
  const prefix = `${tableId}/${shiftId}/`;
  const shiftKeys = () => [...owed.keys()].filter((key) => key.startsWith(prefix)).sort();
  const set = (key: string, amount: number) => {
    if (amount > 0) owed.set(key, amount);
    else owed.delete(key);
  };
  switch (record.type) {
    case 'CommissionAccrued': {
      const key = commissionDebtKey(tableId, shiftId, record.data.seat);
      set(key, (owed.get(key) ?? 0) + record.data.amount);
      return 0;
    }
    case 'CommissionCollected': {
      const keys =
        record.data.seat === undefined
          ? shiftKeys()
          : [commissionDebtKey(tableId, shiftId, record.data.seat)];
      let taking = record.data.amount;
      for (const key of keys) {
        const due = owed.get(key) ?? 0;
        const taken = Math.min(due, taking);
        taking -= taken;
        set(key, due - taken);
      }
      return 0;
    }
    case 'PayoutAdjusted': {
      const key =
        record.data.seat != null
          ? commissionDebtKey(tableId, shiftId, record.data.seat)
          : (shiftKeys()[0] ?? commissionDebtKey(tableId, shiftId, null));
      const left = (owed.get(key) ?? 0) + record.data.commissionDelta;
      set(key, left);
      return left < 0 ? -left : 0;
    }
  }
}
