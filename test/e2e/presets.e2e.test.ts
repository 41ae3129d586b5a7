import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startHarness, type Harness } from '../support/harness.js';
import { checkMoney, settledEverywhere } from '../support/invariants.js';
import {
  balanceOf,
  expectStatus,
  fund,
  openRound,
  openTable,
  placeBets,
  playRound,
  type RoundView,
} from '../support/play.js';

/**
 * Each preset plays end to end: on the in-memory store in one process (the rules, not the
 * storage, are under test), on PostgreSQL and Redis in the distributed run. The embedded PGlite
 * store `pnpm start` runs is started for real in start.e2e.test.ts.
 */
describe('every preset', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startHarness({ store: 'memory' });
  });
  afterAll(async () => {
    await harness.close();
  });

  it('touch: a fresh 8-deck shoe every round, and a 0.10 Banker win returns 0.19', async () => {
    const { api } = harness;
    await openTable(api, 'touch-e2e', 'touch');
    await fund(api, ['tom'], 10_000);
    const shoes = new Set<string>();
    let bankerWins = 0;
    for (let i = 0; i < 40 && bankerWins < 2; i++) {
      const before = await balanceOf(api, 'tom');
      const round = await playRound(api, 'touch-e2e', { tom: [{ type: 'banker', amount: 10 }] });
      shoes.add(round.shoeId);
      expect(round.number).toBe(1);
      await settledEverywhere(harness.store);
      const after = await balanceOf(api, 'tom');
      const expected =
        round.result!.winner === 'banker' ? 19 : round.result!.winner === 'tie' ? 10 : 0;
      expect(after - before + 10).toBe(expected);
      if (round.result!.winner === 'banker') bankerWins++;
    }
    expect(bankerWins).toBe(2);
    expect(shoes.size).toBeGreaterThan(1); // one shoe per round
    expect(await api.as('regulator').get('/v1/shoes/touch-e2e.1')).toMatchObject({
      body: { status: 'closed', shufflePolicy: 'every-round' },
    });
  });

  it('single-deck: every round is dealt from a fresh 52-card deck', async () => {
    const { api } = harness;
    await openTable(api, 'single-e2e', 'single-deck');
    await fund(api, ['sam'], 10_000);
    const rounds: RoundView[] = [];
    for (let i = 0; i < 4; i++)
      rounds.push(await playRound(api, 'single-e2e', { sam: [{ type: 'player', amount: 100 }] }));
    expect(new Set(rounds.map((r) => r.shoeId)).size).toBe(4);
    for (const round of rounds) {
      const positions = [...round.cards.player, ...round.cards.banker]
        .map((c) => c.shoePosition)
        .sort((a, b) => a - b);
      expect(positions[0]).toBe(0); // no burn, the top of a fresh deck
      const shoe = expectStatus(
        await api.as('regulator').get<{ decks: number }>(`/v1/shoes/${round.shoeId}`),
        200,
      );
      expect(shoe.decks).toBe(1);
    }
  });

  it('land-based: bets need a seat, Banker wins pay 1:1 and the commission is collected at the dealer change', async () => {
    const { api } = harness;
    await openTable(api, 'salon-e2e', 'land-based');
    await fund(api, ['lea'], 1_000_000);
    const round = await openRound(api, 'salon-e2e');
    const unseated = await placeBets(api, round.roundId, 'lea', [
      { type: 'banker', amount: 10_000 },
    ]);
    expect(unseated.status).toBe(422);
    expect(unseated.body).toMatchObject({ code: 'INVALID_SEAT' });
    // A seat is owned: lea sits down at seat 3 and her bets carry it.
    expectStatus(await api.as('player', 'lea').post('/v1/tables/salon-e2e/seats/3'), 201);
    expectStatus(await api.as('dealer').post(`/v1/rounds/${round.roundId}/close-betting`), 200);
    expectStatus(await api.as('dealer').post(`/v1/rounds/${round.roundId}/deal`), 200);

    // Play until the Banker wins a seated bet.
    let owed = 0;
    for (let i = 0; i < 30 && owed === 0; i++) {
      const played = await playRound(api, 'salon-e2e', {
        lea: [{ type: 'banker', amount: 10_000, seat: 3 }],
      });
      await settledEverywhere(harness.store);
      if (played.result!.winner === 'banker') {
        const line = played.settlement!.lines[0]!;
        expect(line.payout).toBe(20_000); // 1:1, the commission is owed, not withheld
        expect(line.commission).toBe(500);
        owed = 500;
      }
    }
    expect(owed).toBe(500);
    const wallet = expectStatus(
      await api
        .as('operator')
        .get<{ balance: number; available: number; commissionOwed: number }>('/v1/wallets/lea'),
      200,
    );
    expect(wallet.commissionOwed).toBe(500);
    expect(wallet.available).toBe(wallet.balance - 500);

    expectStatus(
      await api.as('supervisor').post('/v1/tables/salon-e2e/dealer', { dealerId: 'dealer-2' }),
      200,
    );
    const collected = await vi.waitFor(
      async () => {
        const view = expectStatus(
          await api
            .as('operator')
            .get<{ balance: number; commissionOwed: number }>('/v1/wallets/lea'),
          200,
        );
        if (view.commissionOwed !== 0) throw new Error('not collected yet');
        return view;
      },
      { timeout: 10_000, interval: 50 },
    );
    expect(collected.balance).toBe(wallet.balance - 500);
    expect(checkMoney(await settledEverywhere(harness.store)).discrepancies).toEqual([]);
  });
});
