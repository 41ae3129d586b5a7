import {
  DomainError,
  type Dealing,
  type TableConfig,
  type TableEvent,
  type TableId,
} from '@croupier/contracts';
import type { Decider } from '@croupier/application';

/** A table: its configuration, how it deals, who deals. Rounds and shoes sequence themselves. */
export type TableCommand =
  | { type: 'OpenTable'; tableId: TableId; config: TableConfig; dealing: Dealing; shiftId: string }
  | { type: 'ChangeDealer'; dealerId: string; shiftId: string }
  | { type: 'CloseTable'; reason: string };

export interface TableState {
  readonly status: 'none' | 'open' | 'closed';
  readonly tableId: TableId;
  readonly config: TableConfig | null;
  readonly dealing: Dealing | null;
  readonly dealerId: string | null;
  readonly shiftId: string | null;
}

export const initialTableState = (): TableState => ({
  status: 'none',
  tableId: '',
  config: null,
  dealing: null,
  dealerId: null,
  shiftId: null,
});

export function evolveTable(state: TableState, event: TableEvent): TableState {
  switch (event.type) {
    case 'TableOpened':
      return { ...state, status: 'open', ...event.data };
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
    const { type: _type, ...data } = command;
    return [{ type: 'TableOpened', data }];
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
