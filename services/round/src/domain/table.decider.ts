import {
  DomainError,
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
}

export const initialTableState = (): TableState => ({
  status: 'none',
  tableId: '',
  config: null,
  dealing: null,
  dealerId: null,
  shiftId: null,
  session: null,
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
  }
}

function decide(command: TableCommand, state: TableState): TableEvent[] {
  if (command.type === 'OpenTable') {
    if (state.status !== 'none')
      throw new DomainError('ALREADY_EXISTS', `table ${command.tableId} exists`);
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
  }
}

export const tableDecider: Decider<TableCommand, TableEvent, TableState> = {
  decide,
  evolve: evolveTable,
  initialState: initialTableState,
};
