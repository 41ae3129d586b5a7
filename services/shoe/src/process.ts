import {
  commandHandlerOf,
  createServiceApp,
  openStore,
  parseEnvironment,
  type Process,
  type ProcessOptions,
} from '@croupier/runtime';
import type { HttpApp } from '@croupier/http';
import type { Logger } from 'pino';
import { z } from 'zod';
import { SeedVault } from './application/seed-vault.js';
import { ShoeService } from './application/shoe-service.js';
import { shoePlugin } from './plugin.js';

/** The shoe service alone: its public routes and the shoe port for round services. */
export async function startShoeProcess(
  logger: Logger,
  env: Readonly<Record<string, string | undefined>>,
  options: ProcessOptions = {},
): Promise<Process & { readonly app: HttpApp }> {
  const config = parseEnvironment(
    { PORT: z.coerce.number().int().min(0).max(65_535).default(8081) },
    env,
    ['JWT_SECRET', 'SHOE_SEED_KEY'],
  );
  const store = await (options.store ?? openStore(config, 'shoe'));
  // Commands of this process: one handler, its retry policy and bounded state cache (ADR 0007);
  // no aggregate of this process takes snapshots.
  const { commands } = commandHandlerOf(config, store, null, logger);
  const shoes = new ShoeService(commands, new SeedVault(config.SHOE_SEED_KEY!));
  const app = await createServiceApp({
    title: 'Croupier shoe service',
    settings: config,
    store,
  });
  await app.register(shoePlugin, {
    ...(options.manifest === undefined ? {} : { manifest: options.manifest }),
    shoes,
    servePort: true,
  });
  if (options.listen ?? true) await app.listen({ host: config.HOST, port: config.PORT });
  logger.info({ port: config.PORT, eventStore: config.EVENTSTORE }, 'shoe service listening');
  return {
    app,
    stop: async () => {
      await app.close();
      if (options.store === undefined) await store.close();
    },
  };
}
