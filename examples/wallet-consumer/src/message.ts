import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

/**
 * The fields of a Croupier settlement message (version 2: one per movement of a player's money)
 * this wallet acts on. The full contract is the published JSON Schema
 * (docs/settlement-message.schema.json in Croupier's repository); every message is validated
 * against it before this type is trusted.
 */
export interface SettlementMessage {
  readonly schema: 'croupier.settlement.v2';
  readonly messageId: string;
  readonly kind:
    | 'deposit'
    | 'withdrawal'
    | 'debit'
    | 'payout'
    | 'refund'
    | 'adjustment'
    | 'commission-accrued'
    | 'commission-collected';
  readonly playerId: string;
  /** 1, 2, 3… per player, without gaps. */
  readonly sequence: number;
  readonly currency: string;
  /** What the movement adds to the balance (negative for debits), minor units. */
  readonly amount: number;
  /** The balance after it, in Croupier's wallet. */
  readonly balance: number;
  readonly commissionOwed: number;
  readonly commissionOwedDelta: number;
  readonly roundId: string | null;
  readonly betId: string | null;
  readonly reason: string | null;
  readonly eventId: string;
  /** Unsigned 128-bit decimal string: keep it a string (or a bigint / numeric), never a float. */
  readonly position: string;
  readonly occurredAt: string;
}

/** Where the published JSON Schema is: SETTLEMENT_SCHEMA_FILE, or Croupier's docs/ beside us. */
export const DEFAULT_SCHEMA_FILE = fileURLToPath(
  new URL('../../../docs/settlement-message.schema.json', import.meta.url),
);

export type MessageValidator = (
  data: unknown,
) =>
  | { readonly ok: true; readonly message: SettlementMessage }
  | { readonly ok: false; readonly problem: string };

/** Builds a validator from the published JSON Schema (zod reads JSON Schema directly). */
export function loadValidator(
  file = process.env['SETTLEMENT_SCHEMA_FILE'] ?? DEFAULT_SCHEMA_FILE,
): MessageValidator {
  const published = z.fromJSONSchema(
    JSON.parse(readFileSync(file, 'utf8')) as Parameters<typeof z.fromJSONSchema>[0],
  );
  return (data) => {
    const result = published.safeParse(data);
    return result.success
      ? { ok: true, message: result.data as SettlementMessage }
      : { ok: false, problem: z.prettifyError(result.error) };
  };
}

/**
 * What a message does to the player's balance and to the commission they owe: every kind the
 * same way, `amount` and `commissionOwedDelta`. Debits, withdrawals, collected commission and
 * adjustments that take money back have a negative amount.
 */
export function effectOf(message: SettlementMessage): { credit: number; commissionOwed: number } {
  return { credit: message.amount, commissionOwed: message.commissionOwedDelta };
}
