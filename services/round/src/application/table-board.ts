import type { DocumentSet, DurableProjection } from '@croupier/application';
import { roadsOf, type RoundMark, type Roads } from '@croupier/baccarat';
import {
  parseRoundId,
  roundEventSchema,
  shoeEventSchema,
  tableEventSchema,
  type Dealing,
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
  readonly roundsCompleted: number;
}

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

const ROUND_EVENTS = new Set([
  'RoundOpened',
  'BettingClosed',
  'CardDealt',
  'RoundCompleted',
  'RoundResultCorrected',
  'RoundVoided',
  'RoundPaused',
  'RoundResumed',
]);

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

  /** `storage`: where the documents are read from (the runner writes them). */
  constructor(private readonly storage: ProjectionStorage) {}

  keysOf(event: RecordedEvent): readonly string[] {
    if (event.stream.startsWith('table-'))
      return [tableEventSchema.parse({ type: event.type, data: event.data }).data.tableId];
    if (event.stream.startsWith('shoe-') && event.type === 'ShoeShuffled') {
      const shuffled = shoeEventSchema.parse({ type: event.type, data: event.data });
      return shuffled.type === 'ShoeShuffled' ? [shuffled.data.tableId] : [];
    }
    if (event.stream.startsWith('round-') && ROUND_EVENTS.has(event.type)) {
      const parsed = roundEventSchema.parse({ type: event.type, data: event.data });
      return [parseRoundId(parsed.data.roundId).tableId];
    }
    return [];
  }

  apply(event: RecordedEvent, docs: DocumentSet<TableDocument>): void {
    const [tableId] = this.keysOf(event);
    if (tableId === undefined) return;
    if (event.type === 'TableOpened') {
      const parsed = tableEventSchema.parse({ type: event.type, data: event.data });
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
          roundsCompleted: 0,
        },
      };
      docs.put(tableId, opened, { sort: event.position });
      return;
    }
    const doc = docs.get(tableId);
    if (doc === undefined) return;
    const table = doc.view;
    if (event.stream.startsWith('table-')) applyTable(table, event);
    else if (event.stream.startsWith('shoe-')) {
      const shuffled = shoeEventSchema.parse({ type: event.type, data: event.data });
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

  async roads(tableId: string): Promise<Roads | undefined> {
    const table = await this.get(tableId);
    return table === undefined ? undefined : roadsOf(table.results);
  }
}

function applyTable(table: Mutable<TableView>, event: RecordedEvent): void {
  const parsed = tableEventSchema.parse({ type: event.type, data: event.data });
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
  const parsed = roundEventSchema.parse({ type: event.type, data: event.data });
  const { roundNumber } = parseRoundId(parsed.data.roundId);
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
      return;
    case 'RoundCompleted': {
      update({ status: 'completed' });
      table.results = [...table.results, resultOf(parsed.data, roundNumber)];
      table.roundsCompleted++;
      return;
    }
    case 'RoundResultCorrected':
      // A card corrected after the round completed: the scoreboard shows the corrected result.
      table.results = table.results.map((r) =>
        r.roundId === parsed.data.roundId ? resultOf(parsed.data, roundNumber) : r,
      );
      return;
    default:
      return;
  }
}
