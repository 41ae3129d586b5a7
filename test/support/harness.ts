import { createEventStore, type EventStore } from '@croupier/eventstore';
import { buildApp, loadConfig, System, type GatewayConfig } from '@croupier/gateway';
import type { HttpApp } from '@croupier/http';
import type { SettlementBus } from '@croupier/messaging';
import { isolatedPostgres, type IsolatedPostgres } from '@croupier/testkit';
import { pino } from 'pino';
import { ApiClient } from './api.js';

export interface HarnessOptions {
  /** Real PostgreSQL in an isolated schema (default), or the embedded PGlite. */
  readonly store?: 'postgres' | 'pglite';
  readonly env?: Record<string, string>;
  readonly bus?: SettlementBus;
  /** Replaces the wallet port the round service uses (fault injection). */
  readonly autoDeal?: boolean;
}

/** A running Croupier for one test file: the system, its HTTP app (no port) and a client. */
export interface Harness {
  readonly system: System;
  readonly app: HttpApp;
  readonly api: ApiClient;
  readonly store: EventStore;
  readonly config: GatewayConfig;
  /** Stops the system (not the store): a process ending. Start another on the same store. */
  restart(): Promise<void>;
  close(): Promise<void>;
}

export const TEST_SECRETS = {
  JWT_SECRET: 'test-jwt-secret-0123456789abcdef0123456789',
  SHOE_SEED_KEY: 'test-seed-key-0123456789abcdef0123456789ab',
};

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  let postgres: IsolatedPostgres | null = null;
  let store: EventStore;
  if ((options.store ?? 'postgres') === 'postgres') {
    postgres = await isolatedPostgres('e2e');
    store = await createEventStore({
      kind: 'postgres',
      connectionString: postgres.connectionString,
      schema: postgres.schema,
      subscriptions: { pollIntervalMs: 50 },
    });
  } else {
    store = await createEventStore({
      kind: 'pglite',
      dataDir: 'memory://',
      subscriptions: { pollIntervalMs: 50 },
    });
  }
  const config = loadConfig({
    EVENTSTORE: options.store ?? 'postgres',
    DATABASE_URL: postgres?.connectionString ?? 'postgres://unused@127.0.0.1/unused',
    ...TEST_SECRETS,
    LOG_LEVEL: 'silent',
    AUTO_TABLES: '',
    ORPHAN_GRACE_MS: '0',
    ...options.env,
  });
  const logger = pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });
  let system = await System.create({
    config,
    logger,
    store,
    autoDeal: options.autoDeal ?? false,
    sweepIntervalMs: 3_600_000,
    ...(options.bus === undefined ? {} : { bus: options.bus }),
  });
  await system.start();
  let app = await buildApp(system);
  const harness: Harness = {
    get system() {
      return system;
    },
    get app() {
      return app;
    },
    api: new ApiClient(() => app, system.tokens),
    store,
    config,
    async restart() {
      await app.close();
      await system.stop();
      system = await System.create({
        config,
        logger,
        store,
        autoDeal: options.autoDeal ?? false,
        sweepIntervalMs: 3_600_000,
      });
      await system.start();
      app = await buildApp(system);
    },
    async close() {
      await app.close();
      await system.stop();
      await store.close();
      await postgres?.drop();
    },
  };
  return harness;
}
