import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startHarness, type Harness } from '../support/harness.js';
import { checkMoney, settledEverywhere } from '../support/invariants.js';
import {
  balanceOf,
  expectStatus,
  fund,
  placeBets,
  settled,
  type RoundView,
} from '../support/play.js';

interface SessionView {
  sessionId: string;
  ownerId: string;
  preset: string;
  status: 'open' | 'closed';
  currentRound: { roundId: string; status: string } | null;
  history: { roundId: string; result: string }[];
}
interface Verdict {
  verdict: { ok: boolean; findings: unknown[] };
}

/**
 * 003 Baccarat Touch and 004 as their players know them: a player opens a table of their own,
 * bets, and deals it; its shoes, commitments and audits are those of any rng table.
 */
describe('player sessions (003, 004)', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startHarness({ store: 'memory' });
    await fund(harness.api, ['sofia', 'sid', 'tim', 'ida', 'eve'], 1_000_000);
  });
  afterAll(async () => {
    await harness.close();
  });

  const opened: [player: string, sessionId: string][] = [];
  const openSession = async (player: string, preset = 'touch'): Promise<SessionView> => {
    const session = expectStatus(
      await harness.api.as('player', player).post<SessionView>('/v1/sessions', { preset }),
      201,
    );
    opened.push([player, session.sessionId]);
    return session;
  };
  const sessionRound = async (player: string, sessionId: string): Promise<RoundView> => {
    const response = await harness.api
      .as('player', player)
      .post<RoundView>(`/v1/sessions/${sessionId}/rounds`);
    expect([200, 201], JSON.stringify(response.body)).toContain(response.status);
    return response.body;
  };
  const expectAudited = async (round: RoundView) => {
    // The audit judges a settled round: in the distributed run the payouts reach the wallet
    // through the ledger queue a moment after the deal answers, so wait until every stake is closed.
    await settledEverywhere(harness.store);
    const regulator = harness.api.as('regulator');
    const audit = expectStatus(
      await regulator.get<Verdict>(`/v1/audit/rounds/${round.roundId}`),
      200,
    );
    expect(audit.verdict.findings).toEqual([]);
    expect(audit.verdict.ok).toBe(true);
  };

  it('a player opens a session, bets and deals it; the round and its shoe audit as valid', async () => {
    const { api } = harness;
    const session = await openSession('sofia');
    expect(session).toMatchObject({ ownerId: 'sofia', preset: 'touch', status: 'open' });
    const round = await sessionRound('sofia', session.sessionId);
    expect(round.status).toBe('betting');
    expectStatus(
      await placeBets(api, round.roundId, 'sofia', [{ type: 'banker', amount: 100 }]),
      201,
    );
    const dealt = expectStatus(
      await api.as('player', 'sofia').post<RoundView>(`/v1/rounds/${round.roundId}/deal`),
      200,
    );
    expect(dealt.status).toBe('completed');
    const done = await settled(api, round.roundId);
    expect(done.settlement?.lines).toHaveLength(1);
    await expectAudited(done);
    // The next round shuffles a fresh shoe, closing this one: its replay verifies.
    await sessionRound('sofia', session.sessionId);
    const replay = expectStatus(
      await api.as('regulator').get<Verdict>(`/v1/audit/shoes/${round.shoeId}/replay`),
      200,
    );
    expect(replay.verdict.findings).toEqual([]);
    expect(replay.verdict.ok).toBe(true);
    // A session is its player's table, not the floor's.
    const floor = expectStatus(
      await api.as('regulator').get<{ tableId: string }[]>('/v1/tables'),
      200,
    );
    expect(floor.map((t) => t.tableId)).not.toContain(session.sessionId);
  });

  it('only the owner bets on or deals a session; a player deals no shared table', async () => {
    const { api } = harness;
    const session = await openSession('sid', 'single-deck');
    const round = await sessionRound('sid', session.sessionId);
    const intruder = await placeBets(api, round.roundId, 'eve', [{ type: 'player', amount: 100 }]);
    expect(intruder.status).toBe(403);
    expect(intruder.body).toMatchObject({ code: 'FORBIDDEN' });
    const before = await balanceOf(api, 'eve');
    expect(before).toBe(1_000_000); // refused before any debit
    expectStatus(
      await placeBets(api, round.roundId, 'sid', [{ type: 'player', amount: 100 }]),
      201,
    );
    for (const [role, id] of [
      ['player', 'eve'],
      ['dealer', 'dan'],
    ] as const) {
      const refused = await api.as(role, id).post(`/v1/rounds/${round.roundId}/deal`);
      expect(refused.status, role).toBe(403);
      expect(refused.body).toMatchObject({ code: 'FORBIDDEN' });
    }
    expect((await api.as('player', 'eve').get(`/v1/sessions/${session.sessionId}`)).status).toBe(
      403,
    );
    expect(
      (await api.as('player', 'eve').post(`/v1/sessions/${session.sessionId}/deal`, { rebet: 1 }))
        .status,
    ).toBe(403);
    // A shared table is dealt by its dealers: a player is refused there too.
    expectStatus(
      await api.as('operator').post('/v1/tables', { tableId: 'shared-touch', preset: 'touch' }),
      201,
    );
    const shared = expectStatus(
      await api.as('dealer').post<RoundView>('/v1/tables/shared-touch/rounds'),
      201,
    );
    expect((await api.as('player', 'sid').post(`/v1/rounds/${shared.roundId}/deal`)).status).toBe(
      403,
    );
    expectStatus(
      await api.as('supervisor').post(`/v1/rounds/${shared.roundId}/void`, { reason: 'test over' }),
      200,
    );
    // The owner deals.
    expectStatus(await api.as('player', 'sid').post(`/v1/rounds/${round.roundId}/deal`), 200);
    await expectAudited(await settled(api, round.roundId));
  });

  it("a session's shoes and rounds are its owner's: no dealer starts or closes its shoe, no other player reads its rounds", async () => {
    const { api } = harness;
    const session = await openSession('ida', 'single-deck');
    const round = await sessionRound('ida', session.sessionId);
    expectStatus(
      await placeBets(api, round.roundId, 'ida', [{ type: 'player', amount: 100 }]),
      201,
    );
    expectStatus(await api.as('player', 'ida').post(`/v1/rounds/${round.roundId}/deal`), 200);
    await settled(api, round.roundId);
    const shoeBefore = expectStatus(
      await api.as('regulator').get<{ status: string }>(`/v1/shoes/${round.shoeId}`),
      200,
    );
    const refusals = [
      await api.as('dealer', 'dan').post(`/v1/tables/${session.sessionId}/shoes`),
      await api.as('supervisor', 'sue').post(`/v1/tables/${session.sessionId}/shoes`),
      await api.as('operator', 'olga').post(`/v1/tables/${session.sessionId}/shoes/current/close`),
      await api.as('player', 'eve').get(`/v1/rounds/${round.roundId}`),
      await api.as('player', 'eve').get(`/v1/sessions/${session.sessionId}`),
      await api.as('dealer', 'dan').post(`/v1/rounds/${round.roundId}/deal`),
    ];
    for (const refused of refusals) {
      expect(refused.status, JSON.stringify(refused.body)).toBe(403);
      expect(refused.body).toMatchObject({ code: 'FORBIDDEN' });
      // A refusal never names the player whose session it is.
      expect(JSON.stringify(refused.body)).not.toContain('ida');
    }
    // Nothing changed: the shoe is as it was, and the owner still reads her round.
    expect(expectStatus(await api.as('regulator').get(`/v1/shoes/${round.shoeId}`), 200)).toEqual(
      shoeBefore,
    );
    expect(
      expectStatus(await api.as('player', 'ida').get<RoundView>(`/v1/rounds/${round.roundId}`), 200)
        .roundId,
    ).toBe(round.roundId);
    expectStatus(await api.as('supervisor').get(`/v1/rounds/${round.roundId}`), 200);
  });

  it("no refusal of a route on another player's session names its owner", async () => {
    const { api } = harness;
    // An owner whose id is no word of any message: found only if a refusal names her.
    const owner = `owner${randomUUID().slice(0, 8)}`;
    await fund(api, [owner], 1_000_000);
    const session = await openSession(owner);
    const round = await sessionRound(owner, session.sessionId);
    const [bet] = expectStatus(
      await placeBets(api, round.roundId, owner, [{ type: 'player', amount: 100 }]),
      201,
    ).bets;
    const eve = api.as('player', 'eve');
    const answers = [
      await eve.get(`/v1/sessions/${session.sessionId}`),
      await eve.post(`/v1/sessions/${session.sessionId}/rounds`),
      await eve.post(`/v1/sessions/${session.sessionId}/deal`, { rebet: 1 }),
      await eve.post(`/v1/sessions/${session.sessionId}/close`),
      await eve.get(`/v1/rounds/${round.roundId}`),
      await placeBets(api, round.roundId, 'eve', [{ type: 'player', amount: 100 }]),
      await eve.post(`/v1/rounds/${round.roundId}/rebet`, { times: 1 }),
      await eve.delete(`/v1/rounds/${round.roundId}/bets`),
      await eve.delete(`/v1/rounds/${round.roundId}/bets/${bet!.betId}`),
      await eve.post(`/v1/rounds/${round.roundId}/deal`),
      await eve.post(`/v1/tables/${session.sessionId}/rounds`),
      await eve.post(`/v1/tables/${session.sessionId}/seats/1`),
      await api.as('dealer', 'dan').post(`/v1/rounds/${round.roundId}/deal`),
      await api.as('dealer', 'dan').post(`/v1/tables/${session.sessionId}/rounds`),
      await api.as('dealer', 'dan').post(`/v1/rounds/${round.roundId}/close-betting`),
    ];
    for (const answer of answers) {
      const body = JSON.stringify(answer.body);
      // Each is refused (403, or a 4xx naming what else is wrong), and none names the owner.
      expect(answer.status, body).toBeGreaterThanOrEqual(400);
      expect(answer.status, body).toBeLessThan(500);
      expect(body).not.toContain(owner);
    }
    // Nothing changed: the owner's bet stands.
    const after = expectStatus(
      await api.as('player', owner).get<RoundView>(`/v1/rounds/${round.roundId}`),
      200,
    );
    expect(after.bets.map((b) => [b.betId, b.status])).toEqual([[bet!.betId, 'active']]);
    // The owner deals it: no stake is left open for the tests after this one.
    expectStatus(await api.as('player', owner).post(`/v1/rounds/${round.roundId}/deal`), 200);
    await settled(api, round.roundId);
  });

  it('rebet and rebet x2 place the previous bets and deal, in one request each', async () => {
    const { api } = harness;
    const session = await openSession('tim');
    const player = api.as('player', 'tim');
    const first = await sessionRound('tim', session.sessionId);
    expectStatus(
      await placeBets(api, first.roundId, 'tim', [
        { type: 'banker', amount: 200 },
        { type: 'tie', amount: 10 },
      ]),
      201,
    );
    expectStatus(await player.post(`/v1/sessions/${session.sessionId}/deal`, {}), 200);
    await settled(api, first.roundId);

    const twice = expectStatus(
      await player.post<RoundView>(`/v1/sessions/${session.sessionId}/deal`, { rebet: 2 }),
      200,
    );
    expect(twice.status).toBe('completed');
    expect(twice.bets.map((b) => [b.type, b.amount]).sort()).toEqual([
      ['banker', 400],
      ['tie', 20],
    ]);
    await expectAudited(await settled(api, twice.roundId));

    const again = expectStatus(
      await player.post<RoundView>(`/v1/sessions/${session.sessionId}/deal`, { rebet: 1 }),
      200,
    );
    expect(again.bets.map((b) => [b.type, b.amount]).sort()).toEqual([
      ['banker', 400],
      ['tie', 20],
    ]);
    // Naming the round makes a retry safe: the dealt round is answered as it is.
    const retried = expectStatus(
      await player.post<RoundView>(`/v1/sessions/${session.sessionId}/deal`, {
        rebet: 1,
        roundId: again.roundId,
      }),
      200,
    );
    expect(retried.roundId).toBe(again.roundId);
    expect(retried.bets).toHaveLength(2);
    await settled(api, again.roundId);

    // Dealing with nothing on the table is refused, and moves nothing.
    const empty = await player.post(`/v1/sessions/${session.sessionId}/deal`, {});
    expect(empty.status).toBe(422);
    expect(empty.body).toMatchObject({ code: 'NO_BETS_TO_DEAL' });
  });

  it('one bet is removed before the deal and its stake comes back; the others stand', async () => {
    const { api } = harness;
    const session = await openSession('ida');
    const round = await sessionRound('ida', session.sessionId);
    const chips = [randomUUID(), randomUUID(), randomUUID()];
    expectStatus(
      await placeBets(
        api,
        round.roundId,
        'ida',
        chips.map((betId) => ({ type: 'player', amount: 100, betId })),
      ),
      201,
    );
    const before = await balanceOf(api, 'ida');
    const removed = expectStatus(
      await api
        .as('player', 'ida')
        .delete<RoundView>(`/v1/rounds/${round.roundId}/bets/${chips[1]}`),
      200,
    );
    expect(removed.bets.filter((b) => b.status === 'active').map((b) => b.betId)).toEqual([
      chips[0],
      chips[2],
    ]);
    await vi.waitFor(
      async () => {
        expect(await balanceOf(api, 'ida')).toBe(before + 100);
      },
      {
        timeout: 10_000,
        interval: 20,
      },
    );
    const twice = await api
      .as('player', 'ida')
      .delete(`/v1/rounds/${round.roundId}/bets/${chips[1]}`);
    expect(twice.status).toBe(422);
    expect(twice.body).toMatchObject({ code: 'NO_BETS_TO_CLEAR' });
    const dealt = expectStatus(
      await api.as('player', 'ida').post<RoundView>(`/v1/rounds/${round.roundId}/deal`),
      200,
    );
    const done = await settled(api, dealt.roundId);
    expect(done.settlement!.lines.map((l) => l.betId).sort()).toEqual([chips[0], chips[2]].sort());
    await expectAudited(done);
  });

  it("keeps the session's results across its shoes: history and roads show every round", async () => {
    const { api } = harness;
    const session = await openSession('sofia', 'single-deck');
    const player = api.as('player', 'sofia');
    const first = await sessionRound('sofia', session.sessionId);
    expectStatus(
      await placeBets(api, first.roundId, 'sofia', [{ type: 'player', amount: 100 }]),
      201,
    );
    const results: string[] = [];
    let round = expectStatus(await player.post<RoundView>(`/v1/rounds/${first.roundId}/deal`), 200);
    results.push(round.result!.winner);
    for (let i = 0; i < 3; i++) {
      await settled(api, round.roundId);
      round = expectStatus(
        await player.post<RoundView>(`/v1/sessions/${session.sessionId}/deal`, { rebet: 1 }),
        200,
      );
      results.push(round.result!.winner);
    }
    const view = expectStatus(
      await player.get<SessionView>(`/v1/sessions/${session.sessionId}`),
      200,
    );
    const letter = (winner: string) =>
      winner === 'banker' ? 'B' : winner === 'player' ? 'P' : 'T';
    expect(view.history.map((h) => h.result)).toEqual(results.map(letter));
    expect(new Set(view.history.map((h) => h.roundId.split('.')[1])).size).toBe(4); // four shoes
    const history = expectStatus(
      await player.get<{ result: string }[]>(`/v1/tables/${session.sessionId}/history`),
      200,
    );
    expect(history).toHaveLength(4);
    const roads = expectStatus(
      await player.get<{ beadPlate: string[] }>(`/v1/tables/${session.sessionId}/roads`),
      200,
    );
    expect(roads.beadPlate).toEqual(results.map(letter));
  });

  it('closing a session voids the round still taking bets, refunds it, and closes shoe and table', async () => {
    const { api } = harness;
    const session = await openSession('eve');
    const round = await sessionRound('eve', session.sessionId);
    const before = await balanceOf(api, 'eve');
    expectStatus(await placeBets(api, round.roundId, 'eve', [{ type: 'tie', amount: 500 }]), 201);
    const closed = expectStatus(
      await api.as('player', 'eve').post<SessionView>(`/v1/sessions/${session.sessionId}/close`),
      200,
    );
    expect(closed.status).toBe('closed');
    const voided = await settled(api, round.roundId);
    expect(voided.status).toBe('voided');
    await vi.waitFor(
      async () => {
        expect(await balanceOf(api, 'eve')).toBe(before);
      },
      {
        timeout: 10_000,
        interval: 20,
      },
    );
    await expectAudited(voided);
    const shoe = expectStatus(
      await api.as('regulator').get<{ status: string }>(`/v1/shoes/${round.shoeId}`),
      200,
    );
    expect(shoe.status).toBe('closed');
    const replay = expectStatus(
      await api.as('regulator').get<Verdict>(`/v1/audit/shoes/${round.shoeId}/replay`),
      200,
    );
    expect(replay.verdict.findings).toEqual([]);
    const after = await api.as('player', 'eve').post(`/v1/sessions/${session.sessionId}/rounds`);
    expect(after.status).toBe(409);
    expect(after.body).toMatchObject({ code: 'TABLE_CLOSED' });
  });

  it('leaving every session finishes every round: the money balances', async () => {
    for (const [player, sessionId] of opened) {
      const left = expectStatus(
        await harness.api.as('player', player).post<SessionView>(`/v1/sessions/${sessionId}/close`),
        200,
      );
      expect(left.status).toBe('closed');
    }
    expect(checkMoney(await settledEverywhere(harness.store)).discrepancies).toEqual([]);
  });
});
