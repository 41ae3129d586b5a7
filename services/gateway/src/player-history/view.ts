import { copyResult, type RecordDocument, type RoundDocument } from './documents.js';
import type { HistoryRecord } from './history-record.js';

/** What the API and the CSV show of a record, joined with its round. */
export function viewOf(record: RecordDocument, round: RoundDocument): HistoryRecord {
  const commission = record.bets.reduce((sum, bet) => sum + bet.commission, 0);
  const settledCommission = record.bets.reduce(
    (sum, bet) => sum + (bet.settled?.commission ?? 0),
    0,
  );
  return {
    roundId: round.roundId,
    tableId: round.tableId,
    shoeId: round.shoeId,
    number: round.number,
    paytableId: round.paytableId,
    status: round.status,
    startedAt: record.startedAt,
    finishedAt: record.finishedAt,
    stakes: record.stakes,
    payout: record.credited + record.adjustedBy,
    refunded: record.refunded,
    commission,
    balanceBefore: record.balanceBefore,
    balanceAfter: record.balanceAfter,
    bets: record.bets.map((bet) => ({
      betId: bet.betId,
      type: bet.type,
      amount: bet.amount,
      result: bet.result,
      payout: bet.payout,
      commission: bet.commission,
      original: bet.resettled && bet.settled !== null ? { ...bet.settled } : null,
    })),
    result: copyResult(round.result),
    corrections: round.corrections.map((correction) => ({ ...correction })),
    adjusted: round.adjusted,
    original: round.adjusted
      ? {
          result: copyResult(round.firstResult),
          payout: record.credited,
          commission: settledCommission,
          balanceAfter: record.settledBalanceAfter,
        }
      : null,
    adjustments: record.adjustments.map((adjustment) => ({ ...adjustment })),
  };
}
