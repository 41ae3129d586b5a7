import { randomId, type CommandHandler } from '@croupier/application';
import {
  DomainError,
  parseRoundId,
  roundIdOf,
  shoeIdOf,
  streams,
  type CommandContext,
  type ShoePort,
  type ShoeSummary,
  type TableEvent,
} from '@croupier/contracts';
import type { RoundCommand, RoundState } from '../domain/round.decider.js';
import type { TableCommand, TableState } from '../domain/table.decider.js';
import { handleRound, roundAggregate, tableAggregate } from './aggregates.js';
import { requireMayWatch } from './session-rules.js';
import { latestNumber, SequenceHints } from './sequence.js';

/**
 * What every capability of the round service shares: the aggregates (written through the
 * command handler), the shoe port, and the latest shoe and round numbers this process saw. The
 * slices read tables and rounds and run their commands here; none goes through another's.
 */
export class RoundContext {
  readonly hints = new SequenceHints();

  constructor(
    readonly commands: CommandHandler,
    readonly shoes: ShoePort,
  ) {}

  async getTable(tableId: string): Promise<TableState> {
    const { state } = await this.commands.load(tableAggregate, streams.table(tableId));
    if (state.status === 'none') throw new DomainError('TABLE_NOT_FOUND', `no table "${tableId}"`);
    return state;
  }

  /** The table's current shoe (the latest), or null before its first. */
  async currentShoe(tableId: string): Promise<ShoeSummary | null> {
    const number = await latestNumber(
      this.commands.store,
      (k) => streams.shoe(shoeIdOf(tableId, k)),
      this.hints.get(tableId),
    );
    this.hints.set(tableId, number);
    return number === 0 ? null : this.shoes.getShoe(shoeIdOf(tableId, number));
  }

  /** The latest round of the table's current shoe, or null. */
  async currentRound(tableId: string): Promise<RoundState | null> {
    const shoe = await this.currentShoe(tableId);
    if (shoe === null) return null;
    const number = await this.latestRoundNumber(shoe.shoeId);
    return number === 0 ? null : this.getRound(roundIdOf(shoe.shoeId, number));
  }

  async getRound(roundId: string): Promise<RoundState> {
    const { state } = await this.commands.load(roundAggregate, streams.round(roundId));
    if (state.status === 'none') throw new DomainError('ROUND_NOT_FOUND', `no round "${roundId}"`);
    return state;
  }

  /** The round as `viewer` may read it: a player reads no round of another player's session. */
  async getRoundAs(
    roundId: string,
    viewer: { readonly id: string; readonly role: string },
  ): Promise<RoundState> {
    const round = await this.getRound(roundId);
    requireMayWatch(await this.tableOfRound(roundId), viewer);
    return round;
  }

  async latestRoundNumber(shoeId: string): Promise<number> {
    const number = await latestNumber(
      this.commands.store,
      (n) => streams.round(roundIdOf(shoeId, n)),
      this.hints.get(shoeId),
    );
    this.hints.set(shoeId, number);
    return number;
  }

  /** The table as this process last saw it: who owns it never changes (ADR 0020). */
  async cachedTable(tableId: string): Promise<TableState> {
    const table = await this.commands.ask(tableAggregate, streams.table(tableId), (t) => t);
    if (table.status === 'none') throw new DomainError('TABLE_NOT_FOUND', `no table "${tableId}"`);
    return table;
  }

  async tableOfRound(roundId: string): Promise<TableState | null> {
    const { tableId } = parseRoundId(roundId);
    const table = await this.commands.ask(tableAggregate, streams.table(tableId), (t) => t);
    return table.status === 'none' ? null : table;
  }

  round(roundId: string, command: RoundCommand, context: CommandContext) {
    return handleRound(this.commands, roundId, command, context);
  }

  table(tableId: string, command: TableCommand, context: CommandContext) {
    return this.commands.handle(tableAggregate, streams.table(tableId), command, context, {
      eventIds: (events: readonly TableEvent[]) => events.map(() => randomId()),
    });
  }
}
