import {
  causedBy,
  systemContext,
  type Projection,
  type ProjectionHub,
} from '@croupier/application';
import { dealerChanged, streams, walletEventSchema } from '@croupier/contracts';
import type { EventStore, RecordedEvent, Subscription } from '@croupier/eventstore';
import type { WalletService } from './wallet-service.js';

/** Which players owe accrued commission at which table, for any dealer shift. */
export class CommissionLedger implements Projection {
  readonly name = 'commission-ledger';
  /** table -> player -> shift -> owed */
  private readonly owing = new Map<string, Map<string, Map<string, number>>>();

  apply(event: RecordedEvent): void {
    if (!['CommissionAccrued', 'CommissionCollected', 'PayoutAdjusted'].includes(event.type))
      return;
    const parsed = walletEventSchema.parse({ type: event.type, data: event.data });
    let change: number;
    if (parsed.type === 'CommissionAccrued') change = parsed.data.amount;
    else if (parsed.type === 'CommissionCollected') change = -parsed.data.amount;
    else if (parsed.type === 'PayoutAdjusted') change = parsed.data.commissionDelta;
    else return;
    const { tableId, playerId, shiftId } = parsed.data;
    const players = this.owing.get(tableId) ?? new Map<string, Map<string, number>>();
    const shifts = players.get(playerId) ?? new Map<string, number>();
    const left = (shifts.get(shiftId) ?? 0) + change;
    if (left > 0) shifts.set(shiftId, left);
    else shifts.delete(shiftId);
    if (shifts.size > 0) players.set(playerId, shifts);
    else players.delete(playerId);
    if (players.size > 0) this.owing.set(tableId, players);
    else this.owing.delete(tableId);
  }

  reset(): void {
    this.owing.clear();
  }

  /** Players owing commission at the table for any shift but `exceptShift`. */
  playersOwing(tableId: string, exceptShift: string): string[] {
    return [...(this.owing.get(tableId) ?? [])]
      .filter(([, shifts]) => [...shifts.keys()].some((shift) => shift !== exceptShift))
      .map(([playerId]) => playerId);
  }
}

/**
 * Collects accrued commission when a dealer shift ends (land-based tables, seed 002): on each
 * DealerChanged, every player owing commission at the table for an earlier shift pays it. A
 * replayed DealerChanged collects nothing twice (what was collected is no longer owed), and
 * commission accrued late (a settlement the wallet applied after the change) is collected at
 * the next change; until then it is held back from the player's available balance.
 */
export function startCommissionCollector(
  store: EventStore,
  hub: ProjectionHub,
  ledger: CommissionLedger,
  wallet: WalletService,
  onError: (error: unknown) => void,
): Subscription {
  return store.subscribe({
    name: 'wallet-commission-collector',
    from: 'start',
    filter: { streamPrefix: streams.table(''), eventTypes: ['DealerChanged'] },
    // A DealerChanged delivered again collects nothing (what was collected is no longer owed):
    // one checkpoint per page (ADR 0022).
    checkpoints: 'per-page',
    // Woken by every append, it waits for the rare DealerChanged: collecting a second later is
    // as good, so it reads the log at most once a second (ADR 0022).
    readIntervalMs: 1_000,
    onError,
    handler: async (event) => {
      const change = dealerChanged.parse({ type: event.type, data: event.data }).data;
      await hub.sync();
      const context = causedBy(systemContext('commission-collector'), event.id);
      for (const playerId of ledger.playersOwing(change.tableId, change.shiftId)) {
        await wallet.collectCommission(
          playerId,
          {
            type: 'CollectCommission',
            tableId: change.tableId,
            currentShiftId: change.shiftId,
            dealerChangeId: event.id,
          },
          context,
        );
      }
    },
  });
}
