/**
 * One reconciliation run: CROUPIER_URL, CROUPIER_TOKEN, DATABASE_URL, SETTLEMENT_SCHEMA_FILE,
 * GRACE_MS (messages younger than this are left to the queue; default 60000).
 */
import { Books } from './books.js';
import { loadValidator } from './message.js';
import { reconcile } from './reconcile.js';

const token = process.env['CROUPIER_TOKEN'];
const database = process.env['DATABASE_URL'];
if (token === undefined || database === undefined) {
  console.error('set CROUPIER_TOKEN (operator or regulator) and DATABASE_URL');
  process.exit(2);
}
const books = new Books({ connectionString: database });
await books.migrate();
try {
  const report = await reconcile({
    apiUrl: process.env['CROUPIER_URL'] ?? 'http://127.0.0.1:8080',
    token,
    books,
    validate: loadValidator(),
    graceMs: Number(process.env['GRACE_MS'] ?? 60_000),
  });
  console.log(
    `checked ${report.checked} message(s) after ${report.from}; filled ${report.filled.length} gap(s); cursor ${report.cursor}`,
  );
  for (const problem of await books.problems()) console.log(`not yet complete: ${problem}`);
} finally {
  await books.close();
}
