import {
  MessageRefusedError,
  type CommandHandler,
  type Parking,
  type ProjectionRunner,
} from '@croupier/application';
import { isPlayMoney, type OperatorWalletPort, type WalletPort } from '@croupier/contracts';
import type { EventStore, ProjectionStorage, Subscription } from '@croupier/eventstore';
import { applyPlayMoneyRecord } from '../application/play-money-settlement.js';
import type { WalletService } from '../application/wallet-service.js';
import { HttpOperatorWallet } from './http-operator-wallet.js';
import { OperatorWalletOutbox, PendingOperatorCalls } from './operator-wallet-outbox.js';
import { startOperatorWalletFeed } from './operator-wallet-feed.js';
import { SeamlessWallet } from './seamless-wallet.js';

/** The seamless settings as parsed from the environment (operatorWalletEnvironmentShape). */
export interface OperatorWalletSettings {
  readonly OPERATOR_WALLET_URL?: string | undefined;
  readonly OPERATOR_WALLET_SECRET?: string | undefined;
  readonly OPERATOR_WALLET_TIMEOUT_MS: number;
  readonly OPERATOR_WALLET_RETRIES: number;
  readonly OPERATOR_WALLET_OUTBOX_INTERVAL_MS: number;
  readonly OPERATOR_WALLET_OUTBOX_CONCURRENCY: number;
}

export interface SeamlessModeOptions {
  readonly settings: OperatorWalletSettings;
  readonly store: EventStore;
  readonly commands: CommandHandler;
  /** The process's read models: the owed calls are one of them (registered here). */
  readonly readModels: ProjectionRunner;
  /** Where the owed calls model's documents are read from. */
  readonly storage: ProjectionStorage;
  readonly logger: { warn(details: object, message: string): void };
  /** Croupier's own wallets: play money (fun sessions, ADR 0030) stays in them. */
  readonly playMoney: WalletService;
  /** The operator's wallet; default HTTP to OPERATOR_WALLET_URL, signed with the secret. */
  readonly operator?: OperatorWalletPort;
  /**
   * Where the feed parks a record it cannot apply and the outbox a call the wallet refuses
   * (ADR 0035); their retries run with them. Without it both try again forever.
   */
  readonly parking?: Parking;
}

/**
 * Seamless mode's pieces, wired the same way in every process that runs them (the one-process
 * gateway, the wallet service alone): the wallet port over the operator's wallet, the model of
 * the calls still owed, the outbox that delivers them, and the feed that turns the rounds'
 * settlement records into calls (ADR 0026). Built before the read models start (the owed calls
 * are one of them), started after.
 */
export class SeamlessMode {
  readonly wallet: SeamlessWallet;
  /**
   * The bet workflow's wallet: stakes of real money go to the operator's wallet, stakes of play
   * money (currency FUN) to the player's fun wallet in Croupier, which the operator never sees.
   */
  readonly bets: WalletPort;
  readonly calls: PendingOperatorCalls;
  readonly outbox: OperatorWalletOutbox;
  private feed: Subscription | null = null;
  private retries: Subscription[] = [];

  constructor(private readonly options: SeamlessModeOptions) {
    const { settings, logger } = options;
    const operator =
      options.operator ??
      new HttpOperatorWallet({
        url: required(settings.OPERATOR_WALLET_URL, 'OPERATOR_WALLET_URL'),
        secret: required(settings.OPERATOR_WALLET_SECRET, 'OPERATOR_WALLET_SECRET'),
        timeoutMs: settings.OPERATOR_WALLET_TIMEOUT_MS,
        retries: settings.OPERATOR_WALLET_RETRIES,
      });
    this.calls = options.readModels.register(new PendingOperatorCalls(options.storage));
    let outbox: OperatorWalletOutbox | null = null;
    const { playMoney } = options;
    this.wallet = new SeamlessWallet(
      options.commands,
      operator,
      () => outbox?.wake(),
      (record) => applyPlayMoneyRecord(playMoney, record),
      { statusReserveMs: settings.OPERATOR_WALLET_TIMEOUT_MS },
    );
    const real = this.wallet;
    this.bets = {
      debitStakes: (input, context) =>
        (isPlayMoney(input.currency) ? playMoney : real).debitStakes(input, context),
      refundStake: (input, context) =>
        (isPlayMoney(input.currency) ? playMoney : real).refundStake(input, context),
    };
    outbox = new OperatorWalletOutbox(this.calls, this.wallet, operator, {
      intervalMs: settings.OPERATOR_WALLET_OUTBOX_INTERVAL_MS,
      concurrency: settings.OPERATOR_WALLET_OUTBOX_CONCURRENCY,
      sync: () => options.readModels.syncToHead([this.calls.name]),
      onError: (error, call) => {
        logger.warn({ err: error, key: call?.key, call: call?.call }, 'operator wallet: retrying');
      },
      ...(options.parking === undefined ? {} : { parking: options.parking }),
    });
    this.outbox = outbox;
  }

  /**
   * Starts the feed, and the outbox once the feed holds its lease; the feed is returned for the
   * process's metrics.
   */
  start(): Subscription {
    const { store, logger, parking } = this.options;
    const report = (name: string) => (error: unknown) => {
      logger.warn({ err: error, subscription: name }, 'subscription retrying');
    };
    if (this.feed === null) {
      const feed = startOperatorWalletFeed(
        store,
        this.wallet,
        report('operator-wallet-feed'),
        parking,
      );
      this.feed = feed;
      // One outbox in the deployment, in the process whose feed is the active one (a standby's
      // caughtUp waits for the lease): outboxes in two processes (the gateway beside the wallet
      // service, replicas) each sent a call the wallet refuses before either saw the other's
      // park, so the wallet got it twice (ADR 0035). A standby's outbox starts if it takes over.
      feed.caughtUp().then(
        () => {
          if (this.feed === feed) this.outbox.start();
        },
        // Stopped before it held the lease: this process delivers nothing.
        () => undefined,
      );
      if (parking !== undefined)
        this.retries.push(
          parking.startEventRetries(store, 'operator-wallet-feed', report('parked-retries')),
          parking.startRetries(
            store,
            'operator-wallet-outbox',
            (message) => this.outbox.retryParked(message),
            report('parked-retries'),
            // Only a refusal parks the call again; a wallet that is away is waited for.
            (error) => !(error instanceof MessageRefusedError),
          ),
        );
    }
    return this.feed;
  }

  /** Stops taking settlement records, then lets the outbox finish the call it is making. */
  async stop(): Promise<void> {
    await this.feed?.stop();
    this.feed = null;
    await Promise.all(this.retries.splice(0).map((retries) => retries.stop()));
    await this.outbox.stop();
  }
}

function required(value: string | undefined, name: string): string {
  if (value === undefined) throw new Error(`${name} is required with WALLET_MODE=seamless`);
  return value;
}
