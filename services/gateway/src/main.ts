import { secureLoggerOptions } from '@croupier/http';
import { applyV8Settings } from '@croupier/runtime';
import { Registry } from 'prom-client';
import { buildApp } from './app.js';
import { ConfigError, loadConfig } from './config.js';
import { GatewayMetrics, timedAppends } from './metrics.js';
import { openStore, System } from './system.js';

/** Starts Croupier: every service in one process, on the configured store. */
async function main(): Promise<void> {
  applyV8Settings();
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  const logger = { level: config.LOG_LEVEL };
  const bootstrap = (await import('pino')).default(secureLoggerOptions(logger));
  const registry = new Registry();
  // Opened here rather than by the System, so that every append is timed for /metrics.
  const store = timedAppends(await openStore(config), registry);
  const system = await System.create({ config, logger: bootstrap, store });
  await system.start();
  const metrics = new GatewayMetrics(
    {
      store,
      gameFigures: system.gameFigures,
      readModels: system.readModels,
      subscriptions: () => system.runningSubscriptions,
      commands: () => system.commands,
    },
    registry,
  );
  const app = await buildApp(system, logger, { metrics });
  await app.listen({ host: config.HOST, port: config.PORT });
  bootstrap.info(
    {
      eventStore: config.EVENTSTORE,
      bus: system.bus.kind,
      tables: (await system.board.list()).map((t) => t.tableId),
    },
    `Croupier is dealing: API on http://${config.HOST}:${config.PORT}/v1, docs on /docs`,
  );

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    bootstrap.info({ signal }, 'shutting down: finishing in-flight work');
    await app.close();
    await system.stop();
    await store.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}

await main();
