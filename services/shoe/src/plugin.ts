import type { HttpApp } from '@croupier/http';
import { hostService, type ServicePluginOptions } from '@croupier/runtime';
import type { ShoeService } from './application/shoe-service.js';
import { shoeInternalRoutes } from './http/internal-routes.js';
import { shoeRoutes } from './http/routes.js';

export interface ShoePluginOptions extends ServicePluginOptions {
  readonly shoes: ShoeService;
  /**
   * Serve the shoe port over HTTP (`/internal/v1/…`) for round services in other processes. The
   * one-process gateway's rounds hold the ShoeService itself and serve none.
   */
  readonly servePort: boolean;
}

/** The shoe service, wired once: its own process and the gateway both register this (ADR 0037). */
export async function shoePlugin(app: HttpApp, options: ShoePluginOptions): Promise<void> {
  await hostService(app, 'shoe', options, {
    routes: (routes) => {
      shoeRoutes(routes, { shoes: options.shoes });
      if (options.servePort) shoeInternalRoutes(routes, { shoes: options.shoes });
    },
  });
}
