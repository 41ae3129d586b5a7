import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startHarness, type Harness } from '../support/harness.js';
import { expectStatus, fund, openTable, playRound } from '../support/play.js';

interface Owed {
  shift: number;
  atDealerChange: number;
}
interface SeatsView {
  tableId: string;
  currency: string | null;
  seats: {
    seat: number;
    taken: boolean;
    playerId: string | null;
    commission: (Owed & { players: (Owed & { playerId: string })[] }) | null;
  }[];
  commission: (Owed & { shiftId: string | null; dealerId: string | null }) | null;
}
interface WalletView {
  commissionOwed: number;
  commissionOwedBySeat: { tableId: string; seat: number; amount: number }[];
}

const TABLE = 'ledger-e2e';
const ANA = 'ledger-ana';
const BEN = 'ledger-ben';
/** A Banker win of 100.00 at 002's table owes 5.00 (ADR 0008: stake - floor(stake × 0.95)). */
const STAKE = 10_000;
const COMMISSION = 500;

/**
 * 002's seat ledger (issue 26): `GET /v1/tables/:id/seats` shows per seat the accrued commission
 * owed this dealer shift and what a dealer change will collect, and the table's totals, from the
 * wallets' own records (a read model the process serving the seats runs: the round service in
 * the distributed deployment). The figures are checked against the wallets, and after a dealer
 * change against the wallets' CommissionCollected.
 */
describe("002's seat ledger", () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startHarness({ store: 'memory' });
    await openTable(harness.api, TABLE, 'land-based');
    await fund(harness.api, [ANA, BEN], 10_000_000);
  });
  afterAll(async () => {
    await harness.close();
  });

  const seats = async (role: 'supervisor' | 'operator' | 'dealer' | 'player', id?: string) =>
    expectStatus(await harness.api.as(role, id).get<SeatsView>(`/v1/tables/${TABLE}/seats`), 200);
  const walletOf = async (player: string) =>
    expectStatus(await harness.api.as('operator').get<WalletView>(`/v1/wallets/${player}`), 200);

  /** Rounds where both bet Banker, until Banker has won `wins` times; the wins. */
  async function playUntilBankerWins(wins: number): Promise<number> {
    let won = 0;
    for (let i = 0; i < 80 && won < wins; i++) {
      const round = await playRound(harness.api, TABLE, {
        [ANA]: [{ type: 'banker', amount: STAKE }],
        [BEN]: [{ type: 'banker', amount: STAKE }],
      });
      if (round.result!.winner === 'banker') won++;
    }
    expect(won).toBe(wins);
    return won;
  }

  /**
   * The ledger once it shows `total` to collect: a read model of the wallets' events, it follows
   * them (in the distributed deployment another process's events, read once the log settles).
   */
  const ledgerShowing = (total: number) =>
    vi.waitFor(
      async () => {
        const ledger = await seats('supervisor');
        expect(ledger.commission?.atDealerChange).toBe(total);
        return ledger;
      },
      { timeout: 15_000, interval: 50 },
    );

  /** Waits until each wallet owes `amount` at the table (its settlements applied). */
  const walletsOwe = (amount: number) =>
    vi.waitFor(
      async () => {
        for (const player of [ANA, BEN])
          expect((await walletOf(player)).commissionOwed).toBe(amount);
      },
      { timeout: 15_000, interval: 50 },
    );

  it('shows what each seat owes this shift, the shift total and what a dealer change collects', async () => {
    const { api } = harness;
    expectStatus(await api.as('player', ANA).post(`/v1/tables/${TABLE}/seats/2`), 201);
    expectStatus(await api.as('player', BEN).post(`/v1/tables/${TABLE}/seats/5`), 201);
    const empty = await seats('supervisor');
    expect(empty.currency).toBe('EUR');
    expect(empty.commission).toMatchObject({ shift: 0, atDealerChange: 0 });
    expect(empty.seats.map((seat) => seat.commission)).toEqual(
      Array.from({ length: 7 }, () => ({ shift: 0, atDealerChange: 0, players: [] })),
    );

    const wins = await playUntilBankerWins(2);
    const owed = wins * COMMISSION;
    await walletsOwe(owed);
    const ledger = await ledgerShowing(2 * owed);
    const table = expectStatus(
      await api.as('supervisor').get<{ dealerId: string | null }>(`/v1/tables/${TABLE}`),
      200,
    );
    expect(ledger.commission).toMatchObject({
      dealerId: table.dealerId,
      shift: 2 * owed,
      atDealerChange: 2 * owed,
    });
    expect(ledger.seats.find((seat) => seat.seat === 2)).toEqual({
      seat: 2,
      taken: true,
      playerId: ANA,
      commission: {
        shift: owed,
        atDealerChange: owed,
        players: [{ playerId: ANA, shift: owed, atDealerChange: owed }],
      },
    });
    expect(ledger.seats.find((seat) => seat.seat === 5)?.commission?.shift).toBe(owed);
    expect(ledger.seats.filter((seat) => seat.commission!.atDealerChange > 0)).toHaveLength(2);
    // The wallets hold back the same, seat by seat.
    expect((await walletOf(ANA)).commissionOwedBySeat).toEqual([
      { tableId: TABLE, seat: 2, amount: owed },
    ]);
    expect((await walletOf(BEN)).commissionOwedBySeat).toEqual([
      { tableId: TABLE, seat: 5, amount: owed },
    ]);
    // The same figures to the operator; a dealer sees the seats, the same ledger.
    expect(await seats('operator')).toEqual(ledger);
    expect(await seats('dealer')).toEqual(ledger);

    // A player sees their own seat's debt, no other's and no total.
    const mine = await seats('player', ANA);
    expect(mine.commission).toBeNull();
    expect(mine.seats.find((seat) => seat.seat === 2)?.commission).toEqual({
      shift: owed,
      atDealerChange: owed,
      players: [{ playerId: ANA, shift: owed, atDealerChange: owed }],
    });
    expect(mine.seats.filter((seat) => seat.commission !== null).map((seat) => seat.seat)).toEqual([
      2,
    ]);
  });

  it('restarts at the dealer change, which collects what it showed', async () => {
    const { api } = harness;
    const before = await seats('supervisor');
    const toCollect = before.commission!.atDealerChange;
    expect(toCollect).toBeGreaterThan(0);
    const change = expectStatus(
      await api
        .as('supervisor')
        .post<{ shiftId: string }>(`/v1/tables/${TABLE}/dealer`, { dealerId: 'ledger-dealer-2' }),
      200,
    );
    expect(change.shiftId).not.toBe(before.commission!.shiftId);
    // The new shift owes nothing yet; the collector takes every earlier shift's debt.
    const restarted = await seats('supervisor');
    expect(restarted.commission).toMatchObject({
      shiftId: change.shiftId,
      dealerId: 'ledger-dealer-2',
      shift: 0,
    });
    expect(restarted.seats.every((seat) => seat.commission!.shift === 0)).toBe(true);
    const after = await ledgerShowing(0);
    expect(after.seats.every((seat) => seat.commission!.players.length === 0)).toBe(true);

    // What the wallets recorded collected at that change, seat by seat, is what the ledger showed.
    const [changed] = (await harness.store.readStream(`table-${TABLE}`)).filter(
      (event) => event.type === 'DealerChanged',
    );
    const collected = new Map<number, number>();
    for (const player of [ANA, BEN]) {
      for (const event of await harness.store.readStream(`wallet-${player}`)) {
        if (event.type !== 'CommissionCollected') continue;
        const data = event.data as { seat: number; amount: number; dealerChangeId?: string };
        expect(data.dealerChangeId).toBe(changed!.id);
        collected.set(data.seat, (collected.get(data.seat) ?? 0) + data.amount);
      }
    }
    expect(Object.fromEntries(collected)).toEqual(
      Object.fromEntries(
        before.seats
          .filter((seat) => seat.commission!.atDealerChange > 0)
          .map((seat) => [seat.seat, seat.commission!.atDealerChange]),
      ),
    );
    expect([...collected.values()].reduce((sum, amount) => sum + amount, 0)).toBe(toCollect);
    for (const player of [ANA, BEN]) expect((await walletOf(player)).commissionOwed).toBe(0);

    // The next Banker win is owed in the new shift.
    await playUntilBankerWins(1);
    await walletsOwe(COMMISSION);
    const next = await ledgerShowing(2 * COMMISSION);
    expect(next.commission).toMatchObject({
      shiftId: change.shiftId,
      shift: 2 * COMMISSION,
      atDealerChange: 2 * COMMISSION,
    });
  });

  it('has no ledger at a table that deducts its commission', async () => {
    await openTable(harness.api, 'ledger-deducted', 'generic');
    const view = expectStatus(
      await harness.api.as('supervisor').get<SeatsView>('/v1/tables/ledger-deducted/seats'),
      200,
    );
    expect(view).toEqual({
      tableId: 'ledger-deducted',
      currency: 'EUR',
      seats: [],
      commission: null,
    });
  });
});
