import { Books } from './books.js';
import { buildWalletServer } from './server.js';

/**
 * The example operator wallet as a process. DATABASE_URL, WALLET_SECRET (shared with Croupier's
 * OPERATOR_WALLET_SECRET), optional WALLET_SCHEMA, ADMIN_TOKEN, HOST and PORT.
 */
const secret = process.env.WALLET_SECRET;
if (secret === undefined || secret.length < 32) {
  console.error(
    "WALLET_SECRET: at least 32 characters, the same as Croupier's OPERATOR_WALLET_SECRET",
  );
  process.exit(2);
}
const books = new Books({
  connectionString: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
  schema: process.env.WALLET_SCHEMA ?? 'seamless_wallet',
});
await books.migrate();
const app = await buildWalletServer({
  books,
  secret,
  logger: true,
  ...(process.env.ADMIN_TOKEN === undefined ? {} : { adminToken: process.env.ADMIN_TOKEN }),
});
await app.listen({ host: process.env.HOST ?? '127.0.0.1', port: Number(process.env.PORT ?? 8090) });
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => {
    void app.close().then(() => books.close());
  });
