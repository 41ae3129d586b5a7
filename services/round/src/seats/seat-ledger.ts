import type { DocumentSet, DurableProjection } from '@croupier/application';
import { foldCommissionDebt, walletEventSchema, type CommissionRecord } from '@croupier/contracts';
import type { ProjectionStorage, RecordedEvent } from '@croupier/eventstore';

/**
 * What each player owes at one table in accrued commission (002, ADR 0008), per dealer shift and
 * seat: player -> `shiftId/seat` -> minor units owed. Seat 0: a record written before seats were
 * owned.
 */
export interface SeatDebts {
  readonly owed: Readonly<Record<string, Readonly<Record<string, number>>>>;
}

const COMMISSION_TYPES = ['CommissionAccrued', 'CommissionCollected', 'PayoutAdjusted'] as const;
const COMMISSION = new Set<string>(COMMISSION_TYPES);

/** One seat's debt to one player, as a ledger line. */
export interface SeatDebt {
  readonly playerId: string;
  readonly shiftId: string;
  readonly seat: number;
  readonly amount: number;
}

/**
 * The seat ledger of 002's pit: the accrued commission owed at each table, per seat, player and
 * dealer shift, a durable read model (ADR 0023) of the wallets' own commission records folded as
 * the wallets fold them (`foldCommissionDebt`). It is what the wallets hold back and what the
 * commission collector collects when the shift ends, so a dealer change takes exactly what the
 * ledger showed (less, or more, only by records the wallets apply in between). One document per
 * table; the round service runs it beside the seats it serves, and the gateway too: the same
 * events make the same figures in either deployment.
 */
export class SeatLedger implements DurableProjection<SeatDebts> {
  readonly name = 'seat-ledger';
  readonly handles = COMMISSION_TYPES;

  /** `storage`: where the documents are read from (the runner writes them). */
  constructor(private readonly storage: ProjectionStorage) {}

  keysOf(event: RecordedEvent): readonly string[] {
    if (!COMMISSION.has(event.type)) return [];
    const parsed = walletEventSchema.parse({ type: event.type, data: event.data });
    if (!('tableId' in parsed.data)) return [];
    // Play money accrues no commission; a fun adjustment changes no debt.
    if ('fun' in parsed.data && parsed.data.fun === true) return [];
    return [parsed.data.tableId];
  }

  apply(event: RecordedEvent, docs: DocumentSet<SeatDebts>): void {
    if (this.keysOf(event).length === 0) return;
    const record = walletEventSchema.parse({
      type: event.type,
      data: event.data,
    }) as CommissionRecord;
    const { tableId, playerId } = record.data;
    const owed = docs.get(tableId)?.owed ?? {};
    // The player's debts at this table, keyed as the wallet keys them, folded by the same rule.
    const debts = new Map<string, number>();
    for (const [shiftSeat, amount] of Object.entries(owed[playerId] ?? {}))
      debts.set(`${tableId}/${shiftSeat}`, amount);
    foldCommissionDebt(debts, record);
    const mine = Object.fromEntries(
      [...debts].map(([key, amount]) => [key.slice(tableId.length + 1), amount]),
    );
    const players = Object.fromEntries(
      Object.entries(owed).filter(([player]) => player !== playerId),
    );
    if (Object.keys(mine).length > 0) players[playerId] = mine;
    if (Object.keys(players).length > 0) docs.put(tableId, { owed: players });
    else docs.delete(tableId);
  }

  /** Every debt at the table, by player, shift and seat (none: nothing owed). */
  async debts(tableId: string): Promise<SeatDebt[]> {
    const doc = (await this.storage.get(this.name, tableId)) as SeatDebts | undefined;
    const lines: SeatDebt[] = [];
    for (const [playerId, shifts] of Object.entries(doc?.owed ?? {})) {
      for (const [shiftSeat, amount] of Object.entries(shifts)) {
        const slash = shiftSeat.lastIndexOf('/');
        lines.push({
          playerId,
          shiftId: shiftSeat.slice(0, slash),
          seat: Number(shiftSeat.slice(slash + 1)),
          amount,
        });
      }
    }
    return lines.sort(
      (a, b) =>
        a.seat - b.seat ||
        a.playerId.localeCompare(b.playerId) ||
        a.shiftId.localeCompare(b.shiftId),
    );
  }
}
