import {
  commandHandlerOf,
  createServiceApp,
  openStore,
  parseEnvironment,
  runProcess,
} from '@croupier/runtime';
import { z } from 'zod';
import { SeedVault } from './application/seed-vault.js';
import { ShoeService } from './application/shoe-service.js';
import { shoePlugin } from './plugin.js';

/** The shoe service alone: its public routes and the shoe port for round services. */
await runProcess('shoe', async (logger) => {
  const config = parseEnvironment(
    { PORT: z.coerce.number().int().min(0).max(65_535).default(8081) },
    process.env,
    ['JWT_SECRET', 'SHOE_SEED_KEY'],
  );
  const store = await openStore(config, 'shoe');
  // Commands of this process: one handler, its retry policy and bounded state cache (ADR 0007);
  // no aggregate of this process takes snapshots.
  const { commands } = commandHandlerOf(config, store, null, logger);
  const shoes = new ShoeService(commands, new SeedVault(config.SHOE_SEED_KEY!));
  const app = await createServiceApp({
    title: 'Croupier shoe service',
    settings: config,
    store,
  });
  await app.register(shoePlugin, { shoes, servePort: true });
  await app.listen({ host: config.HOST, port: config.PORT });
  logger.info({ port: config.PORT, eventStore: config.EVENTSTORE }, 'shoe service listening');
  return {
    stop: async () => {
      await app.close();
      await store.close();
    },
  };
});
