import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  SETTLEMENT_MESSAGE_SCHEMA,
  settlementMessageSchema,
  type SettlementMessage,
} from '../src/index.js';
import { SETTLEMENT_SCHEMA_V1_FILE, settlementSchemaV1FileText } from './settlement-schema-file.js';

const message: SettlementMessage = {
  schema: SETTLEMENT_MESSAGE_SCHEMA,
  messageId: '0b8f6a52-3f0c-5b39-9d7e-2f1c2b6a4e10',
  kind: 'settlement',
  roundId: 'live.1.12',
  tableId: 'live',
  shoeId: 'live.1',
  playerId: 'ana',
  betId: '6c1f0d3e-9a2b-4c5d-8e7f-0a1b2c3d4e5f',
  betType: 'banker',
  bankerMode: 'commission',
  seat: null,
  stake: 1_000,
  payout: 1_950,
  result: 'win',
  commission: 50,
  commissionMode: 'deducted',
  currency: 'EUR',
  adjustment: null,
  reason: null,
  settlementId: '1d2e3f40-5a6b-5c7d-8e9f-a0b1c2d3e4f5',
  shiftId: '2e3f4051-6b7c-4d8e-9fa0-b1c2d3e4f506',
  eventId: '3f405162-7c8d-5e9f-a0b1-c2d3e4f50617',
  position: '18446744073709551615',
  verificationHash: 'a'.repeat(64),
  occurredAt: '2026-11-29T14:00:00.000Z',
};

const invalid: [string, Record<string, unknown>][] = [
  ['a negative payout', { ...message, payout: -1 }],
  ['a fractional stake', { ...message, stake: 10.5 }],
  ['an unknown field', { ...message, bonus: 1 }],
  ['a missing field', Object.fromEntries(Object.entries(message).filter(([k]) => k !== 'betId'))],
  ['a position that is not a decimal string', { ...message, position: 42 }],
  ['another schema version', { ...message, schema: 'croupier.settlement.v2' }],
  ['a message id that is not a UUID', { ...message, messageId: '42' }],
  ['an unknown result', { ...message, result: 'jackpot' }],
  [
    'no adjustment field (present on every kind, null where it does not apply)',
    Object.fromEntries(Object.entries(message).filter(([k]) => k !== 'adjustment')),
  ],
];

describe('the published settlement message JSON Schema, version 1', () => {
  it('is up to date: run `pnpm --filter @croupier/contracts run schema` after changing the zod schema', async () => {
    expect(readFileSync(SETTLEMENT_SCHEMA_V1_FILE, 'utf8')).toBe(
      await settlementSchemaV1FileText(),
    );
  });

  it('accepts and refuses what the zod schema does', () => {
    const published = z.fromJSONSchema(
      JSON.parse(readFileSync(SETTLEMENT_SCHEMA_V1_FILE, 'utf8')) as Parameters<
        typeof z.fromJSONSchema
      >[0],
    );
    expect(settlementMessageSchema.safeParse(message).success).toBe(true);
    expect(published.safeParse(message).success).toBe(true);
    expect(
      published.safeParse({ ...message, kind: 'refund', betType: null, reason: 'voided' }).success,
    ).toBe(true);
    for (const [what, candidate] of invalid) {
      expect(settlementMessageSchema.safeParse(candidate).success, `zod: ${what}`).toBe(false);
      expect(published.safeParse(candidate).success, `JSON Schema: ${what}`).toBe(false);
    }
  });
});
