import type { DocumentSet } from '@croupier/application';
import type { RecordedEvent } from '@croupier/eventstore';
import type { WalletBalanceDocument } from '../wallet-balance-fold.js';
import type {
  BetOutcome,
  HistoryAdjustment,
  HistoryCorrection,
  HistoryHand,
  HistoryResult,
  HistoryStatus,
} from './history-record.js';

/**
 * The player history's documents (round/R, player/P, record/P/R: see PlayerHistory), their keys,
 * and the steps both the round side and the wallet side take on them.
 */
/** What every player's record of a round shares: where it was played and how it went. */
export interface RoundDocument {
  readonly roundId: string;
  readonly tableId: string;
  readonly shoeId: string;
  readonly number: number;
  readonly paytableId: string | null;
  status: HistoryStatus;
  firstResult: HistoryResult | null;
  result: HistoryResult | null;
  settled: boolean;
  adjusted: boolean;
  readonly corrections: HistoryCorrection[];
  /** Each resettlement of the round, by id: its kind and reason. */
  readonly resettlements: Record<string, { kind: 'void' | 'correction'; reason: string }>;
}

export interface BetEntry {
  readonly betId: string;
  readonly type: string;
  readonly amount: number;
  result: BetOutcome | null;
  payout: number | null;
  commission: number;
  /** The settlement line, as first recorded. */
  settled: { result: 'win' | 'lose' | 'push'; payout: number; commission: number } | null;
  resettled: boolean;
}

export type AdjustmentEntry = { -readonly [K in keyof HistoryAdjustment]: HistoryAdjustment[K] };

/** One player's record of one round: what their wallet did in it. */
export interface RecordDocument {
  readonly roundId: string;
  /** The player's n-th record: the order the history lists them in. */
  readonly sequence: number;
  readonly startedAt: string;
  finishedAt: string | null;
  stakes: number;
  credited: number;
  adjustedBy: number;
  refunded: number;
  readonly balanceBefore: number;
  /** After the last movement that is not an adjustment. */
  settledBalanceAfter: number;
  balanceAfter: number;
  readonly bets: BetEntry[];
  /** Stakes debited and not yet paid or refunded, by bet id. */
  open: string[];
  readonly adjustments: AdjustmentEntry[];
}

/** A player's own document: their wallet's balance as the wallet adds it up, and their records. */
export interface PlayerDocument {
  readonly wallet: WalletBalanceDocument;
  /** Records opened so far: the next one's sequence. */
  readonly records: number;
}

export type HistoryDocument = RoundDocument | RecordDocument | PlayerDocument;

export const roundKey = (roundId: string) => `round/${roundId}`;
export const playerKey = (playerId: string) => `player/${playerId}`;
export const recordKey = (playerId: string, roundId: string) => `record/${playerId}/${roundId}`;
/** The partition a player's records are listed from, newest first by sequence. */
export const recordsOf = (playerId: string) => `records/${playerId}`;

export const occurredAt = (event: RecordedEvent) =>
  (event.metadata as { occurredAt?: string }).occurredAt ?? event.recordedAt.toISOString();

export const resultOf = (data: {
  winner: HistoryResult['winner'];
  player: HistoryHand;
  banker: HistoryHand;
}): HistoryResult => ({
  winner: data.winner,
  player: { cards: [...data.player.cards], total: data.player.total },
  banker: { cards: [...data.banker.cards], total: data.banker.total },
});

export const copyResult = (result: HistoryResult | null): HistoryResult | null =>
  result === null ? null : resultOf(result);

export type Docs = DocumentSet<HistoryDocument>;
export const getRound = (docs: Docs, roundId: string) =>
  docs.get(roundKey(roundId)) as RoundDocument | undefined;
export const getRecord = (docs: Docs, playerId: string, roundId: string) =>
  docs.get(recordKey(playerId, roundId)) as RecordDocument | undefined;
export const putRecord = (docs: Docs, playerId: string, record: RecordDocument) => {
  docs.put(recordKey(playerId, record.roundId), record, {
    partition: recordsOf(playerId),
    sort: BigInt(record.sequence),
  });
};

/** A round whose opening the model never saw (a stake for it came alone): what is known. */
export function unknownRound(roundId: string): RoundDocument {
  return {
    roundId,
    tableId: '',
    shoeId: '',
    number: 0,
    paytableId: null,
    status: 'in-progress',
    firstResult: null,
    result: null,
    settled: false,
    adjusted: false,
    corrections: [],
    resettlements: {},
  };
}

/** The record's entry for a resettlement, made when it is first seen (round or wallet side). */
export function adjustmentOf(
  record: RecordDocument,
  round: RoundDocument | undefined,
  resettlementId: string,
  kind: 'void' | 'correction',
): AdjustmentEntry {
  let entry = record.adjustments.find((a) => a.resettlementId === resettlementId);
  if (entry === undefined) {
    const resettlement = round?.resettlements[resettlementId];
    entry = {
      resettlementId,
      kind: resettlement?.kind ?? kind,
      reason: resettlement?.reason ?? '',
      at: null,
      delta: 0,
      commissionDelta: 0,
      balanceBefore: null,
      balanceAfter: null,
    };
    record.adjustments.push(entry);
  }
  return entry;
}
