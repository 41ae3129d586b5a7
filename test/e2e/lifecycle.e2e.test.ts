import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startHarness, type Harness } from '../support/harness.js';
import { allEvents, checkMoney, settledEverywhere } from '../support/invariants.js';
import { betAndHangUpUnanswered, betThenHangUp } from '../support/player-connection.js';
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

/** What the store holds about a bet placed and settled: each of these once, nothing else. */
const SETTLED_BET = ['BetPlaced', 'PayoutCredited', 'RoundSettled', 'StakeDebited'];
/** The players who hang up bet at a table of their own, apart from the other tests' rounds. */
const HANG_UP_TABLE = 'hang-up-e2e';

/**
 * Server-side TCP connections on a local port left half-closed (CLOSE_WAIT): the peer hung up
 * and the process listening there has not closed its side. From the kernel's table, so it sees
 * into a process of its own.
 */
function halfClosedOn(port: number): number {
  const local = `:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  return readFileSync('/proc/net/tcp', 'utf8')
    .split('\n')
    .slice(1)
    .map((line) => line.trim().split(/\s+/))
    .filter(([, localAddress, , state]) => localAddress?.endsWith(local) && state === '08').length;
}

describe('round lifecycle on PostgreSQL', () => {
  let harness: Harness;
  beforeAll(async () => {
    // Distributed, the gateway serves the game history.
    harness = await startHarness({ store: 'memory', gateway: true });
    await openTable(harness.api, 'generic-e2e', 'generic');
    await openTable(harness.api, HANG_UP_TABLE, 'generic');
    await fund(harness.api, ['pia', 'quin'], 100_000);
  });
  afterAll(async () => {
    await harness.close();
  });

  /** The types of the events that name a bet, sorted. */
  async function trailOf(betId: string): Promise<string[]> {
    return (await allEvents(harness.store))
      .filter((event) => JSON.stringify(event.data).includes(betId))
      .map((event) => event.type)
      .sort();
  }

  /** The bet's trail once its wallet has been paid (the payout travels the settlement bus). */
  function settledTrail(betId: string): Promise<string[]> {
    return vi.waitFor(
      async () => {
        const trail = await trailOf(betId);
        expect(trail).toContain('PayoutCredited');
        return trail;
      },
      { timeout: 20_000, interval: 50 },
    );
  }

  /**
   * Waits until the server saw the player hang up. One process: its server holds no connection
   * at all. Distributed: the round process, another process, holds none half-closed.
   */
  async function serverSawHangUp(): Promise<void> {
    if (harness.cluster !== null) {
      const { port } = harness.cluster.get('round');
      await vi.waitFor(
        () => {
          expect(halfClosedOn(port)).toBe(0);
        },
        { timeout: 5_000, interval: 20 },
      );
      return;
    }
    const { server } = harness.app;
    await vi.waitFor(
      async () => {
        const open = await new Promise<number>((resolve, reject) => {
          server.getConnections((error, count) => {
            if (error) reject(error);
            else resolve(count);
          });
        });
        expect(open).toBe(0);
      },
      { timeout: 5_000, interval: 20 },
    );
  }

  /** The dealer closes betting and deals; resolves with the settled round. */
  async function dealToTheEnd(roundId: string): Promise<RoundView> {
    const { api } = harness;
    expectStatus(await api.as('dealer').post(`/v1/rounds/${roundId}/close-betting`), 200);
    expectStatus(await api.as('dealer').post(`/v1/rounds/${roundId}/deal`), 200);
    return settled(api, roundId);
  }

  /** The player comes back, on a new connection, and finds the round and the bet settled. */
  async function expectInHistoryOnReturn(playerId: string, roundId: string, betId: string) {
    const { api } = harness;
    const round = expectStatus(
      await api.as('player', playerId).get<RoundView>(`/v1/rounds/${roundId}`),
      200,
    );
    expect(round.bets).toContainEqual(expect.objectContaining({ betId, playerId }));
    // Game history is served by the gateway's read side (beside the services, distributed).
    const history = await vi.waitFor(
      async () => {
        const rounds = expectStatus(
          await api
            .as('player', playerId)
            .get<{ roundId: string; status: string }[]>(`/v1/players/${playerId}/history`),
          200,
        );
        const entry = rounds.find((played) => played.roundId === roundId);
        expect(entry).toBeDefined();
        return entry;
      },
      { timeout: 10_000, interval: 50 },
    );
    expect(history).toMatchObject({ roundId, status: 'complete' });
  }

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
    const round = await openRound(api, HANG_UP_TABLE);
    const betId = randomUUID();
    const status = await betThenHangUp({
      origin: await harness.origin(`/v1/rounds/${round.roundId}/bets`),
      roundId: round.roundId,
      token: await api.token('player', 'pia'),
      bets: [{ type: 'banker', amount: 1_000, betId }],
    });
    expect(status).toBe(201);
    await serverSawHangUp();
    // pia's connection is gone and she sends nothing more. The round goes on without her.
    const done = await dealToTheEnd(round.roundId);
    expect(done.settlement?.lines).toContainEqual(
      expect.objectContaining({ betId, playerId: 'pia', stake: 1_000 }),
    );
    expect(await settledTrail(betId)).toEqual(SETTLED_BET);
    await expectInHistoryOnReturn('pia', round.roundId, betId);
  });

  it('a player whose connection drops before the answer: the bet is settled, or was never debited', async () => {
    const { api } = harness;
    const round = await openRound(api, HANG_UP_TABLE);
    const betId = randomUUID();
    await betAndHangUpUnanswered({
      origin: await harness.origin(`/v1/rounds/${round.roundId}/bets`),
      roundId: round.roundId,
      token: await api.token('player', 'pia'),
      bets: [{ type: 'player', amount: 800, betId }],
    });
    await serverSawHangUp();
    // The request reached the server whole; whether it was handled is the server's business. It
    // is given time to be, before betting closes (no one asks on pia's behalf).
    const placed = await vi
      .waitFor(
        async () => {
          expect(await trailOf(betId)).toContain('BetPlaced');
        },
        {
          timeout: 5_000,
          interval: 50,
        },
      )
      .then(
        () => true,
        () => false,
      );
    await dealToTheEnd(round.roundId);
    if (placed) {
      expect(await settledTrail(betId)).toEqual(SETTLED_BET);
      await expectInHistoryOnReturn('pia', round.roundId, betId);
    } else {
      // Never handled: then nothing at all was recorded about it, no debit waiting for a refund.
      await settledEverywhere(harness.store);
      expect(await trailOf(betId)).toEqual([]);
    }
  });

  it("shows a bet in the player's history in the very next read (read-your-writes)", async () => {
    const { api } = harness;
    const round = await openRound(api, 'generic-e2e');
    expectStatus(
      await placeBets(api, round.roundId, 'pia', [{ type: 'banker', amount: 400 }]),
      201,
    );
    // No waiting: the history is a durable read model, and the GET waits for it to pass the
    // log's end as it stood (distributed, the bet was written by another process).
    const history = expectStatus(
      await api
        .as('player', 'pia')
        .get<{ roundId: string; status: string; stakes: number; bets: { amount: number }[] }[]>(
          '/v1/players/pia/history',
        ),
      200,
    );
    expect(history[0]).toMatchObject({
      roundId: round.roundId,
      status: 'in-progress',
      stakes: 400,
    });
    expect(history[0]!.bets).toEqual([expect.objectContaining({ amount: 400 })]);
    await dealToTheEnd(round.roundId);
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
    // The same rebet again is a double submit: its bet ids derive from the round, the multiplier
    // and the spots it repeats, so it is refused and the first stands; a single rebet after the
    // double one finds bets down already (a rebet repeats the previous round's bets alone).
    const before = await balanceOf(api, 'quin');
    const again = await api
      .as('player', 'quin')
      .post<RoundView>(`/v1/rounds/${second.roundId}/rebet`, { multiplier: 2 });
    expect(again.body).toMatchObject({ code: 'DUPLICATE_BET', status: 409 });
    const single = await api
      .as('player', 'quin')
      .post<RoundView>(`/v1/rounds/${second.roundId}/rebet`, { multiplier: 1 });
    expect(single.body).toMatchObject({ code: 'BETS_ALREADY_PLACED', status: 409 });
    expect(await balanceOf(api, 'quin')).toBe(before);
    const now = expectStatus(
      await api.as('player', 'quin').get<RoundView>(`/v1/rounds/${second.roundId}`),
      200,
    );
    expect(now.bets).toEqual(rebet.bets);
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
    harness = await startHarness({ store: 'memory' });
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
