import { z } from 'zod';
import {
  minorUnitsSchema,
  playerIdSchema,
  positiveMinorUnitsSchema,
  roundIdSchema,
  uuidSchema,
} from '../ids.js';
import { currencySchema } from '../table-config.js';
import { eventSchema } from './common.js';

/**
 * Seamless mode (docs/wallet-integration.md, ADR 0026): the operator's wallet holds the player's
 * balance and Croupier calls it. These events are the integration's audit trail, one stream per
 * player (`operator-wallet-{playerId}`): what Croupier asked the operator's wallet, under which
 * idempotency key, and what it answered. None of them is a balance: the balance is the
 * operator's.
 */

/** An idempotency key sent to the operator's wallet: the same on every retry of one call. */
const key = uuidSchema;
/** The operator wallet's own id of a movement, as it answered (opaque to Croupier). */
const transactionId = z.string().min(1).max(128);

/** Croupier is about to ask the operator's wallet to debit a bet's stake. */
export const operatorDebitRequested = eventSchema(
  'OperatorDebitRequested',
  z
    .object({
      playerId: playerIdSchema,
      roundId: roundIdSchema,
      betId: uuidSchema,
      amount: positiveMinorUnitsSchema,
      currency: currencySchema,
      key,
      /** 1 for the bet's first debit; a bet retried after a failed debit asks again under a new key. */
      attempt: z.number().int().positive(),
    })
    .strict(),
);

/** The operator's wallet answered that it debited the stake: only now may the bet stand. */
export const operatorDebitConfirmed = eventSchema(
  'OperatorDebitConfirmed',
  z
    .object({
      playerId: playerIdSchema,
      roundId: roundIdSchema,
      betId: uuidSchema,
      amount: positiveMinorUnitsSchema,
      key,
      transactionId,
      /** How Croupier learned it: the debit's answer, or a status query after the answer was lost. */
      via: z.enum(['answer', 'status']),
    })
    .strict(),
);

/**
 * The debit did not happen, or Croupier cannot tell and gave it up: `refused` when the wallet
 * said no (nothing moved); `unresolved` when no answer came and no status query could tell, so a
 * rollback of the key follows (a debit the wallet applies late is given back).
 */
export const operatorDebitFailed = eventSchema(
  'OperatorDebitFailed',
  z
    .object({
      playerId: playerIdSchema,
      roundId: roundIdSchema,
      betId: uuidSchema,
      amount: positiveMinorUnitsSchema,
      key,
      outcome: z.enum(['refused', 'unresolved']),
      /** The wallet's code (`INSUFFICIENT_FUNDS`, …), or `UNAVAILABLE` when it did not answer. */
      code: z.string().min(1).max(64),
    })
    .strict(),
);

/**
 * A debit is to be given back, delivered by the outbox until the wallet confirms it. `debitKey`
 * names the debit; a rollback of a key the wallet never saw still records it there, so a debit
 * arriving late under that key is refused.
 */
export const operatorRollbackRequested = eventSchema(
  'OperatorRollbackRequested',
  z
    .object({
      playerId: playerIdSchema,
      roundId: roundIdSchema,
      betId: uuidSchema,
      amount: positiveMinorUnitsSchema,
      currency: currencySchema,
      key,
      debitKey: key,
      reason: z.enum(['voided', 'cleared', 'bet-rejected', 'orphaned-debit', 'debit-unresolved']),
    })
    .strict(),
);

/**
 * A payout is to be credited, delivered by the outbox until the wallet confirms it. Its key is
 * derived from the settlement record's event id and the bet (no settlement message exists in
 * seamless mode; docs/wallet-integration.md). `settlement`: the bet's payout (0 for a lost bet: it closes the
 * bet at the wallet); `adjustment`: a resettled bet's difference, negative when money is taken
 * back.
 */
export const operatorCreditRequested = eventSchema(
  'OperatorCreditRequested',
  z
    .object({
      playerId: playerIdSchema,
      roundId: roundIdSchema,
      betId: uuidSchema,
      amount: z.number().int().min(-Number.MAX_SAFE_INTEGER).max(Number.MAX_SAFE_INTEGER),
      currency: currencySchema,
      key,
      kind: z.enum(['settlement', 'adjustment']),
      /** The settlement record (RoundSettled) or resettlement (RoundResettled) it pays. */
      settlementId: uuidSchema,
      /** What the stake was, for the wallet's records. */
      stake: minorUnitsSchema,
    })
    .strict(),
);

/** The operator's wallet confirmed a credit or a rollback: the outbox stops sending it. */
export const operatorCallDelivered = eventSchema(
  'OperatorCallDelivered',
  z
    .object({
      playerId: playerIdSchema,
      key,
      call: z.enum(['credit', 'rollback']),
      transactionId,
    })
    .strict(),
);

export const operatorWalletEventSchema = z.discriminatedUnion('type', [
  operatorDebitRequested,
  operatorDebitConfirmed,
  operatorDebitFailed,
  operatorRollbackRequested,
  operatorCreditRequested,
  operatorCallDelivered,
]);
export type OperatorWalletEvent = z.infer<typeof operatorWalletEventSchema>;
