import {
  type CommandHandler,
  ParkedMessages,
  Parking,
  ProjectionRunner,
  systemContext,
} from '@croupier/application';
import { DomainError, presetConfig, type PresetName } from '@croupier/contracts';
import type {
  EventStore,
  ProjectionStorage,
  SnapshotStorage,
  Subscription,
} from '@croupier/eventstore';
import type { HttpApp, TokenAuthority } from '@croupier/http';
import {
  createSettlementBus,
  createWalletMessageBus,
  type SettlementBus,
  type WalletMessageBus,
} from '@croupier/messaging';
import {
  DealingWatch,
  FaultWatchdog,
  faultLimitsOf,
  PendingDebits,
  RoundJobs,
  roundPlugin,
  RoundService,
  SeatLedger,
  TableBoard,
} from '@croupier/round';
import { settlementPlugin } from '@croupier/settlement';
import { SeedVault, ShoeService } from '@croupier/shoe';
import {
  CommissionLedger,
  SeamlessMode,
  walletAdapters,
  type WalletAdapters,
  walletPlugin,
  WalletService,
} from '@croupier/wallet';
import type { OperatorWalletPort } from '@croupier/contracts';
import Fastify, { type FastifyBaseLogger } from 'fastify';
import {
  commandHandlerOf,
  openReadModelStorage,
  openSnapshots,
  type ProcessCommands,
  openStore as openConfiguredStore,
  GameFigures,
  ProjectionMetrics,
  readModelRunner,
  ServiceManifest,
  storeAnswers,
  syncReadModels,
  tokenAuthorityOf,
} from '@croupier/runtime';
import type { GatewayConfig } from './config.js';
import { roundHosting, walletHosting } from './hosting.js';
import { CheckpointSigner, Notary } from './notary.js';
import { ActiveSessions } from './floor/active-sessions.js';
import { FloorFigures } from './floor/floor-figures.js';
import { PlayerHistory } from './player-history.js';
import { SignificantEventIndex } from './significant-event-index.js';

export interface SystemOptions {
  readonly config: GatewayConfig;
  readonly logger: FastifyBaseLogger;
  /** An already open store (tests); otherwise one is opened from the configuration. */
  readonly store?: EventStore;
  readonly bus?: SettlementBus;
  /**
   * The public bus the wallet outbox publishes every movement to (queue `settlement-events`).
   * Default: BullMQ with REDIS_URL, none without; `null`: none.
   */
  readonly publicBus?: WalletMessageBus | null;
  /** Open the configured auto-dealt tables and start dealing. Default true. */
  readonly autoDeal?: boolean;
  /** How often the orphaned-debit sweep runs. Default 5 s. */
  readonly sweepIntervalMs?: number;
  /** Seamless mode: the operator's wallet, instead of HTTP to OPERATOR_WALLET_URL (tests). */
  readonly operatorWallet?: OperatorWalletPort;
  /** How often the fault watchdog looks for stalled deals and long pauses. Default 1 s. */
  readonly faultSweepIntervalMs?: number;
  /** How often idle sessions are looked for and closed. Default 5 s. */
  readonly sessionSweepIntervalMs?: number;
}

/**
 * Opens the event store the configuration names (PGlite under DATA_DIR by default); on
 * PostgreSQL its connections are named `<DATABASE_APPLICATION_NAME>-<processName>`.
 */
export function openStore(config: GatewayConfig, processName = 'gateway'): Promise<EventStore> {
  return openConfiguredStore(config, processName);
}

/**
 * The whole of Croupier in one process: the four services over one event store, their read
 * models, the settlement bus, the reactors and the auto-dealers. The distributed deployment
 * runs the same pieces in separate processes.
 */
export class System {
  /** The durable read models: tables beside the log, caught up from their checkpoints (ADR 0023). */
  readonly readModels: ProjectionRunner;
  /** Gauges and counters of the read models; `GatewayMetrics` registers them. */
  readonly projectionMetrics = new ProjectionMetrics();
  readonly commands: CommandHandler;
  /** The handler with its snapshot storage, closed at stop. */
  private readonly processCommands: ProcessCommands;
  readonly shoes: ShoeService;
  readonly wallets: WalletService;
  /**
   * WALLET_MODE=seamless: the operator's wallet holds the balances, and bets, payouts and
   * refunds go to it through this (ADR 0026); Croupier's own wallet streams stay unused.
   */
  readonly seamless: SeamlessMode | null;
  /** The wallet adapters of the process's mode (walletAdapters). */
  readonly wallet: WalletAdapters;
  readonly rounds: RoundService;
  readonly board: TableBoard;
  readonly history: PlayerHistory;
  readonly significantEvents: SignificantEventIndex;
  /** Players' sessions open now, for the floor (issue 26). */
  readonly activeSessions: ActiveSessions;
  /** The floor's figures and each table's round in play (issue 26). */
  readonly floorFigures: FloorFigures;
  readonly pending: PendingDebits;
  /** Rounds a fault may hold up: waiting for a card, or paused (the watchdog's deadlines). */
  readonly dealingWatch: DealingWatch;
  /** The accrued commission owed per seat (002's seat ledger), served with the seats. */
  readonly seatLedger: SeatLedger;
  readonly watchdog: FaultWatchdog;
  /** The round service's dealers and sweeps, run by its plugin. */
  readonly roundJobs: RoundJobs;
  readonly commissionLedger: CommissionLedger;
  /** Where the consumers set aside what they cannot apply (ADR 0035), and the operators' list. */
  readonly parking: Parking;
  readonly parkedMessages: ParkedMessages;
  /** The game's figures /metrics serves (ADR 0011). */
  readonly gameFigures: GameFigures;
  readonly tokens: TokenAuthority;
  /** Anchors the log in signed checkpoints (ADR 0024). */
  readonly notary: Notary;
  /** What each service runs here: the same plugins as their own processes (ADR 0037). */
  readonly manifest = new ServiceManifest();
  private readonly subscriptions: Subscription[] = [];
  /**
   * Where the services' background jobs run for the life of the System, stopped at its close:
   * a fastify instance that serves nothing. The apps built over the System serve their routes.
   */
  private jobs: HttpApp | null = null;
  private started = false;

  private constructor(
    readonly config: GatewayConfig,
    readonly store: EventStore,
    readonly bus: SettlementBus,
    readonly publicBus: WalletMessageBus | null,
    readonly logger: FastifyBaseLogger,
    readonly options: SystemOptions,
    readModelStorage: ProjectionStorage,
    snapshots: SnapshotStorage | null,
  ) {
    this.readModels = readModelRunner(
      store,
      readModelStorage,
      this.projectionMetrics,
      logger,
      config.READ_MODEL_CACHE_DOCUMENTS,
    );
    // The models read through the runner's document cache: its own commits keep it current.
    const documents = this.readModels.documents;
    this.board = this.readModels.register(new TableBoard(documents));
    this.history = this.readModels.register(new PlayerHistory(documents));
    this.significantEvents = this.readModels.register(new SignificantEventIndex(documents));
    this.commissionLedger = this.readModels.register(new CommissionLedger(documents));
    this.pending = this.readModels.register(new PendingDebits(documents));
    this.dealingWatch = this.readModels.register(new DealingWatch(documents));
    this.seatLedger = this.readModels.register(new SeatLedger(documents));
    this.gameFigures = this.readModels.register(new GameFigures(documents));
    this.parkedMessages = this.readModels.register(new ParkedMessages(documents));
    this.activeSessions = this.readModels.register(new ActiveSessions(documents));
    this.floorFigures = this.readModels.register(new FloorFigures(documents));
    // Every service of the process decides through one handler: one state cache (bounded,
    // STATE_CACHE_SIZE), snapshots (SNAPSHOT_EVERY, ADR 0025), and commands on one stream queued
    // one after another across services (ADR 0007).
    this.processCommands = commandHandlerOf(config, store, snapshots, logger, (position) => {
      this.readModels.noteAppended(position);
    });
    this.commands = this.processCommands.commands;
    this.parking = new Parking(this.commands, {
      onParked: (parked) => {
        logger.error(
          { consumer: parked.consumer, messageId: parked.messageId, code: parked.code },
          `parked a message it cannot apply: ${parked.detail}`,
        );
      },
    });
    this.shoes = new ShoeService(this.commands, new SeedVault(config.SHOE_SEED_KEY));
    const wallet = walletAdapters(config, {
      commands: this.commands,
      store,
      readModels: this.readModels,
      storage: readModelStorage,
      parking: this.parking,
      logger,
      ...(options.operatorWallet === undefined ? {} : { operator: options.operatorWallet }),
    });
    this.wallets = wallet.wallets;
    this.seamless = wallet.seamless;
    this.wallet = wallet;
    const bets = wallet.bets;
    this.rounds = new RoundService(this.commands, this.shoes, bets, { money: wallet.money });
    this.watchdog = new FaultWatchdog(
      this.rounds,
      this.dealingWatch,
      faultLimitsOf(config),
      (error, roundId) => {
        logger.warn({ err: error, roundId }, 'fault watchdog: round not handled, retrying');
      },
    );
    this.roundJobs = new RoundJobs({
      rounds: this.rounds,
      board: this.board,
      pending: this.pending,
      dealingWatch: this.dealingWatch,
      watchdog: this.watchdog,
      readModels: this.readModels,
      orphanGraceMs: config.ORPHAN_GRACE_MS,
      logger,
    });
    this.tokens = tokenAuthorityOf(config);
    this.notary = new Notary(
      store,
      this.commands,
      CheckpointSigner.fromSecret(config.CHECKPOINT_SIGNING_KEY ?? config.SHOE_SEED_KEY),
      {
        intervalMs: config.CHECKPOINT_INTERVAL_MS,
        onError: (error) => {
          logger.warn({ err: error }, 'notary: checkpoint failed, retrying at the next interval');
        },
      },
    );
  }

  static async create(options: SystemOptions): Promise<System> {
    const store = options.store ?? (await openStore(options.config));
    const bus =
      options.bus ??
      createSettlementBus({
        redisUrl: options.config.REDIS_URL,
        prefix: options.config.REDIS_PREFIX,
        onError: (error, context) => {
          options.logger.warn({ err: error, ...context }, 'settlement bus: retrying');
        },
      });
    const publicBus =
      options.publicBus !== undefined
        ? options.publicBus
        : createWalletMessageBus({
            redisUrl: options.config.REDIS_URL,
            prefix: options.config.REDIS_PREFIX,
            onError: (error, context) => {
              options.logger.warn({ err: error, ...context }, 'public settlement bus: retrying');
            },
          });
    const storage = await openReadModelStorage(options.config, store, 'gateway');
    const snapshots = await openSnapshots(options.config, store, 'gateway');
    return new System(
      options.config,
      store,
      bus,
      publicBus,
      options.logger,
      options,
      storage,
      snapshots,
    );
  }

  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    await this.readModels.start();
    // The services' background work, each registered as its own process registers it.
    const jobs = Fastify({ logger: false }) as unknown as HttpApp;
    this.jobs = jobs;
    const hosting = {
      only: 'jobs',
      manifest: this.manifest,
      subscriptions: this.subscriptions,
    } as const;
    await jobs.register(settlementPlugin, {
      ...hosting,
      commands: this.commands,
      store: this.store,
      parking: this.parking,
      // The ledger's queue (`wallet-ledger`) has no reader in seamless mode: nothing is
      // published to it. The operator's wallet gets its calls from the feed and the outbox.
      bus: this.seamless === null ? this.bus : null,
      concurrentRounds: this.config.SETTLEMENT_CONCURRENCY,
      logger: this.logger,
    });
    await jobs.register(walletPlugin, { ...hosting, ...walletHosting(this) });
    if (this.options.autoDeal ?? true) await this.openAutoTables();
    await jobs.register(roundPlugin, { ...hosting, ...roundHosting(this) });
    await jobs.ready();
    this.notary.start();
  }

  /** Refunds stakes whose bets never reached their round (the bet workflow's sweep). */
  sweep(): Promise<number> {
    return this.roundJobs.sweep();
  }

  /** Pauses stalled deals and voids rounds paused too long (the seed's fault policy, 000). */
  watchFaults(): Promise<void> {
    return this.roundJobs.watchFaults();
  }

  /** Closes the sessions idle past SESSION_IDLE_TIMEOUT_MS, finishing their rounds first. */
  closeIdleSessions(): Promise<number> {
    return this.roundJobs.closeIdleSessions();
  }

  /** Starts dealing a table by itself when it is configured to. */
  startDealer(tableId: string): Promise<void> {
    return this.roundJobs.startDealer(tableId);
  }

  /** Opens the configured auto-dealt tables; the round plugin's jobs deal them. */
  private async openAutoTables(): Promise<void> {
    const context = systemContext('gateway');
    for (const preset of this.config.AUTO_TABLES as PresetName[]) {
      try {
        await this.rounds.openTable(
          {
            tableId: preset,
            config: presetConfig(preset),
            dealing: { mode: 'auto', bettingWindowMs: this.config.BETTING_WINDOW_MS },
          },
          context,
        );
      } catch (error) {
        if (!(error instanceof DomainError && error.code === 'ALREADY_EXISTS')) throw error;
      }
    }
  }

  /** Graceful shutdown: dealers finish their step, subscriptions their event, then pools close. */
  async stop(): Promise<void> {
    await this.notary.stop();
    // The services' jobs, the last registered first (the round's sweeps and dealers), each
    // service's in the reverse of their start (their onClose).
    await this.jobs?.close();
    this.jobs = null;
    this.subscriptions.splice(0);
    await this.readModels.stop();
    await this.bus.close();
    await this.publicBus?.close();
    await this.readModels.storage.close();
    await this.processCommands.close();
    if (this.options.store === undefined) await this.store.close();
  }

  /**
   * Read-your-writes: resolves once every read model has applied what was committed to the log
   * before the call, whichever process appended it.
   */
  async sync(): Promise<void> {
    await syncReadModels(this.readModels);
  }

  /** The subscriptions this process runs (settlement reactor, outbox, commission), for metrics. */
  get runningSubscriptions(): readonly Subscription[] {
    return this.subscriptions;
  }

  /** Whether the store answers: a read of one stream. */
  storeReady(): Promise<boolean> {
    return storeAnswers(this.store);
  }
}
