import {
  causedBy,
  subscribeParking,
  systemContext,
  type DocumentSet,
  type DurableProjection,
  type Parking,
  type ProjectionRunner,
} from '@croupier/application';
import {
  commissionAccrued,
  dealerChanged,
  streams,
  tableClosed,
  walletEventSchema,
  type ShiftEnd,
  parseRecorded,
} from '@croupier/contracts';
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

const COMMISSION_EVENT_TYPES = [
  'CommissionAccrued',
  'CommissionCollected',
  'PayoutAdjusted',
] as const;
const COMMISSION_EVENTS = new Set<string>(COMMISSION_EVENT_TYPES);

/**
 * Which players owe accrued commission at which table, for any dealer shift: a durable read
 * model (docs/adr/0023), one document per table.
 */
export class CommissionLedger implements DurableProjection<CommissionOwedAtTable> {
  readonly name = 'commission-ledger';
  readonly handles = COMMISSION_EVENT_TYPES;

  /** `storage`: where the documents are read from (the runner writes them). */
  constructor(private readonly storage: ProjectionStorage) {}

  keysOf(event: RecordedEvent): readonly string[] {
    if (!COMMISSION_EVENTS.has(event.type)) return [];
    const parsed = parseRecorded(walletEventSchema, event);
    return 'tableId' in parsed.data ? [parsed.data.tableId] : [];
  }

  apply(event: RecordedEvent, docs: DocumentSet<CommissionOwedAtTable>): void {
    const parsed = parseRecorded(walletEventSchema, event);
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

  /** Players owing commission at the table for any shift but `exceptShift` (null: any), by id. */
  async playersOwing(tableId: string, exceptShift: string | null): Promise<string[]> {
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
 *
 * Closing the table ends its last shift (ADR 0008, addendum): on TableClosed every player owing
 * commission there pays all of it. No change comes after a close, so commission accrued after
 * it (a round whose betting had closed, dealt and settled after the close) is collected as it
 * accrues: each CommissionAccrued at a closed table is collected at once, naming the close.
 */
export function startCommissionCollector(
  store: EventStore,
  projections: ProjectionRunner,
  ledger: CommissionLedger,
  wallet: WalletService,
  onError: (error: unknown) => void,
  parking?: Parking,
): Subscription {
  /** The TableClosed of each table seen closed: a table never opens again. */
  const closedBy = new Map<string, string>();
  const closeOf = async (tableId: string): Promise<string | null> => {
    const known = closedBy.get(tableId);
    if (known !== undefined) return known;
    // A closed table's stream ends with its TableClosed: nothing is recorded after it.
    const [last] = await store.readStream(streams.table(tableId), {
      direction: 'backwards',
      limit: 1,
    });
    if (last?.type !== 'TableClosed') return null;
    closedBy.set(tableId, last.id);
    return last.id;
  };

  const onShiftEnd = async (
    event: RecordedEvent,
    tableId: string,
    currentShiftId: string | null,
    endedBy: ShiftEnd,
  ) => {
    // The ledger as of this event: everything before it applied.
    await projections.waitFor(event.position, [ledger.name], 60_000);
    const context = causedBy(systemContext('commission-collector'), event.id);
    for (const playerId of await ledger.playersOwing(tableId, currentShiftId)) {
      await wallet.collectCommission(
        playerId,
        { type: 'CollectCommission', tableId, currentShiftId, endedBy },
        context,
      );
    }
  };

  return subscribeParking(store, parking, 'wallet-commission-collector', {
    name: 'wallet-commission-collector',
    from: 'start',
    // DealerChanged and TableClosed are table events, CommissionAccrued a wallet's: each type
    // has one writer (ADR 0014), so the types alone select them.
    filter: { eventTypes: ['DealerChanged', 'TableClosed', 'CommissionAccrued'] },
    // A DealerChanged delivered again collects nothing (what was collected is no longer owed):
    // one checkpoint per page (ADR 0022).
    checkpoints: 'per-page',
    // Woken by every append, it waits for the rare DealerChanged: collecting a second later is
    // as good, so it reads the log at most once a second (ADR 0022).
    readIntervalMs: 1_000,
    onError,
    handler: async (event) => {
      if (event.type === 'DealerChanged') {
        const change = parseRecorded(dealerChanged, event).data;
        await onShiftEnd(event, change.tableId, change.shiftId, { dealerChangeId: event.id });
        return;
      }
      if (event.type === 'TableClosed') {
        const { tableId } = parseRecorded(tableClosed, event).data;
        closedBy.set(tableId, event.id);
        await onShiftEnd(event, tableId, null, { tableClosedId: event.id });
        return;
      }
      // Commission accrued at an open table waits for its shift to end; at a closed table no
      // shift will end again: the bet's commission is collected now, naming the close.
      const accrued = parseRecorded(commissionAccrued, event).data;
      const tableClosedId = await closeOf(accrued.tableId);
      if (tableClosedId === null) return;
      await wallet.collectCommission(
        accrued.playerId,
        {
          type: 'CollectCommission',
          tableId: accrued.tableId,
          currentShiftId: null,
          endedBy: {
            tableClosedId,
            accrued: { settlementId: accrued.settlementId, betId: accrued.betId },
          },
        },
        causedBy(systemContext('commission-collector'), event.id),
      );
    },
  });
}
