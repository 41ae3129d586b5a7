import type { DocumentSet, DurableProjection } from '@croupier/application';
import {
  isPlayMoney,
  parseRoundId,
  roundEventSchema,
  tableEventSchema,
  type RoundEvent,
  parseRecorded,
} from '@croupier/contracts';
import type { ProjectionStorage, RecordedEvent } from '@croupier/eventstore';
import { applyDelta, NO_FIGURES, type Figures, type FiguresDelta } from './figures.js';

/** Where a table's figures are added up: the table itself, or its game when it is a session. */
export type Scope = { readonly kind: 'table' | 'game'; readonly id: string };

/** A bet standing on the round in play (the exposure is read from these). */
export interface StandingBet {
  readonly betId: string;
  readonly playerId: string;
  readonly type: string;
  readonly amount: number;
  readonly bankerMode: 'commission' | 'no_commission' | null;
  readonly seat: number | null;
}

/** A table as the figures need it: what it adds up to, its shift and its round in play. */
export interface TableDocument {
  readonly kind: 'table';
  readonly tableId: string;
  readonly scope: Scope;
  readonly currency: string;
  /** The table's shoe and Tie odds: what the exact RTPs of its bets are computed for. */
  readonly decks: number;
  readonly tieOdds: number;
  readonly shiftId: string;
  readonly shiftStartedAt: string;
  readonly dealerId: string | null;
  readonly status: 'open' | 'closed';
  /** Position of its TableOpened, as decimal text (jsonb holds no bigint): the list's order. */
  readonly openedPosition: string;
  readonly round: {
    readonly roundId: string;
    readonly tieOdds: number;
    readonly commission: 'deducted' | 'accrued';
    readonly bets: readonly StandingBet[];
  } | null;
}

/** A bucket of figures: one scope and currency over an hour, a day (UTC) or a dealer shift. */
export interface BucketDocument {
  readonly kind: 'bucket';
  readonly tableId: string;
  readonly scope: Scope;
  readonly currency: string;
  /** The table's decks and Tie odds (the exact RTP the observed one is held against). */
  readonly decks: number;
  readonly tieOdds: number;
  /** When the hour or day began (ISO); for a shift, when the shift began. */
  readonly from: string;
  readonly figures: Figures;
  /** Shift buckets: commission accrued per seat in the shift (002), minor units. */
  readonly seats?: Readonly<Record<string, number>>;
}

/** A settled round's bets by id, so a resettlement books its changes by bet type. */
interface SettledDocument {
  readonly kind: 'settled';
  readonly types: Readonly<Record<string, string>>;
}

type FloorDocument = TableDocument | BucketDocument | SettledDocument;

export const HOURS = 'hours';
export const DAYS = 'days';
export const TABLES = 'tables';
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

export const tableKey = (tableId: string) => `table/${tableId}`;
export const shiftKey = (shiftId: string, currency: string) => `shift/${shiftId}/${currency}`;
const settledKey = (roundId: string) => `settled/${roundId}`;
export const startOf = (at: number, span: number) => Math.floor(at / span) * span;
const hourKey = (hour: number, tableId: string, currency: string) =>
  `hour/${new Date(hour).toISOString()}/${tableId}/${currency}`;
const dayKey = (day: number, tableId: string, currency: string) =>
  `day/${new Date(day).toISOString().slice(0, 10)}/${tableId}/${currency}`;

const isSession = (tableId: string) => tableId.startsWith('s-');

/**
 * The floor's figures (issue 26) as a durable read model (ADR 0023): per table and currency, the
 * settled rounds' turnover, returns, accrued commission, bets by type and players, in buckets of
 * an hour and a day (UTC, by when the store recorded the settlement) and of a dealer shift; and
 * each table's round in play with its standing bets, for its exposure. A settlement is booked
 * when it is recorded; a resettlement (a void or a card corrected after settlement) books what it
 * changes when it is recorded, so a closed day's figures do not move. Play money is never booked
 * (ADR 0030). A period's figures are an index read of its buckets, whatever the log's length.
 */
export class FloorFigures implements DurableProjection<FloorDocument> {
  readonly name = 'floor-figures';
  readonly handles = [
    'TableOpened',
    'DealerChanged',
    'TableClosed',
    'RoundOpened',
    'BetPlaced',
    'BetsCleared',
    'RoundVoided',
    'RoundSettled',
    'RoundResettled',
  ] as const;

  constructor(private readonly storage: ProjectionStorage) {}

  keysOf(event: RecordedEvent): readonly string[] {
    if (!(this.handles as readonly string[]).includes(event.type)) return [];
    if (event.stream.startsWith('table-')) {
      const parsed = parseRecorded(tableEventSchema, event);
      return [tableKey(parsed.data.tableId)];
    }
    if (!event.stream.startsWith('round-')) return [];
    const parsed = parseRecorded(roundEventSchema, event);
    const { tableId } = parseRoundId(parsed.data.roundId);
    if (parsed.type !== 'RoundSettled' && parsed.type !== 'RoundResettled')
      return [tableKey(tableId)];
    if (isPlayMoney(parsed.data.currency)) return [tableKey(tableId)];
    const at = event.recordedAt.getTime();
    const { currency, shiftId, roundId } = parsed.data;
    return [
      tableKey(tableId),
      settledKey(roundId),
      hourKey(startOf(at, HOUR_MS), tableId, currency),
      dayKey(startOf(at, DAY_MS), tableId, currency),
      shiftKey(shiftId, currency),
    ];
  }

  apply(event: RecordedEvent, docs: DocumentSet<FloorDocument>): void {
    const [key, ...buckets] = this.keysOf(event);
    if (key === undefined) return;
    if (event.stream.startsWith('table-')) {
      applyTable(event, key, docs);
      return;
    }
    const table = docs.get(key) as TableDocument | undefined;
    if (table === undefined) return;
    const parsed = parseRecorded(roundEventSchema, event);
    const round = nextRound(table.round, parsed);
    if (round !== table.round) docs.put(key, { ...table, round }, indexOf(table));
    if (buckets.length === 0) return;
    const [settled, hour, day, shift] = buckets as [string, string, string, string];
    const delta = deltaOf(parsed, docs.get(settled) as SettledDocument | undefined);
    if (parsed.type === 'RoundSettled')
      docs.put(settled, {
        kind: 'settled',
        types: Object.fromEntries(parsed.data.lines.map((line) => [line.betId, rtpTypeOf(line)])),
      });
    if (parsed.type !== 'RoundSettled' && parsed.type !== 'RoundResettled') return;
    const at = event.recordedAt.getTime();
    const { currency, shiftId } = parsed.data;
    const book = (
      bucketKey: string,
      from: number | string,
      index: Parameters<typeof docs.put>[2],
    ) => {
      const bucket = docs.get(bucketKey) as BucketDocument | undefined;
      docs.put(
        bucketKey,
        {
          kind: 'bucket',
          tableId: table.tableId,
          scope: table.scope,
          currency,
          decks: table.decks,
          tieOdds: table.tieOdds,
          from: typeof from === 'string' ? from : new Date(from).toISOString(),
          figures: applyDelta(bucket?.figures ?? NO_FIGURES, delta),
          ...(bucketKey === shift ? { seats: seatsAfter(bucket?.seats ?? {}, parsed) } : {}),
        },
        index,
      );
    };
    book(hour, startOf(at, HOUR_MS), { partition: HOURS, sort: BigInt(startOf(at, HOUR_MS)) });
    book(day, startOf(at, DAY_MS), { partition: DAYS, sort: BigInt(startOf(at, DAY_MS)) });
    const shiftBucket = docs.get(shift) as BucketDocument | undefined;
    book(
      shift,
      shiftBucket?.from ??
        (table.shiftId === shiftId ? table.shiftStartedAt : new Date(at).toISOString()),
      {},
    );
  }

  /** The tables the floor has (not sessions), in the order they opened. */
  async tables(): Promise<TableDocument[]> {
    const rows = await this.storage.list(this.name, { partition: TABLES });
    return rows.map((row) => row.doc as TableDocument);
  }

  async table(tableId: string): Promise<TableDocument | undefined> {
    return (await this.storage.get(this.name, tableKey(tableId))) as TableDocument | undefined;
  }

  /** Buckets of a partition (hours or days) that begin in [from, to). */
  async buckets(partition: typeof HOURS | typeof DAYS, from: number, to: number) {
    const rows = await this.storage.list(this.name, {
      partition,
      sortAtLeast: BigInt(from),
      sortAtMost: BigInt(to - 1),
    });
    return rows.map((row) => row.doc as BucketDocument);
  }

  /** The buckets of these shifts (one per currency played in them). */
  async shifts(keys: readonly string[]): Promise<BucketDocument[]> {
    const found = await this.storage.getMany(this.name, keys);
    return [...found.values()] as BucketDocument[];
  }
}

/** Tables are listed by where they opened; sessions are not listed (their own model lists them). */
const indexOf = (table: TableDocument) =>
  table.scope.kind === 'table' ? { partition: TABLES, sort: BigInt(table.openedPosition) } : {};

function applyTable(event: RecordedEvent, key: string, docs: DocumentSet<FloorDocument>): void {
  const parsed = parseRecorded(tableEventSchema, event);
  const at = event.recordedAt.toISOString();
  if (parsed.type === 'TableOpened') {
    const { tableId, config, shiftId } = parsed.data;
    const table: TableDocument = {
      kind: 'table',
      tableId,
      scope: isSession(tableId)
        ? { kind: 'game', id: config.preset ?? config.name }
        : { kind: 'table', id: tableId },
      currency: config.currency,
      decks: config.decks,
      tieOdds: config.tieOdds,
      shiftId,
      shiftStartedAt: at,
      dealerId: null,
      status: 'open',
      openedPosition: event.position.toString(),
      round: null,
    };
    docs.put(key, table, indexOf(table));
    return;
  }
  const table = docs.get(key) as TableDocument | undefined;
  if (table === undefined) return;
  const changed: TableDocument =
    parsed.type === 'DealerChanged'
      ? {
          ...table,
          shiftId: parsed.data.shiftId,
          shiftStartedAt: at,
          dealerId: parsed.data.dealerId,
        }
      : parsed.type === 'TableClosed'
        ? { ...table, status: 'closed' }
        : table;
  docs.put(key, changed, indexOf(table));
}

/** The round in play after a round event: its standing bets, until it settles or voids. */
function nextRound(round: TableDocument['round'], event: RoundEvent): TableDocument['round'] {
  switch (event.type) {
    case 'RoundOpened':
      return {
        roundId: event.data.roundId,
        tieOdds: event.data.rules.tieOdds,
        commission: event.data.rules.commission,
        bets: [],
      };
    case 'BetPlaced': {
      if (round === null || round.roundId !== event.data.roundId) return round;
      const { betId, playerId, type, amount, bankerMode, seat } = event.data;
      return {
        ...round,
        bets: [...round.bets, { betId, playerId, type, amount, bankerMode, seat }],
      };
    }
    case 'BetsCleared':
      if (round === null || round.roundId !== event.data.roundId) return round;
      return { ...round, bets: round.bets.filter((bet) => !event.data.betIds.includes(bet.betId)) };
    case 'RoundVoided':
    case 'RoundSettled':
      return round !== null && round.roundId === event.data.roundId ? null : round;
    default:
      return round;
  }
}

/**
 * The bet type figures are kept by: Banker without commission apart from Banker, as the exact
 * analysis prices them apart (`banker_no_commission`).
 */
const rtpTypeOf = (line: { type: string; bankerMode: string | null }) =>
  line.type === 'banker' && line.bankerMode === 'no_commission'
    ? 'banker_no_commission'
    : line.type;

/** What a settlement or resettlement adds to the figures. */
function deltaOf(event: RoundEvent, settled: SettledDocument | undefined): FiguresDelta {
  if (event.type === 'RoundSettled')
    return {
      rounds: 1,
      lines: event.data.lines.map((line) => ({
        type: rtpTypeOf(line),
        playerId: line.playerId,
        bets: 1,
        turnover: line.stake,
        returned: line.payout,
        accruedCommission: line.commissionMode === 'accrued' ? line.commission : 0,
      })),
    };
  if (event.type !== 'RoundResettled') return { lines: [] };
  return {
    voidedAfterSettlement: event.data.kind === 'void' ? 1 : 0,
    lines: event.data.adjustments.map((line) => ({
      type: settled?.types[line.betId] ?? 'unknown',
      playerId: line.playerId,
      bets: 0,
      turnover: 0,
      returned: line.delta,
      accruedCommission:
        line.commissionMode === 'accrued' ? line.commission - line.previousCommission : 0,
    })),
  };
}

/** A shift's commission accrued per seat, after a settlement or resettlement. */
function seatsAfter(seats: Readonly<Record<string, number>>, event: RoundEvent) {
  const next: Record<string, number> = { ...seats };
  const add = (seat: number | null, amount: number) => {
    if (seat === null || amount === 0) return;
    next[String(seat)] = (next[String(seat)] ?? 0) + amount;
  };
  if (event.type === 'RoundSettled')
    for (const line of event.data.lines)
      if (line.commissionMode === 'accrued') add(line.seat, line.commission);
  if (event.type === 'RoundResettled')
    for (const line of event.data.adjustments)
      if (line.commissionMode === 'accrued')
        add(line.seat, line.commission - line.previousCommission);
  return next;
}
