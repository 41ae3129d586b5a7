import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RoundAudit } from '@croupier/audit';
import { rankOf, type Card } from '@croupier/baccarat';
import { formatMoney, presetConfig } from '@croupier/contracts';
import type { HttpApp } from '@croupier/http';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/index.js';
import {
  CHROMIUM,
  chromiumAvailable as available,
  launchChromium,
  type HeadlessChromium,
} from './support/chromium.js';
import { as, playShoe, startCasino, waitForWallets, type Casino } from './support/casino.js';

/**
 * The operator console in headless Chromium (Debian's `chromium`, driven by playwright-core)
 * against the real gateway on an ephemeral port: a round played through the services is
 * audited, a shoe replayed, a table's roads drawn; screenshots go to test-results/.
 */
const SCREENSHOTS = fileURLToPath(new URL('../test-results/', import.meta.url));

let casino: Casino;
let app: HttpApp;
let url: string;
let token: string;
let browser: HeadlessChromium;
let page: Page;
let liveRounds: string[];
let soloShoe: string;
let inProgress: string;

beforeAll(async () => {
  if (!available) return;
  casino = await startCasino();
  const { system } = casino;
  soloShoe = (await playShoe(system, 'solo', { config: presetConfig('single-deck') })).shoeId;
  await system.rounds.openTable(
    {
      tableId: 'baccarat',
      config: presetConfig('live'),
      dealing: { mode: 'manual', bettingWindowMs: 0 },
    },
    as('olga', 'operator'),
  );
  liveRounds = [];
  // At least 8 rounds, and on until one has a pair, so the roads have pair marks to draw.
  let paired = false;
  for (let i = 0; i < 60 && (i < 8 || !paired); i++) {
    const round = await system.rounds.openRound('baccarat', as('dan', 'dealer'));
    liveRounds.push(round.roundId);
    if (i < 8)
      await system.rounds.placeBets(
        round.roundId,
        'alice',
        [
          { type: 'banker', amount: 2_000, bankerMode: 'commission' },
          { type: 'player_pair', amount: 100 },
        ],
        as('alice', 'player'),
      );
    await system.rounds.closeBetting(round.roundId, as('dan', 'dealer'));
    const dealt = await system.rounds.deal(round.roundId, as('dan', 'dealer'));
    const pair = (hand: readonly { card: Card }[]) =>
      rankOf(hand[0]!.card) === rankOf(hand[1]!.card);
    paired ||= pair(dealt.player) || pair(dealt.banker);
  }
  expect(paired, 'no pair in 60 rounds').toBe(true);
  await waitForWallets(system, ['alice', 'bob']);
  await system.sync();
  // A round in progress: betting, a bet on it, no card yet.
  inProgress = (await system.rounds.openRound('baccarat', as('dan', 'dealer'))).roundId;
  await system.rounds.placeBets(
    inProgress,
    'alice',
    [{ type: 'player', amount: 1_000 }],
    as('alice', 'player'),
  );
  app = await buildApp(system);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  url = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
  token = await system.tokens.issue({ id: 'olga', role: 'operator' });
  await mkdir(SCREENSHOTS, { recursive: true });
  browser = await launchChromium('console-chromium-');
  page = browser.page;
}, 240_000);

afterAll(async () => {
  if (!available) return;
  await browser.close();
  await app.close();
  await casino.close();
});

/** An attribute of every element the selector matches, in document order. */
async function attributes(selector: string, name: string): Promise<(string | null)[]> {
  const elements = await page.locator(selector).all();
  return Promise.all(elements.map((element) => element.getAttribute(name)));
}

async function signIn(): Promise<void> {
  await page.goto(`${url}/console`);
  await page.fill('#token', token);
  await page.click('#token-form button[type=submit]');
  await expect.poll(() => page.textContent('#token-state')).toBe('olga (operator)');
}

describe.skipIf(!available)(
  `the operator console in headless Chromium${available ? '' : ` (skipped: ${CHROMIUM} is not installed; apt-get install -y chromium)`}`,
  () => {
    it('asks for a token before calling the API, and keeps it for the session', async () => {
      await page.goto(`${url}/console`);
      await page.evaluate('sessionStorage.clear()');
      await page.reload();
      await page.fill('#round-id', liveRounds[0]!);
      await page.click('#round-form button');
      await expect.poll(() => page.textContent('#status')).toMatch(/Enter a token first/);
      await signIn();
      const stored = await page.evaluate<string | null>("sessionStorage.getItem('croupier.token')");
      expect(stored).toBe(token);
    });

    it('shows a round: its cards as cards, bets and payouts, the timeline, the verdict', async () => {
      await signIn();
      const roundId = liveRounds[2]!;
      const audit = (
        await app.inject({
          method: 'GET',
          url: `/v1/audit/rounds/${roundId}`,
          headers: { authorization: `Bearer ${token}` },
        })
      ).json<RoundAudit>();
      await page.fill('#round-id', roundId);
      await page.click('#round-form button');
      await page.waitForSelector(`h2[data-round="${roundId}"]`);
      expect(await page.getAttribute('.verdict', 'data-verdict')).toBe('ok');
      expect(await page.textContent('.verdict .headline')).toBe('✓ Verified');
      const shown = (hand: string) => attributes(`.hand[data-hand=${hand}] .card`, 'data-card');
      expect(await shown('player')).toEqual(audit.result!.player.cards);
      expect(await shown('banker')).toEqual(audit.result!.banker.cards);
      expect(await page.textContent('.hand[data-hand=player] h3')).toContain(
        String(audit.result!.player.total),
      );
      const reasons = await page.locator('.third-cards li').allTextContents();
      expect(reasons).toEqual([...new Set(audit.thirdCards.map((d) => d.reason))]);
      expect(reasons.length).toBeGreaterThan(0);
      const betRows = await page.locator('table').first().locator('tbody tr').count();
      expect(betRows).toBe(audit.bets.length);
      // Money in its units: the 2000 minor-unit Banker stake reads 20.00 EUR, never 2000.
      const stakes = await page
        .locator('table')
        .first()
        .locator('tbody tr td:nth-child(3)')
        .allTextContents();
      expect(stakes).toEqual(audit.bets.map((b) => formatMoney(b.amount, 'EUR')));
      expect(stakes).toContain('20.00 EUR');
      const timeline = await page.textContent('main');
      expect(timeline).toContain('alice bet 20.00 EUR on banker');
      expect(timeline).toContain('alice (player)');
      expect(timeline).toContain('BetPlaced');
      expect(timeline).toContain('PayoutCredited');
      await page.screenshot({ path: join(SCREENSHOTS, 'console-round.png'), fullPage: true });
    });

    it('shows a round in progress: its hands with no cards and no total, nothing reads "null"', async () => {
      await signIn();
      await page.fill('#round-id', inProgress);
      await page.click('#round-form button');
      await page.waitForSelector(`h2[data-round="${inProgress}"]`);
      expect(await page.textContent('.hand[data-hand=player] h3')).toBe('Player');
      expect(await page.textContent('.hand[data-hand=banker] h3')).toBe('Banker');
      expect(await page.locator('.hand .card').count()).toBe(0);
      const shown = (await page.textContent('main')) ?? '';
      expect(shown).toContain('alice bet 10.00 EUR on player');
      expect(shown).not.toMatch(/\bnull\b|\bundefined\b|NaN/);
      await page.screenshot({
        path: join(SCREENSHOTS, 'console-round-in-progress.png'),
        fullPage: true,
      });
    });

    it('replays a shoe and shows its verdict and rounds', async () => {
      await signIn();
      await page.fill('#shoe-id', soloShoe);
      await page.click('#shoe-form button');
      await page.waitForSelector(`h2[data-shoe="${soloShoe}"]`);
      expect(await page.textContent('h2')).toBe(`Shoe ${soloShoe} (closed)`);
      expect(await page.getAttribute('.verdict', 'data-verdict')).toBe('ok');
      const classes = await attributes('.checks li', 'class');
      const checks = (await attributes('.checks li', 'data-check')).map(
        (check, index) => `${check}:${classes[index]}`,
      );
      expect(checks).toContain('commitment:pass');
      expect(checks).toContain('digest:pass');
      await page.screenshot({ path: join(SCREENSHOTS, 'console-shoe.png'), fullPage: true });
    });

    it("draws a table's roads as players see them", async () => {
      await signIn();
      const roads = (
        await app.inject({
          method: 'GET',
          url: '/v1/tables/baccarat/roads',
          headers: { authorization: `Bearer ${token}` },
        })
      ).json<{
        beadPlate: string[];
        beadCells: { bankerPair: boolean; playerPair: boolean }[];
        bigRoad: { columns: string[]; cells: { bankerPair: boolean; playerPair: boolean }[] };
      }>();
      await page.fill('#table-id', 'baccarat');
      await page.click('#table-form button');
      await page.waitForSelector('[data-road=bead]');
      const bead = await attributes('[data-road=bead] .mark', 'data-mark');
      expect(bead).toEqual(roads.beadPlate);
      expect(bead).toHaveLength(liveRounds.length);
      const big = await page.locator('[data-road=big] .mark').count();
      expect(big).toBe(roads.bigRoad.columns.join('').length);
      const colours = await page.evaluate<string[]>(
        "[...document.querySelectorAll('[data-road=bead] .mark')].map((mark) => getComputedStyle(mark).backgroundColor)",
      );
      const expected = { B: 'rgb(198, 40, 40)', P: 'rgb(21, 101, 192)', T: 'rgb(46, 125, 50)' };
      expect(colours).toEqual(roads.beadPlate.map((r) => expected[r as 'B' | 'P' | 'T']));
      // Pair marks: Banker top-left, Player bottom-right, on the bead plate and the big road.
      const pairs = (cells: { bankerPair: boolean; playerPair: boolean }[]) => ({
        banker: cells.filter((c) => c.bankerPair).length,
        player: cells.filter((c) => c.playerPair).length,
      });
      const drawnPairs = async (road: string) => ({
        banker: await page.locator(`[data-road=${road}] .pair.banker`).count(),
        player: await page.locator(`[data-road=${road}] .pair.player`).count(),
      });
      expect(await drawnPairs('bead')).toEqual(pairs(roads.beadCells));
      expect(await drawnPairs('big')).toEqual(pairs(roads.bigRoad.cells));
      const ask = await page.locator('[data-ask] .ask-road').count();
      expect(ask).toBe(6);
      await page.screenshot({ path: join(SCREENSHOTS, 'console-roads.png'), fullPage: true });
    });

    it('shows what the API refused', async () => {
      await signIn();
      await page.fill('#round-id', 'baccarat.7.7');
      await page.click('#round-form button');
      await expect.poll(() => page.textContent('#status')).toMatch(/404 ROUND_NOT_FOUND/);
      expect(await page.getAttribute('#status', 'class')).toBe('error');
    });
  },
);
