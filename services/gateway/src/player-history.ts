import type { DocumentSet, DurableProjection } from '@croupier/application';
import {
  eventTypesOf,
  isPlayMoney,
  roundEventSchema,
  walletEventSchema,
  type RoundEvent,
  type WalletEvent,
} from '@croupier/contracts';
import type { ProjectionStorage, RecordedEvent } from '@croupier/eventstore';
import { walletBalanceStep, type WalletBalanceDocument } from './wallet-balance-fold.js';

export type HistoryStatus = 'in-progress' | 'interrupted' | 'complete' | 'voided';
export type BetOutcome = 'win' | 'lose' | 'push' | 'refunded';

export interface HistoryHand {
  readonly cards: string[];
  readonly total: number;
}

export interface HistoryResult {
  readonly winner: 'player' | 'banker' | 'tie';
  readonly player: HistoryHand;
  readonly banker: HistoryHand;
}

export interface HistoryBet {
  readonly betId: string;
  readonly type: string;
  readonly amount: number;
  /** As finally settled (a void after settlement makes it `refunded`); null while open. */
  readonly result: BetOutcome | null;
  /** What the wallet paid for it: the payout or refund, plus every adjustment since. */
  readonly payout: number | null;
  readonly commission: number;
  /** The bet as first settled, kept once a resettlement changed it; null if none did. */
  readonly original: {
    readonly result: 'win' | 'lose' | 'push';
    readonly payout: number;
    readonly commission: number;
  } | null;
}

/** A card of the round replaced by a supervisor (a misread), before or after completion. */
export interface HistoryCorrection {
  readonly at: string;
  readonly shoePosition: number;
  readonly previous: string;
  readonly card: string;
  readonly reason: string;
}

/** One resettlement of the round as it moved this player's wallet. */
export interface HistoryAdjustment {
  readonly resettlementId: string;
  readonly kind: 'void' | 'correction';
  readonly reason: string;
  /** When the wallet applied it; null until it has (the bus delivers it after the round). */
  readonly at: string | null;
  /** Sum of the player's payout differences (negative: winnings taken back). */
  readonly delta: number;
  /** Change of the commission owed on an accrued-commission table. */
  readonly commissionDelta: number;
  /** The wallet's balance just before and just after it moved; null until it has. */
  readonly balanceBefore: number | null;
  readonly balanceAfter: number | null;
}

/**
 * One player's record of one round (GLI-19 game recall), as it stands after every dispute:
 * corrected cards and result, status `voided` for a round voided after settlement, payouts
 * and commission as finally adjusted, and the original figures beside them once they changed.
 */
export interface HistoryRecord {
  readonly roundId: string;
  readonly tableId: string;
  readonly shoeId: string;
  readonly number: number;
  readonly paytableId: string | null;
  readonly status: HistoryStatus;
  readonly startedAt: string;
  readonly finishedAt: string | null;
  readonly stakes: number;
  /** Paid by the wallet: payouts credited plus every payout adjustment since. */
  readonly payout: number;
  readonly refunded: number;
  /** As finally settled: the settlement lines' commission, as resettled since. */
  readonly commission: number;
  /** The wallet's balance just before the round's first movement (its first stake debited). */
  readonly balanceBefore: number;
  /**
   * The wallet's balance just after the round's last movement, its payout adjustments
   * included: a resettlement moves the round's money (see docs/audit.md, game recall).
   */
  readonly balanceAfter: number;
  readonly bets: HistoryBet[];
  /** The cards and result as they stand: corrected if a supervisor corrected a card. */
  readonly result: HistoryResult | null;
  readonly corrections: HistoryCorrection[];
  /** The round changed after it was settled: voided, its result corrected, or resettled. */
  readonly adjusted: boolean;
  /** When `adjusted`: the round as first settled, before any of that. */
  readonly original: {
    readonly result: HistoryResult | null;
    readonly payout: number;
    readonly commission: number;
    /** The balance just after the round's last movement before its first adjustment. */
    readonly balanceAfter: number;
  } | null;
  readonly adjustments: HistoryAdjustment[];
}

/** What every player's record of a round shares: where it was played and how it went. */
interface RoundDocument {
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

interface BetEntry {
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

type AdjustmentEntry = { -readonly [K in keyof HistoryAdjustment]: HistoryAdjustment[K] };

/** One player's record of one round: what their wallet did in it. */
interface RecordDocument {
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
interface PlayerDocument {
  readonly wallet: WalletBalanceDocument;
  /** Records opened so far: the next one's sequence. */
  readonly records: number;
}

type HistoryDocument = RoundDocument | RecordDocument | PlayerDocument;

const ROUND_EVENT_TYPES = [
  'RoundOpened',
  'BetPlaced',
  'CardCorrected',
  'RoundPaused',
  'RoundResumed',
  'RoundCompleted',
  'RoundResultCorrected',
  'RoundSettled',
  'RoundResettled',
  'RoundVoided',
] as const;
const ROUND_EVENTS = new Set<string>(ROUND_EVENT_TYPES);
/** Wallet events that open or change a player's record of a round. */
const RECORD_EVENTS = new Set<string>([
  'StakeDebited',
  'PayoutCredited',
  'StakeRefunded',
  'PayoutAdjusted',
]);

const roundKey = (roundId: string) => `round/${roundId}`;
const playerKey = (playerId: string) => `player/${playerId}`;
const recordKey = (playerId: string, roundId: string) => `record/${playerId}/${roundId}`;
/** The partition a player's records are listed from, newest first by sequence. */
const recordsOf = (playerId: string) => `records/${playerId}`;

const occurredAt = (event: RecordedEvent) =>
  (event.metadata as { occurredAt?: string }).occurredAt ?? event.recordedAt.toISOString();

const resultOf = (data: {
  winner: HistoryResult['winner'];
  player: HistoryHand;
  banker: HistoryHand;
}): HistoryResult => ({
  winner: data.winner,
  player: { cards: [...data.player.cards], total: data.player.total },
  banker: { cards: [...data.banker.cards], total: data.banker.total },
});

const copyResult = (result: HistoryResult | null): HistoryResult | null =>
  result === null ? null : resultOf(result);

/**
 * Players' game history: their rounds with cards, result, stakes, payouts and the balance before
 * and after each, joined from round and wallet events, disputes included: a card correction, a
 * corrected result, a void after settlement and the resettlement they cause. A durable read
 * model (docs/adr/0023) of three kinds of document, none of which grows with a player's history:
 *
 * - `round/R`: the round as every player shares it (place, status, cards, corrections,
 *   resettlements);
 * - `player/P`: the player's wallet balance (the wallet's own fold) and how many records they have;
 * - `record/P/R`: the player's record of round R, listed by partition `records/P` and sorted by
 *   its sequence, so a read of the last n rounds is one indexed query plus one for their rounds.
 */
export class PlayerHistory implements DurableProjection<HistoryDocument> {
  readonly name = 'player-history';
  /** Every wallet event (the balance is the wallet's own fold), and the round's that it shows. */
  readonly handles = [...eventTypesOf(walletEventSchema), ...ROUND_EVENT_TYPES];

  /** `storage`: where the documents are read from (the runner writes them). */
  constructor(private readonly storage: ProjectionStorage) {}

  keysOf(event: RecordedEvent): readonly string[] {
    if (event.stream.startsWith('wallet-')) {
      const parsed = walletEventSchema.parse({ type: event.type, data: event.data });
      const { playerId } = parsed.data;
      if (!RECORD_EVENTS.has(parsed.type)) return [playerKey(playerId)];
      const { roundId } = parsed.data as { roundId: string };
      const keys = [playerKey(playerId), recordKey(playerId, roundId)];
      return parsed.type === 'PayoutAdjusted' ? [...keys, roundKey(roundId)] : keys;
    }
    if (!event.stream.startsWith('round-') || !ROUND_EVENTS.has(event.type)) return [];
    const parsed = roundEventSchema.parse({ type: event.type, data: event.data });
    const roundId = parsed.data.roundId;
    // Game history is of real money (003: "available only when playing for money"): a fun
    // round is never opened here, so none of its events finds a round to apply to (ADR 0030).
    if (isFunRound(parsed)) return [];
    const players = (() => {
      switch (parsed.type) {
        case 'BetPlaced':
          return [parsed.data.playerId];
        case 'RoundSettled':
          return parsed.data.lines.map((line) => line.playerId);
        case 'RoundResettled':
          return parsed.data.adjustments.map((line) => line.playerId);
        default:
          return [];
      }
    })();
    return [roundKey(roundId), ...new Set(players.map((playerId) => recordKey(playerId, roundId)))];
  }

  apply(event: RecordedEvent, docs: DocumentSet<HistoryDocument>): void {
    if (event.stream.startsWith('wallet-')) applyWallet(event, docs);
    else if (event.stream.startsWith('round-') && ROUND_EVENTS.has(event.type))
      applyRound(event, docs);
  }

  /** The player's latest rounds, newest first. */
  async history(playerId: string, limit = 10): Promise<HistoryRecord[]> {
    const records = await this.storage.list(this.name, {
      partition: recordsOf(playerId),
      order: 'desc',
      limit,
    });
    const rounds = await this.storage.getMany(
      this.name,
      records.map((row) => roundKey((row.doc as RecordDocument).roundId)),
    );
    return records.map((row) => {
      const record = row.doc as RecordDocument;
      const round = rounds.get(roundKey(record.roundId)) as RoundDocument | undefined;
      return viewOf(record, round ?? unknownRound(record.roundId));
    });
  }

  /** The player's wallet balance as the history has it (0 for a player it has not seen). */
  async balanceOf(playerId: string): Promise<number> {
    const player = (await this.storage.get(this.name, playerKey(playerId))) as
      PlayerDocument | undefined;
    return player?.wallet.balance ?? 0;
  }
}

type Docs = DocumentSet<HistoryDocument>;
const getRound = (docs: Docs, roundId: string) =>
  docs.get(roundKey(roundId)) as RoundDocument | undefined;
const getRecord = (docs: Docs, playerId: string, roundId: string) =>
  docs.get(recordKey(playerId, roundId)) as RecordDocument | undefined;
const putRecord = (docs: Docs, playerId: string, record: RecordDocument) => {
  docs.put(recordKey(playerId, record.roundId), record, {
    partition: recordsOf(playerId),
    sort: BigInt(record.sequence),
  });
};

function applyWallet(event: RecordedEvent, docs: Docs): void {
  const parsed: WalletEvent = walletEventSchema.parse({ type: event.type, data: event.data });
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

/** An event of a round of play money, as those that name its money say (ADR 0030). */
const isFunRound = (event: RoundEvent): boolean =>
  ('currency' in event.data && isPlayMoney(event.data.currency)) ||
  ('fun' in event.data && event.data.fun === true);

function applyRound(event: RecordedEvent, docs: Docs): void {
  const parsed: RoundEvent = roundEventSchema.parse({ type: event.type, data: event.data });
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

/** A round whose opening the model never saw (a stake for it came alone): what is known. */
function unknownRound(roundId: string): RoundDocument {
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
function adjustmentOf(
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

/** What the API and the CSV show of a record, joined with its round. */
function viewOf(record: RecordDocument, round: RoundDocument): HistoryRecord {
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
