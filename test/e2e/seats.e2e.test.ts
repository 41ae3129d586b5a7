import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startHarness, type Harness } from '../support/harness.js';
import { checkMoney, settledEverywhere } from '../support/invariants.js';
import {
  expectStatus,
  fund,
  openRound,
  openTable,
  placeBets,
  playRound,
  settled,
  type RoundView,
} from '../support/play.js';

interface SeatsView {
  seats: { seat: number; taken: boolean; playerId: string | null }[];
}
interface WalletView {
  balance: number;
  available: number;
  commissionOwed: number;
  commissionOwedBySeat: { tableId: string; seat: number; amount: number }[];
}

/**
 * 002: "usually seven sit, and every seat has its number, to know which seat owes the 5%
 * commission". A seat is owned: taken and left by its player, one player per seat, and the
 * commission its Banker wins accrue is owed by the seat and collected at the dealer change.
 */
describe('seats of a land-based table (002)', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startHarness({ store: 'memory' });
    await openTable(harness.api, 'seats-e2e', 'land-based');
    await fund(harness.api, ['ana', 'ben', 'cy', 'dee', 'eli', 'fay', 'gus', 'hal'], 10_000_000);
  });
  afterAll(async () => {
    await harness.close();
  });

  const take = (player: string, seat: number) =>
    harness.api.as('player', player).post<SeatsView>(`/v1/tables/seats-e2e/seats/${seat}`);

  it('one player per seat, one seat per player, seven seats at most', async () => {
    const players = ['ana', 'ben', 'cy', 'dee', 'eli', 'fay', 'gus'];
    for (const [index, player] of players.entries())
      expectStatus(await take(player, index + 1), 201);
    const taken = await take('hal', 3);
    expect(taken.status).toBe(409);
    expect(taken.body).toMatchObject({ code: 'SEAT_TAKEN' });
    const eighth = await take('hal', 8);
    expect(eighth.status).toBe(422);
    expect(eighth.body).toMatchObject({ code: 'INVALID_SEAT' });
    const second = await take('ana', 2);
    expect(second.status).toBe(409);
    expect(second.body).toMatchObject({ code: 'SEAT_TAKEN' });
    // A player sees which seats are taken, and by whom only their own.
    const seen = expectStatus(
      await harness.api.as('player', 'ana').get<SeatsView>('/v1/tables/seats-e2e/seats'),
      200,
    );
    expect(seen.seats.filter((s) => s.taken)).toHaveLength(7);
    expect(seen.seats.filter((s) => s.playerId !== null)).toEqual([
      {
        seat: 1,
        taken: true,
        playerId: 'ana',
        commission: { shift: 0, atDealerChange: 0, players: [] },
      },
    ]);
    // Leaving frees the seat for another player; only the one sitting there leaves it.
    const notMine = await harness.api.as('player', 'hal').delete('/v1/tables/seats-e2e/seats/7');
    expect(notMine.status).toBe(409);
    expect(notMine.body).toMatchObject({ code: 'NOT_SEATED' });
    expectStatus(await harness.api.as('player', 'gus').delete('/v1/tables/seats-e2e/seats/7'), 200);
    expectStatus(await take('hal', 7), 201);
  });

  it('bets carry the seat the player sits at; another seat, or none, is refused', async () => {
    const round = await openRound(harness.api, 'seats-e2e');
    const placed = expectStatus(
      await placeBets(harness.api, round.roundId, 'ben', [{ type: 'player', amount: 1_000 }]),
      201,
    );
    expect(placed.bets.find((b) => b.playerId === 'ben')).toMatchObject({ seat: 2 });
    const elsewhere = await placeBets(harness.api, round.roundId, 'ben', [
      { type: 'player', amount: 1_000, seat: 5 },
    ]);
    expect(elsewhere.status).toBe(422);
    expect(elsewhere.body).toMatchObject({ code: 'INVALID_SEAT' });
    const standing = await placeBets(harness.api, round.roundId, 'gus', [
      { type: 'player', amount: 1_000 },
    ]);
    expect(standing.status).toBe(422);
    expect(standing.body).toMatchObject({ code: 'INVALID_SEAT' });
    expectStatus(
      await harness.api.as('dealer').post(`/v1/rounds/${round.roundId}/close-betting`),
      200,
    );
    expectStatus(await harness.api.as('dealer').post(`/v1/rounds/${round.roundId}/deal`), 200);
  });

  it('commission is owed per seat and collected per seat at the dealer change; the audit verifies it', async () => {
    const { api } = harness;
    // cy (seat 3) moves to seat 6 between rounds: each seat owes what its own Banker wins accrued.
    let seatThree = 0;
    let seatSix = 0;
    const winning: string[] = [];
    for (let i = 0; i < 60 && (seatThree === 0 || seatSix === 0); i++) {
      const seat = seatThree === 0 ? 3 : 6;
      if (seat === 6 && seatSix === 0 && i > 0) {
        const view = expectStatus(
          await api.as('player', 'cy').get<SeatsView>('/v1/tables/seats-e2e/seats'),
          200,
        );
        if (view.seats.find((s) => s.playerId === 'cy')?.seat === 3) {
          expectStatus(await api.as('player', 'cy').delete('/v1/tables/seats-e2e/seats/3'), 200);
          expectStatus(await api.as('player', 'fay').delete('/v1/tables/seats-e2e/seats/6'), 200);
          expectStatus(await take('cy', 6), 201);
        }
      }
      const played: RoundView = await playRound(api, 'seats-e2e', {
        cy: [{ type: 'banker', amount: 10_000 }],
      });
      if (played.result!.winner === 'banker') {
        winning.push(played.roundId);
        if (seat === 3) seatThree += 500;
        else seatSix += 500;
      }
    }
    expect(seatThree).toBeGreaterThan(0);
    expect(seatSix).toBeGreaterThan(0);
    await settledEverywhere(harness.store);
    const owing = await vi.waitFor(
      async () => {
        const wallet = expectStatus(
          await api.as('operator').get<WalletView>('/v1/wallets/cy'),
          200,
        );
        expect(wallet.commissionOwed).toBe(seatThree + seatSix);
        return wallet;
      },
      { timeout: 10_000, interval: 50 },
    );
    expect(owing.commissionOwedBySeat.sort((a, b) => a.seat - b.seat)).toEqual([
      { tableId: 'seats-e2e', seat: 3, amount: seatThree },
      { tableId: 'seats-e2e', seat: 6, amount: seatSix },
    ]);
    expectStatus(
      await api.as('supervisor').post('/v1/tables/seats-e2e/dealer', { dealerId: 'dealer-2' }),
      200,
    );
    const collected = await vi.waitFor(
      async () => {
        const wallet = expectStatus(
          await api.as('operator').get<WalletView>('/v1/wallets/cy'),
          200,
        );
        expect(wallet.commissionOwed).toBe(0);
        return wallet;
      },
      { timeout: 10_000, interval: 50 },
    );
    expect(collected.balance).toBe(owing.balance - seatThree - seatSix);
    // One collection per seat, each what that seat owed.
    const events = await harness.store.readStream('wallet-cy');
    const collections = events
      .filter((e) => e.type === 'CommissionCollected')
      .map((e) => e.data as { seat: number; amount: number })
      .map(({ seat, amount }) => ({ seat, amount }))
      .sort((a, b) => a.seat - b.seat);
    expect(collections).toEqual([
      { seat: 3, amount: seatThree },
      { seat: 6, amount: seatSix },
    ]);
    const regulator = api.as('regulator');
    const wallet = expectStatus(
      await regulator.get<{ verdict: { ok: boolean; findings: unknown[] } }>(
        '/v1/audit/wallets/cy',
      ),
      200,
    );
    expect(wallet.verdict.findings).toEqual([]);
    for (const roundId of winning) {
      const audit = expectStatus(
        await regulator.get<{ verdict: { findings: unknown[] } }>(`/v1/audit/rounds/${roundId}`),
        200,
      );
      expect(audit.verdict.findings).toEqual([]);
    }
    expect(checkMoney(await settledEverywhere(harness.store)).discrepancies).toEqual([]);
  });
  it('closing the table ends its last shift: owed commission is collected, late commission too, and a round taking bets is voided', async () => {
    const { api } = harness;
    await fund(api, ['ines', 'jack', 'kurt'], 1_000_000);
    // Scanner shoes: the test chooses the cards, so the Banker wins where it must.
    for (const tableId of ['seats-close', 'seats-late'])
      await openTable(api, tableId, 'land-based', { cardSource: 'scanner', burn: false });
    const sit = async (tableId: string, player: string, seat: number) =>
      expectStatus(await api.as('player', player).post(`/v1/tables/${tableId}/seats/${seat}`), 201);
    await sit('seats-close', 'ines', 1);
    await sit('seats-close', 'jack', 2);
    await sit('seats-late', 'kurt', 1);
    const closeBetting = async (roundId: string) =>
      expectStatus(await api.as('dealer').post(`/v1/rounds/${roundId}/close-betting`), 200);
    /** Player 2 + 3 against a Banker natural 9: the Banker wins. */
    const dealBankerWin = async (roundId: string) => {
      for (const card of ['2C', '9D', '3H', 'KS'])
        expectStatus(await api.as('dealer').post(`/v1/rounds/${roundId}/cards`, { card }), 200);
      expectStatus(await api.as('dealer').post(`/v1/rounds/${roundId}/confirm`), 200);
      return settled(api, roundId);
    };
    const wallet = async (player: string) =>
      expectStatus(await api.as('operator').get<WalletView>(`/v1/wallets/${player}`), 200);

    // Ivy owes 500 for a Banker win in the only shift the table will have.
    const won = await openRound(api, 'seats-close');
    expectStatus(
      await placeBets(api, won.roundId, 'ines', [{ type: 'banker', amount: 10_000 }]),
      201,
    );
    await closeBetting(won.roundId);
    expect((await dealBankerWin(won.roundId)).result!.winner).toBe('banker');
    await settledEverywhere(harness.store);
    expect(await wallet('ines')).toMatchObject({ balance: 1_010_000, commissionOwed: 500 });
    // The next round is taking Jon's bets when the table closes.
    const betting = await openRound(api, 'seats-close');
    expectStatus(
      await placeBets(api, betting.roundId, 'jack', [{ type: 'player', amount: 1_000 }]),
      201,
    );
    // At the other table Kim's Banker bet is past betting when it closes: dealt after.
    const late = await openRound(api, 'seats-late');
    expectStatus(
      await placeBets(api, late.roundId, 'kurt', [{ type: 'banker', amount: 20_000 }]),
      201,
    );
    await closeBetting(late.roundId);

    for (const tableId of ['seats-close', 'seats-late'])
      expectStatus(
        await api.as('operator').post(`/v1/tables/${tableId}/close`, { reason: 'end of night' }),
        200,
      );
    // No bet is taken on a closed table: the round taking bets is voided, Jon's stake refunded.
    expect((await settled(api, betting.roundId)).status).toBe('voided');
    const after = await placeBets(api, betting.roundId, 'jack', [
      { type: 'player', amount: 1_000 },
    ]);
    expect(after.status).toBeGreaterThanOrEqual(400);
    expect(after.status).toBeLessThan(500);
    // The round past betting is finished: its Banker win accrues commission after the close.
    expect((await dealBankerWin(late.roundId)).result!.winner).toBe('banker');
    await settledEverywhere(harness.store);

    // Every commission owed is collected: nothing is held back any longer.
    const collected = async (player: string, owedBefore: number, balanceBefore: number) => {
      const view = await vi.waitFor(
        async () => {
          const current = await wallet(player);
          expect(current.commissionOwed).toBe(0);
          return current;
        },
        { timeout: 10_000, interval: 50 },
      );
      expect(view.balance).toBe(balanceBefore - owedBefore);
      expect(view.available).toBe(view.balance);
    };
    await collected('ines', 500, 1_010_000);
    await collected('kurt', 1_000, 1_020_000);
    expect(await wallet('jack')).toMatchObject({ balance: 1_000_000, available: 1_000_000 });
    // Each collection names the close that ended the shift.
    const closeOf = async (tableId: string) =>
      (await harness.store.readStream(`table-${tableId}`)).find((e) => e.type === 'TableClosed')!
        .id;
    const collections = async (player: string) =>
      (await harness.store.readStream(`wallet-${player}`))
        .filter((e) => e.type === 'CommissionCollected')
        .map((e) => e.data);
    expect(await collections('ines')).toEqual([
      expect.objectContaining({
        amount: 500,
        seat: 1,
        tableClosedId: await closeOf('seats-close'),
      }),
    ]);
    // Kim's names the close too: collected at the close if the wallet had the win by then, else
    // as it accrued, naming the bet settled late (the wallet package's collector test).
    const kurts = await collections('kurt');
    expect(kurts.map((data) => (data as { amount: number }).amount)).toEqual([1_000]);
    expect(kurts[0]).toMatchObject({ seat: 1, tableClosedId: await closeOf('seats-late') });
    for (const player of ['ines', 'jack', 'kurt']) {
      const audit = expectStatus(
        await api
          .as('regulator')
          .get<{ verdict: { ok: boolean; findings: unknown[] } }>(`/v1/audit/wallets/${player}`),
        200,
      );
      expect(audit.verdict.findings, player).toEqual([]);
    }
    // The closed table changes no dealer: there is no shift left to end.
    const change = await api
      .as('supervisor')
      .post('/v1/tables/seats-close/dealer', { dealerId: 'dealer-9' });
    expect(change.status).toBe(409);
    expect(change.body).toMatchObject({ code: 'TABLE_CLOSED' });
    expect(checkMoney(await settledEverywhere(harness.store)).discrepancies).toEqual([]);
  });
});
