import { z } from 'zod';
import {
  isoTimestampSchema,
  minorUnitsSchema,
  playerIdSchema,
  positiveMinorUnitsSchema,
  roundIdSchema,
  tableIdSchema,
  uuidSchema,
} from './ids.js';
import { publishedJsonSchema } from './json-schema.js';
import { realCurrencySchema } from './play-money.js';
import { messagePositionSchema } from './settlement-message.js';

/**
 * The public settlement message, version 2: one per movement of a player's money in Croupier's
 * wallet (docs/settlement-messages.md). Version 1 told of bet outcomes only; a mirror applying
 * it could not see debits, deposits, withdrawals, refunds of refused bets or commission
 * collected, so it never equalled the balance. Version 2 is the wallet's own log, message for
 * event, with the balance after it and a per-player sequence.
 */
export const SETTLEMENT_MESSAGE_SCHEMA_V2 = 'croupier.settlement.v2';

export const WALLET_MESSAGE_KINDS = [
  'deposit',
  'withdrawal',
  'debit',
  'payout',
  'refund',
  'adjustment',
  'commission-accrued',
  'commission-collected',
] as const;

export type WalletMessageKind = (typeof WALLET_MESSAGE_KINDS)[number];

const signedMinorUnits = z
  .number()
  .int()
  .min(-Number.MAX_SAFE_INTEGER)
  .max(Number.MAX_SAFE_INTEGER);

export const walletMessageSchema = z
  .object({
    schema: z
      .literal(SETTLEMENT_MESSAGE_SCHEMA_V2)
      .describe('Message schema and version; a new version is a new value.'),
    messageId: uuidSchema.describe(
      'Unique per message and stable across re-sends (the BullMQ job id): deduplicate on it.',
    ),
    kind: z
      .enum(WALLET_MESSAGE_KINDS)
      .describe(
        'deposit / withdrawal: the operator moved money in or out; debit: a stake taken for a bet; payout: a bet settled by a dealt round (0 on a loss); refund: a stake given back; adjustment: a settled bet paid again after its round was voided or corrected; commission-accrued: commission owed at a seated table (no money moves yet); commission-collected: owed commission taken when the dealer shift ended.',
      ),
    playerId: playerIdSchema.describe('Whose wallet moved.'),
    sequence: z
      .number()
      .int()
      .positive()
      .describe(
        "The message's number in the player's wallet: 1, 2, 3… with no gap. A mirror holding n messages of a player and receiving n + 2 knows one is missing.",
      ),
    currency: realCurrencySchema.describe(
      'ISO 4217 code of every amount in the message. Never FUN: play money (fun sessions) is never published, and a message naming FUN is no message of Croupier: ignore it.',
    ),
    amount: signedMinorUnits.describe(
      'What the movement does to the balance, minor units: positive credits, negative debits (a debit, a withdrawal, commission collected, an adjustment taking money back); 0 when nothing moves (a lost bet, commission accrued).',
    ),
    balance: signedMinorUnits.describe(
      'The balance after this movement. Below zero only after an adjustment took back more than the player held (a debt).',
    ),
    commissionOwed: minorUnitsSchema.describe(
      'Commission the player owes after this movement (accrued at seated tables, not yet collected); what they can spend is balance - commissionOwed.',
    ),
    commissionOwedDelta: signedMinorUnits.describe(
      'What this movement changes in commissionOwed (commission-accrued, commission-collected, adjustment), 0 otherwise.',
    ),
    roundId: roundIdSchema
      .nullable()
      .describe('The round of the bet (debit, payout, refund, adjustment); null otherwise.'),
    tableId: tableIdSchema
      .nullable()
      .describe(
        "The table: the round's table on debit, payout, refund and adjustment (the <tableId> of roundId), the seat's table on commission-accrued and commission-collected; null on deposits and withdrawals.",
      ),
    betId: uuidSchema
      .nullable()
      .describe(
        'The bet (debit, payout, refund, adjustment, commission-accrued). Every debit is closed by exactly one payout or refund of the same betId.',
      ),
    stake: positiveMinorUnitsSchema
      .nullable()
      .describe("The bet's stake (debit, payout, refund); null otherwise."),
    result: z
      .enum(['win', 'lose', 'push'])
      .nullable()
      .describe('Payouts: how the bet ended; null otherwise.'),
    reason: z
      .enum(['voided', 'cleared', 'bet-rejected', 'orphaned-debit', 'corrected'])
      .nullable()
      .describe(
        'Refunds: voided (the round was voided), cleared (the player cleared the bet), bet-rejected (the round refused the bet after its stake was debited: betting closed meanwhile), orphaned-debit (the bet never reached its round; the sweep gave the stake back). Adjustments: voided or corrected. Null otherwise.',
      ),
    reference: z
      .string()
      .min(1)
      .max(128)
      .nullable()
      .describe("Deposits and withdrawals: the operator's reference; null otherwise."),
    settlementId: uuidSchema
      .nullable()
      .describe(
        "The record that moved the money: the settlement (payout), the resettlement (adjustment), the settlement that accrued the commission, or what ended the shift and so collected it (the dealer change, or the table's close); null otherwise.",
      ),
    shiftId: uuidSchema
      .nullable()
      .describe(
        'The dealer shift (adjustment, commission-accrued, commission-collected); null otherwise.',
      ),
    eventId: uuidSchema.describe('The wallet event the message comes from (one message each).'),
    position: messagePositionSchema,
    verificationHash: z
      .string()
      .regex(/^[0-9a-f]{64}$/)
      .describe(
        "The event's hash in the player's wallet stream (hex sha256): checkable against the audit API.",
      ),
    occurredAt: isoTimestampSchema.describe('When the movement was recorded (ISO 8601).'),
  })
  .strict()
  .describe(
    "One movement of a player's money in Croupier's wallet, as downstream systems receive it. Amounts are integers in minor units; every field is present, null where it does not apply.",
  );

export type WalletMessage = z.infer<typeof walletMessageSchema>;

/** Identifies the published JSON Schema (docs/settlement-message.schema.json). */
export const WALLET_MESSAGE_JSON_SCHEMA_ID = 'urn:croupier:settlement-message:v2';

/** The public message contract as JSON Schema (draft 2020-12). */
export function walletMessageJsonSchema(): Record<string, unknown> {
  return publishedJsonSchema(
    walletMessageSchema,
    WALLET_MESSAGE_JSON_SCHEMA_ID,
    'Croupier settlement message, v2',
  );
}
