import {
  causedBy,
  subscribeParking,
  systemContext,
  type DocumentSet,
  type DurableProjection,
  type Parking,
  type ProjectionRunner,
} from '@croupier/application';
import { dealerChanged, streams, walletEventSchema } from '@croupier/contracts';
import type {
  EventStore,
  ProjectionStorage,
  RecordedEvent,
  Subscription,
} from '@croupier/eventstore';
import type { WalletService } from './wallet-service.js';

/** What a table's players owe in accrued commission: player -> dealer shift -> owed. */
export interface CommissionOwedAtTable {
  readonly players: Record<string, Record<string, number>>;
}

const COMMISSION_EVENTS = new Set(['CommissionAccrued', 'CommissionCollected', 'PayoutAdjusted']);

/**
 * Which players owe accrued commission at which table, for any dealer shift: a durable read
 * model (docs/adr/0023), one document per table.
 */
export class CommissionLedger implements DurableProjection<CommissionOwedAtTable> {
  readonly name = 'commission-ledger';

  /** `storage`: where the documents are read from (the runner writes them). */
  constructor(private readonly storage: ProjectionStorage) {}

  keysOf(event: RecordedEvent): readonly string[] {
    if (!COMMISSION_EVENTS.has(event.type)) return [];
    const parsed = walletEventSchema.parse({ type: event.type, data: event.data });
    return 'tableId' in parsed.data ? [parsed.data.tableId] : [];
  }

  apply(event: RecordedEvent, docs: DocumentSet<CommissionOwedAtTable>): void {
    const parsed = walletEventSchema.parse({ type: event.type, data: event.data });
    let change: number;
    if (parsed.type === 'CommissionAccrued') change = parsed.data.amount;
    else if (parsed.type === 'CommissionCollected') change = -parsed.data.amount;
    else if (parsed.type === 'PayoutAdjusted') change = parsed.data.commissionDelta;
    else return;
    const { tableId, playerId, shiftId } = parsed.data;
    const owed = docs.get(tableId)?.players ?? {};
    const others = Object.entries(owed).filter(([player]) => player !== playerId);
    const mine: Record<string, number> = owed[playerId] ?? {};
    const shifts = Object.entries(mine).filter(([shift]) => shift !== shiftId);
    const left = (mine[shiftId] ?? 0) + change;
    if (left > 0) shifts.push([shiftId, left]);
    const players = Object.fromEntries(
      shifts.length > 0 ? [...others, [playerId, Object.fromEntries(shifts)]] : others,
    );
    if (Object.keys(players).length > 0) docs.put(tableId, { players });
    else docs.delete(tableId);
  }

  /** Players owing commission at the table for any shift but `exceptShift`, by id. */
  async playersOwing(tableId: string, exceptShift: string): Promise<string[]> {
    const owed = (await this.storage.get(this.name, tableId)) as CommissionOwedAtTable | undefined;
    return Object.entries(owed?.players ?? {})
      .filter(([, shifts]) => Object.keys(shifts).some((shift) => shift !== exceptShift))
      .map(([playerId]) => playerId)
      .sort();
  }
}

/**
 * Collects accrued commission when a dealer shift ends (land-based tables, seed 002): on each
 * DealerChanged, every player owing commission at the table for an earlier shift pays it. A
 * replayed DealerChanged collects nothing twice (what was collected is no longer owed), and
 * commission accrued late (a settlement the wallet applied after the change) is collected at
 * the next change; until then it is held back from the player's available balance. With
 * `parking`, a change whose collection is refused for good (or fails again and again) is parked
 * as `wallet-commission-collector` (ADR 0035): later changes are collected meanwhile.
 */
export function startCommissionCollector(
  store: EventStore,
  projections: ProjectionRunner,
  ledger: CommissionLedger,
  wallet: WalletService,
  onError: (error: unknown) => void,
  parking?: Parking,
): Subscription {
  return subscribeParking(store, parking, 'wallet-commission-collector', {
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
      // The ledger as of this change: everything before it applied.
      await projections.waitFor(event.position, [ledger.name], 60_000);
      const context = causedBy(systemContext('commission-collector'), event.id);
      for (const playerId of await ledger.playersOwing(change.tableId, change.shiftId)) {
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
