import type { SettlementMessage, WalletMessage } from '@croupier/contracts';

/** What every message on a bus has: an id to deduplicate on (the job id) and a kind (its name). */
export interface BusMessage {
  readonly messageId: string;
  readonly kind: string;
}

/** Applies one message; a throw means "not applied": the message is delivered again. */
export type MessageHandler<M> = (message: M) => Promise<void>;

export type SettlementHandler = MessageHandler<SettlementMessage>;

export interface SettlementConsumer {
  /** Stops taking messages and waits for the ones in flight. */
  close(): Promise<void>;
}

/**
 * Carries messages from an outbox to their consumers. `publish` resolves only once every message
 * is accepted (for BullMQ: stored in Redis), so a caller that moves a checkpoint after it loses
 * nothing. Delivery is at least once; a re-published message id is not delivered twice where
 * the bus can tell (BullMQ job id = message id), and consumers deduplicate anyway.
 */
export interface MessageBus<M extends BusMessage> {
  readonly kind: 'bullmq' | 'in-process';
  publish(messages: readonly M[]): Promise<void>;
  consume(
    handler: MessageHandler<M>,
    options?: { concurrency?: number },
  ): Promise<SettlementConsumer>;
  close(): Promise<void>;
  /**
   * Whether the bus can take a message right now (BullMQ: Redis answers a PING within a
   * second), for readiness checks. Optional: a bus without one is taken as ready.
   */
  ready?(): Promise<boolean>;
}

/**
 * The settlement service's bus to Croupier's own wallet: version 1 messages, one per bet
 * settled, refunded or adjusted, on the queue `wallet-ledger` no other system reads.
 */
export type SettlementBus = MessageBus<SettlementMessage>;

/**
 * The public bus: version 2 messages, one per movement of a player's money, on the queue
 * `settlement-events` that downstream systems read (docs/settlement-messages.md).
 */
export type WalletMessageBus = MessageBus<WalletMessage>;
