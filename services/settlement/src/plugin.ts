import type { CommandHandler, Parking } from '@croupier/application';
import type { EventStore } from '@croupier/eventstore';
import type { HttpApp } from '@croupier/http';
import type { SettlementBus } from '@croupier/messaging';
import {
  hostService,
  reportRetrying,
  type ServiceLogger,
  type ServicePluginOptions,
} from '@croupier/runtime';
import { startOutbox } from './application/outbox.js';
import { startSettlementReactor } from './application/settlement-reactor.js';

export interface SettlementPluginOptions extends ServicePluginOptions {
  readonly commands: CommandHandler;
  readonly store: EventStore;
  readonly parking: Parking;
  /**
   * The ledger's queue the outbox publishes to, or null where nothing reads it (the operator's
   * wallet is fed from the log instead): the process chose, from its wallet mode.
   */
  readonly bus: SettlementBus | null;
  readonly concurrentRounds: number;
  readonly logger: ServiceLogger;
}

/**
 * The settlement service, wired once: the reactor settling rounds, the outbox to the ledger's
 * queue, and their retries of parked messages (ADR 0035). It serves no route of its own.
 */
export async function settlementPlugin(
  app: HttpApp,
  options: SettlementPluginOptions,
): Promise<void> {
  const { commands, store, parking, bus } = options;
  const report = reportRetrying(options.logger);
  const settling = { concurrentRounds: options.concurrentRounds };
  const running = options.subscriptions ?? [];
  await hostService(app, 'settlement', options, {
    jobs: async (run) => {
      // What a consumer cannot apply is parked, and the others go on (ADR 0035); each
      // consumer's retries run beside it.
      running.push(
        await run('settlement-reactor', () =>
          startSettlementReactor(commands, report('settlement'), settling, parking),
        ),
      );
      await run('settlement-retries', () =>
        parking.startEventRetries(store, 'settlement', report('parked-retries')),
      );
      if (bus !== null) {
        running.push(
          await run('settlement-outbox', () =>
            startOutbox(store, bus, report('settlement-outbox'), settling, parking),
          ),
        );
        await run('settlement-outbox-retries', () =>
          parking.startEventRetries(store, 'settlement-outbox', report('parked-retries')),
        );
      }
    },
  });
}
