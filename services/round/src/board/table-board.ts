import type { DocumentSet, DurableProjection } from '@croupier/application';
import { roadsOf, type RoundMark, type Roads } from '@croupier/baccarat';
import {
  eventTypesOf,
  parseRoundId,
  roundEventSchema,
  shoeEventSchema,
  tableEventSchema,
  type Dealing,
  parseRecorded,
} from '@croupier/contracts';
import type { ProjectionStorage, RecordedEvent } from '@croupier/eventstore';

export interface ShoeResult extends RoundMark {
  readonly roundId: string;
  readonly number: number;
}

export interface TableView {
  readonly tableId: string;
  readonly name: string;
  readonly preset: string | null;
  readonly currency: string;
  readonly status: 'open' | 'closed';
  readonly dealing: Dealing;
  readonly dealerId: string | null;
  readonly currentShoeId: string | null;
  readonly currentRound: {
    readonly roundId: string;
    readonly number: number;
    readonly status: string;
    readonly paused: boolean;
  } | null;
  /** Results of the current shoe, in order: what its scoreboard shows. */
  readonly results: readonly ShoeResult[];
  /**
   * The table's last results across shoes (at most HISTORY_LENGTH), oldest first: what a player
   * of an every-round-shuffle table sees as its history, where each shoe holds one round.
   */
  readonly history?: readonly HistoryResult[];
  readonly shufflePolicy?: 'shoe' | 'every-round';
  /** A player's session table: its owner and idle timeout (absent on a shared table). */
  readonly session?: { readonly ownerId: string; readonly idleTimeoutMs: number } | null;
  /**
   * When the store recorded the table's latest event from its players or dealers (opening,
   * bets, dealing), ms since the epoch: a session's idle time counts from it, the same in every
   * process and across restarts.
   */
  readonly lastActivityAt?: number;
  readonly roundsCompleted: number;
}

export interface HistoryResult extends ShoeResult {
  readonly shoeId: string;
}

/** How many results a table's history keeps across shoes. */
export const HISTORY_LENGTH = 100;

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** A round's mark on the scoreboard, from its (possibly corrected) result. */
function resultOf(
  round: {
    roundId: string;
    winner: 'banker' | 'player' | 'tie';
    player: { pair: boolean };
    banker: { pair: boolean };
  },
  number: number,
): ShoeResult {
  return {
    roundId: round.roundId,
    number,
    result: round.winner === 'banker' ? 'B' : round.winner === 'player' ? 'P' : 'T',
    bankerPair: round.banker.pair,
    playerPair: round.player.pair,
  };
}

/** DealStarted changes nothing the board shows: the round stays `closed` until its first card. */
const ROUND_EVENT_TYPES = [
  'RoundOpened',
  'BetPlaced',
  'BetsCleared',
  'BettingClosed',
  'CardDealt',
  'RoundCompleted',
  'RoundResultCorrected',
  'RoundVoided',
  'RoundPaused',
  'RoundResumed',
] as const;
const ROUND_EVENTS = new Set<string>(ROUND_EVENT_TYPES);

/** A table's document: its view, and where it was opened in the log (the list's order). */
interface TableDocument {
  readonly view: Mutable<TableView>;
  /** Position of its TableOpened, as decimal text (jsonb holds no bigint). */
  readonly openedAt: string;
}

/**
 * Every table's scoreboard: its current shoe and round, and the results the roads are drawn
 * from. Past results only: nothing here says what is left in the shoe. A durable read model
 * (docs/adr/0023): one document per table.
 */
export class TableBoard implements DurableProjection<TableDocument> {
  readonly name = 'table-board';
  /** The table's own events, the shoe's shuffle (a new shoe) and the round's play. */
  readonly handles = [
    ...eventTypesOf(tableEventSchema),
    'ShoeShuffled' as const,
    ...ROUND_EVENT_TYPES,
  ];

  /** `storage`: where the documents are read from (the runner writes them). */
  constructor(private readonly storage: ProjectionStorage) {}

  keysOf(event: RecordedEvent): readonly string[] {
    if (event.stream.startsWith('table-'))
      return [parseRecorded(tableEventSchema, event).data.tableId];
    if (event.stream.startsWith('shoe-') && event.type === 'ShoeShuffled') {
      const shuffled = parseRecorded(shoeEventSchema, event);
      return shuffled.type === 'ShoeShuffled' ? [shuffled.data.tableId] : [];
    }
    if (event.stream.startsWith('round-') && ROUND_EVENTS.has(event.type)) {
      const parsed = parseRecorded(roundEventSchema, event);
      return [parseRoundId(parsed.data.roundId).tableId];
    }
    return [];
  }

  apply(event: RecordedEvent, docs: DocumentSet<TableDocument>): void {
    const [tableId] = this.keysOf(event);
    if (tableId === undefined) return;
    if (event.type === 'TableOpened') {
      const parsed = parseRecorded(tableEventSchema, event);
      if (parsed.type !== 'TableOpened') return;
      const opened: TableDocument = {
        openedAt: event.position.toString(),
        view: {
          tableId: parsed.data.tableId,
          name: parsed.data.config.name,
          preset: parsed.data.config.preset ?? null,
          currency: parsed.data.config.currency,
          status: 'open',
          dealing: parsed.data.dealing,
          dealerId: null,
          currentShoeId: null,
          currentRound: null,
          results: [],
          history: [],
          shufflePolicy: parsed.data.config.shufflePolicy,
          session: parsed.data.session ?? null,
          lastActivityAt: event.recordedAt.getTime(),
          roundsCompleted: 0,
        },
      };
      docs.put(tableId, opened, { sort: event.position });
      return;
    }
    const doc = docs.get(tableId);
    if (doc === undefined) return;
    const table = doc.view;
    // The session timeout's own steps (and the auto-dealer's) are not a player's activity.
    if ((event.metadata.actor as { role?: string } | undefined)?.role !== 'system')
      table.lastActivityAt = event.recordedAt.getTime();
    if (event.stream.startsWith('table-')) applyTable(table, event);
    else if (event.stream.startsWith('shoe-')) {
      const shuffled = parseRecorded(shoeEventSchema, event);
      if (shuffled.type !== 'ShoeShuffled') return;
      table.currentShoeId = shuffled.data.shoeId;
      table.results = [];
    } else applyRound(table, event);
    docs.put(tableId, doc, { sort: BigInt(doc.openedAt) });
  }

  /** Every table, in the order they were opened. */
  async list(): Promise<TableView[]> {
    const rows = await this.storage.list(this.name);
    return rows.map((row) => (row.doc as TableDocument).view);
  }

  async get(tableId: string): Promise<TableView | undefined> {
    const doc = (await this.storage.get(this.name, tableId)) as TableDocument | undefined;
    return doc?.view;
  }

  /**
   * The scoreboard: the current shoe's results, where a shoe deals many rounds (its roads start
   * again with each shoe); the table's history across shoes where every round has a shoe of its
   * own (003, 004), which would otherwise always show one result.
   */
  async roads(tableId: string): Promise<Roads | undefined> {
    const table = await this.get(tableId);
    if (table === undefined) return undefined;
    return roadsOf(table.shufflePolicy === 'every-round' ? (table.history ?? []) : table.results);
  }

  /** The table's last results across shoes, oldest first (at most `limit`). */
  async history(tableId: string, limit = HISTORY_LENGTH): Promise<HistoryResult[] | undefined> {
    const table = await this.get(tableId);
    return table === undefined ? undefined : [...(table.history ?? [])].slice(-limit);
  }
}

function applyTable(table: Mutable<TableView>, event: RecordedEvent): void {
  const parsed = parseRecorded(tableEventSchema, event);
  switch (parsed.type) {
    case 'DealerChanged':
      table.dealerId = parsed.data.dealerId;
      return;
    case 'TableClosed':
      table.status = 'closed';
      return;
    default:
      return;
  }
}

function applyRound(table: Mutable<TableView>, event: RecordedEvent): void {
  const parsed = parseRecorded(roundEventSchema, event);
  const { roundNumber, shoeId } = parseRoundId(parsed.data.roundId);
  const current = table.currentRound;
  const update = (changes: Partial<NonNullable<TableView['currentRound']>>) => {
    if (current !== null && current.roundId === parsed.data.roundId)
      table.currentRound = { ...current, ...changes };
  };
  switch (parsed.type) {
    case 'RoundOpened':
      table.currentRound = {
        roundId: parsed.data.roundId,
        number: roundNumber,
        status: 'betting',
        paused: false,
      };
      return;
    case 'BettingClosed':
      update({ status: 'closed' });
      return;
    case 'CardDealt':
      update({ status: 'dealing' });
      return;
    case 'RoundPaused':
      update({ paused: true });
      return;
    case 'RoundResumed':
      update({ paused: false });
      return;
    case 'RoundVoided':
      update({ status: 'voided', paused: false });
      // A round voided after it completed is cancelled: its result leaves the scoreboard.
      table.results = table.results.filter((r) => r.roundId !== parsed.data.roundId);
      table.history = (table.history ?? []).filter((r) => r.roundId !== parsed.data.roundId);
      return;
    case 'RoundCompleted': {
      update({ status: 'completed' });
      const result = resultOf(parsed.data, roundNumber);
      table.results = [...table.results, result];
      table.history = [...(table.history ?? []), { ...result, shoeId }].slice(-HISTORY_LENGTH);
      table.roundsCompleted++;
      return;
    }
    case 'RoundResultCorrected':
      // A card corrected after the round completed: the scoreboard shows the corrected result.
      table.results = table.results.map((r) =>
        r.roundId === parsed.data.roundId ? resultOf(parsed.data, roundNumber) : r,
      );
      table.history = (table.history ?? []).map((r) =>
        r.roundId === parsed.data.roundId ? { ...resultOf(parsed.data, roundNumber), shoeId } : r,
      );
      return;
    default:
      return;
  }
}
