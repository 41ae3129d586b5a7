import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { presetConfig, streams } from '@croupier/contracts';
import type { HttpApp } from '@croupier/http';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/index.js';
import {
  CHROMIUM,
  chromiumAvailable as available,
  launchChromium,
  signInToConsole,
  type HeadlessChromium,
} from './support/chromium.js';
import { as, startCasino, waitForWallets, type Casino } from './support/casino.js';

/**
 * The console's live view in headless Chromium, as a pit boss opens it: every table with its
 * status, current round, dealer and bead plate, the paused rounds first and highlighted, the
 * significant events as the feed brings them, and a supervisor resuming or voiding a paused
 * round from there. Screenshots go to test-results/.
 */
const SCREENSHOTS = fileURLToPath(new URL('../test-results/', import.meta.url));

let casino: Casino;
let app: HttpApp;
let url: string;
const tokens: Record<string, string> = {};
let browser: HeadlessChromium;
let page: Page;
let jammed: string;
let camera: string;
const dealer = as('dan', 'dealer');
const supervisor = as('sue', 'supervisor');

async function table(tableId: string): Promise<void> {
  await casino.system.rounds.openTable(
    { tableId, config: presetConfig('live'), dealing: { mode: 'manual', bettingWindowMs: 0 } },
    as('olga', 'operator'),
  );
}

beforeAll(async () => {
  if (!available) return;
  casino = await startCasino(undefined, { DEALING_STALL_MS: '0', VOID_AFTER_PAUSE_MS: '3600000' });
  const { system } = casino;
  await table('salon');
  await system.rounds.changeDealer('salon', 'dan', supervisor);
  for (let i = 0; i < 5; i++) {
    const round = await system.rounds.openRound('salon', dealer);
    await system.rounds.closeBetting(round.roundId, dealer);
    await system.rounds.deal(round.roundId, dealer);
  }
  await system.wallets.deposit(
    { playerId: 'alice', amount: 10_000, currency: 'EUR', reference: 'pit-alice' },
    as('olga', 'operator'),
  );
  await table('jammed');
  jammed = (await system.rounds.openRound('jammed', dealer)).roundId;
  await system.rounds.pause(jammed, 'shuffler jammed', supervisor);
  await table('camera');
  camera = (await system.rounds.openRound('camera', dealer)).roundId;
  await system.rounds.placeBets(
    camera,
    'alice',
    [{ type: 'player', amount: 1_000 }],
    as('alice', 'player'),
  );
  await system.rounds.pause(camera, 'table camera offline', supervisor);
  await system.sync();
  app = await buildApp(system);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  url = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
  tokens['supervisor'] = await system.tokens.issue({ id: 'sue', role: 'supervisor' });
  tokens['regulator'] = await system.tokens.issue({ id: 'rita', role: 'regulator' });
  await mkdir(SCREENSHOTS, { recursive: true });
  browser = await launchChromium('console-pit-chromium-');
  page = browser.page;
  // A step that cannot happen fails in a few seconds, naming itself, before the test's timeout.
  page.setDefaultTimeout(10_000);
}, 240_000);

afterAll(async () => {
  if (!available) return;
  await browser.close();
  await app.close();
  await casino.close();
});

async function signIn(role: string): Promise<void> {
  await signInToConsole(page, `${url}/console`, tokens[role]!, 'h2[data-pit=live]');
  await expect.poll(() => page.textContent('#feed-state')).toBe('live');
}

/**
 * An attribute of every element the selector matches, in document order, read in one go: the
 * live view redraws its lists as the feed speaks, so elements found one by one may be gone.
 */
function attributes(selector: string, name: string): Promise<(string | null)[]> {
  return page.evaluate<(string | null)[]>(
    `[...document.querySelectorAll(${JSON.stringify(selector)})].map((node) => node.getAttribute(${JSON.stringify(name)}))`,
  );
}

const pausedShown = () => attributes('[data-paused-round]', 'data-paused-round');

describe.skipIf(!available)(
  `the console's live view in headless Chromium${available ? '' : ` (skipped: ${CHROMIUM} is not installed)`}`,
  () => {
    it('opens on the live tables, the paused rounds highlighted, and the significant events', async () => {
      await signIn('supervisor');
      await expect.poll(pausedShown).toEqual([jammed, camera]);
      expect(await page.getAttribute('#paused-heading', 'class')).toBe('alert');
      const cards = await attributes('[data-table-card]', 'data-table-card');
      expect(cards).toEqual(['salon', 'jammed', 'camera']);
      const salon = page.locator('[data-table-card=salon]');
      expect(await salon.getAttribute('class')).toBe('table-card open');
      expect(await salon.textContent()).toContain('dealer dan');
      expect(await salon.textContent()).toContain('5 round(s) completed');
      const roads = (
        await app.inject({
          method: 'GET',
          url: '/v1/tables/salon/roads',
          headers: { authorization: `Bearer ${tokens['supervisor']!}` },
        })
      ).json<{ beadPlate: string[] }>();
      const beads = await attributes('[data-mini-road=salon] .mark', 'data-mark');
      expect(beads).toEqual(roads.beadPlate);
      expect(await page.getAttribute('[data-table-card=jammed]', 'class')).toContain('paused');
      // The events the feed brought: the pauses, the dealer change, the tables opened.
      const categories = await attributes('#significant-events [data-category]', 'data-category');
      // Newest first: the camera's pause, the camera's table opened, the jammed round's pause...
      expect(categories.slice(0, 3)).toEqual(['pause', 'configuration', 'pause']);
      expect(categories).toContain('dealer-change');
      // A significant event after the page opened comes in on its own.
      await casino.system.rounds.changeDealer('salon', 'erin', supervisor);
      await expect
        .poll(() => page.locator('#significant-events li').first().textContent())
        .toContain('erin');
      await page.screenshot({ path: join(SCREENSHOTS, 'console-pit.png'), fullPage: true });
    });

    it('lets a supervisor resume one paused round and void another with refunds', async () => {
      await signIn('supervisor');
      await expect.poll(pausedShown).toEqual([jammed, camera]);
      await page.click(`[data-paused-round="${jammed}"] [data-action=resume]`);
      await expect.poll(pausedShown).toEqual([camera]);
      expect((await casino.system.rounds.getRound(jammed)).paused).toBe(false);
      await page.fill(`[data-paused-round="${camera}"] .void-reason`, 'camera not restored');
      await page.click(`[data-paused-round="${camera}"] [data-action=void]`);
      await expect.poll(pausedShown).toEqual([]);
      const voided = await casino.system.rounds.getRound(camera);
      expect(voided.status).toBe('voided');
      const events = await casino.store.readStream(streams.round(camera));
      expect(events.find((event) => event.type === 'RoundVoided')?.data).toMatchObject({
        reason: 'camera not restored',
      });
      await waitForWallets(casino.system, ['alice']);
      expect((await casino.system.wallets.getWallet('alice')).balance).toBe(10_000);
      await expect
        .poll(() => page.getAttribute('[data-table-card=camera]', 'class'))
        .toBe('table-card open');
    });

    it('links a paused round to its audit, and offers a regulator no buttons', async () => {
      const { roundId } = await casino.system.rounds.openRound('salon', dealer);
      await casino.system.rounds.pause(roundId, 'card on the floor', supervisor);
      await signIn('regulator');
      await expect.poll(pausedShown).toEqual([roundId]);
      expect(await page.locator('[data-paused-round] button').count()).toBe(0);
      await page.click(`[data-paused-round="${roundId}"] a`);
      await page.waitForSelector(`h2[data-round="${roundId}"]`);
      expect(await page.textContent('.meta')).toContain('(paused)');
      await casino.system.rounds.resume(roundId, supervisor);
    });
  },
);
