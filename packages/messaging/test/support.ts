import { createHash, randomUUID } from 'node:crypto';
import { SETTLEMENT_MESSAGE_SCHEMA, type SettlementMessage } from '@croupier/contracts';
import type { SettlementHandler } from '../src/index.js';

let position = 0n;

/** A valid settlement message; `overrides` change any field. */
export function settlementMessage(overrides: Partial<SettlementMessage> = {}): SettlementMessage {
  position += 1n;
  const eventId = randomUUID();
  return {
    schema: SETTLEMENT_MESSAGE_SCHEMA,
    messageId: randomUUID(),
    kind: 'settlement',
    roundId: 'live.1.1',
    tableId: 'live',
    shoeId: 'live.1',
    playerId: 'alice',
    betId: randomUUID(),
    betType: 'banker',
    bankerMode: 'commission',
    seat: null,
    stake: 1_000,
    payout: 1_950,
    result: 'win',
    commission: 50,
    commissionMode: 'deducted',
    currency: 'EUR',
    adjustment: null,
    reason: null,
    settlementId: randomUUID(),
    shiftId: randomUUID(),
    eventId,
    position: position.toString(),
    verificationHash: createHash('sha256').update(eventId).digest('hex'),
    occurredAt: new Date().toISOString(),
    ...overrides,
  };
}

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
