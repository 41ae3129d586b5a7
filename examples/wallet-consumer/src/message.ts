import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

/**
 * The fields of a Croupier settlement message this wallet acts on. The full contract is the
 * published JSON Schema (docs/settlement-message.schema.json in Croupier's repository); every
 * message is validated against it before this type is trusted.
 */
export interface SettlementMessage {
  readonly schema: string;
  readonly messageId: string;
  readonly kind: 'settlement' | 'refund' | 'adjustment';
  readonly roundId: string;
  readonly playerId: string;
  readonly betId: string;
  readonly stake: number;
  readonly payout: number;
  readonly result: 'win' | 'lose' | 'push' | 'refund';
  readonly commission: number;
  readonly commissionMode: 'deducted' | 'accrued' | null;
  readonly currency: string;
  /** Adjustments only: a settled bet paid again (its round voided or its result corrected). */
  readonly adjustment: {
    readonly previousPayout: number;
    /** payout - previousPayout: negative when money is taken back. */
    readonly delta: number;
    readonly commissionDelta: number;
  } | null;
  readonly shiftId: string;
  readonly eventId: string;
  /** Unsigned 128-bit decimal string: keep it a string (or a bigint / numeric), never a float. */
  readonly position: string;
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

/** What a message does to the player's balance and to the commission they owe. */
export function effectOf(message: SettlementMessage): { credit: number; commissionOwed: number } {
  if (message.kind === 'adjustment') {
    // The bet was paid once already: apply only the difference (it may be negative).
    if (message.adjustment === null) throw new Error('an adjustment without its delta');
    return {
      credit: message.adjustment.delta,
      commissionOwed: message.adjustment.commissionDelta,
    };
  }
  return {
    // The stake left the balance when the bet was placed; the message closes the bet.
    credit: message.payout,
    // Deducted commission is already out of `payout`; accrued commission is owed by the seat.
    commissionOwed: message.commissionMode === 'accrued' ? message.commission : 0,
  };
}
