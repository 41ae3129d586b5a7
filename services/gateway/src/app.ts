import { playerIdSchema } from '@croupier/contracts';
import { createHttpApp, principalOf, requireSelfOrStaff, type HttpApp } from '@croupier/http';
import { roundPlugin } from '@croupier/round';
import { FailedLoginLog, httpSettingsOf } from '@croupier/runtime';
import { shoePlugin } from '@croupier/shoe';
import { walletPlugin } from '@croupier/wallet';
import type { FastifyServerOptions } from 'fastify';
import { z } from 'zod';
import { auditRoutes } from './audit-routes.js';
import { hourlyRoutes } from './floor/hourly-routes.js';
import { reportRoutes } from './floor/report-routes.js';
import { floorRoutes } from './floor/routes.js';
import { parkedMessageRoutes } from './parked-routes.js';
import { supervisionRoutes } from './supervision-routes.js';
import { roundHosting, walletHosting } from './hosting.js';
import { GatewayMetrics } from './metrics.js';
import type { System } from './system.js';

export const API_VERSION = '1.0.0';

/**
 * The gateway's HTTP API: every service's routes on one fastify app, plus what joins them
 * (players' game history). Built in a factory so tests use `app.inject()` without a port.
 */
export async function buildApp(
  system: System,
  logger: FastifyServerOptions['logger'] = false,
  options: { readonly metrics?: GatewayMetrics } = {},
): Promise<HttpApp> {
  const metrics =
    options.metrics ??
    new GatewayMetrics({
      store: system.store,
      gameFigures: system.gameFigures,
      readModels: system.readModels,
      subscriptions: () => system.runningSubscriptions,
      projections: system.projectionMetrics,
      commands: () => system.commands,
      parked: system.parkedMessages,
    });
  const failedLogins = new FailedLoginLog(system.store, {
    windowMs: system.config.FAILED_LOGIN_WINDOW_MS,
  });
  const app = await createHttpApp({
    title: 'Croupier',
    version: API_VERSION,
    description:
      'Event-sourced baccarat: tables, shoes, rounds, bets, wallets and settlement. Every change is an event; ' +
      'errors are application/problem+json with a stable `code`.',
    tokens: system.tokens,
    logger,
    readiness: async () => ({
      eventStore: await system.storeReady(),
      ...(system.bus.kind === 'bullmq' ? { redis: (await system.bus.ready?.()) ?? true } : {}),
    }),
    ...httpSettingsOf(system.config, failedLogins),
    metrics: {
      registry: metrics.registry,
      public: system.config.METRICS_PUBLIC,
      beforeScrape: () => metrics.refresh(),
    },
    onProblem: metrics.onProblem,
  });
  // Reads right after a write see it: the read models catch up before answering.
  app.addHook('preHandler', async (request) => {
    if (request.method === 'GET' && request.url.startsWith('/v1/')) await system.sync();
  });

  failedLogins.attach(app);
  // The services' routes, registered as their own processes register them (ADR 0037); their
  // background work runs once in the System, whichever apps are built over it.
  await app.register(roundPlugin, {
    ...roundHosting(system),
    only: 'routes',
    manifest: system.manifest,
  });
  await app.register(shoePlugin, {
    shoes: system.shoes,
    servePort: false,
    manifest: system.manifest,
  });
  await app.register(walletPlugin, {
    ...walletHosting(system),
    only: 'routes',
    manifest: system.manifest,
  });
  auditRoutes(app, system);
  supervisionRoutes(app, system);
  parkedMessageRoutes(app, system);
  floorRoutes(app, system);
  hourlyRoutes(app, system);
  reportRoutes(app, system);

  app.get(
    '/v1/players/:playerId/history',
    {
      // An unknown player has no history yet: an empty list, not a 404. FORBIDDEN: a player
      // reading another player's history.
      config: {
        roles: ['player', 'supervisor', 'operator', 'regulator'],
        problems: ['FORBIDDEN'],
      },
      schema: {
        tags: ['players'],
        summary: "A player's last rounds: cards, result, stakes, payouts, balance before and after",
        params: z.object({ playerId: playerIdSchema }),
        querystring: z.strictObject({ limit: z.coerce.number().int().min(1).max(100).default(10) }),
      },
    },
    async (request) => {
      requireSelfOrStaff(principalOf(request), request.params.playerId);
      return system.history.history(request.params.playerId, request.query.limit);
    },
  );
  return app;
}
