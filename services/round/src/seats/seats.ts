import { DomainError, parseRoundId, type CommandContext } from '@croupier/contracts';
import { seatOf, type TableState } from '../domain/table.decider.js';
import type { RoundContext } from '../shared/round-context.js';

/**
 * Numbered seats (002): a player sits down at a seat of a seated table, bets from it, and
 * leaves it. One player per seat, one seat per player (the table decider).
 */
export class Seats {
  constructor(private readonly rounds: RoundContext) {}

  /** A player sits down at a numbered seat of a seated table (002). */
  async takeSeat(
    tableId: string,
    playerId: string,
    seat: number,
    context: CommandContext,
  ): Promise<TableState> {
    return (await this.rounds.table(tableId, { type: 'TakeSeat', playerId, seat }, context)).state;
  }

  /** The player leaves their seat; their bets already placed stand. */
  async leaveSeat(tableId: string, playerId: string, context: CommandContext): Promise<TableState> {
    return (await this.rounds.table(tableId, { type: 'LeaveSeat', playerId }, context)).state;
  }

  /**
   * On a seated table (002) a player bets from the seat they sit at: each bet carries it (a bet
   * naming another seat is refused). Read from the table as stored, not as cached: seats change
   * hands, in another process too.
   */
  async fromSeat<Bet extends { readonly seat?: number | null | undefined }>(
    roundId: string,
    playerId: string,
    bets: readonly Bet[],
  ): Promise<Bet[]> {
    const table = await this.rounds.getTable(parseRoundId(roundId).tableId);
    const seat = seatOf(table, playerId);
    if (seat === null)
      throw new DomainError(
        'INVALID_SEAT',
        `${playerId} sits at no seat of table ${table.tableId}: take a seat first`,
        { field: 'seat' },
      );
    const elsewhere = bets.find((bet) => bet.seat != null && bet.seat !== seat);
    if (elsewhere !== undefined)
      throw new DomainError(
        'INVALID_SEAT',
        `${playerId} sits at seat ${seat}, not seat ${elsewhere.seat}: a player bets from their own seat`,
        { field: 'seat' },
      );
    return bets.map((bet) => ({ ...bet, seat }));
  }
}
