import { randomUUID } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Card } from '@croupier/baccarat';
import { DomainError, formatMoney, presetConfig, type TableConfig } from '@croupier/contracts';
import type { HttpApp } from '@croupier/http';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildApp } from '../src/index.js';
import {
  CHROMIUM,
  chromiumAvailable as available,
  launchChromium,
  signInToConsole,
  type HeadlessChromium,
} from './support/chromium.js';
import {
  as,
  openRoundWhenFree,
  placeBetsAs,
  playScannedRound,
  startCasino,
  waitForWallets,
  type Casino,
} from './support/casino.js';

/**
 * The console's floor in headless Chromium, as a pit boss and the back office read it: the
 * tables with the open exposure of their round in play beside the players' sessions, the figures
 * per table, session game and currency with money in its units, and the charts (GGR per hour,
 * observed RTP against its expected band). The floor has live play (an RNG table, in EUR and in
 * KRW), land-based play (a seated 002 table dealt by hand and one read by a card scanner) and
 * sessions (003 Touch), over the last five hours: the hours before this one are played with the
 * test's clock set back (the store records when it is told it is), so the charts have hours to
 * draw. Screenshots go to test-results/.
 */
const SCREENSHOTS = fileURLToPath(new URL('../test-results/', import.meta.url));
const HOUR = 3_600_000;
const PAST_HOURS = 4;

let casino: Casino;
let app: HttpApp;
let url: string;
const tokens: Record<string, string> = {};
let browser: HeadlessChromium;
let page: Page;
/** The hour the test started in, and the range the figures and charts are read over. */
const thisHour = Math.floor(Date.now() / HOUR) * HOUR;
const from = new Date(thisHour - PAST_HOURS * HOUR).toISOString();
const to = new Date(thisHour + HOUR).toISOString();
let sessionId: string;
let standing: string;
/** Opens Uma's session, once the page shows the floor. */
let openLater: () => Promise<string>;

const operator = as('olga', 'operator');
const dealer = as('dan', 'dealer');

/** Hands the scanner reads in order (Player, Banker, Player, Banker): two cards each, no draw. */
const HANDS: readonly (readonly Card[])[] = [
  ['4C', '3H', '5D', '2S'], // Player 9 (natural) beats Banker 5
  ['2C', '3S', '4D', '4H'], // Player 6 and Banker 7 stand: Banker wins
  ['4S', '5H', '4C', '3D'], // naturals of 8 each: a tie
];
let scanned = 0;

async function openTable(tableId: string, config: TableConfig): Promise<void> {
  await casino.system.rounds.openTable(
    { tableId, config, dealing: { mode: 'manual', bettingWindowMs: 0 } },
    operator,
  );
}

/** A round dealt by hand at an RNG table, with these players' bets, settled and paid. */
async function manualRound(
  tableId: string,
  bets: Record<string, { type: string; amount: number; seat?: number }[]>,
): Promise<void> {
  const { system } = casino;
  const { roundId } = await openRoundWhenFree(system, tableId);
  for (const [player, list] of Object.entries(bets))
    await placeBetsAs(system, roundId, player, list);
  await system.rounds.closeBetting(roundId, dealer);
  await system.rounds.deal(roundId, dealer);
  await waitForWallets(system, Object.keys(bets));
}

/** One hour of the floor: two rounds at each table. */
async function playHour(hour: number): Promise<void> {
  for (let i = 0; i < 2; i++) {
    await manualRound('salon', {
      alice: [
        { type: 'banker', amount: 1_000 + 100 * hour + i },
        { type: 'player_pair', amount: 100 },
      ],
      bob: [
        { type: 'player', amount: 700 },
        { type: 'tie', amount: 100 },
      ],
    });
    await manualRound('seoul', {
      kim: [
        { type: 'banker', amount: 5_000 },
        { type: 'tie', amount: 1_000 },
      ],
    });
    await manualRound('pit', {
      carla: [{ type: 'banker', amount: 2_000, seat: 3 }],
      dino: [{ type: 'player', amount: 1_500, seat: 5 }],
    });
    await playScannedRound(
      casino.system,
      'reader',
      'carla',
      [{ type: i === 0 ? 'banker' : 'player', amount: 1_000, seat: 2 }],
      HANDS[scanned++ % HANDS.length]!,
    );
  }
  await casino.system.sync();
}

/** A call to the API over the app, with the token of `who` (a role, or uma). */
async function call<T>(method: 'GET' | 'POST', path: string, who: string, body?: unknown) {
  const response = await app.inject({
    method,
    url: path,
    headers: { authorization: `Bearer ${tokens[who]!}` },
    ...(body === undefined ? {} : { payload: body as Record<string, unknown> }),
  });
  expect(response.statusCode, `${method} ${path}: ${response.body}`).toBeLessThan(300);
  return response.json<T>();
}

/** The floor opened, its players funded and seated, and the hours before this one played. */
async function playPastHours(): Promise<void> {
  casino = await startCasino(undefined, { DEALING_STALL_MS: '0' });
  const { system } = casino;
  await openTable('salon', presetConfig('live'));
  await openTable('seoul', presetConfig('generic', { currency: 'KRW' }));
  await openTable('pit', presetConfig('land-based'));
  await openTable('reader', presetConfig('land-based', { cardSource: 'scanner' }));
  // The scanner's first round shuffles its shoe and waits for the dealer's burn.
  await expect(system.rounds.openRound('reader', dealer)).rejects.toThrow(DomainError);
  await system.shoes.burnScannedCard({ shoeId: 'reader.1', shownCard: '2D' }, dealer);
  for (const [player, amount, currency] of [
    ['alice', 10_000_000, 'EUR'],
    ['bob', 10_000_000, 'EUR'],
    ['carla', 10_000_000, 'EUR'],
    ['dino', 10_000_000, 'EUR'],
    ['tess', 1_000_000, 'EUR'],
    ['uma', 1_000_000, 'EUR'],
    ['kim', 100_000_000, 'KRW'],
  ] as const)
    await system.wallets.deposit(
      { playerId: player, amount, currency, reference: `floor-${player}` },
      operator,
    );
  await system.rounds.takeSeat('pit', 'carla', 3, as('carla', 'player'));
  await system.rounds.takeSeat('pit', 'dino', 5, as('dino', 'player'));
  await system.rounds.takeSeat('reader', 'carla', 2, as('carla', 'player'));

  for (let back = PAST_HOURS; back >= 1; back--) {
    vi.setSystemTime(thisHour - back * HOUR + 15 * 60_000);
    await playHour(back);
  }
}

beforeAll(async () => {
  if (!available) return;
  // The hours before this one are played with the clock set back, a quarter past each hour by
  // the store's clock. It only ever moves forward: a subscription that read at a later time
  // than the clock says would wait for that time to come again.
  vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
  vi.setSystemTime(thisHour - PAST_HOURS * HOUR + 10 * 60_000);
  try {
    await playPastHours();
  } finally {
    vi.useRealTimers();
  }
  await playHour(0);
  const { system } = casino;

  app = await buildApp(system);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  url = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
  // A token per role (tess for the player), and one for Uma, who opens a session later.
  for (const [key, id, role] of [
    ['supervisor', 'sue', 'supervisor'],
    ['operator', 'olga', 'operator'],
    ['regulator', 'rita', 'regulator'],
    ['player', 'tess', 'player'],
    ['uma', 'uma', 'player'],
  ] as const)
    tokens[key] = await system.tokens.issue({ id, role });

  // Tess plays a Touch session (003) over the API: a round dealt and paid, and a bet on the next.
  const openSession = async (who: string) =>
    (await call<{ sessionId: string }>('POST', '/v1/sessions', who, { preset: 'touch' })).sessionId;
  const bet = async (amount: number) => {
    const { roundId } = await call<{ roundId: string }>(
      'POST',
      `/v1/sessions/${sessionId}/rounds`,
      'player',
    );
    await call('POST', `/v1/rounds/${roundId}/bets`, 'player', {
      bets: [{ type: 'banker', amount, betId: randomUUID() }],
    });
    return roundId;
  };
  sessionId = await openSession('player');
  await call('POST', `/v1/rounds/${await bet(500)}/deal`, 'player');
  await waitForWallets(system, ['tess']);
  await bet(300);
  openLater = () => openSession('uma');

  // The salon's round in play, bets standing: its open exposure.
  standing = (await openRoundWhenFree(system, 'salon')).roundId;
  await placeBetsAs(system, standing, 'alice', [
    { type: 'banker', amount: 1_000 },
    { type: 'tie', amount: 100 },
    { type: 'player_pair', amount: 100 },
  ]);
  await placeBetsAs(system, standing, 'bob', [{ type: 'player', amount: 600 }]);
  await system.sync();

  await mkdir(SCREENSHOTS, { recursive: true });
  browser = await launchChromium('console-floor-chromium-');
  page = browser.page;
  page.setDefaultTimeout(10_000);
}, 240_000);

afterAll(async () => {
  if (!available) return;
  await browser.close();
  await app.close();
  await casino.close();
});

async function signIn(role: string): Promise<void> {
  await signInToConsole(page, `${url}/console#floor`, tokens[role]!, 'h2[data-floor]');
  await page.waitForSelector('[data-figures]');
}

/** The text of every element the selector matches, in document order, read in one go. */
function texts(selector: string): Promise<string[]> {
  return page.evaluate<string[]>(
    `[...document.querySelectorAll(${JSON.stringify(selector)})].map((node) => node.textContent.trim())`,
  );
}
function attributes(selector: string, name: string): Promise<(string | null)[]> {
  return page.evaluate<(string | null)[]>(
    `[...document.querySelectorAll(${JSON.stringify(selector)})].map((node) => node.getAttribute(${JSON.stringify(name)}))`,
  );
}

interface Figures {
  currency: string;
  turnover: number;
  returned: number;
  accruedCommission: number;
  ggr: number;
  holdPercent: number | null;
  rounds: number;
  activePlayers: number;
  bets: { type: string; bets: number; turnover: number; ggr: number }[];
}
interface FloorFigures {
  tables: (Figures & { tableId: string })[];
  games: (Figures & { game: string })[];
}

/** What a figures row must show: every amount in its currency, as money.js writes it. */
async function expectFiguresShown(figures: FloorFigures): Promise<void> {
  const rows = [
    ...figures.tables.map((t) => ({ key: `table:${t.tableId}:${t.currency}`, ...t })),
    ...figures.games.map((g) => ({ key: `game:${g.game}:${g.currency}`, ...g })),
  ];
  expect(await attributes('[data-figures]', 'data-figures')).toEqual(rows.map((r) => r.key));
  for (const row of rows) {
    const cells = await texts(`[data-figures="${row.key}"] td[data-field]`);
    expect(cells, row.key).toEqual([
      formatMoney(row.turnover, row.currency),
      formatMoney(row.returned, row.currency),
      formatMoney(row.accruedCommission, row.currency),
      formatMoney(row.ggr, row.currency),
      row.holdPercent === null ? '—' : `${row.holdPercent.toFixed(2)}%`,
      String(row.rounds),
      String(row.activePlayers),
    ]);
    for (const bet of row.bets)
      expect(await texts(`[data-bets="${row.key}:${bet.type}"] td[data-field]`)).toEqual([
        String(bet.bets),
        formatMoney(bet.turnover, row.currency),
        expect.any(String),
        formatMoney(bet.ggr, row.currency),
      ]);
  }
}

describe.skipIf(!available)(
  `the console's floor in headless Chromium${available ? '' : ` (skipped: ${CHROMIUM} is not installed)`}`,
  () => {
    it('shows the tables with the open exposure beside the sessions, and today’s figures in their currencies', async () => {
      await signIn('supervisor');
      expect(await attributes('[data-floor-table]', 'data-floor-table')).toEqual([
        'salon',
        'seoul',
        'pit',
        'reader',
      ]);
      // The salon's round in play: what each outcome costs, as the API prices it, in euros.
      const exposure = await call<{
        tables: {
          tableId: string;
          round: {
            roundId: string;
            outcomes: Record<string, { returns: number; houseNet: number }>;
            worstCaseReturns: number;
          } | null;
        }[];
      }>('GET', '/v1/floor/exposure', 'supervisor');
      const salon = exposure.tables.find((t) => t.tableId === 'salon')!.round!;
      expect(salon.roundId).toBe(standing);
      expect(
        await page.getAttribute(
          '[data-floor-table=salon] [data-exposure-round]',
          'data-exposure-round',
        ),
      ).toBe(standing);
      for (const outcome of ['banker', 'player', 'tie']) {
        const { returns, houseNet } = salon.outcomes[outcome]!;
        const row = `[data-floor-table=salon] tr[data-exposure=${outcome}]`;
        expect(await page.getAttribute(row, 'data-returns')).toBe(String(returns));
        expect(await texts(`${row} td.num`)).toEqual([
          formatMoney(returns, 'EUR'),
          formatMoney(houseNet, 'EUR'),
        ]);
      }
      // Banker wins: 1,000 back plus 950; the player's 600 lost: 1,950 returned, 0.50 net lost.
      expect(salon.outcomes['banker']).toEqual({ returns: 1_950, houseNet: -250 });
      expect(await texts('[data-floor-table=salon] tr[data-exposure=banker] td.num')).toEqual([
        '19.50 EUR',
        '−2.50 EUR',
      ]);
      expect(await texts('[data-floor-table=salon] tr.worst td.num')).toEqual([
        formatMoney(salon.worstCaseReturns, 'EUR'),
      ]);
      expect(
        await page.getAttribute('[data-floor-table=seoul] [data-exposure]', 'data-exposure'),
      ).toBe('none');

      // Tess's session beside them: player, game, rounds, stakes, last activity.
      const session = await page.locator(`tr[data-session="${sessionId}"]`).allTextContents();
      expect(session).toHaveLength(1);
      const cells = await texts(`tr[data-session="${sessionId}"] td`);
      expect(cells.slice(0, 5)).toEqual([
        'tess',
        'touch',
        '1',
        '8.00 EUR',
        expect.stringMatching(/ EUR$/),
      ]);
      expect(cells[5]).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC$/);
      expect(cells[6]).toMatch(/\(betting\)$/);

      // Today's figures, table by table and for the Touch sessions, euros and won apart.
      await expectFiguresShown(await call<FloorFigures>('GET', '/v1/floor/figures', 'supervisor'));
      const seoul = await texts('[data-figures="table:seoul:KRW"] td[data-field=turnover]');
      expect(seoul[0]).toMatch(/^[\d,]+ KRW$/);
      const pit = await texts('[data-figures="table:pit:EUR"] td[data-field=accruedCommission]');
      expect(pit[0]).toMatch(/^\d[\d,]*\.\d{2} EUR$/);
      await page.screenshot({ path: join(SCREENSHOTS, 'console-floor.png'), fullPage: true });
    });

    it('shows a chosen period and charts its GGR per hour and RTP against the expected band', async () => {
      await signIn('operator');
      await page.selectOption('#floor-period', 'range');
      await page.fill('#floor-from', from.slice(0, 16));
      await page.fill('#floor-to', to.slice(0, 16));
      await page.click('#floor-form button[type=submit]');
      await page.waitForSelector('[data-period=range]');
      const range = await call<FloorFigures>(
        'GET',
        `/v1/floor/figures?period=range&from=${from}&to=${to}`,
        'operator',
      );
      await expectFiguresShown(range);
      // Five hours of play: each table's rounds add up over them.
      expect(range.tables.find((t) => t.tableId === 'salon')!.rounds).toBe(2 * (PAST_HOURS + 1));

      const hourly = await call<{
        series: {
          scope: string;
          id: string;
          currency: string;
          hours: { hour: string; ggr: number }[];
          rtp: {
            betType: string;
            exactRtp: number;
            points: { until: string; observedRtp: number }[];
          }[];
        }[];
      }>('GET', `/v1/floor/figures/hourly?from=${from}&to=${to}`, 'operator');
      // GGR per hour in euros: a bar per hour played, every table and game of the currency.
      const euroHours = new Map<string, number>();
      for (const series of hourly.series.filter((s) => s.currency === 'EUR'))
        for (const hour of series.hours)
          euroHours.set(hour.hour, (euroHours.get(hour.hour) ?? 0) + hour.ggr);
      expect(euroHours.size).toBe(PAST_HOURS + 1);
      const bars = '[data-ggr-chart=EUR] svg rect[data-hour]';
      expect((await attributes(bars, 'data-hour')).sort()).toEqual([...euroHours.keys()].sort());
      for (const [hour, ggr] of euroHours)
        expect(
          await page.getAttribute(`[data-ggr-chart=EUR] rect[data-hour="${hour}"]`, 'data-value'),
        ).toBe(String(ggr));
      expect(await texts('[data-ggr-chart=EUR] svg .tick')).toEqual(
        expect.arrayContaining([expect.stringMatching(/^−?[\d,]+\.\d{2} EUR$/)]),
      );
      expect(await page.locator('[data-ggr-chart=KRW] svg rect[data-hour]').count()).toBe(
        PAST_HOURS + 1,
      );

      // Banker, Player and Tie at the salon: a point per hour, on the observed RTP, and the band.
      for (const betType of ['banker', 'player', 'tie']) {
        const rtp = hourly.series
          .find((s) => s.scope === 'table' && s.id === 'salon')!
          .rtp.find((r) => r.betType === betType)!;
        expect(rtp.points).toHaveLength(PAST_HOURS + 1);
        const chart = `[data-rtp-chart="table:salon:EUR:${betType}"] svg`;
        expect(await attributes(`${chart} circle.point`, 'data-until')).toEqual(
          rtp.points.map((p) => p.until),
        );
        expect(await attributes(`${chart} circle.point`, 'data-value')).toEqual(
          rtp.points.map((p) => String(p.observedRtp)),
        );
        expect(await page.getAttribute(`${chart} line.expected`, 'data-expected')).toBe(
          String(rtp.exactRtp),
        );
        expect(await page.locator(`${chart} polygon.band`).count()).toBe(1);
        expect(await page.locator(`${chart} polyline.observed`).count()).toBe(1);
      }
      // The Touch sessions are charted as their game.
      expect(
        await page.locator('[data-rtp-chart="game:touch:EUR:banker"] circle.point').count(),
      ).toBe(1);
      await page.screenshot({ path: join(SCREENSHOTS, 'console-floor-range.png'), fullPage: true });
      await page
        .locator('#floor-charts')
        .screenshot({ path: join(SCREENSHOTS, 'console-floor-charts.png') });
    });

    it('refreshes the live part: a new bet shows in the exposure, a new session in the list', async () => {
      await signIn('regulator');
      await placeBetsAs(casino.system, standing, 'bob', [{ type: 'player', amount: 400 }]);
      // Bob's Player bets are 1,000 now: a Player win returns 2,000.
      await expect
        .poll(
          () =>
            page.getAttribute('[data-floor-table=salon] tr[data-exposure=player]', 'data-returns'),
          { timeout: 15_000 },
        )
        .toBe('2000');
      expect(await texts('[data-floor-table=salon] tr[data-exposure=player] td.num')).toEqual([
        '20.00 EUR',
        formatMoney(1_700 + 400 - 2_000, 'EUR'),
      ]);
      const uma = await openLater();
      await expect
        .poll(() => texts(`tr[data-session="${uma}"] td`), { timeout: 15_000 })
        .toEqual(['uma', 'touch', '0', '0.00 EUR', '0.00 EUR', expect.any(String), '—']);
      expect(await page.textContent('#sessions-heading')).toBe('Sessions (2 open)');
    });

    it('keeps the floor from a player, naming the refusal', async () => {
      await page.goto(`${url}/console#floor`);
      await page.evaluate('sessionStorage.clear()');
      await page.reload();
      await page.fill('#token', tokens['player']!);
      await page.click('#token-form button[type=submit]');
      await expect.poll(() => page.textContent('#status')).toMatch(/403/);
      expect(await page.locator('[data-figures]').count()).toBe(0);
    });
  },
);
