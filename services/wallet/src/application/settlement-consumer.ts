import { causedBy, systemContext, type Parking } from '@croupier/application';
import {
  settlementMessageSchema,
  type CommandContext,
  type SettlementMessage,
} from '@croupier/contracts';
import type { EventStore, Subscription } from '@croupier/eventstore';
import type { SettlementBus, SettlementConsumer } from '@croupier/messaging';
import type { WalletService } from './wallet-service.js';

/**
 * Croupier's own wallet as a wallet system: applies each settlement message to the player's
 * wallet. Idempotent twice over: the wallet closes a stake once, and the events' ids name the
 * settlement and bet, so a message delivered again changes nothing.
 */
export async function applySettlementMessage(
  wallet: WalletService,
  message: SettlementMessage,
  context: CommandContext = systemContext('wallet-consumer'),
): Promise<void> {
  const caused = causedBy(context, message.eventId);
  if (message.kind === 'adjustment') {
    const adjustment = message.adjustment;
    if (adjustment === null)
      throw new Error(`adjustment message ${message.messageId} carries no adjustment`);
    await wallet.adjustPayout(
      message.playerId,
      {
        type: 'AdjustPayout',
        currency: message.currency,
        resettlementId: message.settlementId,
        roundId: message.roundId,
        betId: message.betId,
        delta: adjustment.delta,
        commissionDelta: adjustment.commissionDelta,
        tableId: message.tableId,
        shiftId: message.shiftId,
        seat: message.seat,
        reason: message.reason === 'voided' ? 'void' : 'correction',
      },
      caused,
    );
    return;
  }
  if (message.kind === 'refund') {
    await wallet.refundStake(
      {
        playerId: message.playerId,
        roundId: message.roundId,
        currency: message.currency,
        betId: message.betId,
        amount: message.stake,
        reason: message.reason === 'cleared' ? 'cleared' : 'voided',
      },
      caused,
    );
    return;
  }
  const accrued =
    message.commissionMode === 'accrued' && message.commission > 0 && message.seat !== null
      ? {
          tableId: message.tableId,
          seat: message.seat,
          shiftId: message.shiftId,
          amount: message.commission,
        }
      : null;
  await wallet.creditPayout(
    message.playerId,
    {
      type: 'CreditPayout',
      currency: message.currency,
      settlementId: message.settlementId,
      roundId: message.roundId,
      betId: message.betId,
      amount: message.payout,
      result: message.result === 'refund' ? 'push' : message.result,
      accruedCommission: accrued,
    },
    caused,
  );
}

/**
 * Attaches the wallet to the settlement bus. With `parking`, a message the wallet cannot apply
 * (a credit refused BALANCE_LIMIT, or failing again and again) is parked as `wallet-ledger`
 * and taken as done (ADR 0035): on the in-process bus the outbox goes on with the other players'
 * payouts instead of publishing it again forever, and on BullMQ the job completes.
 */
export function consumeSettlements(
  bus: SettlementBus,
  wallet: WalletService,
  options: { concurrency?: number; parking?: Parking } = {},
): Promise<SettlementConsumer> {
  const { parking, ...consuming } = options;
  const apply = (message: SettlementMessage) => applySettlementMessage(wallet, message);
  return bus.consume(
    parking === undefined
      ? apply
      : parking.guard('wallet-ledger', apply, (message) => ({
          messageId: message.messageId,
          playerId: message.playerId,
          message,
        })),
    consuming,
  );
}

/** Applies the `wallet-ledger` messages an operator asked to retry, where the wallet consumes. */
export function retryParkedSettlements(
  store: EventStore,
  parking: Parking,
  wallet: WalletService,
  onError: (error: unknown) => void,
): Subscription {
  return parking.startRetries(
    store,
    'wallet-ledger',
    (message) => applySettlementMessage(wallet, settlementMessageSchema.parse(message)),
    onError,
  );
}
