import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, nodeEntryArgs } from '@croupier/testkit';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export type ServiceName = 'shoe' | 'wallet' | 'round' | 'settlement' | 'gateway';

/** One service process of the distributed deployment, which a test may kill and restart. */
export class ServiceProcess {
  private child: ChildProcess | null = null;
  private exited: Promise<void> = Promise.resolve();
  private stopping = false;
  private ready = false;
  kills = 0;
  /** Exits nobody asked for (not a kill, not a stop) after the process was ready. */
  crashes = 0;
  /** Exits while starting (e.g. its database refused it). */
  failedStarts = 0;

  constructor(
    readonly id: string,
    readonly service: ServiceName,
    readonly port: number,
    private readonly env: Record<string, string>,
    private readonly logFile: string,
  ) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get running(): boolean {
    return this.child !== null;
  }

  /** The operating-system process id, while running. */
  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  /** Starts the process and resolves once /ready answers 200. */
  async start(timeoutMs = 90_000): Promise<void> {
    // Compiled once per test process, as production runs compiled JavaScript (testkit).
    const args = await nodeEntryArgs(join(ROOT, 'services', this.service, 'src', 'main.ts'));
    const log = openSync(this.logFile, 'a');
    const child = spawn(process.execPath, args, {
      cwd: join(ROOT, 'services', this.service),
      env: { ...process.env, ...this.env, PORT: String(this.port) },
      stdio: ['ignore', log, log],
    });
    this.child = child;
    this.stopping = false;
    this.ready = false;
    this.exited = new Promise((resolve) => {
      child.on('exit', () => {
        if (this.child === child) {
          this.child = null;
          if (!this.stopping) {
            if (this.ready) this.crashes++;
            else this.failedStarts++;
          }
        }
        resolve();
      });
    });
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (!this.running) throw new Error(`${this.id} exited while starting; see ${this.logFile}`);
      try {
        const response = await fetch(`${this.url}/ready`, { signal: AbortSignal.timeout(2_000) });
        if (response.status === 200) {
          this.ready = true;
          return;
        }
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline)
        throw new Error(`${this.id} not ready after ${timeoutMs} ms; see ${this.logFile}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  /**
   * Starts the process, and again whenever it exits while starting (its database may be down),
   * as an orchestrator's restart policy would, until it is ready or `timeoutMs` have passed.
   */
  async startRetrying(timeoutMs = 90_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      try {
        await this.start(Math.max(1, deadline - Date.now()));
        return;
      } catch (error) {
        if (Date.now() > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }
  }

  /** kill -9: no graceful shutdown, whatever it was doing stops mid-way. */
  async kill(): Promise<void> {
    if (this.child === null) return;
    this.kills++;
    this.stopping = true;
    this.child.kill('SIGKILL');
    await this.exited;
  }

  /** A graceful stop (SIGTERM): it finishes in-flight work first. */
  async stop(): Promise<void> {
    if (this.child === null) return;
    this.stopping = true;
    this.child.kill('SIGTERM');
    await this.exited;
  }
}

/**
 * A process of the distributed run's shared deployment (support/shared-cluster.ts): the run
 * owns it, not the test file, so a file may call it but not kill, stop or restart it.
 */
export class SharedServiceProcess extends ServiceProcess {
  constructor(
    id: string,
    service: ServiceName,
    port: number,
    private readonly sharedPid: number | null,
    logFile: string,
  ) {
    super(id, service, port, {}, logFile);
  }

  override get running(): boolean {
    return true;
  }

  override get pid(): number | null {
    return this.sharedPid;
  }

  private refuse(what: string): never {
    throw new Error(
      `${this.id} belongs to the run's shared deployment: a test that would ${what} it starts the harness with ownCluster: true`,
    );
  }

  override start(): Promise<void> {
    return this.refuse('start');
  }

  override startRetrying(): Promise<void> {
    return this.refuse('start');
  }

  override kill(): Promise<void> {
    return this.refuse('kill');
  }

  override stop(): Promise<void> {
    return this.refuse('stop');
  }
}

/** The processes of a deployment a test calls: its own Cluster, or the run's shared one. */
export interface Deployment {
  readonly processes: readonly ServiceProcess[];
  get(id: string): ServiceProcess;
  url(service: ServiceName): string;
}

export interface ClusterOptions {
  readonly databaseUrl: string;
  readonly schema: string;
  readonly redisUrl: string;
  readonly redisPrefix: string;
  readonly logDir: string;
  readonly env?: Record<string, string>;
  /** Settlement instances: one is active per subscription, the others stand by. Default 2. */
  readonly settlementInstances?: number;
  /**
   * Also run the gateway beside the services, as an Ingress sends it every route no service
   * serves (audit, game history, significant events, the console). It neither consumes the
   * settlement queue nor deals: the services do (docs/deployment.md). Default false.
   */
  readonly gateway?: boolean;
}

export const CLUSTER_SECRETS = {
  JWT_SECRET: 'cluster-secret-0123456789abcdef0123456789',
  SHOE_SEED_KEY: 'cluster-seed-0123456789abcdef0123456789ab',
};

/** The services as separate processes on PostgreSQL and Redis: the distributed deployment. */
export class Cluster implements Deployment {
  readonly processes: ServiceProcess[] = [];

  private constructor(readonly options: ClusterOptions) {}

  static async create(options: ClusterOptions): Promise<Cluster> {
    mkdirSync(options.logDir, { recursive: true });
    const cluster = new Cluster(options);
    const [shoePort, walletPort, roundPort] = [
      await freePort(),
      await freePort(),
      await freePort(),
    ];
    const env = {
      EVENTSTORE: 'postgres',
      DATABASE_URL: options.databaseUrl,
      DATABASE_SCHEMA: options.schema,
      REDIS_URL: options.redisUrl,
      REDIS_PREFIX: options.redisPrefix,
      LOG_LEVEL: 'warn',
      ...CLUSTER_SECRETS,
      SHOE_URL: `http://127.0.0.1:${shoePort}`,
      WALLET_URL: `http://127.0.0.1:${walletPort}`,
      ...options.env,
    };
    const add = (
      id: string,
      service: ServiceName,
      port: number,
      own: Record<string, string> = {},
    ) =>
      cluster.processes.push(
        new ServiceProcess(
          id,
          service,
          port,
          { ...env, ...own },
          join(options.logDir, `${id}.log`),
        ),
      );
    add('shoe', 'shoe', shoePort);
    add('wallet', 'wallet', walletPort);
    add('round', 'round', roundPort);
    for (let i = 1; i <= (options.settlementInstances ?? 2); i++)
      add(`settlement-${i}`, 'settlement', await freePort());
    if (options.gateway === true) add('gateway', 'gateway', await freePort(), { AUTO_TABLES: '' });
    try {
      // Start the shoe and wallet first (the round service calls them), then the rest together.
      await Promise.all(
        cluster.processes
          .filter((p) => p.service === 'shoe' || p.service === 'wallet')
          .map((p) => p.start()),
      );
      await Promise.all(
        cluster.processes
          .filter((p) => p.service !== 'shoe' && p.service !== 'wallet')
          .map((p) => p.start()),
      );
    } catch (error) {
      // No process outlives a cluster that could not start.
      await cluster.stop();
      throw error;
    }
    return cluster;
  }

  get(id: string): ServiceProcess {
    const found = this.processes.find((p) => p.id === id);
    if (found === undefined) throw new Error(`no process ${id}`);
    return found;
  }

  url(service: ServiceName): string {
    return this.processes.find((p) => p.service === service)!.url;
  }

  async stop(): Promise<void> {
    await Promise.all(this.processes.map((p) => p.stop()));
  }
}
