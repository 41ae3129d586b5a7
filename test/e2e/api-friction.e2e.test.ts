import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/harness.js';
import { expectStatus, fund, openRound, openTable, type RoundView } from '../support/play.js';

interface ShoeView {
  shoeId: string;
  lastRoundNumber: number | null;
  cutCard: {
    position: number;
    cardsFromEnd: number;
    reached: boolean;
    reachedInRound: number | null;
  } | null;
}

/** Issue 15: what a client written from the docs stumbled on. */
describe('API friction', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startHarness({ store: 'memory' });
    await fund(harness.api, ['fern'], 1_000_000);
  });
  afterAll(async () => {
    await harness.close();
  });

  /**
   * A POST as many HTTP clients send it: content-type application/json and no body at all, over
   * a real connection.
   */
  async function emptyJsonPost(path: string): Promise<{ status: number; body: unknown }> {
    const token = await harness.api.token('dealer', 'dealer-1');
    const response = await fetch(`${await harness.origin(path)}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    });
    return { status: response.status, body: await response.json() };
  }

  it('takes an empty JSON body on commands that take none, and a scanner shoe names itself', async () => {
    const { api } = harness;
    // One deck, the cut card 14 cards from the end.
    await openTable(api, 'fr-scan', 'generic', { cardSource: 'scanner', decks: 1, cutCard: 14 });

    // The first round of a new scanner shoe: the shoe is created, the round refused until it is
    // burned; the problem names the shoe in a field of its own.
    const refused = await emptyJsonPost('/v1/tables/fr-scan/rounds');
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({
      code: 'INVALID_DEAL',
      shoeId: 'fr-scan.1',
      hint: 'POST /v1/shoes/fr-scan.1/burn',
    });
    const fresh = expectStatus(await api.as('dealer').get<ShoeView>('/v1/shoes/fr-scan.1'), 200);
    expect(fresh.cutCard).toEqual({
      position: 52 - 14,
      cardsFromEnd: 14,
      reached: false,
      reachedInRound: null,
    });
    expectStatus(await api.as('dealer').post('/v1/shoes/fr-scan.1/burn', { card: 'KS' }), 200);

    const opened = await emptyJsonPost('/v1/tables/fr-scan/rounds');
    expect(opened.status, JSON.stringify(opened.body)).toBe(201);
    const { roundId } = opened.body as RoundView;
    expect((await emptyJsonPost(`/v1/rounds/${roundId}/close-betting`)).status).toBe(200);
    for (const card of ['9C', '2D', 'KH', '3S'])
      expectStatus(await api.as('dealer').post(`/v1/rounds/${roundId}/cards`, { card }), 200);

    // The cut card answers with what it changed: the shoe's cut card and its last round.
    const cut = await emptyJsonPost(`/v1/rounds/${roundId}/cut-card`);
    expect(cut.status, JSON.stringify(cut.body)).toBe(200);
    const shoe = cut.body as ShoeView;
    expect(shoe.shoeId).toBe('fr-scan.1');
    expect(shoe.lastRoundNumber).toBe(2);
    expect(shoe.cutCard).toEqual({
      position: 11 + 4, // after the burn (the king and ten more) and the round's four cards
      cardsFromEnd: 52 - 15,
      reached: true,
      reachedInRound: 1,
    });
    expect(expectStatus(await api.as('player', 'fern').get('/v1/shoes/fr-scan.1'), 200)).toEqual(
      shoe,
    );
    expect((await emptyJsonPost(`/v1/rounds/${roundId}/confirm`)).status).toBe(200);
  });

  it('takes as many bets in one request as a live table offers bet/mode combinations', async () => {
    const { api } = harness;
    await openTable(api, 'fr-live', 'live');
    const round = await openRound(api, 'fr-live');
    const types = [
      'player',
      'tie',
      'player_pair',
      'banker_pair',
      'either_pair',
      'perfect_pair',
      'player_natural',
      'banker_natural',
      'player_bonus',
      'banker_bonus',
      'lucky_six',
      'lucky_six_2',
      'lucky_six_3',
    ];
    const bets = [
      ...types.map((type) => ({ type, amount: 100, betId: randomUUID() })),
      { type: 'banker', amount: 100, bankerMode: 'commission', betId: randomUUID() },
      { type: 'banker', amount: 100, bankerMode: 'no_commission', betId: randomUUID() },
    ];
    expect(bets).toHaveLength(15);
    const placed = expectStatus(
      await api.as('player', 'fern').post<RoundView>(`/v1/rounds/${round.roundId}/bets`, { bets }),
      201,
    );
    expect(placed.bets).toHaveLength(15);

    // The touch table offers three combinations: a fourth bet in one request is too many.
    await openTable(api, 'fr-touch', 'touch');
    const touch = await openRound(api, 'fr-touch');
    const four = ['player', 'banker', 'tie', 'tie'].map((type) => ({
      type,
      amount: 10,
      betId: randomUUID(),
    }));
    const refused = await api
      .as('player', 'fern')
      .post(`/v1/rounds/${touch.roundId}/bets`, { bets: four });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({
      code: 'VALIDATION_ERROR',
      errors: [{ field: 'body.bets' }],
    });
  });
  it('bounds the paytable stake with a 400 naming it, not a 500', async () => {
    const { api } = harness;
    await openTable(api, 'fr-pay', 'live');
    const refused = await api
      .as('player', 'fern')
      .get('/v1/tables/fr-pay/paytable?stake=1000000000000000');
    expect(refused.status, JSON.stringify(refused.body)).toBe(400);
    expect(refused.body).toMatchObject({
      code: 'VALIDATION_ERROR',
      errors: [{ field: 'querystring.stake' }],
    });
    expect((refused.body as { detail: string }).detail).toMatch(
      /^querystring\.stake: must be at most \d+ minor units/,
    );
    // The largest stake it names is answered.
    const largest = Number(/at most (\d+)/.exec((refused.body as { detail: string }).detail)![1]);
    const answered = expectStatus(
      await api
        .as('player', 'fern')
        .get<{ stake: number }>(`/v1/tables/fr-pay/paytable?stake=${largest}`),
      200,
    );
    expect(answered.stake).toBe(largest);
    expect(
      (await api.as('player', 'fern').get(`/v1/tables/fr-pay/paytable?stake=${largest + 1}`))
        .status,
    ).toBe(400);
  });

  it('answers a path parameter too long without echoing it: no token in the problem', async () => {
    const { api } = harness;
    const token = await api.token('operator', 'olga');
    const response = await api.as('player', 'fern').get(`/v1/tables/${token}`);
    expect(response.status).toBe(414);
    expect(response.body).toMatchObject({ code: 'URI_TOO_LONG' });
    const text = JSON.stringify(response.body);
    expect(text).not.toContain(token);
    // Not even a part of it: the signature, or the claims.
    for (const part of token.split('.')) expect(text).not.toContain(part);
  });

  it('refuses a body with any field on every command that takes none, naming it, and changes nothing', async () => {
    const { api } = harness;
    await fund(api, ['gil'], 1_000_000);
    await openTable(api, 'fr-strict', 'land-based');
    const round = await openRound(api, 'fr-strict');
    const session = expectStatus(
      await api
        .as('player', 'gil')
        .post<{ sessionId: string }>('/v1/sessions', { preset: 'touch' }),
      201,
    );
    const commands: [
      role: 'player' | 'dealer' | 'supervisor' | 'operator',
      method: 'POST' | 'DELETE',
      url: string,
    ][] = [
      ['player', 'POST', '/v1/wallets/gil/play-money'],
      ['player', 'POST', `/v1/sessions/${session.sessionId}/rounds`],
      ['player', 'POST', `/v1/sessions/${session.sessionId}/close`],
      ['player', 'POST', '/v1/tables/fr-strict/seats/1'],
      ['player', 'DELETE', '/v1/tables/fr-strict/seats/1'],
      ['player', 'DELETE', `/v1/rounds/${round.roundId}/bets`],
      ['player', 'DELETE', `/v1/rounds/${round.roundId}/bets/${randomUUID()}`],
      ['dealer', 'POST', '/v1/tables/fr-strict/rounds'],
      ['dealer', 'POST', '/v1/tables/fr-strict/shoes'],
      ['dealer', 'POST', `/v1/rounds/${round.roundId}/close-betting`],
      ['dealer', 'POST', `/v1/rounds/${round.roundId}/confirm`],
      ['dealer', 'POST', `/v1/rounds/${round.roundId}/cut-card`],
      ['supervisor', 'POST', `/v1/rounds/${round.roundId}/resume`],
      ['operator', 'POST', '/v1/tables/fr-strict/shoes/current/close'],
      ['operator', 'POST', '/v1/admin/rebuild'],
    ];
    const before = (await harness.store.readAll()).length;
    for (const [role, method, url] of commands) {
      const who = role === 'player' ? api.as(role, 'gil') : api.as(role);
      const response = await who.request(method, url, { surprise: 1 });
      const what = `${method} ${url}: ${JSON.stringify(response.body)}`;
      expect(response.status, what).toBe(400);
      expect(response.body, what).toMatchObject({
        code: 'VALIDATION_ERROR',
        errors: [{ field: 'body.surprise' }],
      });
    }
    expect((await harness.store.readAll()).length).toBe(before);
    // An empty object, or no body at all, is still no body.
    expectStatus(
      await api.as('player', 'gil').post(`/v1/sessions/${session.sessionId}/rounds`, {}),
      201,
    );
  });
});
