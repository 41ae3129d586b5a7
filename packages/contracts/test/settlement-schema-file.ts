import { fileURLToPath } from 'node:url';
import { format, resolveConfig } from 'prettier';
import { settlementMessageJsonSchema } from '../src/index.js';

/** Where the published JSON Schema lives. */
export const SETTLEMENT_SCHEMA_FILE = fileURLToPath(
  new URL('../../../docs/settlement-message.schema.json', import.meta.url),
);

/** The file's content as the repository's formatter writes it, so `prettier --check` passes. */
export async function settlementSchemaFileText(): Promise<string> {
  const options = (await resolveConfig(SETTLEMENT_SCHEMA_FILE)) ?? {};
  return format(JSON.stringify(settlementMessageJsonSchema(), null, 2), {
    ...options,
    parser: 'json',
  });
}
