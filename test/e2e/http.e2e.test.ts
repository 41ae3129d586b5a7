import { randomUUID } from 'node:crypto';
import { TokenAuthority } from '@croupier/http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startHarness, type Harness } from '../support/harness.js';
import { allEvents } from '../support/invariants.js';
import { deliver } from '../support/surface.js';
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

interface Problem {
  code: string;
  status: number;
  detail: string;
  errors?: { field: string; message: string }[];
}

describe('the HTTP API refuses bad input and changes nothing', () => {
  let harness: Harness;
  let round: RoundView;
  beforeAll(async () => {
    harness = await startHarness({ store: 'memory' });
    await openTable(harness.api, 'http-e2e', 'live');
    await fund(harness.api, ['zoe', 'yan'], 100_000);
    round = await openRound(harness.api, 'http-e2e');
  });
  afterAll(async () => {
    await harness.close();
  });

  /** Runs a request that must be refused, and checks no event was appended. */
  async function refused(
    request: () => Promise<{ status: number; body: unknown; headers: Record<string, unknown> }>,
  ) {
    const before = (await allEvents(harness.store)).length;
    const response = await request();
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(response.status).toBeLessThan(500);
    expect(String(response.headers['content-type'])).toMatch(/application\/problem\+json/);
    expect((await allEvents(harness.store)).length).toBe(before);
    return response.body as Problem;
  }

  it('names the field of a wrongly typed or malformed body', async () => {
    const bad = await refused(() =>
      placeBets(harness.api, round.roundId, 'zoe', [{ type: 'player', amount: '100' as never }]),
    );
    expect(bad).toMatchObject({ code: 'VALIDATION_ERROR', status: 400 });
    expect(bad.errors?.[0]?.field).toBe('body.bets.0.amount');
    const extra = await refused(() =>
      harness.api
        .as('player', 'zoe')
        .post(`/v1/rounds/${round.roundId}/bets`, { bets: [], hack: 1 }),
    );
    expect(extra.code).toBe('VALIDATION_ERROR');
    const deposit = await refused(() =>
      harness.api
        .as('operator')
        .post('/v1/wallets/zoe/deposits', { amount: 10.5, currency: 'EUR', reference: 'x' }),
    );
    expect(deposit.errors?.[0]?.field).toBe('body.amount');
    const badId = await refused(() => harness.api.as('regulator').get('/v1/rounds/not a round'));
    expect(badId.code).toBe('VALIDATION_ERROR');
  });

  it('refuses negative, fractional and zero stakes, unknown bets and bets over the limits', async () => {
    for (const amount of [-100, 0, 150.5]) {
      const problem = await refused(() =>
        placeBets(harness.api, round.roundId, 'zoe', [{ type: 'player', amount }]),
      );
      expect(problem).toMatchObject({
        code: 'INVALID_AMOUNT',
        status: 422,
        errors: [{ field: 'amount' }],
      });
    }
    expect(
      (
        await refused(() =>
          placeBets(harness.api, round.roundId, 'zoe', [{ type: 'dragon_bonus', amount: 100 }]),
        )
      ).code,
    ).toBe('UNKNOWN_BET');
    expect(
      (
        await refused(() =>
          placeBets(harness.api, round.roundId, 'zoe', [{ type: 'tie', amount: 50_001 }]),
        )
      ).code,
    ).toBe('BET_ABOVE_MAX');
    expect(
      (
        await refused(() =>
          placeBets(harness.api, round.roundId, 'zoe', [{ type: 'player', amount: 50 }]),
        )
      ).code,
    ).toBe('BET_BELOW_MIN');
    expect(
      (
        await refused(() =>
          placeBets(harness.api, round.roundId, 'zoe', [{ type: 'player', amount: 600_000 }]),
        )
      ).code,
    ).toBe('BET_DIFFERENCE_LIMIT');
    expect(
      (
        await refused(() =>
          placeBets(harness.api, round.roundId, 'zoe', [
            { type: 'banker', amount: 100, bankerMode: 'free' },
          ]),
        )
      ).code,
    ).toBe('BANKER_MODE_NOT_OFFERED');
    expect(
      (
        await refused(() =>
          placeBets(harness.api, round.roundId, 'zoe', [{ type: 'player', amount: 200_000 }]),
        )
      ).code,
    ).toBe('INSUFFICIENT_FUNDS');
  });

  it('refuses a double submit and every reuse of a bet id, changing nothing', async () => {
    const betId = randomUUID();
    const bet = { type: 'banker', amount: 500, betId };
    const first = expectStatus(await placeBets(harness.api, round.roundId, 'yan', [bet]), 201);
    const balance = await balanceOf(harness.api, 'yan');
    // The same bet again: refused, and the first one stands.
    const again = await refused(() => placeBets(harness.api, round.roundId, 'yan', [bet]));
    expect(again).toMatchObject({ code: 'DUPLICATE_BET', status: 409 });
    expect(again.detail).toContain(betId);
    // The same id for another stake, another bet, or by another player: a conflict.
    for (const [player, other] of [
      ['yan', { ...bet, amount: 700 }],
      ['yan', { ...bet, type: 'tie' }],
      ['zoe', bet],
    ] as const) {
      const conflict = await refused(() => placeBets(harness.api, round.roundId, player, [other]));
      expect(conflict).toMatchObject({ code: 'ID_CONFLICT', status: 409 });
    }
    // A new id beside a placed one: the whole request is refused.
    const mixed = await refused(() =>
      placeBets(harness.api, round.roundId, 'yan', [
        bet,
        { type: 'player', amount: 100, betId: randomUUID() },
      ]),
    );
    expect(mixed.code).toBe('DUPLICATE_BET');
    // One id twice in one request.
    const twice = randomUUID();
    const doubled = await refused(() =>
      placeBets(harness.api, round.roundId, 'zoe', [
        { type: 'player', amount: 100, betId: twice },
        { type: 'tie', amount: 100, betId: twice },
      ]),
    );
    expect(doubled.code).toBe('VALIDATION_ERROR');
    // Without a bet id a double submit could not be told from a second bet: refused.
    const noId = await refused(() =>
      harness.api
        .as('player', 'yan')
        .post(`/v1/rounds/${round.roundId}/bets`, { bets: [{ type: 'player', amount: 100 }] }),
    );
    expect(noId.errors?.[0]?.field).toBe('body.bets.0.betId');
    expect(await balanceOf(harness.api, 'yan')).toBe(balance);
    const now = expectStatus(
      await harness.api.as('player', 'yan').get<RoundView>(`/v1/rounds/${round.roundId}`),
      200,
    );
    expect(now.bets).toEqual(first.bets);
  });

  it('refuses a bet id of an earlier round, and a deposit reference reused for another amount', async () => {
    const earlier = await openRound(harness.api, 'http-e2e-ids').catch(async () => {
      await openTable(harness.api, 'http-e2e-ids', 'live');
      return openRound(harness.api, 'http-e2e-ids');
    });
    const betId = randomUUID();
    expectStatus(
      await placeBets(harness.api, earlier.roundId, 'zoe', [
        { type: 'player', amount: 100, betId },
      ]),
      201,
    );
    await harness.api.as('dealer').post(`/v1/rounds/${earlier.roundId}/close-betting`);
    await harness.api.as('dealer').post(`/v1/rounds/${earlier.roundId}/deal`);
    await settled(harness.api, earlier.roundId);
    // Nothing else appends while the refusals run: the payout has reached the wallet too (in the
    // distributed deployment it travels the bus after the round shows settled).
    await vi.waitFor(
      async () => {
        const credited = (await allEvents(harness.store)).filter(
          (event) =>
            event.type === 'PayoutCredited' && (event.data as { betId?: string }).betId === betId,
        );
        expect(credited).toHaveLength(1);
      },
      { timeout: 20_000, interval: 50 },
    );
    const later = await openRound(harness.api, 'http-e2e-ids');
    const reused = await refused(() =>
      placeBets(harness.api, later.roundId, 'zoe', [{ type: 'player', amount: 100, betId }]),
    );
    expect(reused).toMatchObject({ code: 'ID_CONFLICT', status: 409 });
    const stolen = await refused(() =>
      placeBets(harness.api, later.roundId, 'yan', [{ type: 'player', amount: 100, betId }]),
    );
    expect(stolen.code).toBe('ID_CONFLICT');

    const deposit = (amount: number) =>
      harness.api
        .as('operator')
        .post('/v1/wallets/zoe/deposits', { amount, currency: 'EUR', reference: 'topup-7' });
    expectStatus(await deposit(1_000), 201);
    const balance = await balanceOf(harness.api, 'zoe');
    // A retried deposit (same reference, same amount) counts once; another amount is refused.
    expectStatus(await deposit(1_000), 201);
    expect(await balanceOf(harness.api, 'zoe')).toBe(balance);
    const conflict = await refused(() => deposit(500));
    expect(conflict).toMatchObject({ code: 'ID_CONFLICT', errors: [{ field: 'reference' }] });
    expect(await balanceOf(harness.api, 'zoe')).toBe(balance);
  });

  it('refuses bets once betting has closed', async () => {
    expectStatus(
      await harness.api.as('dealer').post(`/v1/rounds/${round.roundId}/close-betting`),
      200,
    );
    expect(
      (
        await refused(() =>
          placeBets(harness.api, round.roundId, 'zoe', [{ type: 'player', amount: 100 }]),
        )
      ).code,
    ).toBe('BETTING_CLOSED');
  });

  it('answers unknown things with 404 problems', async () => {
    expect((await refused(() => harness.api.as('regulator').get('/v1/rounds/nope.1.1'))).code).toBe(
      'ROUND_NOT_FOUND',
    );
    expect((await refused(() => harness.api.as('regulator').get('/v1/tables/nope'))).code).toBe(
      'TABLE_NOT_FOUND',
    );
    // A route nobody serves: the one process, or each process of the distributed deployment.
    const token = `Bearer ${await harness.api.token('regulator', 'regulator-1')}`;
    const askers =
      harness.cluster === null
        ? [() => harness.api.as('regulator').get('/v1/nothing-here')]
        : harness.cluster.processes.map((process) => async () => {
            const answer = await deliver(process.url, {
              method: 'GET',
              url: '/v1/nothing-here',
              headers: { authorization: token },
            });
            return {
              status: answer.statusCode,
              headers: answer.headers,
              body: JSON.parse(answer.body) as unknown,
            };
          });
    for (const ask of askers) expect((await refused(ask)).code).toBe('NOT_FOUND');
  });
});

describe('who may do what', () => {
  let harness: Harness;
  beforeAll(async () => {
    // Distributed, the gateway serves the significant events and the game history.
    harness = await startHarness({
      store: 'memory',
      gateway: true,
      // Failed logins reach the security log once a window: the shortest, so the test sees it.
      env: { FAILED_LOGIN_WINDOW_MS: '1000' },
    });
    await openTable(harness.api, 'auth-e2e', 'generic');
    await fund(harness.api, ['ada', 'bea'], 10_000);
  });
  afterAll(async () => {
    await harness.close();
  });

  it('refuses a request without a valid token', async () => {
    const { api } = harness;
    expect((await api.raw('GET', '/v1/tables')).body).toMatchObject({
      code: 'UNAUTHENTICATED',
      status: 401,
    });
    expect((await api.raw('GET', '/v1/tables', undefined, 'Bearer not.a.jwt')).status).toBe(401);
    const forged = await new TokenAuthority('another-secret-0123456789abcdef0123456789').issue({
      id: 'op',
      role: 'operator',
    });
    expect((await api.raw('GET', '/v1/tables', undefined, `Bearer ${forged}`)).body).toMatchObject({
      code: 'UNAUTHENTICATED',
      detail: 'the token signature is not valid',
    });
    const expired = await harness.tokens.issue(
      { id: 'op', role: 'operator' },
      Math.floor(Date.now() / 1000) - 60,
    );
    expect((await api.raw('GET', '/v1/tables', undefined, `Bearer ${expired}`)).body).toMatchObject(
      { detail: 'the token has expired' },
    );
  });

  it('lists failed logins among the significant events', async () => {
    const { api } = harness;
    await api.raw(
      'GET',
      '/v1/wallets/ada?access_token=forged',
      undefined,
      'Bearer forged.token.here',
    );
    // Counted, then written with the window: one line for the client, never the token.
    await expect
      .poll(
        async () => {
          const log = await api
            .as('regulator')
            .get<{ events: { category: string; summary: string }[] }>('/v1/significant-events');
          return log.body.events.filter((e) => e.category === 'failed-login').map((e) => e.summary);
        },
        { timeout: 30_000, interval: 200 },
      )
      .toEqual(
        expect.arrayContaining([
          // This client's failures of the window, the earlier tests' included.
          expect.stringMatching(
            /^\d+ failed logins? from \S+ between .* \(.*invalid \d+.*\); first: /,
          ),
        ]),
      );
    const log = await api.as('regulator').get('/v1/significant-events');
    expect(JSON.stringify(log.body)).not.toContain('forged.token.here');
    expect(JSON.stringify(log.body)).not.toContain('access_token=forged');
  });

  it('lets each role do only its part', async () => {
    const { api } = harness;
    expect((await api.as('player', 'ada').post('/v1/tables/auth-e2e/rounds')).status).toBe(403);
    expect(
      (
        await api
          .as('regulator')
          .post('/v1/wallets/ada/deposits', { amount: 1, currency: 'EUR', reference: 'r' })
      ).status,
    ).toBe(403);
    expect(
      (await api.as('dealer').post('/v1/tables', { tableId: 'x', preset: 'live' })).status,
    ).toBe(403);
    const round = await openRound(api, 'auth-e2e');
    expect(
      (
        await api.as('dealer').post(`/v1/rounds/${round.roundId}/bets`, {
          bets: [{ type: 'player', amount: 100, betId: randomUUID() }],
        })
      ).status,
    ).toBe(403);
    expect(
      (await api.as('dealer').post(`/v1/rounds/${round.roundId}/void`, { reason: 'r' })).status,
    ).toBe(403);
    expect((await api.as('regulator').get(`/v1/rounds/${round.roundId}`)).status).toBe(200);
  });

  it("keeps a player out of another player's wallet and history, and shows them only their own bets", async () => {
    const { api } = harness;
    expect((await api.as('player', 'ada').get('/v1/wallets/bea')).body).toMatchObject({
      code: 'FORBIDDEN',
      status: 403,
    });
    expect((await api.as('player', 'ada').get('/v1/players/bea/history')).status).toBe(403);
    expect((await api.as('player', 'ada').get('/v1/wallets/ada')).status).toBe(200);
    // A table of its own: the round the previous test opened is not this test's to rely on.
    await openTable(api, 'auth-e2e-bets', 'generic');
    const round = await openRound(api, 'auth-e2e-bets');
    expectStatus(
      await placeBets(api, round.roundId, 'ada', [{ type: 'player', amount: 100 }]),
      201,
    );
    expectStatus(
      await placeBets(api, round.roundId, 'bea', [{ type: 'banker', amount: 100 }]),
      201,
    );
    const seenByAda = expectStatus(
      await api.as('player', 'ada').get<RoundView>(`/v1/rounds/${round.roundId}`),
      200,
    );
    expect(seenByAda.bets.map((b) => b.playerId)).toEqual(['ada']);
    const seenBySupervisor = expectStatus(
      await api.as('supervisor').get<RoundView>(`/v1/rounds/${round.roundId}`),
      200,
    );
    expect(seenBySupervisor.bets).toHaveLength(2);
  });
});
