import type { Projection } from '@croupier/application';
import { roundEventSchema, walletEventSchema } from '@croupier/contracts';
import type { RecordedEvent } from '@croupier/eventstore';

export interface HistoryBet {
  readonly betId: string;
  readonly type: string;
  readonly amount: number;
  result: 'win' | 'lose' | 'push' | 'refunded' | null;
  payout: number | null;
  commission: number;
}

/** One player's record of one round (GLI-19 game recall). */
export interface HistoryRecord {
  readonly roundId: string;
  readonly tableId: string;
  readonly shoeId: string;
  readonly number: number;
  readonly paytableId: string | null;
  status: 'in-progress' | 'interrupted' | 'complete' | 'voided';
  readonly startedAt: string;
  finishedAt: string | null;
  stakes: number;
  payout: number;
  refunded: number;
  commission: number;
  balanceBefore: number;
  balanceAfter: number;
  readonly bets: HistoryBet[];
  result: {
    winner: 'player' | 'banker' | 'tie';
    player: { cards: string[]; total: number };
    banker: { cards: string[]; total: number };
  } | null;
}

interface RoundMeta {
  readonly tableId: string;
  readonly shoeId: string;
  readonly number: number;
  readonly paytableId: string;
  readonly players: Set<string>;
}

const KEEP = 100;
const occurredAt = (event: RecordedEvent) =>
  (event.metadata as { occurredAt?: string }).occurredAt ?? event.recordedAt.toISOString();

/**
 * Players' game history: their last rounds with cards, result, stakes, payouts and the balance
 * before and after each, joined from round and wallet events.
 */
export class PlayerHistory implements Projection {
  readonly name = 'player-history';
  private readonly balances = new Map<string, number>();
  private readonly records = new Map<string, HistoryRecord[]>();
  private readonly rounds = new Map<string, RoundMeta>();

  apply(event: RecordedEvent): void {
    if (event.stream.startsWith('wallet-')) this.applyWallet(event);
    else if (event.stream.startsWith('round-')) this.applyRound(event);
  }

  reset(): void {
    this.balances.clear();
    this.records.clear();
    this.rounds.clear();
  }

  /** The player's latest rounds, newest first. */
  history(playerId: string, limit = 10): HistoryRecord[] {
    return [...(this.records.get(playerId) ?? [])].reverse().slice(0, limit);
  }

  balanceOf(playerId: string): number {
    return this.balances.get(playerId) ?? 0;
  }

  private record(playerId: string, roundId: string): HistoryRecord | undefined {
    return this.records.get(playerId)?.find((record) => record.roundId === roundId);
  }

  private applyWallet(event: RecordedEvent): void {
    const parsed = walletEventSchema.parse({ type: event.type, data: event.data });
    const playerId = parsed.data.playerId;
    const balance = this.balances.get(playerId) ?? 0;
    switch (parsed.type) {
      case 'FundsDeposited':
        this.balances.set(playerId, balance + parsed.data.amount);
        return;
      case 'FundsWithdrawn':
      case 'CommissionCollected':
        this.balances.set(playerId, balance - parsed.data.amount);
        return;
      case 'CommissionAccrued':
        return;
      case 'StakeDebited': {
        const { roundId, amount } = parsed.data;
        let record = this.record(playerId, roundId);
        if (record === undefined) {
          const meta = this.rounds.get(roundId);
          record = {
            roundId,
            tableId: meta?.tableId ?? '',
            shoeId: meta?.shoeId ?? '',
            number: meta?.number ?? 0,
            paytableId: meta?.paytableId ?? null,
            status: 'in-progress',
            startedAt: occurredAt(event),
            finishedAt: null,
            stakes: 0,
            payout: 0,
            refunded: 0,
            commission: 0,
            balanceBefore: balance,
            balanceAfter: balance,
            bets: [],
            result: null,
          };
          const list = this.records.get(playerId) ?? [];
          list.push(record);
          if (list.length > KEEP) list.shift();
          this.records.set(playerId, list);
          meta?.players.add(playerId);
        }
        record.stakes += amount;
        record.balanceAfter = balance - amount;
        this.balances.set(playerId, balance - amount);
        return;
      }
      case 'PayoutCredited':
      case 'StakeRefunded': {
        const { roundId, betId, amount } = parsed.data;
        this.balances.set(playerId, balance + amount);
        const record = this.record(playerId, roundId);
        if (record === undefined) return;
        const bet = record.bets.find((b) => b.betId === betId);
        if (parsed.type === 'PayoutCredited') {
          record.payout += amount;
          if (bet) {
            bet.result = parsed.data.result;
            bet.payout = amount;
          }
        } else {
          record.refunded += amount;
          if (bet) {
            bet.result = 'refunded';
            bet.payout = amount;
          }
        }
        record.balanceAfter = balance + amount;
        record.finishedAt = occurredAt(event);
        return;
      }
    }
  }

  private applyRound(event: RecordedEvent): void {
    const types = [
      'RoundOpened',
      'BetPlaced',
      'RoundCompleted',
      'RoundSettled',
      'RoundVoided',
      'RoundPaused',
      'RoundResumed',
    ];
    if (!types.includes(event.type)) return;
    const parsed = roundEventSchema.parse({ type: event.type, data: event.data });
    const roundId = parsed.data.roundId;
    const meta = this.rounds.get(roundId);
    const forPlayers = (update: (record: HistoryRecord) => void) => {
      for (const playerId of meta?.players ?? []) {
        const record = this.record(playerId, roundId);
        if (record) update(record);
      }
    };
    switch (parsed.type) {
      case 'RoundOpened':
        this.rounds.set(roundId, {
          tableId: parsed.data.tableId,
          shoeId: parsed.data.shoeId,
          number: parsed.data.number,
          paytableId: parsed.data.paytableId,
          players: new Set(),
        });
        return;
      case 'BetPlaced': {
        const record = this.record(parsed.data.playerId, roundId);
        meta?.players.add(parsed.data.playerId);
        record?.bets.push({
          betId: parsed.data.betId,
          type: parsed.data.type,
          amount: parsed.data.amount,
          result: null,
          payout: null,
          commission: 0,
        });
        return;
      }
      case 'RoundPaused':
        forPlayers((record) => (record.status = 'interrupted'));
        return;
      case 'RoundResumed':
        forPlayers((record) => (record.status = 'in-progress'));
        return;
      case 'RoundCompleted':
        forPlayers((record) => {
          record.status = 'complete';
          record.result = {
            winner: parsed.data.winner,
            player: { cards: [...parsed.data.player.cards], total: parsed.data.player.total },
            banker: { cards: [...parsed.data.banker.cards], total: parsed.data.banker.total },
          };
        });
        return;
      case 'RoundSettled':
        for (const line of parsed.data.lines) {
          const record = this.record(line.playerId, roundId);
          if (record === undefined) continue;
          record.commission += line.commission;
          const bet = record.bets.find((b) => b.betId === line.betId);
          if (bet) bet.commission = line.commission;
        }
        this.rounds.delete(roundId);
        return;
      case 'RoundVoided':
        forPlayers((record) => (record.status = 'voided'));
        this.rounds.delete(roundId);
        return;
      default:
        return;
    }
  }
}
