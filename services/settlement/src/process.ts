import { Parking } from '@croupier/application';
import type { Subscription } from '@croupier/eventstore';
import { walletModeShape } from '@croupier/contracts';
import { createSettlementBus } from '@croupier/messaging';
import {
  commandHandlerOf,
  ConfigError,
  createServiceApp,
  openStore,
  parseEnvironment,
  registerCommandMetrics,
  type Process,
  type ProcessOptions,
  SubscriptionMetrics,
} from '@croupier/runtime';
import { Registry } from 'prom-client';
import type { HttpApp } from '@croupier/http';
import type { Logger } from 'pino';
import { z } from 'zod';
import { settlementEnvironmentShape } from './application/environment.js';
import { OUTBOX_SUBSCRIPTION } from './application/outbox.js';
import { settlementPlugin } from './plugin.js';

/**
 * The settlement service alone: settles completed rounds, refunds and resettles, and forwards
 * every record to Croupier's wallet on the ledger's queue (BullMQ on REDIS_URL). Run two: one is
 * active per subscription, the other takes over when it dies. With WALLET_MODE=seamless nothing
 * reads that queue (the wallet service feeds the operator's wallet from the log), so nothing is
 * published and REDIS_URL is not needed.
 */
export async function startSettlementProcess(
  logger: Logger,
  env: Readonly<Record<string, string | undefined>>,
  options: ProcessOptions = {},
): Promise<Process & { readonly app: HttpApp }> {
  const config = parseEnvironment(
    {
      PORT: z.coerce.number().int().min(0).max(65_535).default(8083),
      REDIS_URL: z.url().optional(),
      ...walletModeShape,
      ...settlementEnvironmentShape,
    },
    env,
  );
  if (config.WALLET_MODE === 'transfer' && config.REDIS_URL === undefined)
    throw new ConfigError([
      'REDIS_URL: is required with WALLET_MODE=transfer: the outbox publishes to BullMQ',
    ]);
  const store = await (options.store ?? openStore(config, 'settlement'));
  // Commands of this process: one handler, its retry policy and bounded state cache (ADR 0007);
  // no aggregate of this process takes snapshots.
  const { commands } = commandHandlerOf(config, store, null, logger);
  const bus =
    config.WALLET_MODE === 'seamless' || config.REDIS_URL === undefined
      ? null
      : createSettlementBus({ redisUrl: config.REDIS_URL, prefix: config.REDIS_PREFIX });
  // A round or record that cannot be handled is parked and the others go on (ADR 0035).
  const parking = new Parking(commands, {
    onParked: (parked) => {
      logger.error(
        { consumer: parked.consumer, messageId: parked.messageId, code: parked.code },
        `parked a message it cannot apply: ${parked.detail}`,
      );
    },
  });
  const subscriptions: Subscription[] = [];
  const registry = new Registry();
  registerCommandMetrics(registry, () => commands);
  const subscriptionMetrics = new SubscriptionMetrics(registry, store, () => subscriptions, {
    outbox: OUTBOX_SUBSCRIPTION,
  });
  const app = await createServiceApp({
    title: 'Croupier settlement service',
    settings: config,
    store,
    checks: bus === null ? {} : { redis: async () => (await bus.ready?.()) ?? true },
    metrics: { registry, beforeScrape: () => subscriptionMetrics.refresh() },
  });
  await app.register(settlementPlugin, {
    ...(options.manifest === undefined ? {} : { manifest: options.manifest }),
    commands,
    store,
    parking,
    bus,
    concurrentRounds: config.SETTLEMENT_CONCURRENCY,
    logger,
    subscriptions,
  });
  if (options.listen ?? true) await app.listen({ host: config.HOST, port: config.PORT });
  logger.info(
    { port: config.PORT, walletMode: config.WALLET_MODE },
    'settlement service listening',
  );
  return {
    app,
    stop: async () => {
      // Closing the app stops the service's jobs too (their onClose).
      await app.close();
      await bus?.close();
      if (options.store === undefined) await store.close();
    },
  };
}
