import { analyze } from '@croupier/baccarat';
import { formatMoney } from '@croupier/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/harness.js';
import {
  expectStatus,
  fund,
  openRound,
  openTable,
  placeBets,
  playRound,
  settled,
  type RoundView,
} from '../support/play.js';

interface FiguresView {
  currency: string;
  rounds: number;
  turnover: number;
  returned: number;
  accruedCommission: number;
  ggr: number;
  holdPercent: number | null;
  holdExact: string | null;
  activePlayers: number;
  bets: { type: string; bets: number; turnover: number; returned: number; ggr: number }[];
}
interface FloorFigures {
  period: string;
  from: string | null;
  to: string | null;
  tables: (FiguresView & {
    tableId: string;
    shift?: { shiftId: string; dealerId: string | null };
  })[];
  games: (FiguresView & { game: string })[];
}

/** What settled rounds add up to, from their bets and settlement lines as the API shows them. */
function expectedOf(rounds: readonly RoundView[], accrued: boolean) {
  let turnover = 0;
  let returned = 0;
  let commission = 0;
  const players = new Set<string>();
  const byType: Record<string, { bets: number; turnover: number }> = {};
  for (const round of rounds) {
    if (round.settlement === null) continue;
    for (const bet of round.bets) {
      turnover += bet.amount;
      players.add(bet.playerId);
      const type = (byType[bet.type] ??= { bets: 0, turnover: 0 });
      type.bets++;
      type.turnover += bet.amount;
    }
    for (const line of round.settlement.lines) {
      returned += line.payout;
      if (accrued) commission += line.commission;
    }
  }
  return {
    rounds: rounds.filter((round) => round.settlement !== null).length,
    turnover,
    returned,
    accruedCommission: commission,
    ggr: turnover - returned + commission,
    activePlayers: players.size,
    byType,
  };
}

interface HourlyFigures {
  from: string;
  to: string;
  series: {
    scope: 'table' | 'game';
    id: string;
    currency: string;
    hours: {
      hour: string;
      rounds: number;
      turnover: number;
      returned: number;
      accruedCommission: number;
      ggr: number;
    }[];
    rtp: {
      betType: string;
      exactRtp: number | null;
      points: {
        until: string;
        bets: number;
        turnover: number;
        netReturned: number;
        observedRtp: number;
        expected95: [number, number] | null;
      }[];
    }[];
  }[];
}

interface ActiveSession {
  sessionId: string;
  playerId: string;
  game: string | null;
  mode: 'real' | 'fun';
  currency: string;
  openedAt: string;
  lastActivityAt: string;
  rounds: number;
  staked: number;
  returned: number;
  currentRound: { roundId: string; status: string } | null;
}

/**
 * The back office's floor (issue 26) over the real HTTP API: the sessions open now, the floor's
 * figures and the reports, against a floor of live, land-based and session play.
 */
describe('the floor, as the back office sees it', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startHarness({ store: 'memory', gateway: true });
    await fund(harness.api, ['flo-fia', 'flo-fred', 'flora'], 1_000_000);
  });
  afterAll(async () => {
    await harness.close();
  });

  const openSession = async (player: string, body: Record<string, unknown>) =>
    expectStatus(
      await harness.api.as('player', player).post<{ sessionId: string }>('/v1/sessions', body),
      201,
    ).sessionId;
  const sessionRound = async (player: string, sessionId: string) =>
    (await harness.api.as('player', player).post<RoundView>(`/v1/sessions/${sessionId}/rounds`))
      .body;
  const floorSessions = async () =>
    expectStatus(
      await harness.api.as('supervisor').get<{ sessions: ActiveSession[] }>('/v1/floor/sessions'),
      200,
    ).sessions;

  it('lists the sessions open now with player, game, rounds, stakes and last activity; a closed one leaves', async () => {
    const { api } = harness;
    const touch = await openSession('flo-fia', { preset: 'touch' });
    const single = await openSession('flo-fred', { preset: 'single-deck' });
    expectStatus(await api.as('player', 'flora').post('/v1/wallets/flora/play-money'), 200);
    const fun = await openSession('flora', { preset: 'touch', mode: 'fun' });

    // Fia plays one round to its settlement and puts a bet on the next.
    const first = await sessionRound('flo-fia', touch);
    expectStatus(
      await placeBets(api, first.roundId, 'flo-fia', [{ type: 'banker', amount: 300 }]),
      201,
    );
    expectStatus(await api.as('player', 'flo-fia').post(`/v1/rounds/${first.roundId}/deal`), 200);
    const paid = await settled(api, first.roundId);
    const returned = paid.settlement!.lines.reduce((sum, line) => sum + line.payout, 0);
    const second = await sessionRound('flo-fia', touch);
    expectStatus(
      await placeBets(api, second.roundId, 'flo-fia', [{ type: 'player', amount: 200 }]),
      201,
    );

    const sessions = await floorSessions();
    const byId = new Map(sessions.map((session) => [session.sessionId, session]));
    expect(byId.get(touch)).toMatchObject({
      playerId: 'flo-fia',
      game: 'touch',
      mode: 'real',
      currency: 'EUR',
      rounds: 1,
      staked: 500,
      returned,
      currentRound: { roundId: second.roundId, status: 'betting' },
    });
    expect(byId.get(single)).toMatchObject({
      playerId: 'flo-fred',
      game: 'single-deck',
      rounds: 0,
      staked: 0,
      currentRound: null,
    });
    expect(byId.get(fun)).toMatchObject({ playerId: 'flora', mode: 'fun', currency: 'FUN' });
    // The last activity is the player's latest bet, not the session's opening.
    expect(byId.get(touch)!.lastActivityAt > byId.get(touch)!.openedAt).toBe(true);
    // Only sessions: no shared table is listed.
    expect(sessions.every((session) => session.sessionId.startsWith('s-'))).toBe(true);

    expectStatus(await api.as('player', 'flo-fred').post(`/v1/sessions/${single}/close`), 200);
    expect((await floorSessions()).map((session) => session.sessionId)).not.toContain(single);
  });

  const HOUR = 3_600_000;
  const testHour = Math.floor(Date.now() / HOUR) * HOUR;
  const played: { live: RoundView[]; land: RoundView[]; sessions: RoundView[] } = {
    live: [],
    land: [],
    sessions: [],
  };

  it('adds up turnover, returns, GGR, hold, rounds, players and bets by type per table and session game', async () => {
    const { api } = harness;
    await openTable(api, 'floor-live', 'live');
    await openTable(api, 'floor-land', 'land-based');
    await fund(api, ['lou', 'flo-lea', 'flo-sam'], 1_000_000);
    for (const [player, seat] of [
      ['lou', 1],
      ['flo-lea', 4],
    ] as const)
      expectStatus(await api.as('player', player).post(`/v1/tables/floor-land/seats/${seat}`), 201);
    // Three rounds each, and on the land-based table until a Banker win has accrued commission.
    const accruedSoFar = () =>
      played.land.some((r) => r.settlement!.lines.some((line) => line.commission > 0));
    for (let i = 0; i < 3 || (!accruedSoFar() && i < 20); i++) {
      played.live.push(
        await playRound(api, 'floor-live', {
          lou: [
            { type: 'banker', amount: 1_000 + i, bankerMode: 'commission' },
            { type: 'player_pair', amount: 100 },
          ],
          'flo-lea': [{ type: 'player', amount: 700 }],
        }),
      );
      played.land.push(
        await playRound(api, 'floor-land', {
          lou: [{ type: 'banker', amount: 2_000, bankerMode: 'commission', seat: 1 }],
          'flo-lea': [{ type: 'tie', amount: 1_000, seat: 4 }],
        }),
      );
    }
    // A session round of 003.
    const session = await openSession('flo-sam', { preset: 'touch' });
    const round = await sessionRound('flo-sam', session);
    expectStatus(
      await placeBets(api, round.roundId, 'flo-sam', [{ type: 'banker', amount: 500 }]),
      201,
    );
    expectStatus(await api.as('player', 'flo-sam').post(`/v1/rounds/${round.roundId}/deal`), 200);
    played.sessions.push(await settled(api, round.roundId));

    const range = expectStatus(
      await api
        .as('operator')
        .get<FloorFigures>(
          `/v1/floor/figures?period=range&from=${new Date(testHour).toISOString()}&to=${new Date(testHour + 2 * HOUR).toISOString()}`,
        ),
      200,
    );
    const table = (id: string) => range.tables.find((t) => t.tableId === id)!;
    for (const [id, rounds, accrued] of [
      ['floor-live', played.live, false],
      ['floor-land', played.land, true],
    ] as const) {
      const expected = expectedOf(rounds, accrued);
      const figures = table(id);
      expect(figures, id).toMatchObject({
        currency: 'EUR',
        rounds: expected.rounds,
        turnover: expected.turnover,
        returned: expected.returned,
        accruedCommission: expected.accruedCommission,
        ggr: expected.ggr,
        activePlayers: expected.activePlayers,
      });
      // Hold % from the integers, half to even at 4 decimals: within half a unit of the 4th.
      expect(
        Math.abs(figures.holdPercent! - (expected.ggr / expected.turnover) * 100),
      ).toBeLessThanOrEqual(0.00005);
      for (const [type, bets] of Object.entries(expected.byType))
        expect(
          figures.bets.find((b) => b.type === type),
          `${id} ${type}`,
        ).toMatchObject(bets);
    }
    // The accrued commission of the land-based table is the house's: in its GGR.
    expect(table('floor-land').accruedCommission).toBeGreaterThan(0);
    // Sessions add up by game; the session table itself is not a row of its own.
    const touch = range.games.find((game) => game.game === 'touch' && game.currency === 'EUR')!;
    const sessionsExpected = expectedOf(played.sessions, false);
    expect(touch.turnover).toBeGreaterThanOrEqual(sessionsExpected.turnover);
    expect(range.tables.some((t) => t.tableId.startsWith('s-'))).toBe(false);
    // Play money is never in the figures.
    expect(range.games.some((game) => game.currency === 'FUN')).toBe(false);

    // Today's figures are the same bets, as long as the day did not turn during the test.
    const today = expectStatus(
      await api.as('regulator').get<FloorFigures>('/v1/floor/figures'),
      200,
    );
    if (today.from === new Date(Math.floor(testHour / (24 * HOUR)) * 24 * HOUR).toISOString())
      expect(today.tables.find((t) => t.tableId === 'floor-live')).toEqual(table('floor-live'));
  });

  it("the current shift's figures start again at a dealer change", async () => {
    const { api } = harness;
    const before = expectStatus(
      await api.as('supervisor').get<FloorFigures>('/v1/floor/figures?period=shift'),
      200,
    );
    expect(before.tables.find((t) => t.tableId === 'floor-land')).toMatchObject({
      rounds: played.land.length,
      turnover: expectedOf(played.land, true).turnover,
    });
    expectStatus(
      await api.as('supervisor').post('/v1/tables/floor-land/dealer', { dealerId: 'dina' }),
      200,
    );
    const next = await playRound(api, 'floor-land', {
      lou: [{ type: 'player', amount: 1_000, seat: 1 }],
    });
    const after = expectStatus(
      await api.as('supervisor').get<FloorFigures>('/v1/floor/figures?period=shift'),
      200,
    );
    expect(after.tables.find((t) => t.tableId === 'floor-land')).toMatchObject({
      shift: { dealerId: 'dina' },
      rounds: 1,
      turnover: 1_000,
      returned: next.settlement!.lines[0]!.payout,
    });
  });

  it('shows the open exposure of the round in play for each outcome', async () => {
    const { api } = harness;
    const round = await openRound(api, 'floor-live');
    expectStatus(
      await placeBets(api, round.roundId, 'lou', [
        { type: 'banker', amount: 1_000, bankerMode: 'commission' },
        { type: 'tie', amount: 100 },
        { type: 'player_pair', amount: 100 },
      ]),
      201,
    );
    expectStatus(
      await placeBets(api, round.roundId, 'flo-lea', [{ type: 'player', amount: 600 }]),
      201,
    );
    const { tables } = expectStatus(
      await api.as('operator').get<{
        tables: {
          tableId: string;
          round: {
            roundId: string;
            mainStaked: number;
            outcomes: Record<string, { returns: number; houseNet: number }>;
            sideBets: Record<string, { staked: number; largestReturn: number }>;
            worstCaseReturns: number;
          } | null;
        }[];
      }>('/v1/floor/exposure'),
      200,
    );
    const exposure = tables.find((t) => t.tableId === 'floor-live')!.round!;
    expect(exposure.roundId).toBe(round.roundId);
    expect(exposure.mainStaked).toBe(1_700);
    // Banker wins: 1000 back plus 950 (5% commission withheld); Player wins: 1200; Tie: the tie
    // pays 8 to 1 (900) and Banker and Player push (1600).
    expect(exposure.outcomes).toEqual({
      banker: { returns: 1_950, houseNet: -250 },
      player: { returns: 1_200, houseNet: 500 },
      tie: { returns: 2_500, houseNet: -800 },
    });
    expect(exposure.sideBets).toEqual({ player_pair: { staked: 100, largestReturn: 1_200 } });
    expect(exposure.worstCaseReturns).toBe(3_700);
  });

  it('gives the figures hour by hour: GGR per hour, and RTP over time against its expected band', async () => {
    const { api } = harness;
    const from = new Date(testHour).toISOString();
    const to = new Date(testHour + 2 * HOUR).toISOString();
    const hourly = expectStatus(
      await api
        .as('supervisor')
        .get<HourlyFigures>(`/v1/floor/figures/hourly?from=${from}&to=${to}`),
      200,
    );
    expect(hourly).toMatchObject({ from, to });
    const range = expectStatus(
      await api
        .as('supervisor')
        .get<FloorFigures>(`/v1/floor/figures?period=range&from=${from}&to=${to}`),
      200,
    );
    const series = (id: string) =>
      hourly.series.find((s) => s.scope === 'table' && s.id === id && s.currency === 'EUR')!;
    // The hours add up to the period's figures, hour after hour.
    for (const id of ['floor-live', 'floor-land']) {
      const { hours } = series(id);
      const figures = range.tables.find((t) => t.tableId === id)!;
      expect(hours.length, id).toBeGreaterThanOrEqual(1);
      expect(hours.map((h) => h.hour)).toEqual([...hours.map((h) => h.hour)].sort());
      expect(hours.every((h) => Date.parse(h.hour) % HOUR === 0)).toBe(true);
      const sum = (field: 'rounds' | 'turnover' | 'returned' | 'accruedCommission' | 'ggr') =>
        hours.reduce((total, hour) => total + hour[field], 0);
      expect(
        {
          rounds: sum('rounds'),
          turnover: sum('turnover'),
          returned: sum('returned'),
          accruedCommission: sum('accruedCommission'),
          ggr: sum('ggr'),
        },
        id,
      ).toEqual({
        rounds: figures.rounds,
        turnover: figures.turnover,
        returned: figures.returned,
        accruedCommission: figures.accruedCommission,
        ggr: figures.ggr,
      });
    }
    expect(hourly.series.some((s) => s.scope === 'game' && s.id === 'touch')).toBe(true);
    expect(hourly.series.some((s) => s.currency === 'FUN')).toBe(false);

    // Banker's RTP at the live table: the last point adds up every Banker bet of the period.
    const banker = series('floor-live').rtp.find((r) => r.betType === 'banker')!;
    const stakes = played.live
      .filter((round) => round.settlement !== null)
      .flatMap((round) => round.bets.filter((bet) => bet.type === 'banker'))
      .map((bet) => bet.amount);
    const last = banker.points.at(-1)!;
    const turnover = stakes.reduce((sum, stake) => sum + stake, 0);
    expect(last).toMatchObject({ bets: stakes.length, turnover });
    expect(last.observedRtp).toBeCloseTo(last.netReturned / turnover, 12);
    // The band: Banker's exact RTP ± 1.96 σ √Σstake² / Σstake, σ² the variance of what a unit
    // staked returns (1.95 on a Banker win, 1 on a tie, else 0) off a full 8-deck shoe.
    const { probabilities: p, bets } = analyze(8);
    const mean = 1.95 * p.banker + p.tie;
    const variance = 1.95 * 1.95 * p.banker + p.tie - mean * mean;
    const half =
      (1.959963984540054 *
        Math.sqrt(variance * stakes.reduce((sum, stake) => sum + stake * stake, 0))) /
      turnover;
    expect(banker.exactRtp).toBeCloseTo(bets.banker.rtp, 12);
    expect(last.expected95![0]).toBeCloseTo(bets.banker.rtp - half, 9);
    expect(last.expected95![1]).toBeCloseTo(bets.banker.rtp + half, 9);
    // Points add up over time: each counts at least the bets of the one before.
    for (const [before, after] of banker.points.slice(1).map((p, i) => [banker.points[i]!, p]))
      expect(after!.bets).toBeGreaterThan(before!.bets);
    expect(
      series('floor-live')
        .rtp.map((r) => r.betType)
        .sort(),
    ).toEqual(['banker', 'player', 'player_pair']);

    const offHour = await api
      .as('operator')
      .get(`/v1/floor/figures/hourly?from=2026-12-01T10:30:00Z&to=${to}`);
    expect(offHour.status).toBe(400);
    expect(JSON.stringify(offHour.body)).toContain('querystring.from');
    const missing = await api.as('operator').get(`/v1/floor/figures/hourly?from=${from}`);
    expect(missing.status).toBe(400);
  });

  it('refuses a period it cannot answer, naming the field', async () => {
    const { api } = harness;
    const half = await api
      .as('operator')
      .get('/v1/floor/figures?period=range&from=2026-12-01T10:30:00Z&to=2026-12-01T12:00:00Z');
    expect(half.status).toBe(400);
    expect(JSON.stringify(half.body)).toContain('querystring.from');
    const backwards = await api
      .as('operator')
      .get('/v1/floor/figures?period=range&from=2026-12-01T12:00:00Z&to=2026-12-01T10:00:00Z');
    expect(backwards.status).toBe(400);
    expect(JSON.stringify(backwards.body)).toContain('querystring.to');
    const stray = await api
      .as('operator')
      .get('/v1/floor/figures?period=today&from=2026-12-01T10:00:00Z');
    expect(stray.status).toBe(400);
  });

  it('reports GGR and turnover per day, table or game and currency, as JSON and CSV, and observed RTP against exact', async () => {
    const { api } = harness;
    const day = new Date().toISOString().slice(0, 10);
    const range = expectStatus(
      await api
        .as('operator')
        .get<FloorFigures>(
          `/v1/floor/figures?period=range&from=${new Date(testHour).toISOString()}&to=${new Date(testHour + 2 * HOUR).toISOString()}`,
        ),
      200,
    );
    const daily = expectStatus(
      await api.as('regulator').get<{
        rows: {
          date: string;
          scope: string;
          id: string;
          currency: string;
          rounds: number;
          turnover: number;
          returned: number;
          accruedCommission: number;
          ggr: number;
          holdPercent: number | null;
          activePlayers: number;
        }[];
      }>(`/v1/reports/daily?from=${day}&to=${day}`),
      200,
    );
    const live = daily.rows.find((row) => row.scope === 'table' && row.id === 'floor-live')!;
    const liveFigures = range.tables.find((t) => t.tableId === 'floor-live')!;
    // The test's rounds all fall in one day unless it turned midnight while they were played.
    if (new Date(testHour).toISOString().slice(0, 10) === day)
      expect(live).toMatchObject({
        date: day,
        currency: 'EUR',
        turnover: liveFigures.turnover,
        ggr: liveFigures.ggr,
        holdPercent: liveFigures.holdPercent,
      });
    expect(daily.rows.some((row) => row.scope === 'game' && row.id === 'touch')).toBe(true);

    const csv = await api.as('operator').get<string>(`/v1/reports/daily.csv?from=${day}&to=${day}`);
    expect(csv.status).toBe(200);
    const text = typeof csv.body === 'string' ? csv.body : JSON.stringify(csv.body);
    const [header, ...lines] = text.trim().split('\r\n');
    expect(header).toBe(
      'date,scope,id,currency,rounds,turnover,returned,accrued_commission,ggr,hold_percent,active_players,turnover_text,returned_text,accrued_commission_text,ggr_text',
    );
    // An amount as a person reads it, quoted where its thousands separator is a comma.
    const shown = (amount: number) => {
      const formatted = formatMoney(amount, 'EUR');
      return formatted.includes(',') ? `"${formatted}"` : formatted;
    };
    expect(lines).toContain(
      [
        day,
        'table',
        'floor-live',
        'EUR',
        live.rounds,
        live.turnover,
        live.returned,
        live.accruedCommission,
        live.ggr,
        live.holdPercent ?? '',
        live.activePlayers,
        shown(live.turnover),
        shown(live.returned),
        shown(live.accruedCommission),
        shown(live.ggr),
      ].join(','),
    );

    const rtp = expectStatus(
      await api.as('regulator').get<{
        rows: {
          id: string;
          betType: string;
          bets: number;
          observedRtp: number | null;
          ci95: [number, number] | null;
          exactRtp: number | null;
          exactRtpFraction: string | null;
        }[];
      }>(`/v1/reports/rtp?from=${day}&to=${day}`),
      200,
    );
    const banker = rtp.rows.find((row) => row.id === 'floor-live' && row.betType === 'banker')!;
    // 8 decks: Banker returns 98.94% (docs/rules.md); the interval brackets what was observed.
    expect(banker.exactRtp).toBeCloseTo(0.9894, 4);
    expect(banker.exactRtpFraction).toMatch(/^\d+\/\d+$/);
    expect(banker.bets).toBeGreaterThanOrEqual(3);
    expect(banker.ci95![0]).toBeLessThanOrEqual(banker.observedRtp!);
    expect(banker.ci95![1]).toBeGreaterThanOrEqual(banker.observedRtp!);

    const bad = await api.as('regulator').get(`/v1/reports/daily?from=${day}&to=2020-01-01`);
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('querystring.to');
    const notADay = await api.as('regulator').get('/v1/reports/rtp?from=2026-02-30&to=2026-03-01');
    expect(notADay.status).toBe(400);
    expect(JSON.stringify(notADay.body)).toContain('querystring.from');
  });
});
