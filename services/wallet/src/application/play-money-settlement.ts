import { causedBy, systemContext } from '@croupier/application';
import { isPlayMoney, roundEventSchema, type CommandContext } from '@croupier/contracts';
import type { RecordedEvent } from '@croupier/eventstore';
import type { WalletService } from './wallet-service.js';

/**
 * Seamless mode's play money (ADR 0030): the operator's wallet holds real money only, so a fun
 * round's settlement records (its settlement, refund or resettlement) are applied here, to the
 * players' fun wallets in Croupier, straight from the round's record rather than from a ledger
 * message (no ledger queue runs in seamless mode). Idempotent as the ledger's consumer is: a
 * stake closes once, and the wallet events' ids name the settlement and the bet. Records of real
 * money are not this function's: it refuses them.
 */
export async function applyPlayMoneyRecord(
  wallets: WalletService,
  record: RecordedEvent,
  context: CommandContext = systemContext('play-money-feed'),
): Promise<void> {
  const parsed = roundEventSchema.parse({ type: record.type, data: record.data });
  if (
    parsed.type !== 'RoundSettled' &&
    parsed.type !== 'BetsRefunded' &&
    parsed.type !== 'RoundResettled'
  )
    return;
  const { roundId, currency } = parsed.data;
  if (!isPlayMoney(currency))
    throw new Error(
      `${record.type} of round ${roundId} is in ${currency}: only play money is applied to fun wallets`,
    );
  const caused = causedBy(context, record.id);
  if (parsed.type === 'BetsRefunded') {
    for (const line of parsed.data.lines)
      await wallets.refundStake(
        {
          playerId: line.playerId,
          roundId,
          currency,
          betId: line.betId,
          amount: line.amount,
          reason: parsed.data.reason,
        },
        caused,
      );
    return;
  }
  if (parsed.type === 'RoundSettled') {
    for (const line of parsed.data.lines)
      await wallets.creditPayout(
        line.playerId,
        {
          type: 'CreditPayout',
          currency,
          settlementId: parsed.data.settlementId,
          roundId,
          betId: line.betId,
          amount: line.payout,
          result: line.result,
          // Play money is played in sessions, never at a seated table: no commission accrues.
          accruedCommission: null,
        },
        caused,
      );
    return;
  }
  for (const adjustment of parsed.data.adjustments)
    await wallets.adjustPayout(
      adjustment.playerId,
      {
        type: 'AdjustPayout',
        currency,
        resettlementId: parsed.data.resettlementId,
        roundId,
        betId: adjustment.betId,
        delta: adjustment.delta,
        commissionDelta:
          adjustment.commissionMode === 'accrued'
            ? adjustment.commission - adjustment.previousCommission
            : 0,
        tableId: parsed.data.tableId,
        shiftId: parsed.data.shiftId,
        seat: adjustment.seat,
        reason: parsed.data.kind === 'void' ? 'void' : 'correction',
      },
      caused,
    );
}
