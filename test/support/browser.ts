// Browser tests: playwright-core driving Debian's chromium (never a downloaded browser) against a real Chute that
// serves the built dashboard (web/dist; scripts/test.mjs builds it before browser tests run).
// Screenshots go to test-artifacts/screenshots/ (kept by CI as artifacts, ignored by git).
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe } from 'node:test';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** The build under test: scripts/test.mjs builds one per run (TEST_DASHBOARD_DIR); else the normal web/dist. */
export const DASHBOARD_DIR = process.env.TEST_DASHBOARD_DIR ?? path.resolve('web', 'dist');

/** Environment for useTestServer() so the server serves the dashboard under test. */
export const DASHBOARD_ENV = { DASHBOARD_DIR } as const;
export const SCREENSHOT_DIR = path.resolve('test-artifacts', 'screenshots');

/** Desktop and phone sizes every page must look finished at. */
export const DESKTOP = { width: 1366, height: 900 } as const;
export const PHONE = { width: 360, height: 740 } as const;

/**
 * Declares a browser suite. Without chromium it is skipped with a printed notice, except under CI=true, where a
 * missing browser or an unbuilt dashboard fails the run (.ci/run installs chromium and builds the dashboard).
 */
export function describeBrowser(name: string, fn: () => void): void {
  const problem = !existsSync(CHROMIUM)
    ? `${CHROMIUM} is missing (apt-get install chromium)`
    : !existsSync(path.join(DASHBOARD_DIR, 'index.html'))
      ? 'the dashboard is not built (run the tests with npm test, which builds it)'
      : null;
  if (problem && process.env.CI !== 'true') {
    console.log(`# NOTICE: browser tests SKIPPED: ${problem}`);
    describe(name, { skip: problem }, () => undefined);
    return;
  }
  if (problem) throw new Error(`browser tests cannot run: ${problem}`);
  describe(name, fn);
}

/** One headless chromium for the suite. */
export function useBrowser(): () => Browser {
  let browser: Browser | undefined;
  before(async () => {
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-dev-shm-usage'],
    });
  });
  after(async () => {
    await browser?.close();
  });
  return () => {
    if (!browser) throw new Error('the browser has not started');
    return browser;
  };
}

export interface PageOptions {
  viewport?: { width: number; height: number };
  colorScheme?: 'light' | 'dark';
}

/** A fresh browser context (own cookies) on the server's URL, with clipboard access and console errors collected. */
export async function openPage(
  browser: Browser,
  baseURL: string,
  options: PageOptions = {},
): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  const context = await browser.newContext({
    baseURL,
    viewport: options.viewport ?? DESKTOP,
    colorScheme: options.colorScheme ?? 'light',
    acceptDownloads: true,
  });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseURL });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  const errors: string[] = [];
  page.on('pageerror', (err) => errors.push(`pageerror: ${err.message}`));
  page.on('console', (msg) => {
    // Failed requests are recorded below with their address; the console's copy of them names none.
    if (msg.type() === 'error' && !msg.text().startsWith('Failed to load resource'))
      errors.push(`console: ${msg.text()}`);
  });
  page.on('response', (res) => {
    if (res.status() >= 400)
      errors.push(`http ${res.status()}: ${res.request().method()} ${new URL(res.url()).pathname}`);
  });
  return { context, page, errors };
}

/** Saves a full-page screenshot as test-artifacts/screenshots/<name>.png. */
export async function screenshot(page: Page, name: string): Promise<string> {
  await mkdir(SCREENSHOT_DIR, { recursive: true });
  const file = path.join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

/** Signs in through the login page and waits for the dashboard. */
export async function signIn(page: Page, username: string, password: string): Promise<void> {
  await page.goto('/auth/login');
  await page.getByLabel(/^Username/).fill(username);
  await page.getByLabel(/^Password/).fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.waitForURL(/\/dashboard/);
}
