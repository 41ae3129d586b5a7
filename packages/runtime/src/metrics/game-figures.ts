import type { DocumentSet, DurableProjection } from '@croupier/application';
import { parseRoundId } from '@croupier/contracts';
import type { ProjectionStorage, RecordedEvent } from '@croupier/eventstore';

/** Upper bounds of the settlement lag's histogram buckets, in seconds. */
export const LAG_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300] as const;

/** Rounds opened, dealt to a result and voided at one table. */
export interface TableFigures {
  readonly kind: 'table';
  readonly table: string;
  readonly opened: number;
  readonly completed: number;
  readonly voided: number;
}

/** Bets placed of one bet type, and their stakes by currency (minor units). */
export interface BetFigures {
  readonly kind: 'bets';
  readonly betType: string;
  readonly placed: number;
  readonly stakes: Readonly<Record<string, number>>;
}

/** Bets placed with play money (ADR 0030), of one bet type: counted apart, never as stakes. */
export interface FunBetFigures {
  readonly kind: 'fun-bets';
  readonly betType: string;
  readonly placed: number;
}

/** Stakes of real money refunded to wallets, by reason. */
export interface RefundFigures {
  readonly kind: 'refunds';
  readonly byReason: Readonly<Record<string, number>>;
}

/**
 * The settlement lag's histogram: observations per bucket of LAG_BUCKETS (not cumulative; the
 * last one above every bound), their count and their sum in milliseconds (an integer: the sum
 * does not depend on the order of additions).
 */
export interface LagFigures {
  readonly kind: 'lag';
  readonly buckets: readonly number[];
  readonly count: number;
  readonly sumMs: number;
}

export type GameFigure = TableFigures | BetFigures | FunBetFigures | RefundFigures | LagFigures;

/** A round between opened and settled or voided: its currency and when it completed. */
interface OpenRound {
  readonly kind: 'round';
  readonly currency: string | null;
  readonly completedAt: number | null;
}

type FigureDocument = GameFigure | OpenRound;

/** The partition of the figures (rounds in progress have none): what a scrape lists. */
const FIGURES = 'figures';
const REFUNDS = 'refunds';
const LAG = 'settlement-lag';
const tableKey = (table: string) => `table:${table}`;
const betsKey = (betType: string) => `bets:${betType}`;
const funBetsKey = (betType: string) => `fun-bets:${betType}`;
const roundKey = (roundId: string) => `round:${roundId}`;

/**
 * The game's figures as a durable read model (docs/adr/0011, 0023): rounds opened, completed and
 * voided by table, bets and stakes by bet type and currency, refunds by reason, and the
 * settlement lag (RoundCompleted to RoundSettled, both as recorded by the store). `LogMetrics`
 * serves them; a scrape reads a few documents, whatever the length of the log, and a restart
 * reads them where they are instead of reading the log again. The rounds in progress are kept
 * (their currency, their completion time) until settled or voided.
 */
export class GameFigures implements DurableProjection<FigureDocument> {
  readonly name = 'game-figures';
  readonly handles = [
    'StakeRefunded',
    'RoundOpened',
    'RoundCompleted',
    'RoundVoided',
    'BetPlaced',
    'RoundSettled',
  ] as const;

  constructor(private readonly storage: ProjectionStorage) {}

  keysOf(event: RecordedEvent): readonly string[] {
    if (!event.stream.startsWith('round-') && event.type !== 'StakeRefunded') return [];
    const data = event.data as Record<string, unknown>;
    const roundId = typeof data.roundId === 'string' ? data.roundId : null;
    const table = roundId === null ? null : tableOf(roundId);
    if (roundId === null || table === null) return [];
    switch (event.type) {
      case 'StakeRefunded':
        // Play money refunded is no refund of a stake (ADR 0030).
        return data.fun === true ? [] : [REFUNDS];
      case 'RoundOpened':
      case 'RoundCompleted':
      case 'RoundVoided':
        return [tableKey(table), roundKey(roundId)];
      case 'BetPlaced':
        // A bet of play money is marked (the round decider marks every bet of a FUN round).
        return [
          data.fun === true ? funBetsKey(String(data.type)) : betsKey(String(data.type)),
          roundKey(roundId),
        ];
      case 'RoundSettled':
        return [LAG, roundKey(roundId)];
      default:
        return [];
    }
  }

  apply(event: RecordedEvent, docs: DocumentSet<FigureDocument>): void {
    const data = event.data as Record<string, unknown>;
    const figures = { partition: FIGURES };
    const [key, round] = this.keysOf(event);
    if (key === REFUNDS) {
      const refunds = (docs.get(REFUNDS) as RefundFigures | undefined) ?? {
        kind: 'refunds',
        byReason: {},
      };
      const reason = String(data.reason);
      docs.put(
        REFUNDS,
        {
          ...refunds,
          byReason: { ...refunds.byReason, [reason]: (refunds.byReason[reason] ?? 0) + 1 },
        },
        figures,
      );
      return;
    }
    if (key === undefined || round === undefined) return;
    const roundId = data.roundId as string;
    const table = (): TableFigures =>
      (docs.get(key) as TableFigures | undefined) ?? {
        kind: 'table',
        table: tableOf(roundId)!,
        opened: 0,
        completed: 0,
        voided: 0,
      };
    const open = docs.get(round) as OpenRound | undefined;
    switch (event.type) {
      case 'RoundOpened': {
        const at = table();
        docs.put(key, { ...at, opened: at.opened + 1 }, figures);
        docs.put(round, {
          kind: 'round',
          currency: typeof data.currency === 'string' ? data.currency : null,
          completedAt: null,
        });
        return;
      }
      case 'BetPlaced': {
        const betType = String(data.type);
        if (data.fun === true) {
          const fun = (docs.get(key) as FunBetFigures | undefined) ?? {
            kind: 'fun-bets',
            betType,
            placed: 0,
          };
          docs.put(key, { ...fun, placed: fun.placed + 1 }, figures);
          return;
        }
        const bets = (docs.get(key) as BetFigures | undefined) ?? {
          kind: 'bets',
          betType,
          placed: 0,
          stakes: {},
        };
        const currency = open?.currency ?? 'unknown';
        docs.put(
          key,
          {
            ...bets,
            placed: bets.placed + 1,
            stakes: {
              ...bets.stakes,
              [currency]: (bets.stakes[currency] ?? 0) + Number(data.amount),
            },
          },
          figures,
        );
        return;
      }
      case 'RoundCompleted': {
        const at = table();
        docs.put(key, { ...at, completed: at.completed + 1 }, figures);
        docs.put(round, {
          kind: 'round',
          currency: open?.currency ?? null,
          completedAt: event.recordedAt.getTime(),
        });
        return;
      }
      case 'RoundSettled': {
        if (open?.completedAt != null) {
          const lag = (docs.get(LAG) as LagFigures | undefined) ?? {
            kind: 'lag',
            buckets: LAG_BUCKETS.map(() => 0).concat(0),
            count: 0,
            sumMs: 0,
          };
          const ms = Math.max(0, event.recordedAt.getTime() - open.completedAt);
          const bucket = LAG_BUCKETS.findIndex((bound) => ms / 1000 <= bound);
          const buckets = [...lag.buckets];
          buckets[bucket === -1 ? LAG_BUCKETS.length : bucket]! += 1;
          docs.put(LAG, { ...lag, buckets, count: lag.count + 1, sumMs: lag.sumMs + ms }, figures);
        }
        if (open !== undefined) docs.delete(round);
        return;
      }
      case 'RoundVoided': {
        const at = table();
        docs.put(key, { ...at, voided: at.voided + 1 }, figures);
        if (open !== undefined) docs.delete(round);
        return;
      }
    }
  }

  /** Every figure as stored: a few documents per table and bet type, not per round. */
  async read(): Promise<GameFigure[]> {
    const rows = await this.storage.list(this.name, { partition: FIGURES });
    return rows.map((row) => row.doc as GameFigure);
  }
}

function tableOf(roundId: string): string | null {
  try {
    return parseRoundId(roundId).tableId;
  } catch {
    return null;
  }
}
