import {
  createEventStore,
  MemoryEventStore,
  type EventStore,
  type ReadAllOptions,
  type RecordedEvent,
} from '@croupier/eventstore';
import { NOTARY_STREAM } from '@croupier/contracts';
import { buildApp, loadConfig, System, type GatewayConfig } from '@croupier/gateway';
import type { HttpApp } from '@croupier/http';
import type { SettlementBus } from '@croupier/messaging';
import { isolatedPostgres, type IsolatedPostgres } from '@croupier/testkit';
import { pino } from 'pino';
import { inject } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TokenAuthority } from '@croupier/http';
import { startRedisServer } from '@croupier/testkit';
import { ApiClient, httpTransport, injectTransport } from './api.js';
import {
  Cluster,
  CLUSTER_SECRETS,
  SharedServiceProcess,
  type Deployment,
  type ServiceName,
} from './cluster.js';
import { takeRunLocks, type RunLocks } from './run-locks.js';
import type { SharedClusterInfo } from './shared-cluster.js';

export interface HarnessOptions {
  /**
   * The store of the one-process deployment, named by every file: the in-memory store (passes the
   * same contract suite; for files the distributed run takes again on PostgreSQL and Redis),
   * real PostgreSQL in an isolated schema, or the embedded PGlite. The distributed deployment
   * always runs on PostgreSQL and Redis, whatever this says.
   */
  readonly store: 'memory' | 'postgres' | 'pglite';
  /** Settings of the system: the one process's, or every process's in the distributed one. */
  readonly env?: Record<string, string>;
  readonly bus?: SettlementBus;
  /** Replaces the wallet port the round service uses (fault injection). */
  readonly autoDeal?: boolean;
  /**
   * Distributed deployment only: also run the gateway beside the services, serving the routes
   * no service serves (game history, audit, significant events), as an Ingress would send them.
   * Asked for only where a test reads them: it is one more process. (In one process the gateway
   * is the system.)
   */
  readonly gateway?: boolean;
  /**
   * Distributed deployment only: processes of the file's own, which it may kill and restart,
   * instead of the run's shared deployment. A file whose settings (`env`) differ from the
   * shared deployment's gets processes of its own anyway.
   */
  readonly ownCluster?: boolean;
  /**
   * Distributed run only: the file's timings need the machine to itself, so no other file runs
   * beside it (support/run-locks.ts). For files whose windows are a few hundred milliseconds.
   */
  readonly alone?: boolean;
}

/** A running Croupier for one test file: the system, its HTTP app (no port) and a client. */
export interface Harness {
  readonly system: System;
  readonly app: HttpApp;
  readonly api: ApiClient;
  readonly store: EventStore;
  readonly config: GatewayConfig;
  /** Signs tokens the deployment accepts. */
  readonly tokens: TokenAuthority;
  /**
   * The distributed deployment's processes (to call them; to kill or restart one, with
   * `ownCluster`); null in one process.
   */
  readonly cluster: Deployment | null;
  /**
   * Where a client with a connection of its own reaches `path` (http://host:port): the app
   * listening on a port of its own (one process), or the service serving it (distributed).
   */
  origin(path: string): Promise<string>;
  /** Stops the system (not the store): a process ending. Start another on the same store. */
  restart(): Promise<void>;
  close(): Promise<void>;
}

export const TEST_SECRETS = {
  JWT_SECRET: 'test-jwt-secret-0123456789abcdef0123456789',
  SHOE_SEED_KEY: 'test-seed-key-0123456789abcdef0123456789ab',
};

/** Where the e2e suite runs: one process (default) or the services as separate processes. */
export const DEPLOYMENT: 'single' | 'distributed' =
  process.env.E2E_DEPLOYMENT === 'distributed' ? 'distributed' : 'single';

export async function startHarness(options: HarnessOptions): Promise<Harness> {
  if (DEPLOYMENT === 'distributed') return startDistributedHarness(options);
  let postgres: IsolatedPostgres | null = null;
  let store: EventStore;
  if (options.store === 'memory') {
    store = new MemoryEventStore();
  } else if (options.store === 'postgres') {
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
    // The store is the one above; the setting only names it (memory is no deployment option).
    EVENTSTORE: options.store === 'memory' ? 'pglite' : options.store,
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
  // The app listens only once a test asks for a real connection; inject needs no port.
  let listening: Promise<string> | null = null;
  const harness: Harness = {
    get system() {
      return system;
    },
    get app() {
      return app;
    },
    api: new ApiClient(
      injectTransport(() => app),
      system.tokens,
    ),
    tokens: system.tokens,
    cluster: null,
    store,
    config,
    origin() {
      listening ??= app.listen({ host: '127.0.0.1', port: 0 });
      return listening;
    },
    async restart() {
      await app.close();
      listening = null;
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

/** Path prefixes of each service's public routes. */
const ROUTES: readonly [RegExp, 'round' | 'wallet' | 'shoe' | 'settlement'][] = [
  [/^\/v1\/(tables|rounds|sessions)/, 'round'],
  [/^\/v1\/wallets/, 'wallet'],
  [/^\/v1\/shoes/, 'shoe'],
  [/^\/v1\/settlements/, 'wallet'],
];

/**
 * The same suite against the distributed deployment: shoe, wallet, round and two settlement
 * instances (and the gateway, when asked) as processes of their own on PostgreSQL and a Redis of
 * the test's own, reached over HTTP. The one-process System is not there: tests that drive it
 * directly are skipped, naming why.
 */
async function startDistributedHarness(options: HarnessOptions): Promise<Harness> {
  const shared = inject('sharedCluster') as SharedClusterInfo | undefined;
  const fits =
    shared !== undefined &&
    options.ownCluster !== true &&
    Object.entries(options.env ?? {}).every(([name, value]) => shared.env[name] === value);
  const alone = options.alone === true;
  if (fits)
    return joinSharedCluster(shared, await takeRunLocks(shared, { alone, deployment: true }));
  // Outside the distributed run's config (one file run by hand) there is nobody to share with.
  const locks =
    shared === undefined ? null : await takeRunLocks(shared, { alone, deployment: false });
  const postgres = await isolatedPostgres('dist');
  const redis = await startRedisServer({ persistent: true });
  let cluster: Cluster | null = null;
  let store: EventStore;
  try {
    cluster = await Cluster.create({
      databaseUrl: postgres.connectionString,
      schema: postgres.schema,
      redisUrl: redis.url,
      redisPrefix: postgres.schema,
      logDir: mkdtempSync(join(tmpdir(), 'croupier-dist-')),
      env: { ORPHAN_GRACE_MS: '0', ...options.env },
      gateway: options.gateway ?? false,
    });
    store = await createEventStore({
      kind: 'postgres',
      connectionString: postgres.connectionString,
      schema: postgres.schema,
    });
  } catch (error) {
    // A harness that could not start leaves no process, Redis or schema behind (the file's
    // afterAll has no harness to close).
    await cluster?.stop();
    await redis.cleanup();
    await postgres.drop();
    await locks?.release();
    throw error;
  }
  const route = (path: string) => {
    const match = ROUTES.find(([pattern]) => pattern.test(path));
    if (match !== undefined) return cluster.url(match[1]);
    // What no service serves goes to the gateway, as the Ingress sends it (infra/k8s).
    if (options.gateway === true) return cluster.url('gateway');
    throw new Error(
      `no service serves ${path} in the distributed deployment (start the harness with gateway: true)`,
    );
  };
  const tokens = new TokenAuthority(CLUSTER_SECRETS.JWT_SECRET);
  const unavailable = (): never => {
    throw new Error('the distributed deployment has no in-process System');
  };
  return {
    get system() {
      return unavailable();
    },
    get app() {
      return unavailable();
    },
    api: new ApiClient(httpTransport(route), tokens),
    tokens,
    cluster,
    origin: (path) => Promise.resolve(route(path)),
    store,
    get config() {
      return unavailable();
    },
    restart: () =>
      Promise.reject(new Error('restart is not available in the distributed deployment')),
    async close() {
      await cluster.stop();
      await store.close();
      await redis.cleanup();
      await postgres.drop();
      await locks?.release();
    },
  };
}

/**
 * A file on the run's shared deployment (support/shared-cluster.ts): its processes were started
 * once for the run, with the gateway. One file at a time has it (the deployment lock,
 * support/run-locks.ts, held until the file closes the harness or its worker dies), while files
 * with processes of their own run beside it. The file's store is a view of the streams created
 * after it took the lock, so what it reads of the log is its own tables', rounds', shoes' and
 * players' events, as on a deployment of its own (streams written by every file, like the day's
 * security log, are left out).
 */
async function joinSharedCluster(shared: SharedClusterInfo, locks: RunLocks): Promise<Harness> {
  const connection = await createEventStore({
    kind: 'postgres',
    connectionString: shared.databaseUrl,
    schema: shared.schema,
  });
  // Committed, not readable: a commit of an earlier file's that a transaction elsewhere still
  // holds back is not the file's; what the file writes gets positions above every commit so far.
  const store = streamsCreatedAfter(connection, (await connection.head()).committed);
  const processes = shared.processes.map(
    (p) =>
      new SharedServiceProcess(p.id, p.service, p.port, p.pid, join(shared.logDir, `${p.id}.log`)),
  );
  const deployment: Deployment = {
    processes,
    get(id) {
      const found = processes.find((p) => p.id === id);
      if (found === undefined) throw new Error(`no process ${id}`);
      return found;
    },
    url: (service: ServiceName) => processes.find((p) => p.service === service)!.url,
  };
  const route = (path: string) => {
    const match = ROUTES.find(([pattern]) => pattern.test(path));
    return deployment.url(match === undefined ? 'gateway' : match[1]);
  };
  const tokens = new TokenAuthority(CLUSTER_SECRETS.JWT_SECRET);
  const unavailable = (): never => {
    throw new Error('the distributed deployment has no in-process System');
  };
  return {
    get system() {
      return unavailable();
    },
    get app() {
      return unavailable();
    },
    api: new ApiClient(httpTransport(route), tokens),
    tokens,
    cluster: deployment,
    origin: (path) => Promise.resolve(route(path)),
    store,
    get config() {
      return unavailable();
    },
    restart: () =>
      Promise.reject(new Error('restart is not available in the distributed deployment')),
    async close() {
      await connection.close();
      // The next file may take the deployment.
      await locks.release();
    },
  };
}

/**
 * The store as a file on the shared deployment sees it: `readAll` returns only the events of the
 * file's own streams, those whose first event came after `joined`, where a shoe or round stream
 * counts only if its table's stream is the file's too (an earlier file's every-round table may
 * start its next shoe after that file ended). The rest of the store is passed through.
 *
 * A player's wallet is the file's only if the file made it: files on the shared deployment play
 * players of their own. One that plays a player an earlier file played (the same name) would find
 * part of that wallet's money not its own, and would lose its own stakes and payouts from its
 * reads; so a read that finds the file's money on such a wallet (a deposit or withdrawal, or an
 * event naming one of its rounds or tables) fails, naming the player. Credits of an earlier
 * file's rounds that land late name those rounds and stay out, unremarked.
 */
function streamsCreatedAfter(store: EventStore, joined: bigint): EventStore {
  const readAll = async (options: ReadAllOptions = {}): Promise<RecordedEvent[]> => {
    const events: RecordedEvent[] = [];
    for (;;) {
      const after = events.at(-1)?.position ?? joined;
      const page = await store.readAll({ after, limit: 5_000 });
      events.push(...page);
      if (page.length < 5_000) break;
    }
    const created = new Set(events.filter((e) => e.revision === 0n).map((e) => e.stream));
    const own = (stream: string): boolean => {
      // The notary's checkpoints are the deployment's, recorded every minute whatever file runs.
      if (!created.has(stream) || stream === NOTARY_STREAM) return false;
      // shoe-<tableId>.<n> and round-<tableId>.<n>.<m>: table ids have no dot.
      const game = /^(?:shoe|round)-([^.]+)\./.exec(stream);
      return game === null || created.has(`table-${game[1]!}`);
    };
    const shared = new Set<string>();
    for (const event of events) {
      if (created.has(event.stream) || !event.stream.startsWith('wallet-')) continue;
      const { roundId, tableId } = event.data as { roundId?: unknown; tableId?: unknown };
      if (
        event.type === 'FundsDeposited' ||
        event.type === 'FundsWithdrawn' ||
        (typeof roundId === 'string' && own(`round-${roundId}`)) ||
        (typeof roundId !== 'string' && typeof tableId === 'string' && own(`table-${tableId}`))
      )
        shared.add(event.stream.slice('wallet-'.length));
    }
    if (shared.size > 0)
      throw new Error(
        `this file plays ${[...shared].join(', ')}, whose wallets an earlier file on the run's shared deployment made: give the file players of its own (its reads of the log would miss their money)`,
      );
    const { after, filter, limit } = options;
    const selected = events.filter(
      (e) =>
        own(e.stream) &&
        (after === undefined || e.position > after) &&
        (filter?.streamPrefix === undefined || e.stream.startsWith(filter.streamPrefix)) &&
        (filter?.eventTypes === undefined || filter.eventTypes.includes(e.type)),
    );
    return limit === undefined ? selected : selected.slice(0, limit);
  };
  return {
    append: (stream, events, options) => store.append(stream, events, options),
    readStream: (stream, options) => store.readStream(stream, options),
    readAll,
    head: () => store.head(),
    subscribe: (options) => store.subscribe(options),
    verifyStream: (stream) => store.verifyStream(stream),
    close: () => store.close(),
  };
}
