/**
 * Writes docs/paytables.md from the code's paytables and presets.
 * `pnpm --filter @croupier/contracts run paytables`; a test fails while the committed page differs.
 */
import { writeFileSync } from 'node:fs';
import { PAYTABLE_FILE, paytablePageText } from '../test/paytable-page.js';

writeFileSync(PAYTABLE_FILE, await paytablePageText());
process.stdout.write(`wrote ${PAYTABLE_FILE}\n`);
