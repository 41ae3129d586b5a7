import type { EventStore, Subscription } from '@croupier/eventstore';
import type { HttpApp } from '@croupier/http';

/**
 * What one process hosts of each service: the routes it serves and the background jobs it runs
 * (subscriptions, outboxes, reactors, watchdogs). Each service's plugin writes here, so a test can
 * hold a service's own process against the one-process gateway (ADR 0037).
 */
export class ServiceManifest {
  private readonly entries = new Map<string, { routes: Set<string>; jobs: Set<string> }>();

  route(service: string, route: string): void {
    this.of(service).routes.add(route);
  }

  job(service: string, job: string): void {
    this.of(service).jobs.add(job);
  }

  /** The routes and jobs of one service, sorted: equal whatever order they started in. */
  service(service: string): { readonly routes: string[]; readonly jobs: string[] } {
    const entry = this.of(service);
    return { routes: [...entry.routes].sort(), jobs: [...entry.jobs].sort() };
  }

  private of(service: string) {
    let entry = this.entries.get(service);
    if (entry === undefined) {
      entry = { routes: new Set(), jobs: new Set() };
      this.entries.set(service, entry);
    }
    return entry;
  }
}

/**
 * Which half of a service a host takes. A service's own process takes both; the one-process
 * gateway hosts the jobs once for the life of its System and the routes on every app it builds
 * over that System (tests build several), so it registers the same plugin twice, one half each.
 */
export interface ServicePluginOptions {
  /** Default: both. */
  readonly only?: 'routes' | 'jobs';
  /** Where the plugin writes what it registered (tests and the console's own checks). */
  readonly manifest?: ServiceManifest;
  /** The process's list of running subscriptions its /metrics read; each job that is one joins. */
  readonly subscriptions?: Subscription[];
}

/** What a service's jobs report to: a subscription's retry after an error. */
export interface ServiceLogger {
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
}

export function reportRetrying(logger: ServiceLogger) {
  return (name: string) => (error: unknown) => {
    logger.warn({ err: error, subscription: name }, 'subscription retrying');
  };
}

export interface Stoppable {
  stop(): Promise<void> | void;
}

/**
 * The frame of a service plugin: `routes` registers its routes (recorded in the manifest by the
 * method and path fastify saw), `jobs` starts its background work through `run`, each job
 * stopped at `onClose` — in the order `stopOrder` gives, or the reverse of their start.
 */
export async function hostService(
  app: HttpApp,
  service: string,
  options: ServicePluginOptions,
  parts: {
    readonly routes?: (app: HttpApp) => void;
    readonly jobs?: (
      run: <T extends Stoppable>(name: string, start: () => T | Promise<T>) => Promise<T>,
    ) => Promise<void>;
  },
): Promise<void> {
  const { manifest } = options;
  if (options.only !== 'jobs' && parts.routes !== undefined) {
    if (manifest !== undefined)
      app.addHook('onRoute', (route) => {
        for (const method of [route.method].flat())
          if (method !== 'HEAD') manifest.route(service, `${method} ${route.url}`);
      });
    parts.routes(app);
  }
  if (options.only !== 'routes' && parts.jobs !== undefined) {
    const running: Stoppable[] = [];
    app.addHook('onClose', async () => {
      for (const job of running.splice(0).reverse()) await job.stop();
    });
    await parts.jobs(async (name, start) => {
      const job = await start();
      running.push(job);
      manifest?.job(service, name);
      return job;
    });
  }
}

/** How a test starts a service's process without a port of its own (the process's start). */
export interface ProcessOptions {
  /** An already open store, left open at stop; otherwise the configured one is opened. */
  readonly store?: EventStore;
  /** Listen on HOST:PORT. Default true. */
  readonly listen?: boolean;
  /** Where the process's service plugin writes what it registered. */
  readonly manifest?: ServiceManifest;
}
