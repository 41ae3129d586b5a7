import { isPlayMoney, roundEventSchema, type RoundEvent, parseRecorded } from '@croupier/contracts';
import type { RecordedEvent } from '@croupier/eventstore';
import {
  adjustmentOf,
  getRecord,
  getRound,
  occurredAt,
  putRecord,
  resultOf,
  roundKey,
  type Docs,
  type RecordDocument,
  type RoundDocument,
} from './documents.js';

/** An event of a round of play money, as those that name its money say (ADR 0030). */
export const isFunRound = (event: RoundEvent): boolean =>
  ('currency' in event.data && isPlayMoney(event.data.currency)) ||
  ('fun' in event.data && event.data.fun === true);

/** A round event: the round every player shares, and the records of its players it names. */
export function applyRound(event: RecordedEvent, docs: Docs): void {
  const parsed: RoundEvent = parseRecorded(roundEventSchema, event);
  const roundId = parsed.data.roundId;
  if (isFunRound(parsed)) return;
  if (parsed.type === 'RoundOpened') {
    const round: RoundDocument = {
      roundId,
      tableId: parsed.data.tableId,
      shoeId: parsed.data.shoeId,
      number: parsed.data.number,
      paytableId: parsed.data.paytableId,
      status: 'in-progress',
      firstResult: null,
      result: null,
      settled: false,
      adjusted: false,
      corrections: [],
      resettlements: {},
    };
    docs.put(roundKey(roundId), round);
    return;
  }
  const round = getRound(docs, roundId);
  if (round === undefined) return;
  const saveRound = () => {
    docs.put(roundKey(roundId), round);
  };
  switch (parsed.type) {
    case 'BetPlaced': {
      const record = getRecord(docs, parsed.data.playerId, roundId);
      if (record === undefined) return;
      record.bets.push({
        betId: parsed.data.betId,
        type: parsed.data.type,
        amount: parsed.data.amount,
        result: null,
        payout: null,
        commission: 0,
        settled: null,
        resettled: false,
      });
      putRecord(docs, parsed.data.playerId, record);
      return;
    }
    case 'CardCorrected':
      round.corrections.push({
        at: occurredAt(event),
        shoePosition: parsed.data.shoePosition,
        previous: parsed.data.previous,
        card: parsed.data.card,
        reason: parsed.data.reason,
      });
      saveRound();
      return;
    case 'RoundPaused':
      if (round.status === 'in-progress') round.status = 'interrupted';
      saveRound();
      return;
    case 'RoundResumed':
      if (round.status === 'interrupted') round.status = 'in-progress';
      saveRound();
      return;
    case 'RoundCompleted':
      if (round.status !== 'voided') round.status = 'complete';
      round.result = resultOf(parsed.data);
      round.firstResult ??= resultOf(parsed.data);
      saveRound();
      return;
    case 'RoundResultCorrected':
      round.result = resultOf(parsed.data);
      if (round.settled) round.adjusted = true;
      saveRound();
      return;
    case 'RoundSettled': {
      round.settled = true;
      saveRound();
      const changed = new Map<string, RecordDocument>();
      for (const line of parsed.data.lines) {
        const record = changed.get(line.playerId) ?? getRecord(docs, line.playerId, roundId);
        const bet = record?.bets.find((b) => b.betId === line.betId);
        if (record === undefined || bet === undefined) continue;
        bet.commission = line.commission;
        bet.settled = { result: line.result, payout: line.payout, commission: line.commission };
        changed.set(line.playerId, record);
      }
      for (const [playerId, record] of changed) putRecord(docs, playerId, record);
      return;
    }
    case 'RoundResettled': {
      round.adjusted = true;
      round.resettlements[parsed.data.resettlementId] = {
        kind: parsed.data.kind,
        reason: parsed.data.reason,
      };
      saveRound();
      const changed = new Map<string, RecordDocument>();
      for (const line of parsed.data.adjustments) {
        const record = changed.get(line.playerId) ?? getRecord(docs, line.playerId, roundId);
        const bet = record?.bets.find((b) => b.betId === line.betId);
        if (record === undefined || bet === undefined) continue;
        const moved =
          line.delta !== 0 ||
          line.commission !== line.previousCommission ||
          line.result !== bet.settled?.result;
        if (!moved) continue;
        bet.resettled = true;
        bet.result = line.result === 'refund' ? 'refunded' : line.result;
        bet.commission = line.commission;
        if (line.delta !== 0 || line.commission !== line.previousCommission)
          adjustmentOf(record, round, parsed.data.resettlementId, parsed.data.kind);
        changed.set(line.playerId, record);
      }
      for (const [playerId, record] of changed) putRecord(docs, playerId, record);
      return;
    }
    case 'RoundVoided':
      if (round.settled) round.adjusted = true;
      round.status = 'voided';
      saveRound();
      return;
    default:
      return;
  }
}
