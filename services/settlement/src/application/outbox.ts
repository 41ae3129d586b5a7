import { deterministicId, subscribeParking, type Parking } from '@croupier/application';
import {
  roundEventSchema,
  SETTLEMENT_MESSAGE_SCHEMA,
  streams,
  type SettlementMessage,
} from '@croupier/contracts';
import type { EventStore, RecordedEvent, Subscription } from '@croupier/eventstore';
import {
  messageOriginOf,
  NoConsumerError,
  PublishError,
  type SettlementBus,
} from '@croupier/messaging';
import { DEFAULT_CONCURRENT_ROUNDS, type SettlementReactorOptions } from './settlement-reactor.js';

export const OUTBOX_EVENTS = ['RoundSettled', 'BetsRefunded', 'RoundResettled'] as const;

/**
 * The outbox's subscription: its name (checkpoint and lease) and the records it forwards, which
 * are also what its backlog counts (`SubscriptionMetrics` of @croupier/runtime).
 */
export const OUTBOX_SUBSCRIPTION = {
  name: 'settlement-outbox',
  filter: { streamPrefix: streams.round(''), eventTypes: OUTBOX_EVENTS },
} as const;

/** The public messages of one settlement record: one per bet line. */
export function settlementMessagesOf(event: RecordedEvent): SettlementMessage[] {
  const record = roundEventSchema.parse({ type: event.type, data: event.data });
  const common = { schema: SETTLEMENT_MESSAGE_SCHEMA, ...messageOriginOf(event) } as const;
  if (record.type === 'RoundSettled') {
    const { roundId, tableId, shoeId, currency, shiftId, settlementId } = record.data;
    return record.data.lines.map((line) => ({
      ...common,
      messageId: deterministicId('settlement-message', event.id, line.betId),
      kind: 'settlement',
      roundId,
      tableId,
      shoeId,
      playerId: line.playerId,
      betId: line.betId,
      betType: line.type,
      bankerMode: line.bankerMode,
      seat: line.seat,
      stake: line.stake,
      payout: line.payout,
      result: line.result,
      commission: line.commission,
      commissionMode: line.commissionMode,
      currency,
      adjustment: null,
      reason: null,
      settlementId,
      shiftId,
    }));
  }
  if (record.type === 'BetsRefunded') {
    const { roundId, tableId, shoeId, currency, shiftId, refundId, reason } = record.data;
    return record.data.lines.map((line) => ({
      ...common,
      messageId: deterministicId('settlement-message', event.id, line.betId),
      kind: 'refund',
      roundId,
      tableId,
      shoeId,
      playerId: line.playerId,
      betId: line.betId,
      betType: null,
      bankerMode: null,
      seat: null,
      stake: line.amount,
      payout: line.amount,
      result: 'refund',
      commission: 0,
      commissionMode: null,
      currency,
      adjustment: null,
      reason,
      settlementId: refundId,
      shiftId,
    }));
  }
  if (record.type === 'RoundResettled') {
    const { roundId, tableId, shoeId, currency, shiftId, resettlementId, kind } = record.data;
    return record.data.adjustments.map((adjustment) => ({
      ...common,
      messageId: deterministicId('settlement-message', event.id, adjustment.betId),
      kind: 'adjustment',
      roundId,
      tableId,
      shoeId,
      playerId: adjustment.playerId,
      betId: adjustment.betId,
      betType: null,
      bankerMode: null,
      seat: adjustment.seat,
      stake: adjustment.stake,
      payout: adjustment.payout,
      result: adjustment.result,
      commission: adjustment.commission,
      commissionMode: adjustment.commissionMode,
      currency,
      adjustment: {
        previousPayout: adjustment.previousPayout,
        delta: adjustment.delta,
        commissionDelta:
          adjustment.commissionMode === 'accrued'
            ? adjustment.commission - adjustment.previousCommission
            : 0,
      },
      reason: kind === 'void' ? 'voided' : 'corrected',
      settlementId: resettlementId,
      shiftId,
    }));
  }
  return [];
}

/**
 * A bus that cannot take messages (Redis away, no consumer attached) holds up every message
 * alike: no message is to blame, so none is parked; the outbox retries until it is back.
 */
export const busAway = (error: unknown): boolean =>
  error instanceof PublishError || error instanceof NoConsumerError;

/**
 * The outbox: forwards every settlement record to the bus. The subscription's checkpoint moves
 * only after `publish` resolved (the bus accepted every message), so nothing is lost whatever
 * fails in between; a re-send after a crash carries the same message ids. With `parking`, a
 * record that cannot be published for its own sake (not a valid message, or failing again and
 * again while the bus is up) is parked as `settlement-outbox` (ADR 0035) instead of holding up
 * every record after it.
 */
export function startOutbox(
  store: EventStore,
  bus: SettlementBus,
  onError: (error: unknown) => void,
  { concurrentRounds = DEFAULT_CONCURRENT_ROUNDS }: SettlementReactorOptions = {},
  parking?: Parking,
): Subscription {
  return subscribeParking(
    store,
    parking,
    'settlement-outbox',
    {
      name: OUTBOX_SUBSCRIPTION.name,
      from: 'start',
      filter: OUTBOX_SUBSCRIPTION.filter,
      // A page re-sent after a crash carries the same message ids, which the bus and every wallet
      // system take once (docs/settlement-messages.md): one checkpoint per page (ADR 0022).
      checkpoints: 'per-page',
      // One task per round stream: messages carry no order across rounds (docs/settlement-messages.md,
      // "No order across messages"), and a round's records are still published in their order. With
      // the in-process bus a publish waits for the wallet's credits, which then share group commits.
      concurrentStreams: concurrentRounds,
      onError,
      handler: async (event) => {
        const messages = settlementMessagesOf(event);
        if (messages.length > 0) await bus.publish(messages);
      },
    },
    busAway,
  );
}
