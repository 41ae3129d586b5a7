import { createHash, randomUUID } from 'node:crypto';
import { SETTLEMENT_MESSAGE_SCHEMA, type SettlementMessage } from '@croupier/contracts';

let position = 0n;

/**
 * A valid settlement message (the public contract of the bus) for tests: a Banker win on
 * `live.1.1`, fresh ids, the next position; `overrides` change any field.
 */
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
