import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/harness.js';
import {
  expectStatus,
  fund,
  openRound,
  openTable,
  placeBets,
  settled,
  type RoundView,
} from '../support/play.js';

interface EffectiveRtp {
  stake: number;
  rtp: number;
  exactRtp: string;
  withinLimits: boolean;
}
interface PaytableBet {
  bet: string;
  bankerMode: string | null;
  odds: string;
  pays: {
    when: string;
    result: string;
    odds: string | null;
    toOne: string | null;
    forOne: string | null;
  }[];
  conditions: { maxRound: number | null; commission: string | null; differenceLimit: boolean };
  limits: { min: number; max: number };
  rtp: number;
  houseEdge: number;
  effectiveRtp: { atMinimum: EffectiveRtp; atStake: EffectiveRtp | null };
}
interface Paytable {
  tableId: string;
  oddsWording: string;
  stake: number | null;
  bets: PaytableBet[];
}

const percent = (value: number) => Number((value * 100).toFixed(2));

/** Issue 15: the paytable players read, with exact and effective RTPs, and rebets past max round. */
describe('paytables', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startHarness({ store: 'memory' });
    await openTable(harness.api, 'pt-touch', 'touch');
    await openTable(harness.api, 'pt-live', 'live');
  });
  afterAll(async () => {
    await harness.close();
  });

  const paytable = (tableId: string, query = '') =>
    harness.api.as('player', 'pia').get<Paytable>(`/v1/tables/${tableId}/paytable${query}`);

  it("serves touch's bets in seed 003's wording, with the effective RTP at its 0.10 minimum", async () => {
    const touch = expectStatus(await paytable('pt-touch'), 200);
    expect(touch.oddsWording).toBe('for-one');
    expect(touch.bets.map((b) => b.bet)).toEqual(['player', 'banker', 'tie']);
    const [player, banker, tie] = touch.bets as [PaytableBet, PaytableBet, PaytableBet];
    expect(tie.odds).toBe('9 for 1'); // "PAYS 9 FOR 1": 8 to 1
    expect(tie.pays[0]).toMatchObject({ toOne: '8 to 1', forOne: '9 for 1' });
    expect(player.odds).toBe('2 for 1');
    expect(banker.pays.map((line) => [line.result, line.toOne, line.forOne])).toEqual([
      ['win', '0.95 to 1', '1.95 for 1'],
      ['push', null, null],
    ]);
    expect(banker.conditions).toEqual({
      maxRound: null,
      commission: 'deducted',
      differenceLimit: false,
    });
    expect(banker.limits).toEqual({ min: 10, max: 50_000 });
    // Published 98.94%; a 0.10 (10 minor units) bettor gets 96.65%: each win rounds 0.195 down.
    expect(percent(banker.rtp)).toBe(98.94);
    expect(banker.effectiveRtp.atMinimum).toMatchObject({ stake: 10, withinLimits: true });
    expect(percent(banker.effectiveRtp.atMinimum.rtp)).toBe(96.65);
    expect(player.effectiveRtp.atMinimum.rtp).toBe(player.rtp);
    expect(banker.effectiveRtp.atStake).toBeNull();

    const at30 = expectStatus(await paytable('pt-touch', '?stake=30'), 200);
    expect(at30.stake).toBe(30);
    expect(percent(at30.bets[1]!.effectiveRtp.atStake!.rtp)).toBe(98.18);
  });

  it('serves every bet a live table offers, Banker once per mode, with conditions', async () => {
    const live = expectStatus(await paytable('pt-live', '?stake=100000000'), 200);
    expect(live.oddsWording).toBe('to-one');
    expect(live.bets).toHaveLength(15);
    const find = (bet: string, mode: string | null = null) =>
      live.bets.find((b) => b.bet === bet && b.bankerMode === mode)!;
    expect(find('tie').odds).toBe('8 to 1');
    expect(find('player_pair').conditions.maxRound).toBe(60);
    expect(find('lucky_six').conditions.maxRound).toBe(50);
    expect(find('player').conditions.differenceLimit).toBe(true);
    expect(find('player_natural').odds).toBe('7 to 2');
    expect(find('banker', 'no_commission').pays.map((line) => line.toOne)).toEqual([
      '1 to 2',
      '1 to 1',
      null,
    ]);
    expect(find('banker_bonus').pays).toContainEqual(
      expect.objectContaining({ when: 'Banker wins by 9, not a natural', toOne: '30 to 1' }),
    );
    for (const bet of live.bets) {
      expect(bet.effectiveRtp.atMinimum.rtp, bet.bet).toBeLessThanOrEqual(bet.rtp);
      expect(bet.effectiveRtp.atStake).toMatchObject({ stake: 100_000_000, withinLimits: false });
    }
  });

  it('answers a bad stake with a 400 naming the field, and an unknown table with a 404', async () => {
    for (const query of ['?stake=abc', '?stake=0', '?stake=1.5', '?stake=-10']) {
      const response = await paytable('pt-touch', query);
      expect(response.status, query).toBe(400);
      expect(response.body).toMatchObject({
        code: 'VALIDATION_ERROR',
        errors: [{ field: 'querystring.stake' }],
      });
    }
    const unknown = await paytable('nowhere');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ code: 'TABLE_NOT_FOUND' });
  });
});

describe('a rebet past a side bet’s max round', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startHarness({ store: 'memory' });
    // Pairs offered in round 1 of a shoe only.
    await openTable(harness.api, 'pt-rebet', 'generic', {
      bets: {
        player: { min: 100, max: 100_000, maxRound: null },
        banker: { min: 100, max: 100_000, maxRound: null },
        tie: { min: 100, max: 10_000, maxRound: null },
        player_pair: { min: 100, max: 10_000, maxRound: 1 },
      },
    });
    await fund(harness.api, ['rhea', 'sol'], 100_000);
  });
  afterAll(async () => {
    await harness.close();
  });

  it('places the bets still offered and names the ones it left out', async () => {
    const { api } = harness;
    const first = await openRound(api, 'pt-rebet');
    expectStatus(
      await placeBets(api, first.roundId, 'rhea', [
        { type: 'player', amount: 200 },
        { type: 'player_pair', amount: 100 },
      ]),
      201,
    );
    expectStatus(
      await placeBets(api, first.roundId, 'sol', [{ type: 'player_pair', amount: 100 }]),
      201,
    );
    expectStatus(await api.as('dealer').post(`/v1/rounds/${first.roundId}/close-betting`), 200);
    expectStatus(await api.as('dealer').post(`/v1/rounds/${first.roundId}/deal`), 200);
    await settled(api, first.roundId);

    const second = await openRound(api, 'pt-rebet');
    expect(second.number).toBe(2);
    const rebet = expectStatus(
      await api
        .as('player', 'rhea')
        .post<RoundView & { rebetOf: string; dropped: unknown[] }>(
          `/v1/rounds/${second.roundId}/rebet`,
          { multiplier: 2 },
        ),
      201,
    );
    expect(rebet.bets.map((bet) => [bet.type, bet.amount])).toEqual([['player', 400]]);
    expect(rebet.rebetOf).toBe(first.roundId);
    expect(rebet.dropped).toEqual([
      expect.objectContaining({ type: 'player_pair', amount: 200, code: 'BET_PAST_MAX_ROUND' }),
    ]);

    // Nothing left to repeat: refused with the reason, and nothing moves.
    const none = await api.as('player', 'sol').post(`/v1/rounds/${second.roundId}/rebet`, {});
    expect(none.status).toBe(422);
    expect(none.body).toMatchObject({ code: 'BET_PAST_MAX_ROUND' });
  });
});
