import { createHash, randomUUID } from 'node:crypto';
import { SETTLEMENT_MESSAGE_SCHEMA, type SettlementMessage } from '@croupier/contracts';

/** A valid settlement message of no round in the store (a probe for the bus). */
export function settlementMessage(): SettlementMessage {
  const eventId = randomUUID();
  return {
    schema: SETTLEMENT_MESSAGE_SCHEMA,
    messageId: randomUUID(),
    kind: 'settlement',
    roundId: 'probe.1.1',
    tableId: 'probe',
    shoeId: 'probe.1',
    playerId: 'probe',
    betId: randomUUID(),
    betType: 'player',
    bankerMode: null,
    seat: null,
    stake: 100,
    payout: 0,
    result: 'lose',
    commission: 0,
    commissionMode: null,
    currency: 'EUR',
    adjustment: null,
    reason: null,
    settlementId: randomUUID(),
    shiftId: randomUUID(),
    eventId,
    position: '1',
    verificationHash: createHash('sha256').update(eventId).digest('hex'),
    occurredAt: new Date().toISOString(),
  };
}
