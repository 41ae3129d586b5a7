import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEPLOYMENT, startHarness, type Harness } from '../support/harness.js';
import { checkMoney, settledEverywhere } from '../support/invariants.js';
import {
  balanceOf,
  expectStatus,
  fund,
  openRound,
  openTable,
  placeBets,
  settled,
  type RoundView,
} from '../support/play.js';

describe('round lifecycle on PostgreSQL', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startHarness({ store: 'postgres' });
    await openTable(harness.api, 'generic-e2e', 'generic');
    await fund(harness.api, ['pia', 'quin'], 100_000);
  });
  afterAll(async () => {
    await harness.close();
  });

  it('pauses and resumes: the paused round takes no bets and deals no cards, then goes on', async () => {
    const { api } = harness;
    const round = await openRound(api, 'generic-e2e');
    expectStatus(
      await placeBets(api, round.roundId, 'pia', [{ type: 'player', amount: 500 }]),
      201,
    );
    expectStatus(
      await api
        .as('dealer')
        .post(`/v1/rounds/${round.roundId}/pause`, { reason: 'card on the floor' }),
      200,
    );
    const refused = await placeBets(api, round.roundId, 'quin', [{ type: 'banker', amount: 500 }]);
    expect(refused).toMatchObject({ status: 409, body: { code: 'ROUND_PAUSED' } });
    expect(
      (await api.as('dealer').post(`/v1/rounds/${round.roundId}/close-betting`)).body,
    ).toMatchObject({ code: 'ROUND_PAUSED' });
    expect((await api.as('dealer').post(`/v1/rounds/${round.roundId}/resume`)).status).toBe(403); // supervisors resume
    expectStatus(await api.as('supervisor').post(`/v1/rounds/${round.roundId}/resume`), 200);
    expectStatus(
      await placeBets(api, round.roundId, 'quin', [{ type: 'banker', amount: 500 }]),
      201,
    );
    expectStatus(await api.as('dealer').post(`/v1/rounds/${round.roundId}/close-betting`), 200);
    expectStatus(await api.as('dealer').post(`/v1/rounds/${round.roundId}/deal`), 200);
    const done = await settled(api, round.roundId);
    expect(done.settlement?.lines).toHaveLength(2);
  });

  it('pauses then voids: every bet of the round is refunded', async () => {
    const { api } = harness;
    await settledEverywhere(harness.store); // the previous round's credits have landed
    const before = { pia: await balanceOf(api, 'pia'), quin: await balanceOf(api, 'quin') };
    const round = await openRound(api, 'generic-e2e');
    expectStatus(
      await placeBets(api, round.roundId, 'pia', [
        { type: 'player', amount: 700 },
        { type: 'tie', amount: 100 },
      ]),
      201,
    );
    expectStatus(
      await placeBets(api, round.roundId, 'quin', [{ type: 'banker', amount: 900 }]),
      201,
    );
    expect(await balanceOf(api, 'pia')).toBe(before.pia - 800);
    expectStatus(
      await api
        .as('supervisor')
        .post(`/v1/rounds/${round.roundId}/pause`, { reason: 'shuffler fault' }),
      200,
    );
    expectStatus(
      await api
        .as('supervisor')
        .post(`/v1/rounds/${round.roundId}/void`, { reason: 'fault not cleared' }),
      200,
    );
    const voided = await settled(api, round.roundId);
    expect(voided.status).toBe('voided');
    await settledEverywhere(harness.store);
    expect(await balanceOf(api, 'pia')).toBe(before.pia);
    expect(await balanceOf(api, 'quin')).toBe(before.quin);
    // Voiding changes nothing twice, and a voided round deals nothing.
    expectStatus(
      await api.as('supervisor').post(`/v1/rounds/${round.roundId}/void`, { reason: 'again' }),
      200,
    );
    expect((await api.as('dealer').post(`/v1/rounds/${round.roundId}/deal`)).status).toBe(409);
  });

  it('settles a player who disconnects after betting, as if they had stayed', async () => {
    const { api } = harness;
    const round = await openRound(api, 'generic-e2e');
    expectStatus(
      await placeBets(api, round.roundId, 'pia', [{ type: 'banker', amount: 1_000 }]),
      201,
    );
    // pia sends nothing more: no request, no session. The round goes on without her.
    expectStatus(await api.as('dealer').post(`/v1/rounds/${round.roundId}/close-betting`), 200);
    expectStatus(await api.as('dealer').post(`/v1/rounds/${round.roundId}/deal`), 200);
    const done = await settled(api, round.roundId);
    expect(done.settlement?.lines[0]).toMatchObject({ playerId: 'pia', stake: 1_000 });
    await settledEverywhere(harness.store);
    // Game history is served by the gateway's read side, not by the services themselves.
    if (DEPLOYMENT === 'single') {
      const history = expectStatus(
        await api
          .as('player', 'pia')
          .get<{ roundId: string; status: string }[]>('/v1/players/pia/history'),
        200,
      );
      expect(history[0]).toMatchObject({ roundId: round.roundId, status: 'complete' });
    }
  });

  it('clears bets before betting closes, refunding the stakes', async () => {
    const { api } = harness;
    await settledEverywhere(harness.store); // the previous round's credits have landed
    const before = await balanceOf(api, 'quin');
    const round = await openRound(api, 'generic-e2e');
    expectStatus(
      await placeBets(api, round.roundId, 'quin', [{ type: 'player', amount: 300 }]),
      201,
    );
    expectStatus(await api.as('player', 'quin').delete(`/v1/rounds/${round.roundId}/bets`), 200);
    expectStatus(await api.as('dealer').post(`/v1/rounds/${round.roundId}/close-betting`), 200);
    expectStatus(await api.as('dealer').post(`/v1/rounds/${round.roundId}/deal`), 200);
    await settled(api, round.roundId);
    await settledEverywhere(harness.store);
    expect(await balanceOf(api, 'quin')).toBe(before);
  });

  it('rebets the previous round, once or doubled', async () => {
    const { api } = harness;
    const first = await openRound(api, 'generic-e2e');
    expectStatus(
      await placeBets(api, first.roundId, 'quin', [
        { type: 'banker', amount: 400 },
        { type: 'tie', amount: 100 },
      ]),
      201,
    );
    for (const step of ['close-betting', 'deal'])
      expectStatus(await api.as('dealer').post(`/v1/rounds/${first.roundId}/${step}`), 200);
    await settled(api, first.roundId);
    const second = await openRound(api, 'generic-e2e');
    const rebet = expectStatus(
      await api
        .as('player', 'quin')
        .post<RoundView>(`/v1/rounds/${second.roundId}/rebet`, { multiplier: 2 }),
      201,
    );
    expect(rebet.bets.map((b) => [b.type, b.amount])).toEqual([
      ['banker', 800],
      ['tie', 200],
    ]);
    // The same rebet again changes nothing: its bet ids derive from the bets it repeats.
    const again = expectStatus(
      await api
        .as('player', 'quin')
        .post<RoundView>(`/v1/rounds/${second.roundId}/rebet`, { multiplier: 2 }),
      201,
    );
    expect(again.bets).toHaveLength(2);
    expect(
      (await api.as('player', 'nobody').post(`/v1/rounds/${second.roundId}/rebet`, {})).body,
    ).toMatchObject({ code: 'NO_PREVIOUS_BETS' });
    for (const step of ['close-betting', 'deal'])
      expectStatus(await api.as('dealer').post(`/v1/rounds/${second.roundId}/${step}`), 200);
    await settled(api, second.roundId);
    expect(checkMoney(await settledEverywhere(harness.store)).discrepancies).toEqual([]);
  });
});

describe('a scanner table', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startHarness({ store: 'postgres' });
    await openTable(harness.api, 'live-scan', 'live', {
      cardSource: 'scanner',
      decks: 1,
      cutCard: 16,
      bets: {
        player: { min: 100, max: 10_000, maxRound: null },
        banker: { min: 100, max: 10_000, maxRound: null },
        tie: { min: 100, max: 1_000, maxRound: null },
      },
    });
    await fund(harness.api, ['ray'], 100_000);
  });
  afterAll(async () => {
    await harness.close();
  });

  it('burns, rejects a card the shoe cannot hold, takes a supervisor correction, and settles', async () => {
    const { api } = harness;
    // A new scanner shoe waits for its burn card.
    const first = await api.as('dealer').post('/v1/tables/live-scan/rounds');
    expect(first.body).toMatchObject({ code: 'INVALID_DEAL' });
    expectStatus(await api.as('dealer').post('/v1/shoes/live-scan.1/burn', { card: 'KS' }), 200);
    const round = await openRound(api, 'live-scan');
    expectStatus(
      await placeBets(api, round.roundId, 'ray', [{ type: 'player', amount: 1_000 }]),
      201,
    );
    expectStatus(await api.as('dealer').post(`/v1/rounds/${round.roundId}/close-betting`), 200);
    const post = (card: string) =>
      api.as('dealer').post<RoundView>(`/v1/rounds/${round.roundId}/cards`, { card });
    // One deck, and the burn showed the king of spades: another is impossible.
    expect((await post('KS')).body).toMatchObject({ code: 'IMPOSSIBLE_CARD' });
    expect((await post('ZZ')).status).toBe(400);
    expectStatus(await post('9C'), 200); // Player
    expectStatus(await post('2D'), 200); // Banker
    expectStatus(await post('KH'), 200); // Player: 9 natural
    const dealt = expectStatus(await post('3S'), 200); // Banker
    expect(dealt.status).toBe('dealt');
    // The reader misread the first card: it was a 5. Player 5 now draws; the supervisor corrects it.
    const position = dealt.cards.player[0]!.shoePosition;
    expect(
      (
        await api.as('dealer').post(`/v1/rounds/${round.roundId}/cards/${position}/correction`, {
          card: '5C',
          reason: 'x',
        })
      ).status,
    ).toBe(403);
    const corrected = expectStatus(
      await api
        .as('supervisor')
        .post<RoundView>(`/v1/rounds/${round.roundId}/cards/${position}/correction`, {
          card: '5C',
          reason: 'card reader misread the five of clubs as a nine',
        }),
      200,
    );
    expect(corrected.status).toBe('dealing');
    expectStatus(await post('7H'), 200); // Player's third card: 5 + 0 + 7 = 2
    const complete = expectStatus(await post('4D'), 200); // Banker 5 draws on a 7: 5 + 4 = 9
    expect(complete.status).toBe('dealt');
    expectStatus(await api.as('dealer').post(`/v1/rounds/${round.roundId}/confirm`), 200);
    const done = await settled(api, round.roundId);
    expect(done.result).toMatchObject({ winner: 'banker', playerTotal: 2, bankerTotal: 9 });
    expect(done.settlement?.lines[0]).toMatchObject({ result: 'lose', payout: 0 });
    expect(checkMoney(await settledEverywhere(harness.store)).discrepancies).toEqual([]);
  });
});
