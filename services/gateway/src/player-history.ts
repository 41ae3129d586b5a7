import type { Projection } from '@croupier/application';
import {
  roundEventSchema,
  walletEventSchema,
  type RoundEvent,
  type WalletEvent,
} from '@croupier/contracts';
import type { RecordedEvent } from '@croupier/eventstore';
import { WalletBalanceFold } from './wallet-balance-fold.js';

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
interface GameCycle {
  readonly roundId: string;
  readonly tableId: string;
  readonly shoeId: string;
  readonly number: number;
  readonly paytableId: string | null;
  status: HistoryStatus;
  firstResult: HistoryResult | null;
  result: HistoryResult | null;
  settled: boolean;
  /** Settled or voided: the cycle leaves the index once no player's record holds it. */
  finished: boolean;
  adjusted: boolean;
  readonly corrections: HistoryCorrection[];
  readonly resettlements: Map<string, { kind: 'void' | 'correction'; reason: string }>;
  /** Players with a record of this round still kept. */
  readonly players: Set<string>;
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

interface PlayerRecord {
  readonly cycle: GameCycle;
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
  /** Stakes debited and not yet paid or refunded. */
  readonly open: Set<string>;
  readonly adjustments: AdjustmentEntry[];
}

const KEEP = 100;
const ROUND_EVENTS = new Set<string>([
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
]);
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
 * Players' game history: their last rounds with cards, result, stakes, payouts and the balance
 * before and after each, joined from round and wallet events, disputes included: a card
 * correction, a corrected result, a void after settlement and the resettlement they cause.
 */
export class PlayerHistory implements Projection {
  readonly name = 'player-history';
  private readonly wallets = new WalletBalanceFold();
  private readonly records = new Map<string, PlayerRecord[]>();
  /** Rounds by id, while they can still change a kept record or gain one. */
  private readonly rounds = new Map<string, GameCycle>();

  apply(event: RecordedEvent): void {
    if (event.stream.startsWith('wallet-')) this.applyWallet(event);
    else if (event.stream.startsWith('round-') && ROUND_EVENTS.has(event.type))
      this.applyRound(event);
  }

  reset(): void {
    this.wallets.reset();
    this.records.clear();
    this.rounds.clear();
  }

  /** The player's latest rounds, newest first. */
  history(playerId: string, limit = 10): HistoryRecord[] {
    return [...(this.records.get(playerId) ?? [])]
      .reverse()
      .slice(0, limit)
      .map((record) => viewOf(record));
  }

  balanceOf(playerId: string): number {
    return this.wallets.balanceOf(playerId);
  }

  private record(playerId: string, roundId: string): PlayerRecord | undefined {
    return this.records.get(playerId)?.find((record) => record.cycle.roundId === roundId);
  }

  private applyWallet(event: RecordedEvent): void {
    const parsed: WalletEvent = walletEventSchema.parse({ type: event.type, data: event.data });
    const { before, after } = this.wallets.apply(parsed);
    const at = occurredAt(event);
    switch (parsed.type) {
      case 'StakeDebited': {
        const { playerId, roundId, betId, amount } = parsed.data;
        const record = this.record(playerId, roundId) ?? this.open(playerId, roundId, at, before);
        record.stakes += amount;
        record.open.add(betId);
        record.finishedAt = null;
        record.settledBalanceAfter = after;
        record.balanceAfter = after;
        return;
      }
      case 'PayoutCredited':
      case 'StakeRefunded': {
        const { playerId, roundId, betId, amount } = parsed.data;
        const record = this.record(playerId, roundId);
        if (record === undefined) return;
        const bet = record.bets.find((b) => b.betId === betId);
        if (parsed.type === 'PayoutCredited') record.credited += amount;
        else record.refunded += amount;
        if (bet && !bet.resettled)
          bet.result = parsed.type === 'PayoutCredited' ? parsed.data.result : 'refunded';
        if (bet) bet.payout = (bet.payout ?? 0) + amount;
        record.open.delete(betId);
        if (record.open.size === 0) record.finishedAt = at;
        record.settledBalanceAfter = after;
        record.balanceAfter = after;
        return;
      }
      case 'PayoutAdjusted': {
        const { playerId, roundId, betId, resettlementId, delta, commissionDelta } = parsed.data;
        const record = this.record(playerId, roundId);
        if (record === undefined) return;
        record.adjustedBy += delta;
        const bet = record.bets.find((b) => b.betId === betId);
        if (bet) bet.payout = (bet.payout ?? 0) + delta;
        const adjustment = adjustmentOf(record, resettlementId, parsed.data.reason);
        adjustment.at = at;
        adjustment.delta += delta;
        adjustment.commissionDelta += commissionDelta;
        adjustment.balanceBefore ??= before;
        adjustment.balanceAfter = after;
        record.cycle.adjusted = true;
        record.balanceAfter = after;
        return;
      }
      default:
        return;
    }
  }

  /** A player's first stake in a round opens their record of it. */
  private open(playerId: string, roundId: string, at: string, balance: number): PlayerRecord {
    // A stake for a round whose opening this projection never saw: record what is known.
    const cycle =
      this.rounds.get(roundId) ??
      newCycle({ roundId, tableId: '', shoeId: '', number: 0, paytableId: null });
    cycle.players.add(playerId);
    const record: PlayerRecord = {
      cycle,
      startedAt: at,
      finishedAt: null,
      stakes: 0,
      credited: 0,
      adjustedBy: 0,
      refunded: 0,
      balanceBefore: balance,
      settledBalanceAfter: balance,
      balanceAfter: balance,
      bets: [],
      open: new Set(),
      adjustments: [],
    };
    const list = this.records.get(playerId) ?? [];
    list.push(record);
    if (list.length > KEEP) this.forget(playerId, list.shift()!);
    this.records.set(playerId, list);
    return record;
  }

  /** A record falls out of the player's last KEEP: its round leaves once nobody holds it. */
  private forget(playerId: string, record: PlayerRecord): void {
    const { cycle } = record;
    cycle.players.delete(playerId);
    if (cycle.players.size === 0 && cycle.finished && this.rounds.get(cycle.roundId) === cycle)
      this.rounds.delete(cycle.roundId);
  }

  private finish(cycle: GameCycle): void {
    cycle.finished = true;
    if (cycle.players.size === 0) this.rounds.delete(cycle.roundId);
  }

  private applyRound(event: RecordedEvent): void {
    const parsed: RoundEvent = roundEventSchema.parse({ type: event.type, data: event.data });
    const roundId = parsed.data.roundId;
    if (parsed.type === 'RoundOpened') {
      this.rounds.set(
        roundId,
        newCycle({
          roundId,
          tableId: parsed.data.tableId,
          shoeId: parsed.data.shoeId,
          number: parsed.data.number,
          paytableId: parsed.data.paytableId,
        }),
      );
      return;
    }
    const cycle = this.rounds.get(roundId);
    if (cycle === undefined) return;
    switch (parsed.type) {
      case 'BetPlaced': {
        const record = this.record(parsed.data.playerId, roundId);
        record?.bets.push({
          betId: parsed.data.betId,
          type: parsed.data.type,
          amount: parsed.data.amount,
          result: null,
          payout: null,
          commission: 0,
          settled: null,
          resettled: false,
        });
        return;
      }
      case 'CardCorrected':
        cycle.corrections.push({
          at: occurredAt(event),
          shoePosition: parsed.data.shoePosition,
          previous: parsed.data.previous,
          card: parsed.data.card,
          reason: parsed.data.reason,
        });
        return;
      case 'RoundPaused':
        if (cycle.status === 'in-progress') cycle.status = 'interrupted';
        return;
      case 'RoundResumed':
        if (cycle.status === 'interrupted') cycle.status = 'in-progress';
        return;
      case 'RoundCompleted':
        if (cycle.status !== 'voided') cycle.status = 'complete';
        cycle.result = resultOf(parsed.data);
        cycle.firstResult ??= resultOf(parsed.data);
        return;
      case 'RoundResultCorrected':
        cycle.result = resultOf(parsed.data);
        if (cycle.settled) cycle.adjusted = true;
        return;
      case 'RoundSettled':
        cycle.settled = true;
        for (const line of parsed.data.lines) {
          const bet = this.record(line.playerId, roundId)?.bets.find((b) => b.betId === line.betId);
          if (bet === undefined) continue;
          bet.commission = line.commission;
          bet.settled = { result: line.result, payout: line.payout, commission: line.commission };
        }
        this.finish(cycle);
        return;
      case 'RoundResettled':
        cycle.adjusted = true;
        cycle.resettlements.set(parsed.data.resettlementId, {
          kind: parsed.data.kind,
          reason: parsed.data.reason,
        });
        for (const line of parsed.data.adjustments) {
          const record = this.record(line.playerId, roundId);
          const bet = record?.bets.find((b) => b.betId === line.betId);
          if (record === undefined || bet === undefined) continue;
          const changed =
            line.delta !== 0 ||
            line.commission !== line.previousCommission ||
            line.result !== bet.settled?.result;
          if (!changed) continue;
          bet.resettled = true;
          bet.result = line.result === 'refund' ? 'refunded' : line.result;
          bet.commission = line.commission;
          if (line.delta !== 0 || line.commission !== line.previousCommission)
            adjustmentOf(record, parsed.data.resettlementId, parsed.data.kind);
        }
        return;
      case 'RoundVoided':
        if (cycle.settled) cycle.adjusted = true;
        cycle.status = 'voided';
        this.finish(cycle);
        return;
      default:
        return;
    }
  }
}

function newCycle(place: {
  roundId: string;
  tableId: string;
  shoeId: string;
  number: number;
  paytableId: string | null;
}): GameCycle {
  return {
    ...place,
    status: 'in-progress',
    firstResult: null,
    result: null,
    settled: false,
    finished: false,
    adjusted: false,
    corrections: [],
    resettlements: new Map(),
    players: new Set(),
  };
}

/** The record's entry for a resettlement, made when it is first seen (round or wallet side). */
function adjustmentOf(
  record: PlayerRecord,
  resettlementId: string,
  kind: 'void' | 'correction',
): AdjustmentEntry {
  let entry = record.adjustments.find((a) => a.resettlementId === resettlementId);
  if (entry === undefined) {
    const resettlement = record.cycle.resettlements.get(resettlementId);
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

/** What the API and the CSV show of a record: a fresh copy, so callers cannot change it. */
function viewOf(record: PlayerRecord): HistoryRecord {
  const { cycle } = record;
  const commission = record.bets.reduce((sum, bet) => sum + bet.commission, 0);
  const settledCommission = record.bets.reduce(
    (sum, bet) => sum + (bet.settled?.commission ?? 0),
    0,
  );
  return {
    roundId: cycle.roundId,
    tableId: cycle.tableId,
    shoeId: cycle.shoeId,
    number: cycle.number,
    paytableId: cycle.paytableId,
    status: cycle.status,
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
    result: copyResult(cycle.result),
    corrections: cycle.corrections.map((correction) => ({ ...correction })),
    adjusted: cycle.adjusted,
    original: cycle.adjusted
      ? {
          result: copyResult(cycle.firstResult),
          payout: record.credited,
          commission: settledCommission,
          balanceAfter: record.settledBalanceAfter,
        }
      : null,
    adjustments: record.adjustments.map((adjustment) => ({ ...adjustment })),
  };
}
