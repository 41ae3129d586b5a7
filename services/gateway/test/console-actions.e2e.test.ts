import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { evaluateRound, type Card } from '@croupier/baccarat';
import { formatMoney, presetConfig } from '@croupier/contracts';
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
import {
  as,
  openRoundWhenFree,
  startCasino,
  waitForWallets,
  type Casino,
} from './support/casino.js';

/**
 * Staff actions from the console's live view in headless Chromium, each shown only to the roles
 * the API lets take it (docs/security.md): an operator opens a table from a preset and closes
 * it, a supervisor changes the dealer and closes a shoe early, a dealer sees only what a dealer
 * may do; a refusal is shown by its problem detail. Then 002's seat ledger in the table view,
 * and the alert of a scanner shoe dealt past its unreported cut card in the live feed. Every
 * action's result is read back over the API. Screenshots go to test-results/.
 */
const SCREENSHOTS = fileURLToPath(new URL('../test-results/', import.meta.url));

let casino: Casino;
let app: HttpApp;
let url: string;
const tokens: Record<string, string> = {};
let browser: HeadlessChromium;
let page: Page;
const dealer = as('dan', 'dealer');
const operator = as('olga', 'operator');
const supervisor = as('sue', 'supervisor');
/** Banker wins at the salon: each owes 5.00 EUR at the seat that bet 100.00. */
let bankerWins = 0;

beforeAll(async () => {
  if (!available) return;
  casino = await startCasino(undefined, { DEALING_STALL_MS: '0', VOID_AFTER_PAUSE_MS: '3600000' });
  const { system } = casino;
  await system.rounds.openTable(
    {
      tableId: 'salon',
      config: presetConfig('land-based'),
      dealing: { mode: 'manual', bettingWindowMs: 0 },
    },
    operator,
  );
  await system.rounds.changeDealer('salon', 'dan', supervisor);
  for (const [playerId, seat] of [
    ['ana', 2],
    ['ben', 5],
  ] as const) {
    await system.wallets.deposit(
      { playerId, amount: 1_000_000, currency: 'EUR', reference: `salon-${playerId}` },
      operator,
    );
    await system.rounds.takeSeat('salon', playerId, seat, as(playerId, 'player'));
  }
  for (let i = 0; i < 40 && bankerWins < 2; i++) {
    const round = await openRoundWhenFree(system, 'salon');
    for (const [playerId, seat] of [
      ['ana', 2],
      ['ben', 5],
    ] as const)
      await system.rounds.placeBets(
        round.roundId,
        playerId,
        [
          {
            type: 'banker',
            amount: playerId === 'ana' ? 10_000 : 20_000,
            bankerMode: 'commission',
            seat,
          },
        ],
        as(playerId, 'player'),
      );
    await system.rounds.closeBetting(round.roundId, dealer);
    const dealt = await system.rounds.deal(round.roundId, dealer);
    const { winner } = evaluateRound(
      dealt.player.map((c) => c.card),
      dealt.banker.map((c) => c.card),
    );
    if (winner === 'banker') bankerWins++;
  }
  await waitForWallets(system, ['ana', 'ben']);
  await system.sync();
  app = await buildApp(system);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  url = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
  for (const [role, id] of [
    ['operator', 'olga'],
    ['supervisor', 'sue'],
    ['dealer', 'dan'],
  ] as const)
    tokens[role] = await system.tokens.issue({ id, role });
  await mkdir(SCREENSHOTS, { recursive: true });
  browser = await launchChromium('console-actions-chromium-');
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
  // A dealer may not read the supervision feed (403): the tables come all the same.
  if (role !== 'dealer') await expect.poll(() => page.textContent('#feed-state')).toBe('live');
  await page.waitForSelector('[data-table-card=salon]');
}

/** Reads the API as the role does. */
async function read<T>(role: string, path: string): Promise<T> {
  const response = await app.inject({
    method: 'GET',
    url: path,
    headers: { authorization: `Bearer ${tokens[role]!}` },
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<T>();
}

/** The actions a table's card offers, read in one go (the view redraws every 3 s). */
function actionsAt(tableId: string): Promise<string[]> {
  return page.evaluate<string[]>(
    `[...document.querySelectorAll('[data-table-actions=${JSON.stringify(tableId)}] [data-action]')].filter((node) => !node.closest('[hidden]')).map((node) => node.getAttribute('data-action'))`,
  );
}

interface TableView {
  tableId: string;
  config: { preset?: string; seats: number | null };
  status: string;
  dealerId: string | null;
  currentShoeId: string | null;
}

describe.skipIf(!available)(
  `staff actions, the seat ledger and the cut-card alert in the console${available ? '' : ` (skipped: ${CHROMIUM} is not installed)`}`,
  () => {
    it('lets an operator open a table from a preset and close it', async () => {
      await signIn('operator');
      expect(await actionsAt('salon')).toEqual(['change-dealer', 'close-shoe', 'close-table']);
      // The presets come from the API's own document.
      await expect
        .poll(() => page.locator('#open-table-preset option').allTextContents())
        .toContain('land-based');
      await page.fill('#open-table-id', 'salon-2');
      await page.selectOption('#open-table-preset', 'land-based');
      expect(await page.inputValue('#open-table-preset')).toBe('land-based');
      await page.click('#open-table [data-action=open-table]');
      await page.waitForSelector('[data-table-card=salon-2]');
      const opened = await read<TableView>('operator', '/v1/tables/salon-2');
      expect(opened).toMatchObject({ config: { preset: 'land-based', seats: 7 }, status: 'open' });
      // Opening it again is refused: the problem's detail says why, and nothing changes.
      await page.fill('#open-table-id', 'salon-2');
      await page.click('#open-table [data-action=open-table]');
      await expect.poll(() => page.getAttribute('#status', 'class')).toBe('error');
      expect(await page.textContent('#status')).toMatch(
        /^409 ALREADY_EXISTS: table salon-2 exists/,
      );
      await page.screenshot({
        path: join(SCREENSHOTS, 'console-actions-operator.png'),
        fullPage: true,
      });

      await page.fill('[data-table-actions=salon-2] .close-reason', 'end of the evening');
      await page.click('[data-table-actions=salon-2] [data-action=close-table]');
      await expect
        .poll(async () => (await read<TableView>('operator', '/v1/tables/salon-2')).status)
        .toBe('closed');
      const [closed] = (await casino.store.readStream('table-salon-2')).filter(
        (event) => event.type === 'TableClosed',
      );
      expect(closed?.data).toMatchObject({ reason: 'end of the evening' });
      // A closed table offers nothing more.
      await expect.poll(() => actionsAt('salon-2')).toEqual([]);
    });

    it("shows a table's seat ledger: each seat's commission this shift and what a dealer change collects", async () => {
      expect(bankerWins).toBe(2);
      await signIn('supervisor');
      await page.goto(`${url}/console#table=salon`);
      await page.waitForSelector('[data-seat-ledger=salon]');
      const ledger = await read<{
        currency: string;
        seats: { seat: number; commission: { shift: number; atDealerChange: number } }[];
        commission: { shift: number; atDealerChange: number };
      }>('supervisor', '/v1/tables/salon/seats');
      // 5.00 EUR a win at seat 2 (100.00 bet), 10.00 EUR at seat 5 (200.00 bet).
      expect(ledger.seats.find((seat) => seat.seat === 2)?.commission.shift).toBe(500 * bankerWins);
      expect(ledger.seats.find((seat) => seat.seat === 5)?.commission.shift).toBe(
        1_000 * bankerWins,
      );
      const eur = (amount: number) => formatMoney(amount, 'EUR');
      expect(
        await page.textContent('[data-seat-ledger=salon] [data-seat="2"] [data-owed=shift]'),
      ).toBe(eur(500 * bankerWins));
      expect(
        await page.textContent('[data-seat-ledger=salon] [data-seat="5"] [data-owed=at-change]'),
      ).toBe(eur(1_000 * bankerWins));
      expect(await page.textContent('[data-seat-ledger=salon] [data-seat="2"]')).toContain('ana');
      expect(await page.textContent('[data-ledger-totals] [data-total=shift]')).toBe(
        eur(ledger.commission.shift),
      );
      expect(await page.textContent('[data-ledger-totals] [data-total=at-change]')).toBe(
        eur(ledger.commission.atDealerChange),
      );
      expect(ledger.commission.shift).toBe(1_500 * bankerWins);
      await page.screenshot({ path: join(SCREENSHOTS, 'console-seat-ledger.png'), fullPage: true });
    });

    it('lets a supervisor change the dealer and close a shoe, and shows a refusal by its detail', async () => {
      await signIn('supervisor');
      expect(await page.locator('#open-table').count()).toBe(0);
      expect(await actionsAt('salon')).toEqual(['change-dealer', 'start-shoe', 'close-shoe']);
      const before = await read<TableView>('supervisor', '/v1/tables/salon');
      // No dealer named: the API's 400 names the field, and the dealer stays.
      await page.click('[data-table-actions=salon] [data-action=change-dealer]');
      await expect.poll(() => page.getAttribute('#status', 'class')).toBe('error');
      expect(await page.textContent('#status')).toMatch(/^400 VALIDATION_ERROR: .*dealerId/);
      expect((await read<TableView>('supervisor', '/v1/tables/salon')).dealerId).toBe('dan');

      await page.fill('[data-table-actions=salon] .dealer-id', 'erin');
      await page.click('[data-table-actions=salon] [data-action=change-dealer]');
      await expect
        .poll(async () => (await read<TableView>('supervisor', '/v1/tables/salon')).dealerId)
        .toBe('erin');
      await expect.poll(() => page.textContent('[data-table-card=salon]')).toContain('dealer erin');
      // The dealer change collected every seat's debt: the ledger restarts.
      await expect
        .poll(
          async () =>
            (
              await read<{ commission: { shift: number; atDealerChange: number } }>(
                'supervisor',
                '/v1/tables/salon/seats',
              )
            ).commission,
        )
        .toEqual(expect.objectContaining({ shift: 0, atDealerChange: 0 }));

      const shoeId = before.currentShoeId!;
      await page.click('[data-table-actions=salon] [data-action=close-shoe]');
      await expect
        .poll(
          async () => (await read<{ status: string }>('supervisor', `/v1/shoes/${shoeId}`)).status,
        )
        .toBe('closed');
      const [closed] = (await casino.store.readStream(`shoe-${shoeId}`)).filter(
        (event) => event.type === 'ShoeClosed',
      );
      expect(closed?.data).toMatchObject({ reason: 'operator' });
      await page.screenshot({
        path: join(SCREENSHOTS, 'console-actions-supervisor.png'),
        fullPage: true,
      });
    });

    it("offers a dealer a dealer's actions only", async () => {
      await signIn('dealer');
      expect(await page.locator('#open-table').count()).toBe(0);
      expect(await actionsAt('salon')).toEqual(['start-shoe']);
      await page.click('[data-table-actions=salon] [data-action=start-shoe]');
      await expect
        .poll(async () => (await read<TableView>('dealer', '/v1/tables/salon')).currentShoeId)
        .toBe('salon.2');
      expect(
        await page.locator('[data-action=close-table], [data-action=change-dealer]').count(),
      ).toBe(0);
      await page.screenshot({
        path: join(SCREENSHOTS, 'console-actions-dealer.png'),
        fullPage: true,
      });
    });

    it('raises an alert in the live feed when a scanner shoe is dealt past its unreported cut card', async () => {
      const { system } = casino;
      await system.rounds.openTable(
        {
          tableId: 'scanner',
          config: presetConfig('generic', { cardSource: 'scanner', decks: 1, cutCard: 14 }),
          dealing: { mode: 'manual', bettingWindowMs: 0 },
        },
        operator,
      );
      await system.rounds.openRound('scanner', dealer).catch(() => undefined);
      await system.shoes.burnScannedCard({ shoeId: 'scanner.1', shownCard: '2D' }, dealer);
      await signIn('supervisor');
      const cards: Card[] = [];
      for (const suit of ['C', 'D', 'H', 'S'])
        for (const rank of ['A', '2', '3', '4', '5', '6', '7', '8', '9', 'T', 'J', 'Q', 'K'])
          if (`${rank}${suit}` !== '2D') cards.push(`${rank}${suit}` as Card);
      // Positions 3 on: the card at 38 is the first behind the cut card, and nobody reports it.
      while (52 - cards.length <= 38) {
        const { roundId } = await openRoundWhenFree(system, 'scanner');
        await system.rounds.closeBetting(roundId, dealer);
        let round = await system.rounds.getRound(roundId);
        while (round.status === 'closed' || round.status === 'dealing')
          round = await system.rounds.postScannedCard(roundId, cards.shift()!, dealer);
        await system.rounds.confirmResult(roundId, dealer);
      }
      const alert = page.locator('#significant-events [data-category=cut-card-passed]');
      await expect.poll(() => alert.count()).toBe(1);
      expect(await alert.textContent()).toContain('position 38');
      expect(await alert.textContent()).toContain('has not reported the cut card');
      expect(await alert.getAttribute('class')).toContain('cut-card-passed');
      await page.screenshot({
        path: join(SCREENSHOTS, 'console-cut-card-alert.png'),
        fullPage: true,
      });
    });
  },
);
