import type { ShiftEnd, WalletEvent } from '@croupier/contracts';
import { shiftKey, type WalletState } from '../wallet.state.js';

/**
 * Collects the commission owed at a table for every shift but the one now running (`null`
 * once the table closed: every shift has ended), naming what ended them.
 */
export interface CollectCommissionCommand {
  type: 'CollectCommission';
  tableId: string;
  currentShiftId: string | null;
  endedBy: ShiftEnd;
}

export function decideCollectCommission(
  command: CollectCommissionCommand,
  state: WalletState,
): WalletEvent[] {
  // Every seat's debt of every shift but the one now running, one record per seat and shift.
  const prefix = shiftKey(command.tableId, '');
  return [...state.commissionOwed]
    .filter(([key, owed]) => key.startsWith(prefix) && owed > 0)
    .map(([key, owed]) => {
      const [shiftId, seat] = key.slice(prefix.length).split('/') as [string, string];
      return { shiftId, seat: Number(seat), owed };
    })
    .filter(({ shiftId }) => shiftId !== command.currentShiftId)
    .map(({ shiftId, seat, owed }) => ({
      type: 'CommissionCollected',
      data: {
        playerId: state.playerId,
        tableId: command.tableId,
        shiftId,
        ...(seat > 0 ? { seat } : {}),
        amount: owed,
        ...command.endedBy,
      },
    }));
}
