import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

/** Debian's `chromium`, driven by playwright-core (nothing is downloaded). */
export const CHROMIUM = '/usr/bin/chromium';

/** Whether the console tests can run here; they are skipped, saying why, when not. */
export const chromiumAvailable = existsSync(CHROMIUM);

/** A headless Chromium on a profile of its own, and the page the console tests drive. */
export interface HeadlessChromium {
  readonly browser: BrowserContext;
  readonly page: Page;
  /** Closes the browser and removes its profile. */
  close(): Promise<void>;
}

/** Starts headless Chromium with the flags this machine needs (no sandbox, GPU or network chatter). */
export async function launchChromium(profilePrefix: string): Promise<HeadlessChromium> {
  const profile = await mkdtemp(join(tmpdir(), profilePrefix));
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1400, height: 1000 },
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-quic',
      '--no-first-run',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  const page = browser.pages()[0] ?? (await browser.newPage());
  return {
    browser,
    page,
    async close() {
      await browser.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/**
 * Opens the console at `path` (e.g. `/console#floor`) with no token kept from an earlier test,
 * signs in with `token`, and waits for `readySelector`: what each console test does first.
 */
export async function signInToConsole(
  page: Page,
  address: string,
  token: string,
  readySelector: string,
): Promise<void> {
  await page.goto(address);
  await page.evaluate('sessionStorage.clear()');
  await page.reload();
  await page.fill('#token', token);
  await page.click('#token-form button[type=submit]');
  await page.waitForSelector(readySelector);
}
