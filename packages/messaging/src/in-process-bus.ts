import type { SettlementMessage } from '@croupier/contracts';
import type { BusMessage, MessageBus, MessageHandler, SettlementConsumer } from './bus.js';

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
export class InProcessBus<M extends BusMessage> implements MessageBus<M> {
  readonly kind = 'in-process';
  private readonly handlers = new Set<MessageHandler<M>>();
  private readonly inFlight = new Set<Promise<unknown>>();

  async publish(messages: readonly M[]): Promise<void> {
    if (this.handlers.size === 0) throw new NoConsumerError();
    // A settlement's lines go to different wallets: deliver them together. Consumers keep each
    // wallet's own order (commands on one stream run one after another).
    const deliveries = messages.flatMap((message) =>
      [...this.handlers].map((handler) => handler(message)),
    );
    for (const delivery of deliveries) this.inFlight.add(delivery);
    try {
      const results = await Promise.allSettled(deliveries);
      const failed = results.find((result) => result.status === 'rejected');
      if (failed !== undefined) throw failed.reason;
    } finally {
      for (const delivery of deliveries) this.inFlight.delete(delivery);
    }
  }

  consume(handler: MessageHandler<M>): Promise<SettlementConsumer> {
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

  /** Always: it lives in this process. */
  ready(): Promise<boolean> {
    return Promise.resolve(true);
  }
}

/** The settlement bus without Redis: the settlement service and Croupier's wallet in one process. */
export class InProcessSettlementBus extends InProcessBus<SettlementMessage> {}
