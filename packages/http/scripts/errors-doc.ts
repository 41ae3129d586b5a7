/**
 * Writes docs/errors.md, the catalogue of stable error codes, from @croupier/contracts.
 * `npx -y pnpm@12.4.2 --filter @croupier/http run errors-doc`; a test fails while the committed
 * file differs from what this writes.
 */
import { writeFileSync } from 'node:fs';
import { ERRORS_DOC_FILE, errorsDocText } from '../test/errors-doc-file.js';

writeFileSync(ERRORS_DOC_FILE, await errorsDocText());
process.stdout.write(`wrote ${ERRORS_DOC_FILE}\n`);
