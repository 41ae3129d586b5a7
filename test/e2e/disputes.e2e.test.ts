import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/harness.js';
import { allEvents, checkMoney, settledEverywhere } from '../support/invariants.js';
import {
  balanceOf,
  expectStatus,
  fund,
  openRound,
  openTable,
  placeBets,
  playRound,
  settled,
  type RoundView,
} from '../support/play.js';

interface Adjusted extends RoundView {
  adjustments: {
    betId: string;
    playerId: string;
    previousPayout: number;
    payout: number;
    delta: number;
    result: string;
  }[];
}

describe('disputes after settlement: compensating events, never edits', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startHarness({ store: 'memory' });
    await openTable(harness.api, 'dispute-rng', 'generic');
    await openTable(harness.api, 'dispute-scan', 'generic', { cardSource: 'scanner', burn: false });
    await fund(harness.api, ['ivy', 'jon'], 100_000);
  });
  afterAll(async () => {
    await harness.close();
  });

  it('voids a settled round: every bet goes back to its stake, winners give their winnings back', async () => {
    const { api } = harness;
    await settledEverywhere(harness.store);
    const before = { ivy: await balanceOf(api, 'ivy'), jon: await balanceOf(api, 'jon') };
    const round = await playRound(api, 'dispute-rng', {
      ivy: [{ type: 'player', amount: 1_000 }],
      jon: [{ type: 'banker', amount: 1_000 }],
    });
    await settledEverywhere(harness.store);
    expect(round.settlement?.lines).toHaveLength(2);
    const events = (await allEvents(harness.store)).filter(
      (e) => e.stream === `round-${round.roundId}`,
    ).length;
    const beadPlate = async () =>
      (await api.as('regulator').get<{ beadPlate: string[] }>('/v1/tables/dispute-rng/roads')).body
        .beadPlate;
    const shown = (await beadPlate()).length;
    expect(shown).toBeGreaterThan(0);

    expectStatus(
      await api
        .as('supervisor')
        .post(`/v1/rounds/${round.roundId}/void`, { reason: 'dealer exposed a card early' }),
      200,
    );
    const voided = await settled(api, round.roundId);
    expect(voided.status).toBe('voided');
    await settledEverywhere(harness.store);
    await expect
      .poll(
        async () =>
          (await api.as('regulator').get<Adjusted>(`/v1/rounds/${round.roundId}`)).body.adjustments
            .length,
        { timeout: 10_000 },
      )
      .toBe(round.result!.winner === 'tie' ? 0 : 2);
    await expect.poll(() => balanceOf(api, 'ivy'), { timeout: 10_000 }).toBe(before.ivy);
    await expect.poll(() => balanceOf(api, 'jon'), { timeout: 10_000 }).toBe(before.jon);
    // History is appended to, never rewritten: the original settlement is still there.
    const trail = (await allEvents(harness.store)).filter(
      (e) => e.stream === `round-${round.roundId}`,
    );
    expect(trail.length).toBeGreaterThan(events);
    expect(trail.map((e) => e.type)).toContain('RoundSettled');
    // The cancelled round leaves the scoreboard.
    await expect.poll(async () => (await beadPlate()).length, { timeout: 10_000 }).toBe(shown - 1);
    expect(checkMoney(await settledEverywhere(harness.store)).discrepancies).toEqual([]);
  });

  it('resettles a settled round after a supervisor corrects a misread card', async () => {
    const { api } = harness;
    const round = await openRound(api, 'dispute-scan');
    expectStatus(
      await placeBets(api, round.roundId, 'ivy', [{ type: 'player', amount: 2_000 }]),
      201,
    );
    for (const step of ['close-betting'])
      expectStatus(await api.as('dealer').post(`/v1/rounds/${round.roundId}/${step}`), 200);
    // Player 9C KH (natural 9) against Banker 2D 3S: Player wins.
    for (const card of ['9C', '2D', 'KH', '3S'])
      expectStatus(await api.as('dealer').post(`/v1/rounds/${round.roundId}/cards`, { card }), 200);
    expectStatus(await api.as('dealer').post(`/v1/rounds/${round.roundId}/confirm`), 200);
    const first = await settled(api, round.roundId);
    expect(first.settlement?.lines[0]).toMatchObject({ result: 'win', payout: 4_000 });
    await settledEverywhere(harness.store);
    const afterWin = await balanceOf(api, 'ivy');

    // A correction that would call for another card is refused: such a round is voided instead.
    const position = first.cards.player[0]!.shoePosition;
    const refusedCorrection = await api
      .as('supervisor')
      .post(`/v1/rounds/${round.roundId}/cards/${position}/correction`, {
        card: '4C',
        reason: 'video review',
      });
    expect(refusedCorrection.body).toMatchObject({ code: 'INVALID_CORRECTION' });
    // The video shows Banker's second card was the 7 of spades: Banker 9 ties Player's 9.
    const bankerSecond = first.cards.banker[1]!.shoePosition;
    const tie = expectStatus(
      await api
        .as('supervisor')
        .post<Adjusted>(`/v1/rounds/${round.roundId}/cards/${bankerSecond}/correction`, {
          card: '7S',
          reason: 'video review',
        }),
      200,
    );
    expect(tie.result).toMatchObject({ winner: 'tie', playerTotal: 9, bankerTotal: 9 });
    await expect
      .poll(
        async () =>
          (await api.as('regulator').get<Adjusted>(`/v1/rounds/${round.roundId}`)).body.adjustments,
        { timeout: 10_000 },
      )
      .toEqual([
        expect.objectContaining({
          previousPayout: 4_000,
          payout: 2_000,
          delta: -2_000,
          result: 'push',
        }),
      ]);
    await settledEverywhere(harness.store);
    await expect.poll(() => balanceOf(api, 'ivy'), { timeout: 10_000 }).toBe(afterWin - 2_000);
    const trail = (await allEvents(harness.store))
      .filter((e) => e.stream === `round-${round.roundId}`)
      .map((e) => e.type);
    expect(trail).toEqual(
      expect.arrayContaining([
        'RoundCompleted',
        'RoundSettled',
        'CardCorrected',
        'RoundResultCorrected',
        'RoundResettled',
      ]),
    );
    // The scoreboard shows the corrected result: a tie, no longer a Player win.
    await expect
      .poll(
        async () =>
          (await api.as('regulator').get<{ beadPlate: string[] }>('/v1/tables/dispute-scan/roads'))
            .body.beadPlate,
        { timeout: 10_000 },
      )
      .toEqual(['T']);
    expect(checkMoney(await settledEverywhere(harness.store)).discrepancies).toEqual([]);
  });
});
