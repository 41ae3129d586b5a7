import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  SETTLEMENT_MESSAGE_SCHEMA_V2,
  walletMessageSchema,
  type WalletMessage,
} from '../src/index.js';
import { SETTLEMENT_SCHEMA_FILE, settlementSchemaFileText } from './settlement-schema-file.js';

const DOCS_PAGE = fileURLToPath(new URL('../../../docs/settlement-messages.md', import.meta.url));

const payout: WalletMessage = {
  schema: SETTLEMENT_MESSAGE_SCHEMA_V2,
  messageId: '0b8f6a52-3f0c-5b39-9d7e-2f1c2b6a4e10',
  kind: 'payout',
  playerId: 'ana',
  sequence: 7,
  currency: 'EUR',
  amount: 1_950,
  balance: 101_950,
  commissionOwed: 0,
  commissionOwedDelta: 0,
  roundId: 'live.1.12',
  tableId: null,
  betId: '6c1f0d3e-9a2b-4c5d-8e7f-0a1b2c3d4e5f',
  stake: 1_000,
  result: 'win',
  reason: null,
  reference: null,
  settlementId: '1d2e3f40-5a6b-5c7d-8e9f-a0b1c2d3e4f5',
  shiftId: null,
  eventId: '3f405162-7c8d-5e9f-a0b1-c2d3e4f50617',
  position: '18446744073709551615',
  verificationHash: 'a'.repeat(64),
  occurredAt: '2026-11-29T14:00:00.000Z',
};

const without = (field: string) =>
  Object.fromEntries(Object.entries(payout).filter(([k]) => k !== field));

const invalid: [string, Record<string, unknown>][] = [
  ['a fractional amount', { ...payout, amount: 10.5 }],
  ['an unknown field', { ...payout, bonus: 1 }],
  ['a missing field', without('betId')],
  ['a missing nullable field', without('reference')],
  ['sequence 0', { ...payout, sequence: 0 }],
  ['a position that is not a decimal string', { ...payout, position: 42 }],
  ['version 1', { ...payout, schema: 'croupier.settlement.v1' }],
  ['an unknown kind', { ...payout, kind: 'jackpot' }],
  ['negative commission owed', { ...payout, commissionOwed: -1 }],
  // Play money is never published (ADR 0030): a message naming FUN is no message of Croupier.
  ['play money', { ...payout, currency: 'FUN' }],
  ['a currency that is no ISO 4217 code', { ...payout, currency: 'euro' }],
];

const published = () =>
  z.fromJSONSchema(
    JSON.parse(readFileSync(SETTLEMENT_SCHEMA_FILE, 'utf8')) as Parameters<
      typeof z.fromJSONSchema
    >[0],
  );

/** The rows of the docs page's v2 field table: name and whether its type column admits null. */
function documentedFields(): Map<string, boolean> {
  const page = readFileSync(DOCS_PAGE, 'utf8');
  const section = page.slice(page.indexOf('## The message'));
  const table = section.slice(0, section.indexOf('\n\n', section.indexOf('| field')));
  const rows = new Map<string, boolean>();
  for (const line of table.split('\n')) {
    const cells = line.split(/(?<!\\)\|/).map((cell) => cell.trim());
    const name = /^`(\w+)`$/.exec(cells[1] ?? '')?.[1];
    if (name !== undefined) rows.set(name, /\bnull\b/.test(cells[2] ?? ''));
  }
  return rows;
}

describe('the published settlement message JSON Schema, version 2', () => {
  it('is up to date: run `pnpm --filter @croupier/contracts run schema` after changing the zod schema', async () => {
    expect(readFileSync(SETTLEMENT_SCHEMA_FILE, 'utf8')).toBe(await settlementSchemaFileText());
  });

  it('accepts and refuses what the zod schema does', () => {
    const schema = published();
    expect(walletMessageSchema.safeParse(payout).success).toBe(true);
    expect(schema.safeParse(payout).success).toBe(true);
    const debit = { ...payout, kind: 'debit', amount: -1_000, result: null, settlementId: null };
    expect(schema.safeParse(debit).success).toBe(true);
    for (const [what, candidate] of invalid) {
      expect(walletMessageSchema.safeParse(candidate).success, `zod: ${what}`).toBe(false);
      expect(schema.safeParse(candidate).success, `JSON Schema: ${what}`).toBe(false);
    }
  });

  it('requires every field, and the docs table lists the same fields, null exactly where the schema allows it', () => {
    const json = JSON.parse(readFileSync(SETTLEMENT_SCHEMA_FILE, 'utf8')) as {
      properties: Record<string, { anyOf?: { type?: string }[] }>;
      required: string[];
    };
    const fields = Object.keys(json.properties);
    expect([...json.required].sort()).toEqual([...fields].sort());
    const nullable = new Map(
      fields.map((field) => [
        field,
        (json.properties[field]?.anyOf ?? []).some((option) => option.type === 'null'),
      ]),
    );
    expect(documentedFields()).toEqual(nullable);
  });
});
