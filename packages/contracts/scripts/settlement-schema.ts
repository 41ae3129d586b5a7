/**
 * Writes the settlement message's JSON Schema to docs/settlement-message.schema.json (the
 * published contract). `pnpm --filter @croupier/contracts run schema`; a test fails while the
 * committed file differs from what this writes.
 */
import { writeFileSync } from 'node:fs';
import {
  SETTLEMENT_SCHEMA_FILE,
  settlementSchemaFileText,
} from '../test/settlement-schema-file.js';

writeFileSync(SETTLEMENT_SCHEMA_FILE, await settlementSchemaFileText());
process.stdout.write(`wrote ${SETTLEMENT_SCHEMA_FILE}\n`);
