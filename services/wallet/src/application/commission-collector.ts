import {
  causedBy,
  systemContext,
  type Projection,
  type ProjectionHub,
} from '@croupier/application';
import { dealerChanged, streams, walletEventSchema } from '@croupier/contracts';
import type { EventStore, RecordedEvent, Subscription } from '@croupier/eventstore';
import { shiftKey } from '../domain/wallet.decider.js';
import type { WalletService } from './wallet-service.js';

/** Which players owe accrued commission for which table dealer shift. */
export class CommissionLedger implements Projection {
  readonly name = 'commission-ledger';
  private readonly owing = new Map<string, Map<string, number>>();

  apply(event: RecordedEvent): void {
    if (event.type !== 'CommissionAccrued' && event.type !== 'CommissionCollected') return;
    const parsed = walletEventSchema.parse({ type: event.type, data: event.data });
    if (parsed.type !== 'CommissionAccrued' && parsed.type !== 'CommissionCollected') return;
    const key = shiftKey(parsed.data.tableId, parsed.data.shiftId);
    const players = this.owing.get(key) ?? new Map<string, number>();
    const sign = parsed.type === 'CommissionAccrued' ? 1 : -1;
    const left = (players.get(parsed.data.playerId) ?? 0) + sign * parsed.data.amount;
    if (left > 0) players.set(parsed.data.playerId, left);
    else players.delete(parsed.data.playerId);
    if (players.size > 0) this.owing.set(key, players);
    else this.owing.delete(key);
  }

  reset(): void {
    this.owing.clear();
  }

  playersOwing(tableId: string, shiftId: string): string[] {
    return [...(this.owing.get(shiftKey(tableId, shiftId))?.keys() ?? [])];
  }
}

/**
 * Collects accrued commission when a dealer shift ends (land-based tables, seed 002): on each
 * DealerChanged, every player owing commission for the shift that ended pays it. Collection is
 * keyed by shift, so a replayed DealerChanged collects nothing twice. Commission accrued from a
 * settlement the wallet applies after the change is collected at the next one; until then it
 * stays held back from the player's available balance.
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
    onError,
    handler: async (event) => {
      const change = dealerChanged.parse({ type: event.type, data: event.data }).data;
      await hub.sync();
      const context = causedBy(systemContext('commission-collector'), event.id);
      for (const playerId of ledger.playersOwing(change.tableId, change.previousShiftId)) {
        await wallet.collectCommission(
          playerId,
          {
            type: 'CollectCommission',
            tableId: change.tableId,
            shiftId: change.previousShiftId,
            dealerChangeId: event.id,
          },
          context,
        );
      }
    },
  });
}
