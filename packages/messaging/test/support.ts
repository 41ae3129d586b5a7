import type { SettlementMessage } from '@croupier/contracts';
import type { SettlementHandler } from '../src/index.js';

/** A valid settlement message; `overrides` change any field. */
export { settlementMessage } from '@croupier/testkit';

/**
 * A wallet system stand-in: applies each message once (idempotent by message id), and counts
 * every delivery, so tests can tell "delivered again" from "applied twice".
 */
export class Ledger {
  readonly deliveries = new Map<string, number>();
  readonly applied = new Map<string, SettlementMessage>();
  readonly balances = new Map<string, number>();

  readonly handler: SettlementHandler = (message) => {
    this.deliveries.set(message.messageId, (this.deliveries.get(message.messageId) ?? 0) + 1);
    if (!this.applied.has(message.messageId)) {
      this.applied.set(message.messageId, message);
      this.balances.set(
        message.playerId,
        (this.balances.get(message.playerId) ?? 0) + message.payout,
      );
    }
    return Promise.resolve();
  };

  delivered(messageId: string): number {
    return this.deliveries.get(messageId) ?? 0;
  }
}
