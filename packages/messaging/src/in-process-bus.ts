import type { SettlementMessage } from '@croupier/contracts';
import type { SettlementBus, SettlementConsumer, SettlementHandler } from './bus.js';

export class NoConsumerError extends Error {
  readonly code = 'NO_CONSUMER';
  constructor() {
    super('no consumer is attached to the in-process settlement bus');
    this.name = 'NoConsumerError';
  }
}

/**
 * The bus without Redis: `publish` hands each message to the consumers of this process and
 * resolves when all have applied it, so a failure surfaces to the publisher, which retries.
 * Same interface and delivery contract as BullMQ, for a single process.
 */
export class InProcessSettlementBus implements SettlementBus {
  readonly kind = 'in-process';
  private readonly handlers = new Set<SettlementHandler>();
  private readonly inFlight = new Set<Promise<unknown>>();

  async publish(messages: readonly SettlementMessage[]): Promise<void> {
    if (this.handlers.size === 0) throw new NoConsumerError();
    for (const message of messages) {
      for (const handler of this.handlers) {
        const delivery = handler(message);
        this.inFlight.add(delivery);
        try {
          await delivery;
        } finally {
          this.inFlight.delete(delivery);
        }
      }
    }
  }

  consume(handler: SettlementHandler): Promise<SettlementConsumer> {
    this.handlers.add(handler);
    return Promise.resolve({
      close: async () => {
        this.handlers.delete(handler);
        await Promise.allSettled([...this.inFlight]);
      },
    });
  }

  async close(): Promise<void> {
    this.handlers.clear();
    await Promise.allSettled([...this.inFlight]);
  }
}
