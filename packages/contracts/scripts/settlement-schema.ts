/**
 * Writes the settlement message's JSON Schemas to docs/ (the published contract):
 * settlement-message.schema.json (v2) and settlement-message.v1.schema.json.
 * `pnpm --filter @croupier/contracts run schema`; a test fails while a committed file differs
 * from what this writes.
 */
import { writeFileSync } from 'node:fs';
import {
  SETTLEMENT_SCHEMA_FILE,
  SETTLEMENT_SCHEMA_V1_FILE,
  settlementSchemaFileText,
  settlementSchemaV1FileText,
} from '../test/settlement-schema-file.js';

writeFileSync(SETTLEMENT_SCHEMA_FILE, await settlementSchemaFileText());
writeFileSync(SETTLEMENT_SCHEMA_V1_FILE, await settlementSchemaV1FileText());
process.stdout.write(`wrote ${SETTLEMENT_SCHEMA_FILE} and ${SETTLEMENT_SCHEMA_V1_FILE}\n`);
