import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/harness.js';
import { allEvents, checkMoney, settledEverywhere } from '../support/invariants.js';
import {
  balanceOf,
  expectStatus,
  fund,
  openRound,
  openTable,
  settled,
  type RoundView,
} from '../support/play.js';

interface Audit {
  verdict: { ok: boolean; findings: { check: string; code: string; message: string }[] };
}

/**
 * The bet-id reuse attack (issue 11): a player whose bet has lost, but is not settled yet, posts a
 * bet under the same id to another table's round. It used to be refused with ID_CONFLICT *and*
 * refund the open stake, which the settlement then skipped: a lost stake won back. The id must
 * move no money, on any table, at any moment before settlement.
 */
describe('a bet id reused to win back a lost stake moves no money', () => {
  let harness: Harness;
  beforeAll(async () => {
    // The gateway serves the audit in the distributed deployment.
    harness = await startHarness({ store: 'memory', gateway: true });
    await openTable(harness.api, 'reuse-scan', 'generic', { cardSource: 'scanner', burn: false });
    await openTable(harness.api, 'reuse-rng', 'generic');
    await openTable(harness.api, 'reuse-other', 'generic');
  });
  afterAll(async () => {
    await harness.close();
  });

  const bet = (roundId: string, player: string, betId: string, amount: number, type = 'player') =>
    harness.api
      .as('player', player)
      .post<RoundView>(`/v1/rounds/${roundId}/bets`, { bets: [{ betId, type, amount }] });

  /** Every way to reuse the id on another round, and on the same round, while it is unsettled. */
  async function attack(player: string, betId: string, roundId: string): Promise<void> {
    const { api } = harness;
    const other = await openRound(api, 'reuse-other');
    for (const [target, amount] of [
      [other.roundId, 5_000], // the same stake on another table's round
      [other.roundId, 1_000], // another amount
      [roundId, 5_000], // its own round, closed: refused, nothing refunded
    ] as const) {
      const response = await bet(target, player, betId, amount);
      expect(response.status, JSON.stringify(response.body)).toBeGreaterThanOrEqual(400);
      expect(response.status).toBeLessThan(500);
      expect(await balanceOf(api, player)).toBe(5_000);
    }
    // Another player under the same id: refused too, and nothing of either wallet moves.
    await fund(api, [`${player}-friend`], 5_000);
    const friend = await bet(other.roundId, `${player}-friend`, betId, 5_000);
    expect(friend.status).toBe(409);
    expect(await balanceOf(api, `${player}-friend`)).toBe(5_000);
    expect(await balanceOf(api, player)).toBe(5_000);
    expectStatus(
      await api.as('supervisor').post(`/v1/rounds/${other.roundId}/void`, {
        reason: 'test over',
      }),
      200,
    );
    const refunds = (await allEvents(harness.store)).filter(
      (e) => e.type === 'StakeRefunded' && (e.data as { betId: string }).betId === betId,
    );
    expect(refunds).toEqual([]);
  }

  async function expectLostAndAudited(player: string, roundId: string): Promise<void> {
    const { api } = harness;
    const round = await settled(api, roundId);
    expect(round.settlement?.lines).toEqual([
      expect.objectContaining({ result: 'lose', payout: 0 }),
    ]);
    await settledEverywhere(harness.store);
    expect(await balanceOf(api, player)).toBe(5_000);
    const audit = expectStatus(
      await api.as('regulator').get<Audit>(`/v1/audit/rounds/${roundId}`),
      200,
    );
    expect(audit.verdict.findings).toEqual([]);
    expect(audit.verdict.ok).toBe(true);
    expect(checkMoney(await settledEverywhere(harness.store)).discrepancies).toEqual([]);
  }

  it('on a scanner table: the player has lost (dealt, not confirmed) and reuses the id elsewhere', async () => {
    const { api } = harness;
    await fund(api, ['mallory'], 10_000);
    const round = await openRound(api, 'reuse-scan');
    const betId = randomUUID();
    expectStatus(await bet(round.roundId, 'mallory', betId, 5_000), 201);
    expectStatus(await api.as('dealer').post(`/v1/rounds/${round.roundId}/close-betting`), 200);
    // Banker 9 (natural) against Player 2 + 3: the player lost.
    for (const card of ['2C', '9D', '3H', 'KS'])
      expectStatus(await api.as('dealer').post(`/v1/rounds/${round.roundId}/cards`, { card }), 200);
    const dealt = expectStatus(
      await api.as('regulator').get<RoundView>(`/v1/rounds/${round.roundId}`),
      200,
    );
    expect(dealt.status).toBe('dealt');
    expect(await balanceOf(api, 'mallory')).toBe(5_000);

    await attack('mallory', betId, round.roundId);

    expectStatus(await api.as('dealer').post(`/v1/rounds/${round.roundId}/confirm`), 200);
    await expectLostAndAudited('mallory', round.roundId);
  });

  it('on a manually dealt rng table: between close-betting and deal', async () => {
    const { api } = harness;
    await fund(api, ['trudy'], 10_000);
    // An rng round is settled as it is dealt, so the attack comes between close and deal, while
    // the stake is open; the books must then hold exactly what the rules owe, win or lose.
    const round = await openRound(api, 'reuse-rng');
    const betId = randomUUID();
    expectStatus(await bet(round.roundId, 'trudy', betId, 5_000, 'tie'), 201);
    expectStatus(await api.as('dealer').post(`/v1/rounds/${round.roundId}/close-betting`), 200);
    await attack('trudy', betId, round.roundId);
    expectStatus(await api.as('dealer').post(`/v1/rounds/${round.roundId}/deal`), 200);
    const done = await settled(api, round.roundId);
    await settledEverywhere(harness.store);
    const line = done.settlement!.lines[0]!;
    // Exactly what the rules owe: the tie pays 8 to 1 plus the stake, anything else loses it.
    expect(await balanceOf(api, 'trudy')).toBe(5_000 + line.payout);
    expect(line.payout === 0 || line.payout === 45_000).toBe(true);
    const audit = expectStatus(
      await api.as('regulator').get<Audit>(`/v1/audit/rounds/${round.roundId}`),
      200,
    );
    expect(audit.verdict.findings).toEqual([]);
    expect(checkMoney(await settledEverywhere(harness.store)).discrepancies).toEqual([]);
  });
});
