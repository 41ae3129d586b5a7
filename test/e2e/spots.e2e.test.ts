import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/harness.js';
import { checkMoney, settledEverywhere } from '../support/invariants.js';
import {
  balanceOf,
  expectStatus,
  fund,
  openRound,
  openTable,
  placeBets,
  settled,
  type BetInput,
  type RoundView,
} from '../support/play.js';

interface Verdict {
  verdict: { ok: boolean; findings: unknown[] };
}

/**
 * Issue 24, defects 1-3: chips a player stacks on one spot are one stake. Every change to a
 * player's bets leaves a set the table's rules accept (or is refused, moving nothing); a spot is
 * paid by the paytable once on its total; rebet repeats the previous round's spots.
 */
describe('spots: the chips on one bet are one stake (issue 24)', () => {
  let harness: Harness;
  /** Touch's limits (0.10 minimum) on a scanner table: the cards, and so the payout, are ours. */
  const SCAN = 'spots-scan';
  beforeAll(async () => {
    harness = await startHarness({ store: 'memory' });
    await openTable(harness.api, 'spots-live', 'live');
    await openTable(harness.api, 'spots-touch', 'touch');
    await openTable(harness.api, SCAN, 'generic', {
      cardSource: 'scanner',
      burn: false,
      bets: {
        player: { min: 10, max: 50_000, maxRound: null },
        banker: { min: 10, max: 50_000, maxRound: null },
        tie: { min: 10, max: 5_000, maxRound: null },
      },
    });
    await fund(
      harness.api,
      ['spot-hana', 'spot-ivo', 'spot-jae', 'spot-kit', 'spot-lou'],
      2_000_000,
    );
  });
  afterAll(async () => {
    await harness.close();
  });

  /** Places each bet as a chip of its own, one request each (chip-by-chip play); their ids. */
  const chips = async (roundId: string, player: string, bets: BetInput[]): Promise<string[]> => {
    const ids: string[] = [];
    for (const bet of bets) {
      const round = expectStatus(await placeBets(harness.api, roundId, player, [bet]), 201);
      ids.push(round.bets.at(-1)!.betId);
    }
    return ids;
  };
  const standing = async (roundId: string, player: string) =>
    expectStatus(
      await harness.api.as('player', player).get<RoundView>(`/v1/rounds/${roundId}`),
      200,
    )
      .bets.filter((bet) => bet.status === 'active')
      .map((bet) => [bet.type, bet.amount]);
  const void_ = async (roundId: string) => {
    expectStatus(
      await harness.api
        .as('supervisor')
        .post(`/v1/rounds/${roundId}/void`, { reason: 'test over' }),
      200,
    );
    await settled(harness.api, roundId);
  };

  it('refuses to remove the Banker bet that hedges Player 6,000.00: BET_DIFFERENCE_LIMIT, nothing moves', async () => {
    const { api } = harness;
    const round = await openRound(api, 'spots-live');
    const placed = expectStatus(
      await placeBets(api, round.roundId, 'spot-hana', [
        { type: 'player', amount: 600_000 },
        { type: 'banker', amount: 200_000, bankerMode: 'commission' },
      ]),
      201,
    );
    const banker = placed.bets.find((bet) => bet.type === 'banker')!;
    // Stakes are debited before a bet is placed: the balance now is the one to keep.
    const before = await balanceOf(api, 'spot-hana');
    const removed = await api
      .as('player', 'spot-hana')
      .delete(`/v1/rounds/${round.roundId}/bets/${banker.betId}`);
    expect(removed.status, JSON.stringify(removed.body)).toBe(422);
    expect(removed.body).toMatchObject({ code: 'BET_DIFFERENCE_LIMIT' });
    expect(await balanceOf(api, 'spot-hana')).toBe(before);
    expect(await standing(round.roundId, 'spot-hana')).toEqual([
      ['player', 600_000],
      ['banker', 200_000],
    ]);
    // Taking every bet off leaves nothing to break a rule: allowed, and refunded.
    expectStatus(
      await api.as('player', 'spot-hana').delete(`/v1/rounds/${round.roundId}/bets`),
      200,
    );
    await void_(round.roundId);
  });

  it('refuses to remove the 0.10 tie chip under a 0.01 one: BET_BELOW_MIN, nothing moves', async () => {
    const { api } = harness;
    const round = await openRound(api, 'spots-touch');
    const [ten, one] = await chips(round.roundId, 'spot-ivo', [
      { type: 'tie', amount: 10 },
      { type: 'tie', amount: 1 },
    ]);
    const before = await balanceOf(api, 'spot-ivo');
    const removed = await api
      .as('player', 'spot-ivo')
      .delete(`/v1/rounds/${round.roundId}/bets/${ten}`);
    expect(removed.status, JSON.stringify(removed.body)).toBe(422);
    expect(removed.body).toMatchObject({ code: 'BET_BELOW_MIN' });
    expect(await balanceOf(api, 'spot-ivo')).toBe(before);
    // The 0.01 chip itself may go: the 0.10 keeps the spot at its minimum.
    expectStatus(
      await api.as('player', 'spot-ivo').delete(`/v1/rounds/${round.roundId}/bets/${one}`),
      200,
    );
    expect(await standing(round.roundId, 'spot-ivo')).toEqual([['tie', 10]]);
    await void_(round.roundId);
  });

  /** Plays a scanner round to a Banker natural 8 (Player 2C 3D, Banker 4H 4S). */
  const bankerWins = async (chipAmounts: number[], player: string) => {
    const { api } = harness;
    const round = await openRound(api, SCAN);
    await chips(
      round.roundId,
      player,
      chipAmounts.map((amount) => ({ type: 'banker', amount })),
    );
    expectStatus(await api.as('dealer').post(`/v1/rounds/${round.roundId}/close-betting`), 200);
    for (const card of ['2C', '4H', '3D', '4S'])
      expectStatus(await api.as('dealer').post(`/v1/rounds/${round.roundId}/cards`, { card }), 200);
    expectStatus(await api.as('dealer').post(`/v1/rounds/${round.roundId}/confirm`), 200);
    return settled(api, round.roundId);
  };

  it('pays three 0.10 Banker chips 0.58, as a 0.30 bet (003), and chips of 0.45 0.87', async () => {
    const { api } = harness;
    for (const [amounts, paid] of [
      [[10, 10, 10], 58],
      [[10, 10, 10, 15], 87],
    ] as const) {
      await settledEverywhere(harness.store);
      const before = await balanceOf(api, 'spot-jae');
      const round = await bankerWins([...amounts], 'spot-jae');
      expect(round.result?.winner).toBe('banker');
      const lines = round.settlement!.lines;
      // Each chip keeps its own line (and id); together they pay the spot once.
      expect(lines).toHaveLength(amounts.length);
      expect(lines.reduce((sum, line) => sum + line.payout, 0)).toBe(paid);
      const staked = amounts.reduce((sum, amount) => sum + amount, 0);
      // The round shows the spot it paid: the chips' total, paid once.
      const { spots } = round.settlement as unknown as { spots: unknown[] };
      expect(spots).toEqual([
        expect.objectContaining({ type: 'banker', stake: staked, result: 'win', payout: paid }),
      ]);
      await settledEverywhere(harness.store);
      expect(await balanceOf(api, 'spot-jae')).toBe(before - staked + paid);
      const audit = expectStatus(
        await api.as('regulator').get<Verdict>(`/v1/audit/rounds/${round.roundId}`),
        200,
      );
      expect(audit.verdict.findings).toEqual([]);
    }
  });

  /** Opens a Touch session for `player` and plays its first hand chip by chip. */
  const sessionAfterChips = async (player: string) => {
    const { api } = harness;
    const session = expectStatus(
      await api
        .as('player', player)
        .post<{ sessionId: string }>('/v1/sessions', { preset: 'touch' }),
      201,
    );
    const first = expectStatus(
      await api.as('player', player).post<RoundView>(`/v1/sessions/${session.sessionId}/rounds`),
      201,
    );
    await chips(first.roundId, player, [
      { type: 'banker', amount: 10 },
      { type: 'banker', amount: 10 },
      { type: 'banker', amount: 10 },
      { type: 'banker', amount: 15 },
      { type: 'tie', amount: 11 },
      { type: 'tie', amount: 5 },
    ]);
    expectStatus(
      await api.as('player', player).post(`/v1/sessions/${session.sessionId}/deal`, {}),
      200,
    );
    await settled(api, first.roundId);
    return session.sessionId;
  };
  const spots = (round: RoundView) =>
    round.bets
      .map((bet) => [bet.type, bet.amount])
      .sort((a, b) => String(a).localeCompare(String(b)));

  it('rebets the previous spots (banker 0.45, tie 0.16) after chip-by-chip play, on both routes', async () => {
    const { api } = harness;
    const sessionId = await sessionAfterChips('spot-kit');
    const player = api.as('player', 'spot-kit');
    const dealt = expectStatus(
      await player.post<RoundView>(`/v1/sessions/${sessionId}/deal`, { rebet: 1 }),
      200,
    );
    expect(spots(dealt)).toEqual([
      ['banker', 45],
      ['tie', 16],
    ]);
    await settled(api, dealt.roundId);
    const next = expectStatus(
      await player.post<RoundView>(`/v1/sessions/${sessionId}/rounds`),
      201,
    );
    const rebet = expectStatus(
      await player.post<RoundView>(`/v1/rounds/${next.roundId}/rebet`, { multiplier: 2 }),
      201,
    );
    expect(spots(rebet)).toEqual([
      ['banker', 90],
      ['tie', 32],
    ]);
    // Retried, it is a double submit: nothing is placed twice.
    const again = await player.post(`/v1/rounds/${next.roundId}/rebet`, { multiplier: 2 });
    expect(again.body).toMatchObject({ code: 'DUPLICATE_BET' });
    expectStatus(
      await player.post(`/v1/sessions/${sessionId}/deal`, { roundId: next.roundId }),
      200,
    );
    await settled(api, next.roundId);
  });

  it('refuses a rebet on top of chips already down (003: Rebet repeats the previous bets alone), moving nothing', async () => {
    const { api } = harness;
    const sessionId = await sessionAfterChips('spot-lou');
    const player = api.as('player', 'spot-lou');
    const round = expectStatus(
      await player.post<RoundView>(`/v1/sessions/${sessionId}/rounds`),
      201,
    );
    await chips(round.roundId, 'spot-lou', [{ type: 'banker', amount: 100 }]);
    const before = await balanceOf(api, 'spot-lou');
    const dealt = await player.post(`/v1/sessions/${sessionId}/deal`, {
      rebet: 2,
      roundId: round.roundId,
    });
    expect(dealt.status, JSON.stringify(dealt.body)).toBe(409);
    expect(dealt.body).toMatchObject({ code: 'BETS_ALREADY_PLACED' });
    const rebet = await player.post(`/v1/rounds/${round.roundId}/rebet`, { multiplier: 1 });
    expect(rebet.status).toBe(409);
    expect(rebet.body).toMatchObject({ code: 'BETS_ALREADY_PLACED' });
    expect(await balanceOf(api, 'spot-lou')).toBe(before);
    expect(await standing(round.roundId, 'spot-lou')).toEqual([['banker', 100]]);
    // Dealing the chips down plays them as they are.
    const played = expectStatus(
      await player.post<RoundView>(`/v1/sessions/${sessionId}/deal`, { roundId: round.roundId }),
      200,
    );
    expect(spots(played)).toEqual([['banker', 100]]);
    await settled(api, round.roundId);
    // A new session is a table of its own: it has no previous bets to repeat.
    const fresh = expectStatus(
      await player.post<{ sessionId: string }>('/v1/sessions', { preset: 'touch' }),
      201,
    );
    const none = await player.post(`/v1/sessions/${fresh.sessionId}/deal`, { rebet: 1 });
    expect(none.body).toMatchObject({ code: 'NO_PREVIOUS_BETS' });
    expectStatus(await player.post(`/v1/sessions/${fresh.sessionId}/close`), 200);
  });

  it('keeps the money exact', async () => {
    expect(checkMoney(await settledEverywhere(harness.store)).discrepancies).toEqual([]);
  });
});
