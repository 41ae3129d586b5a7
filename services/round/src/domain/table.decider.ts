import {
  DomainError,
  isPlayMoney,
  PLAY_MONEY_CURRENCY,
  type Dealing,
  type TableConfig,
  type TableEvent,
  type TableId,
  type TableSession,
} from '@croupier/contracts';
import type { Decider } from '@croupier/application';

/** A table: its configuration, how it deals, who deals. Rounds and shoes sequence themselves. */
export type TableCommand =
  | {
      type: 'OpenTable';
      tableId: TableId;
      config: TableConfig;
      dealing: Dealing;
      shiftId: string;
      session?: TableSession | undefined;
    }
  | { type: 'ChangeDealer'; dealerId: string; shiftId: string }
  | { type: 'TakeSeat'; playerId: string; seat: number }
  | { type: 'LeaveSeat'; playerId: string }
  | { type: 'CloseTable'; reason: string };

export interface TableState {
  readonly status: 'none' | 'open' | 'closed';
  readonly tableId: TableId;
  readonly config: TableConfig | null;
  readonly dealing: Dealing | null;
  readonly dealerId: string | null;
  readonly shiftId: string | null;
  /** A player's own table: its owner and idle timeout; null on a shared table. */
  readonly session: TableSession | null;
  /** Who sits where (002): seat number to player. */
  readonly seats: ReadonlyMap<number, string>;
}

/** The seat the player sits at, or null. */
export function seatOf(state: TableState, playerId: string): number | null {
  for (const [seat, occupant] of state.seats) if (occupant === playerId) return seat;
  return null;
}

export const initialTableState = (): TableState => ({
  status: 'none',
  tableId: '',
  config: null,
  dealing: null,
  dealerId: null,
  shiftId: null,
  session: null,
  seats: new Map(),
});

export function evolveTable(state: TableState, event: TableEvent): TableState {
  switch (event.type) {
    case 'TableOpened': {
      const { session, ...opened } = event.data;
      return { ...state, status: 'open', ...opened, session: session ?? null };
    }
    case 'DealerChanged':
      return { ...state, dealerId: event.data.dealerId, shiftId: event.data.shiftId };
    case 'TableClosed':
      return { ...state, status: 'closed' };
    case 'SeatTaken':
      return { ...state, seats: new Map(state.seats).set(event.data.seat, event.data.playerId) };
    case 'SeatLeft': {
      const seats = new Map(state.seats);
      seats.delete(event.data.seat);
      return { ...state, seats };
    }
  }
}

/**
 * A table plays play money exactly when it is a fun session (ADR 0030): a shared table is never
 * fun, and a fun session never plays a real currency.
 */
function requirePlayMoneyOnFunSessionsOnly(command: Extract<TableCommand, { type: 'OpenTable' }>) {
  const fun = command.session?.fun === true;
  if (fun === isPlayMoney(command.config.currency)) return;
  throw new DomainError(
    'INVALID_TABLE_CONFIG',
    fun
      ? `a fun session plays play money (${PLAY_MONEY_CURRENCY}), not ${command.config.currency}`
      : `${PLAY_MONEY_CURRENCY} is play money, played only at a player's fun session: a shared or real-money table plays a real currency`,
    { field: 'currency' },
  );
}

function decide(command: TableCommand, state: TableState): TableEvent[] {
  if (command.type === 'OpenTable') {
    if (state.status !== 'none')
      throw new DomainError('ALREADY_EXISTS', `table ${command.tableId} exists`);
    requirePlayMoneyOnFunSessionsOnly(command);
    const { type: _type, session, ...data } = command;
    return [{ type: 'TableOpened', data: session === undefined ? data : { ...data, session } }];
  }
  if (state.status === 'none') throw new DomainError('TABLE_NOT_FOUND', 'no such table');
  if (state.status === 'closed')
    throw new DomainError('TABLE_CLOSED', `table ${state.tableId} is closed`);
  switch (command.type) {
    case 'ChangeDealer':
      if (command.dealerId === state.dealerId) return [];
      return [
        {
          type: 'DealerChanged',
          data: {
            tableId: state.tableId,
            dealerId: command.dealerId,
            shiftId: command.shiftId,
            previousDealerId: state.dealerId,
            previousShiftId: state.shiftId!,
          },
        },
      ];
    case 'CloseTable':
      return [{ type: 'TableClosed', data: { tableId: state.tableId, reason: command.reason } }];
    case 'TakeSeat': {
      const seats = state.config!.seats;
      if (
        seats === null ||
        !Number.isInteger(command.seat) ||
        command.seat < 1 ||
        command.seat > seats
      )
        throw new DomainError(
          'INVALID_SEAT',
          seats === null
            ? `table ${state.tableId} has no seats`
            : `seat must be a number from 1 to ${seats}`,
          { field: 'seat' },
        );
      const occupant = state.seats.get(command.seat);
      if (occupant === command.playerId) return [];
      if (occupant !== undefined)
        throw new DomainError(
          'SEAT_TAKEN',
          `seat ${command.seat} of table ${state.tableId} is taken`,
        );
      const mine = seatOf(state, command.playerId);
      if (mine !== null)
        throw new DomainError(
          'SEAT_TAKEN',
          `${command.playerId} sits at seat ${mine} of table ${state.tableId}: leave it first`,
        );
      const data = { tableId: state.tableId, seat: command.seat, playerId: command.playerId };
      return [{ type: 'SeatTaken', data }];
    }
    case 'LeaveSeat': {
      const seat = seatOf(state, command.playerId);
      if (seat === null)
        throw new DomainError(
          'NOT_SEATED',
          `${command.playerId} sits at no seat of table ${state.tableId}`,
        );
      return [
        { type: 'SeatLeft', data: { tableId: state.tableId, seat, playerId: command.playerId } },
      ];
    }
  }
}

export const tableDecider: Decider<TableCommand, TableEvent, TableState> = {
  decide,
  evolve: evolveTable,
  initialState: initialTableState,
};
