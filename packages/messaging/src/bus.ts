import type { SettlementMessage } from '@croupier/contracts';

/** Applies one message; a throw means "not applied": the message is delivered again. */
export type SettlementHandler = (message: SettlementMessage) => Promise<void>;

export interface SettlementConsumer {
  /** Stops taking messages and waits for the ones in flight. */
  close(): Promise<void>;
}

/**
 * Carries settlement messages to wallet systems. `publish` resolves only once every message is
 * accepted (for BullMQ: stored in Redis), so a caller that moves a checkpoint after it loses
 * nothing. Delivery is at least once; a re-published message id is not delivered twice where
 * the bus can tell (BullMQ job id = message id), and consumers deduplicate anyway.
 */
export interface SettlementBus {
  readonly kind: 'bullmq' | 'in-process';
  publish(messages: readonly SettlementMessage[]): Promise<void>;
  consume(
    handler: SettlementHandler,
    options?: { concurrency?: number },
  ): Promise<SettlementConsumer>;
  close(): Promise<void>;
  /**
   * Whether the bus can take a message right now (BullMQ: Redis answers a PING within a
   * second), for readiness checks. Optional: a bus without one is taken as ready.
   */
  ready?(): Promise<boolean>;
}
