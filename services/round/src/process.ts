import { moneyHolder, walletModeShape } from '@croupier/contracts';
import { ServiceClient, ServiceTokens } from '@croupier/http';
import {
  commandHandlerOf,
  createServiceApp,
  GameFigures,
  LogMetrics,
  openReadModelStorage,
  openStore,
  parseEnvironment,
  ProjectionMetrics,
  readModelRunner,
  RefusedBets,
  registerCommandMetrics,
  type Process,
  type ProcessOptions,
  syncReadModels,
  tokenAuthorityOf,
} from '@croupier/runtime';
import { Registry } from 'prom-client';
import type { HttpApp } from '@croupier/http';
import type { Logger } from 'pino';
import { z } from 'zod';
import { HttpShoePort, HttpWalletPort } from './adapters/http-ports.js';
import { PendingDebits } from './bets/pending-debits.js';
import { DealingWatch } from './faults/dealing-watch.js';
import { FaultWatchdog, faultEnvironmentShape, faultLimitsOf } from './faults/fault-watchdog.js';
import { RoundService } from './round-service.js';
import { TableBoard } from './board/table-board.js';
import { SeatLedger } from './seats/seat-ledger.js';
import { sessionEnvironmentShape } from './sessions/idle-timeouts.js';
import { BET_ROUTES } from './routes.js';
import { RoundJobs, roundPlugin } from './plugin.js';

/**
 * The round service alone: tables, rounds and the bet saga, calling the shoe and wallet
 * services over HTTP (SHOE_URL, WALLET_URL), dealing its auto tables, sweeping orphaned debits;
 * its /metrics serve the game's figures read from the log and the bets it refused.
 */
export async function startRoundProcess(
  logger: Logger,
  env: Readonly<Record<string, string | undefined>>,
  options: ProcessOptions = {},
): Promise<Process & { readonly app: HttpApp }> {
  const config = parseEnvironment(
    {
      PORT: z.coerce.number().int().min(0).max(65_535).default(8084),
      SHOE_URL: z.url().default('http://127.0.0.1:8081'),
      WALLET_URL: z.url().default('http://127.0.0.1:8082'),
      ORPHAN_GRACE_MS: z.coerce.number().int().min(0).default(10_000),
      // The wallet service behind WALLET_URL holds or reaches the money; this service refuses
      // what the mode cannot hold (accrued commission in seamless mode).
      ...walletModeShape,
      ...faultEnvironmentShape,
      ...sessionEnvironmentShape,
    },
    env,
  );
  const store = await (options.store ?? openStore(config, 'round'));
  const registry = new Registry();
  // The durable read models: tables beside the log, caught up from their checkpoints (ADR 0023).
  const projectionMetrics = new ProjectionMetrics(registry);
  const readModels = readModelRunner(
    store,
    await openReadModelStorage(config, store, 'round'),
    projectionMetrics,
    logger,
  );
  const board = readModels.register(new TableBoard(readModels.storage));
  const pending = readModels.register(new PendingDebits(readModels.storage));
  const dealingWatch = readModels.register(new DealingWatch(readModels.storage));
  // The seat ledger (002) this process serves with the seats, from the wallets' records.
  const seatLedger = readModels.register(new SeatLedger(readModels.storage));
  // The game's figures /metrics serves (ADR 0011): the same in every process that serves them.
  const gameFigures = readModels.register(new GameFigures(readModels.storage));
  await readModels.start();
  // Commands of this process: one handler, its retry policy and bounded state cache (ADR 0007).
  // No aggregate of this process takes snapshots (the wallet's are the wallet service's).
  const { commands } = commandHandlerOf(config, store, null, logger, (position) => {
    readModels.noteAppended(position);
  });
  registerCommandMetrics(registry, () => commands);
  // Its calls to the shoe and wallet services carry a service token renewed before it expires
  // (SERVICE_TOKEN_MAX_LIFETIME): the process outlives any one token.
  const credentials = new ServiceTokens(tokenAuthorityOf(config), 'round-service');
  const token = () => credentials.token();
  const shoes = new HttpShoePort(new ServiceClient(config.SHOE_URL, token));
  const wallets = new HttpWalletPort(new ServiceClient(config.WALLET_URL, token));
  const rounds = new RoundService(commands, shoes, wallets, {
    money: moneyHolder(config.WALLET_MODE),
  });

  // The fault policy (000): stalled deals paused, long pauses voided.
  const watchdog = new FaultWatchdog(
    rounds,
    dealingWatch,
    faultLimitsOf(config),
    (error, roundId) => {
      logger.warn({ err: error, roundId }, 'fault watchdog: round not handled, retrying');
    },
  );
  const jobs = new RoundJobs({
    rounds,
    board,
    pending,
    dealingWatch,
    watchdog,
    readModels,
    orphanGraceMs: config.ORPHAN_GRACE_MS,
    logger,
  });

  // The game's figures, and the refused bets, which only the process serving the bet routes sees.
  const game = new LogMetrics(registry, gameFigures, readModels);
  const refusedBets = new RefusedBets(registry, Object.values(BET_ROUTES));
  const app = await createServiceApp({
    title: 'Croupier round service',
    settings: config,
    store,
    metrics: {
      registry,
      beforeScrape: async () => {
        projectionMetrics.refresh();
        await game.refresh();
      },
    },
    onProblem: refusedBets.onProblem,
  });
  app.addHook('preHandler', async (request) => {
    if (request.method === 'GET' && request.url.startsWith('/v1/'))
      await syncReadModels(readModels);
  });
  await app.register(roundPlugin, {
    ...(options.manifest === undefined ? {} : { manifest: options.manifest }),
    rounds,
    board,
    seatLedger,
    jobs,
    autoDeal: true,
    sessionIdleTimeoutMs: config.SESSION_IDLE_TIMEOUT_MS,
    intervals: { orphanSweepMs: 5_000, faultSweepMs: 1_000, sessionSweepMs: 5_000 },
  });
  if (options.listen ?? true) await app.listen({ host: config.HOST, port: config.PORT });
  logger.info(
    {
      port: config.PORT,
      shoe: config.SHOE_URL,
      wallet: config.WALLET_URL,
      walletMode: config.WALLET_MODE,
    },
    'round service listening',
  );
  return {
    app,
    stop: async () => {
      // Closing the app stops the sweeps, then the dealers (the plugin's onClose).
      await app.close();
      await readModels.stop();
      await readModels.storage.close();
      if (options.store === undefined) await store.close();
    },
  };
}
