import { walletEventSchema, type WalletEvent, parseRecorded } from '@croupier/contracts';
import type { RecordedEvent } from '@croupier/eventstore';
import { walletBalanceStep } from '../wallet-balance-fold.js';
import {
  adjustmentOf,
  getRecord,
  getRound,
  occurredAt,
  playerKey,
  putRecord,
  roundKey,
  type Docs,
  type PlayerDocument,
} from './documents.js';

/** A wallet event: the player's balance, and their record of the round it moved money for. */
export function applyWallet(event: RecordedEvent, docs: Docs): void {
  const parsed: WalletEvent = parseRecorded(walletEventSchema, event);
  const { playerId } = parsed.data;
  const player = docs.get(playerKey(playerId)) as PlayerDocument | undefined;
  const { before, after, next } = walletBalanceStep(player?.wallet, parsed);
  let records = player?.records ?? 0;
  const at = occurredAt(event);
  switch (parsed.type) {
    case 'StakeDebited': {
      const { roundId, betId, amount } = parsed.data;
      let record = getRecord(docs, playerId, roundId);
      if (record === undefined) {
        // A player's first stake in a round opens their record of it.
        record = {
          roundId,
          sequence: ++records,
          startedAt: at,
          finishedAt: null,
          stakes: 0,
          credited: 0,
          adjustedBy: 0,
          refunded: 0,
          balanceBefore: before,
          settledBalanceAfter: before,
          balanceAfter: before,
          bets: [],
          open: [],
          adjustments: [],
        };
      }
      record.stakes += amount;
      if (!record.open.includes(betId)) record.open.push(betId);
      record.finishedAt = null;
      record.settledBalanceAfter = after;
      record.balanceAfter = after;
      putRecord(docs, playerId, record);
      break;
    }
    case 'PayoutCredited':
    case 'StakeRefunded': {
      const { roundId, betId, amount } = parsed.data;
      const record = getRecord(docs, playerId, roundId);
      if (record === undefined) break;
      const bet = record.bets.find((b) => b.betId === betId);
      if (parsed.type === 'PayoutCredited') record.credited += amount;
      else record.refunded += amount;
      if (bet && !bet.resettled)
        bet.result = parsed.type === 'PayoutCredited' ? parsed.data.result : 'refunded';
      if (bet) bet.payout = (bet.payout ?? 0) + amount;
      record.open = record.open.filter((id) => id !== betId);
      if (record.open.length === 0) record.finishedAt = at;
      record.settledBalanceAfter = after;
      record.balanceAfter = after;
      putRecord(docs, playerId, record);
      break;
    }
    case 'PayoutAdjusted': {
      const { roundId, betId, resettlementId, delta, commissionDelta } = parsed.data;
      const record = getRecord(docs, playerId, roundId);
      if (record === undefined) break;
      const round = getRound(docs, roundId);
      record.adjustedBy += delta;
      const bet = record.bets.find((b) => b.betId === betId);
      if (bet) bet.payout = (bet.payout ?? 0) + delta;
      const adjustment = adjustmentOf(record, round, resettlementId, parsed.data.reason);
      adjustment.at = at;
      adjustment.delta += delta;
      adjustment.commissionDelta += commissionDelta;
      adjustment.balanceBefore ??= before;
      adjustment.balanceAfter = after;
      record.balanceAfter = after;
      putRecord(docs, playerId, record);
      if (round !== undefined && !round.adjusted) {
        round.adjusted = true;
        docs.put(roundKey(roundId), round);
      }
      break;
    }
    default:
      break;
  }
  docs.put(playerKey(playerId), { wallet: next, records });
}
