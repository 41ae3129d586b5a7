import { analyze } from '@croupier/baccarat';
import { describe, expect, it } from 'vitest';
import { applyDelta, NO_FIGURES, type FiguresDelta } from '../src/floor/figures.js';
import type { BucketDocument } from '../src/floor/floor-figures.js';
import { hourlySeries } from '../src/floor/hourly.js';

const HOUR = 3_600_000;
const START = Date.parse('2026-12-02T08:00:00Z');

/** An hour bucket of a table (or a session of a game) with these settled bets. */
function bucket(
  hour: number,
  tableId: string,
  bets: { type: string; player: string; stake: number; returned: number }[],
  scope: BucketDocument['scope'] = { kind: 'table', id: tableId },
): BucketDocument {
  const delta: FiguresDelta = {
    rounds: 1,
    lines: bets.map((bet) => ({
      type: bet.type,
      playerId: bet.player,
      bets: 1,
      turnover: bet.stake,
      returned: bet.returned,
      accruedCommission: 0,
    })),
  };
  return {
    kind: 'bucket',
    tableId,
    scope,
    currency: 'EUR',
    decks: 8,
    tieOdds: 8,
    from: new Date(START + hour * HOUR).toISOString(),
    figures: applyDelta(NO_FIGURES, delta),
  };
}

describe('the floor hour by hour', () => {
  const exact = analyze(8).bets;

  it("adds up each hour's GGR, and each bet type's RTP from the start to the end of every hour", () => {
    const [series] = hourlySeries([
      bucket(0, 'salon', [
        { type: 'banker', player: 'ann', stake: 1_000, returned: 1_950 },
        { type: 'player', player: 'bob', stake: 500, returned: 0 },
      ]),
      bucket(2, 'salon', [{ type: 'banker', player: 'ann', stake: 3_000, returned: 0 }]),
    ]);
    expect(series).toMatchObject({ scope: 'table', id: 'salon', currency: 'EUR', decks: 8 });
    expect(series!.hours).toEqual([
      {
        hour: '2026-12-02T08:00:00.000Z',
        rounds: 1,
        turnover: 1_500,
        returned: 1_950,
        accruedCommission: 0,
        ggr: -450,
        holdPercent: -30,
        activePlayers: 2,
      },
      {
        hour: '2026-12-02T10:00:00.000Z',
        rounds: 1,
        turnover: 3_000,
        returned: 0,
        accruedCommission: 0,
        ggr: 3_000,
        holdPercent: 100,
        activePlayers: 1,
      },
    ]);
    const banker = series!.rtp.find((r) => r.betType === 'banker')!;
    expect(banker.exactRtp).toBe(exact.banker.rtp);
    expect(banker.points.map((p) => [p.until, p.bets, p.turnover, p.observedRtp])).toEqual([
      ['2026-12-02T09:00:00.000Z', 1, 1_000, 1.95],
      ['2026-12-02T11:00:00.000Z', 2, 4_000, 1_950 / 4_000],
    ]);
    // The band narrows as stakes add up: √(1000² + 3000²) / 4000 of a unit's spread.
    const half =
      (1.959963984540054 * Math.sqrt(exact.banker.variance) * Math.hypot(1_000, 3_000)) / 4_000;
    const [low, high] = banker.points[1]!.expected95!;
    expect(low).toBeCloseTo(exact.banker.rtp - half, 12);
    expect(high).toBeCloseTo(exact.banker.rtp + half, 12);
    const first = banker.points[0]!.expected95!;
    expect(first[1] - first[0]).toBeGreaterThan(high - low);
    // Player was bet in the first hour only: one point.
    expect(series!.rtp.find((r) => r.betType === 'player')!.points).toHaveLength(1);
  });

  it("adds up a game's sessions in one hour, and keeps tables and currencies apart", () => {
    const game = { kind: 'game', id: 'touch' } as const;
    const all = hourlySeries([
      bucket(1, 's-1', [{ type: 'tie', player: 'ann', stake: 100, returned: 900 }], game),
      bucket(1, 's-2', [{ type: 'tie', player: 'cy', stake: 100, returned: 0 }], game),
      bucket(1, 'salon', [{ type: 'player', player: 'bob', stake: 200, returned: 400 }]),
      {
        ...bucket(1, 'salon', [{ type: 'player', player: 'bob', stake: 7, returned: 0 }]),
        currency: 'KRW',
      },
    ]);
    expect(all.map((s) => `${s.scope}:${s.id}:${s.currency}`)).toEqual([
      'game:touch:EUR',
      'table:salon:EUR',
      'table:salon:KRW',
    ]);
    const touch = all[0]!;
    expect(touch.hours).toHaveLength(1);
    expect(touch.hours[0]).toMatchObject({
      rounds: 2,
      turnover: 200,
      returned: 900,
      ggr: -700,
      activePlayers: 2,
    });
    expect(touch.rtp[0]!.points[0]).toMatchObject({ bets: 2, observedRtp: 4.5 });
  });
});
