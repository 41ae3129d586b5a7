import type { Projection } from '@croupier/application';
import { roadsOf, type RoundMark, type Roads } from '@croupier/baccarat';
import {
  parseRoundId,
  roundEventSchema,
  shoeEventSchema,
  tableEventSchema,
  type Dealing,
} from '@croupier/contracts';
import type { RecordedEvent } from '@croupier/eventstore';

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

/**
 * Every table's scoreboard: its current shoe and round, and the results the roads are drawn
 * from. Past results only: nothing here says what is left in the shoe.
 */
export class TableBoard implements Projection {
  readonly name = 'table-board';
  private readonly tables = new Map<string, Mutable<TableView>>();

  apply(event: RecordedEvent): void {
    if (event.stream.startsWith('table-')) this.applyTable(event);
    else if (event.stream.startsWith('shoe-') && event.type === 'ShoeShuffled') {
      const shuffled = shoeEventSchema.parse({ type: event.type, data: event.data });
      if (shuffled.type !== 'ShoeShuffled') return; // the parse keeps the type it was given
      const table = this.tables.get(shuffled.data.tableId);
      if (table) {
        table.currentShoeId = shuffled.data.shoeId;
        table.results = [];
      }
    } else if (event.stream.startsWith('round-')) this.applyRound(event);
  }

  private applyTable(event: RecordedEvent): void {
    const parsed = tableEventSchema.parse({ type: event.type, data: event.data });
    switch (parsed.type) {
      case 'TableOpened':
        this.tables.set(parsed.data.tableId, {
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
        });
        return;
      case 'DealerChanged': {
        const table = this.tables.get(parsed.data.tableId);
        if (table) table.dealerId = parsed.data.dealerId;
        return;
      }
      case 'TableClosed': {
        const table = this.tables.get(parsed.data.tableId);
        if (table) table.status = 'closed';
        return;
      }
    }
  }

  private applyRound(event: RecordedEvent): void {
    const relevant = [
      'RoundOpened',
      'BettingClosed',
      'CardDealt',
      'RoundCompleted',
      'RoundResultCorrected',
      'RoundVoided',
      'RoundPaused',
      'RoundResumed',
    ];
    if (!relevant.includes(event.type)) return;
    const parsed = roundEventSchema.parse({ type: event.type, data: event.data });
    const { tableId, roundNumber } = parseRoundId(parsed.data.roundId);
    const table = this.tables.get(tableId);
    if (table === undefined) return;
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

  reset(): void {
    this.tables.clear();
  }

  list(): TableView[] {
    return [...this.tables.values()];
  }

  get(tableId: string): TableView | undefined {
    return this.tables.get(tableId);
  }

  roads(tableId: string): Roads | undefined {
    const table = this.tables.get(tableId);
    return table === undefined ? undefined : roadsOf(table.results);
  }
}
