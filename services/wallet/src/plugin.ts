import type { Parking, ProjectionRunner } from '@croupier/application';
import type { WalletPort } from '@croupier/contracts';
import type { EventStore } from '@croupier/eventstore';
import type { HttpApp } from '@croupier/http';
import type { SettlementBus, WalletMessageBus } from '@croupier/messaging';
import {
  hostService,
  reportRetrying,
  type ServiceLogger,
  type ServicePluginOptions,
} from '@croupier/runtime';
import {
  type CommissionLedger,
  startCommissionCollector,
} from './application/commission-collector.js';
import { consumeSettlements, retryParkedSettlements } from './application/settlement-consumer.js';
import { startWalletOutbox } from './application/wallet-messages.js';
import type { MoneyHolder } from '@croupier/contracts';
import type { WalletService } from './application/wallet-service.js';
import { walletInternalRoutes } from './http/internal-routes.js';
import { walletRoutes } from './http/routes.js';
import { operatorCallRoutes } from './http/operator-call-routes.js';
import { settlementRoutes } from './http/settlement-routes.js';
import type { OperatorCallLedger } from './seamless/operator-call-ledger.js';
import type { SeamlessMode } from './seamless/seamless-mode.js';

/**
 * The wallet of a process, its mode chosen once where the process is composed (walletOf):
 * Croupier's own wallet, and the operator's behind the same port in seamless mode.
 */
export interface WalletAdapters {
  /**
   * What the wallet picked allows, for what the rounds refuse that it cannot hold (accrued
   * commission where the operator holds the money): the process reads WALLET_MODE nowhere else.
   */
  readonly money: MoneyHolder;
  /** Croupier's own wallet: balances and movements, play money. */
  readonly wallets: WalletService;
  /** Seamless mode (ADR 0026): the operator's wallet holds the money; null otherwise. */
  readonly seamless: SeamlessMode | null;
  /** The port the rounds debit stakes through: the operator's wallet or Croupier's. */
  readonly bets: WalletPort;
  /**
   * Every call made to the operator's wallet and its outcome (reconciliation in seamless mode),
   * a read model in either mode: empty in transfer mode, as a player's trail survives a switch.
   */
  readonly operatorCalls: OperatorCallLedger;
}

export interface WalletPluginOptions extends ServicePluginOptions {
  readonly wallet: WalletAdapters;
  readonly store: EventStore;
  readonly readModels: ProjectionRunner;
  /** A read model of `readModels` (registered before they started). */
  readonly ledger: CommissionLedger;
  readonly parking: Parking;
  /** The ledger's queue Croupier's wallet takes its credits from; null where nothing feeds it. */
  readonly bus: SettlementBus | null;
  readonly consumerConcurrency: number;
  /** The public queue every movement is published to; null: none. */
  readonly publicBus: WalletMessageBus | null;
  readonly funBalance: number;
  /**
   * Serve the wallet port over HTTP (`/internal/v1/…`) for round services in other processes;
   * the one-process gateway's rounds hold the port itself.
   */
  readonly servePort: boolean;
  readonly logger: ServiceLogger;
}

/**
 * The wallet service, wired once (ADR 0037): its routes, the ledger's consumer, the commission
 * collector, the retries of what they parked, the seamless feed and the public outbox.
 */
export async function walletPlugin(app: HttpApp, options: WalletPluginOptions): Promise<void> {
  const { wallet, store, parking, bus, publicBus } = options;
  const { wallets, seamless } = wallet;
  const report = reportRetrying(options.logger);
  const running = options.subscriptions ?? [];
  await hostService(app, 'wallet', options, {
    routes: (routes) => {
      walletRoutes(routes, { wallets, funBalance: options.funBalance });
      settlementRoutes(routes, { store });
      operatorCallRoutes(routes, {
        calls: wallet.operatorCalls,
        readModels: options.readModels,
      });
      if (options.servePort) walletInternalRoutes(routes, { wallets: wallet.bets });
    },
    jobs: async (run) => {
      // Croupier's wallet takes its credits from a queue of its own (`wallet-ledger`), whoever
      // reads the public one: no downstream consumer can keep a payout from the ledger.
      if (bus !== null) {
        const consumer = await consumeSettlements(bus, wallets, {
          concurrency: options.consumerConcurrency,
          parking,
        });
        await run('wallet-ledger-consumer', () => ({ stop: () => consumer.close() }));
      }
      running.push(
        await run('commission-collector', () =>
          startCommissionCollector(
            store,
            options.readModels,
            options.ledger,
            wallets,
            report('commission-collector'),
            parking,
          ),
        ),
      );
      await run('commission-collector-retries', () =>
        parking.startEventRetries(store, 'wallet-commission-collector', report('parked-retries')),
      );
      if (bus !== null)
        await run('wallet-ledger-retries', () =>
          retryParkedSettlements(store, parking, wallets, report('parked-retries')),
        );
      // Seamless: the operator's wallet gets its credits and rollbacks from the feed and the
      // outbox (ADR 0026), stopped together.
      if (seamless !== null)
        await run('seamless-feed', () => {
          running.push(seamless.start());
          return { stop: () => seamless.stop() };
        });
      // One active instance across the deployment's processes (a subscription's lease).
      if (publicBus !== null)
        running.push(
          await run('wallet-outbox', () =>
            startWalletOutbox(store, publicBus, report('wallet-outbox')),
          ),
        );
    },
  });
}
