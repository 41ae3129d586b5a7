import { Parking } from '@croupier/application';
import type { Subscription } from '@croupier/eventstore';
import { createSettlementBus, createWalletMessageBus } from '@croupier/messaging';
import {
  commandHandlerOf,
  ConfigError,
  createServiceApp,
  openReadModelStorage,
  openSnapshots,
  openStore,
  parseEnvironment,
  ProjectionMetrics,
  readModelRunner,
  registerCommandMetrics,
  type Process,
  type ProcessOptions,
  SubscriptionMetrics,
} from '@croupier/runtime';
import { Registry } from 'prom-client';
import type { HttpApp } from '@croupier/http';
import type { Logger } from 'pino';
import { z } from 'zod';
import { CommissionLedger } from './application/commission-collector.js';
import { walletEnvironmentShape } from './application/balance-limits.js';
import { walletConsumerShape } from './application/wallet-mode.js';
import {
  operatorWalletEnvironmentShape,
  operatorWalletSettingProblems,
} from './seamless/settings.js';
import { walletPlugin } from './plugin.js';
import { walletAdapters } from './wallet-adapters.js';

/**
 * The wallet service alone: balances and movements, the wallet port for round services,
 * Croupier's own wallet applying the settlement service's messages from its own BullMQ queue
 * (REDIS_URL), and the wallet outbox publishing every movement to the public queue. With
 * WALLET_MODE=seamless the wallet port is the operator's wallet instead (ADR 0026): stakes are
 * debited there, and the rounds' settlement records become its credits and rollbacks, fed from
 * the log and delivered by the outbox; Croupier's own wallet takes no deposit and no message.
 */
export async function startWalletProcess(
  logger: Logger,
  env: Readonly<Record<string, string | undefined>>,
  options: ProcessOptions = {},
): Promise<Process & { readonly app: HttpApp }> {
  const config = parseEnvironment(
    {
      PORT: z.coerce.number().int().min(0).max(65_535).default(8082),
      ...walletConsumerShape,
      ...walletEnvironmentShape,
      ...operatorWalletEnvironmentShape,
    },
    env,
  );
  const seamlessProblems = operatorWalletSettingProblems(config);
  if (seamlessProblems.length > 0) throw new ConfigError(seamlessProblems);
  const store = await (options.store ?? openStore(config, 'wallet'));
  const registry = new Registry();
  // The read models: tables beside the log, caught up from their checkpoints (ADR 0023).
  const projectionMetrics = new ProjectionMetrics(registry);
  const readModels = readModelRunner(
    store,
    await openReadModelStorage(config, store, 'wallet'),
    projectionMetrics,
    logger,
  );
  const ledger = readModels.register(new CommissionLedger(readModels.storage));
  // Commands of this process: one handler, its retry policy, its bounded state cache (ADR 0007)
  // and the wallets' snapshots (ADR 0025).
  const processCommands = commandHandlerOf(
    config,
    store,
    await openSnapshots(config, store, 'wallet'),
    logger,
    (position) => {
      readModels.noteAppended(position);
    },
  );
  const commands = processCommands.commands;
  registerCommandMetrics(registry, () => commands);
  // A message that cannot be applied is parked and the others go on (ADR 0035).
  const parking = new Parking(commands, {
    onParked: (parked) => {
      logger.error(
        { consumer: parked.consumer, messageId: parked.messageId, code: parked.code },
        `parked a message it cannot apply: ${parked.detail}`,
      );
    },
  });
  // The wallet mode, chosen here once; seamless mode's owed calls are a read model, registered
  // before the models start.
  const wallet = walletAdapters(config, {
    commands,
    store,
    readModels,
    storage: readModels.storage,
    parking,
    logger,
  });
  await readModels.start();
  // The ledger's queue is read only in transfer mode: in seamless mode no one publishes to it.
  const bus =
    config.REDIS_URL === undefined || wallet.seamless !== null
      ? null
      : createSettlementBus({ redisUrl: config.REDIS_URL, prefix: config.REDIS_PREFIX });
  const publicBus = createWalletMessageBus({
    redisUrl: config.REDIS_URL,
    prefix: config.REDIS_PREFIX,
  });
  if (wallet.seamless !== null)
    logger.info(
      { operatorWallet: config.OPERATOR_WALLET_URL },
      "seamless mode: stakes, payouts and refunds go to the operator's wallet",
    );
  else if (bus === null)
    logger.warn(
      'no REDIS_URL: this wallet service receives no settlement messages (run the gateway for one process)',
    );
  const subscriptions: Subscription[] = [];
  // The subscriptions' checkpoints. The settlement messages come from a BullMQ queue, not a
  // subscription: they have no position here (the outbox's backlog is the settlement's).
  const subscriptionMetrics = new SubscriptionMetrics(registry, store, () => subscriptions);
  const app = await createServiceApp({
    title: 'Croupier wallet service',
    settings: config,
    store,
    checks: bus === null ? {} : { redis: async () => (await bus.ready?.()) ?? true },
    metrics: {
      registry,
      beforeScrape: async () => {
        projectionMetrics.refresh();
        await subscriptionMetrics.refresh();
      },
    },
  });
  await app.register(walletPlugin, {
    ...(options.manifest === undefined ? {} : { manifest: options.manifest }),
    wallet,
    store,
    readModels,
    ledger,
    parking,
    bus,
    consumerConcurrency: config.WALLET_CONSUMER_CONCURRENCY,
    publicBus,
    funBalance: config.FUN_BALANCE,
    servePort: true,
    logger,
    subscriptions,
  });
  if (options.listen ?? true) await app.listen({ host: config.HOST, port: config.PORT });
  logger.info(
    { port: config.PORT, bus: bus?.kind ?? 'none', walletMode: config.WALLET_MODE },
    'wallet service listening',
  );
  return {
    app,
    stop: async () => {
      // Closing the app stops the service's jobs too (their onClose).
      await app.close();
      await readModels.stop();
      await processCommands.close();
      await bus?.close();
      await publicBus?.close();
      await readModels.storage.close();
      if (options.store === undefined) await store.close();
    },
  };
}
