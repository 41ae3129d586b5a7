import { fileURLToPath } from 'node:url';
import { format, resolveConfig } from 'prettier';
import { settlementMessageJsonSchema, walletMessageJsonSchema } from '../src/index.js';

/** Where the published JSON Schema of the current version (v2) lives. */
export const SETTLEMENT_SCHEMA_FILE = fileURLToPath(
  new URL('../../../docs/settlement-message.schema.json', import.meta.url),
);

/** Version 1, kept published for consumers moving to version 2. */
export const SETTLEMENT_SCHEMA_V1_FILE = fileURLToPath(
  new URL('../../../docs/settlement-message.v1.schema.json', import.meta.url),
);

async function formatted(file: string, schema: Record<string, unknown>): Promise<string> {
  const options = (await resolveConfig(file)) ?? {};
  return format(JSON.stringify(schema, null, 2), { ...options, parser: 'json' });
}

/** The v2 file's content as the repository's formatter writes it, so `prettier --check` passes. */
export function settlementSchemaFileText(): Promise<string> {
  return formatted(SETTLEMENT_SCHEMA_FILE, walletMessageJsonSchema());
}

/** The v1 file's content. */
export function settlementSchemaV1FileText(): Promise<string> {
  return formatted(SETTLEMENT_SCHEMA_V1_FILE, settlementMessageJsonSchema());
}
