// Motion and zoom: with the system's "reduce motion" preference the dashboard's transitions and animations stop; every
// page reads without scrolling sideways at 320 CSS pixels wide and at 200% zoom (WCAG 1.4.10 reflow, 1.4.4 resize),
// and at a phone's 390 px and a laptop's 1280 px, in both colour schemes, the layouts people met hold: the overview's
// recent files need no scrolling, the settings tabs stand in one row or one column, stat cards show their values
// whole, and messages appear below the header's buttons.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { DASHBOARD_ENV, describeBrowser, useBrowser } from '../support/browser.js';
import { makeFolder, makeTag, makeUrl } from '../support/factory.js';
import { useTestServer, type TestUser } from '../support/server.js';
import { uploadOne } from '../support/uploads.js';
import { DASHBOARD_PAGES, settle } from './a11y-support.js';

/** 200% zoom of a 1280 x 900 window: half as many CSS pixels, each drawn with two device pixels. */
const ZOOM_200 = { viewport: { width: 640, height: 450 }, deviceScaleFactor: 2 };
const NARROW_320 = { viewport: { width: 320, height: 640 }, deviceScaleFactor: 1 };
const PHONE_390 = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 1 };
const LAPTOP_1280 = { viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1 };

/**
 * Elements under `selector` whose content is wider than their box (cut off, or scrolled sideways inside). Text kept
 * for screen readers only (VisuallyHidden: a 1 px box by design, such as "Original name: ") is no one's cut-off text.
 */
async function cutOff(page: Page, selector: string): Promise<string[]> {
  return page.evaluate(`Array.from(document.querySelectorAll(${JSON.stringify(selector)}))
    .filter((el) => !el.classList.contains('mantine-VisuallyHidden-root'))
    .filter((el) => el.scrollWidth > el.clientWidth + 1)
    .map((el) => (el.getAttribute('data-testid') || el.className) + ': ' + el.scrollWidth + ' > ' + el.clientWidth)`);
}

/** How long the modal's entrance lasts and what animations run once it is open, as the page reports them. */
async function modalMotion(page: Page): Promise<{ transition: string; running: number[] }> {
  await page.getByRole('button', { name: 'New tag', exact: true }).first().click();
  await page.getByRole('dialog').waitFor();
  return page.evaluate(`(() => {
    const content = document.querySelector('.mantine-Modal-content');
    return {
      transition: getComputedStyle(content).transitionDuration,
      running: document.getAnimations().map((a) => Number(a.effect?.getComputedTiming().duration ?? 0)),
    };
  })()`);
}

describeBrowser('accessibility: reduced motion, reflow at 320 px and 200% zoom', () => {
  const server = useTestServer({ engine: 'sqlite', env: DASHBOARD_ENV });
  const browser = useBrowser();
  let admin: TestUser;
  let folderId = '';

  before(async () => {
    admin = await server().setup();
    const s = server();
    const folder = await makeFolder(s, admin, { name: 'A folder with a rather long name to wrap', public: true });
    folderId = folder.id;
    const file = await uploadOne(s, admin.token, 'x'.repeat(100), {
      name: 'a-file-name-that-is-long-enough-to-overflow-a-phone.txt',
      type: 'text/plain',
    });
    await s.json('PATCH', `/api/user/files/${file.id}`, { auth: admin.token, body: { folderId } });
    await makeTag(s, admin, { name: 'tag-with-a-long-name' });
    await makeUrl(s, admin, { destination: `https://example.com/${'long/'.repeat(30)}` });
    await s.json('POST', '/api/auth/invites', { auth: admin.token, body: {} });
  });

  async function signedIn(b: Browser, options: Parameters<Browser['newContext']>[0]): Promise<Page> {
    const context = await b.newContext({ baseURL: server().url, ...options });
    const [name, value] = admin.cookie.split('=') as [string, string];
    await context.addCookies([{ name, value, url: server().url }]);
    return context.newPage();
  }

  for (const [label, size] of [
    ['390 px, light', { ...PHONE_390, colorScheme: 'light' as const }],
    ['390 px, dark', { ...PHONE_390, colorScheme: 'dark' as const }],
    ['1280 px, light', { ...LAPTOP_1280, colorScheme: 'light' as const }],
    ['1280 px, dark', { ...LAPTOP_1280, colorScheme: 'dark' as const }],
  ] as const) {
    it(`at ${label}: recent files, settings tabs, stat cards and messages fit`, async () => {
      const page = await signedIn(browser(), size);
      try {
        // The overview's recent files: nothing scrolls inside the card, every cell is inside the window, and a size
        // stays on one line ("29 MiB", never "29 / MiB").
        await page.goto('/dashboard');
        await page.getByTestId('recent-files').waitFor();
        await settle(page);
        assert.deepEqual(await cutOff(page, 'main *'), [], 'nothing in the overview is cut off or scrolls sideways');
        const cells = (await page.evaluate(`Array.from(document.querySelectorAll('[data-testid=recent-files] td'))
          .filter((td) => td.getClientRects().length > 0)
          .map((td) => ({ right: td.getBoundingClientRect().right, text: td.innerText }))`)) as Array<{
          right: number;
          text: string;
        }>;
        assert.ok(cells.length > 0, 'the recent files are shown');
        for (const cell of cells) assert.ok(cell.right <= size.viewport.width, `${cell.text} is inside the window`);
        const sizeLines =
          (await page.evaluate(`Array.from(document.querySelectorAll('[data-testid=recent-files] span, [data-testid=recent-files] td'))
          .filter((el) => el.getClientRects().length > 0 && /^\\d+(\\.\\d+)? [A-Za-z]*B$/.test(el.innerText.trim()))
          .map((el) => { const r = document.createRange(); r.selectNodeContents(el); return r.getClientRects().length; })`)) as number[];
        assert.ok(sizeLines.length > 0, 'a file size is shown');
        assert.ok(
          sizeLines.every((n) => n === 1),
          `each size is on one line: ${JSON.stringify(sizeLines)}`,
        );

        // The settings tabs: in one row or in one column, never wrapped onto a second row, at 1280 px.
        await page.goto('/dashboard/settings');
        await page.getByRole('tab').first().waitFor();
        await settle(page);
        const tabs = (await page.evaluate(`Array.from(document.querySelectorAll('[role=tab]'))
          .map((t) => { const r = t.getBoundingClientRect(); return { top: Math.round(r.top), left: Math.round(r.left) }; })`)) as Array<{
          top: number;
          left: number;
        }>;
        const rows = new Set(tabs.map((t) => t.top)).size;
        const columns = new Set(tabs.map((t) => t.left)).size;
        if (size.viewport.width >= 1200) {
          assert.ok(
            rows === 1 || columns === 1,
            `the tabs are in one row or one column (${rows} rows, ${columns} columns)`,
          );
        }
        assert.deepEqual(await cutOff(page, '[role=tablist], [role=tab]'), [], 'no tab is cut off');

        // The admin's stat cards show their values and hints whole.
        await page.goto('/dashboard/admin');
        await page.locator('[data-testid^="stat-"]').first().waitFor();
        await settle(page);
        assert.deepEqual(await cutOff(page, '[data-testid^="stat-"]'), [], 'no stat card value or hint is cut off');

        // A message (here: a saved setting) appears below the header, never over its buttons.
        await page.goto('/dashboard/admin/settings');
        await page.getByLabel('Site title').fill(`Chute ${label}`);
        await page.getByRole('button', { name: 'Save changes' }).click();
        const toast = page.locator('.mantine-Notification-root').first();
        await toast.waitFor();
        const header = await page.locator('header').first().boundingBox();
        const box = await toast.boundingBox();
        assert.ok(header && box, 'the header and the message are shown');
        assert.ok(
          box.y >= header.y + header.height,
          `the message (top ${box.y}) is below the header (${header.height} px)`,
        );
      } finally {
        await server().json('PATCH', '/api/server/settings', { auth: admin.token, body: { siteTitle: 'Chute' } });
        await page.context().close();
      }
    });
  }

  it('with reduced motion asked for, dialogs appear without a transition and nothing animates', async () => {
    const moving = await signedIn(browser(), { reducedMotion: 'no-preference' });
    const still = await signedIn(browser(), { reducedMotion: 'reduce' });
    try {
      for (const page of [moving, still]) {
        await page.goto('/dashboard/tags');
        await page.locator('main h2').first().waitFor();
      }
      const normal = await modalMotion(moving);
      assert.notEqual(normal.transition, '0s', 'without the preference the dialog fades in');
      const reduced = await modalMotion(still);
      // Computed durations are in seconds ("0s", "1e-05s"); at most a millisecond is no motion anyone sees.
      assert.ok(parseFloat(reduced.transition) <= 0.001, `the dialog appears at once: ${reduced.transition}`);
      assert.ok(
        reduced.running.every((ms) => ms <= 1),
        `no animation runs: ${JSON.stringify(reduced.running)}`,
      );
    } finally {
      await moving.context().close();
      await still.context().close();
    }
  });

  for (const [label, size] of [
    ['320 CSS px', NARROW_320],
    ['200% zoom', ZOOM_200],
    ['390 px (a phone)', PHONE_390],
    ['1280 px (a laptop)', { ...LAPTOP_1280, colorScheme: 'dark' as const }],
  ] as const) {
    it(`every page fits ${label} without scrolling sideways`, async () => {
      const page = await signedIn(browser(), size);
      const wide: string[] = [];
      try {
        const pages = [...DASHBOARD_PAGES, `/dashboard/folders?folder=${folderId}`, `/folder/${folderId}`];
        for (const path of pages) {
          await page.goto(path);
          if (path.startsWith('/dashboard')) await page.locator('main h2, main [role=alert]').first().waitFor();
          await settle(page);
          const { scrollWidth, innerWidth } = (await page.evaluate(
            '({ scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth })',
          )) as { scrollWidth: number; innerWidth: number };
          if (scrollWidth > innerWidth) wide.push(`${path}: ${scrollWidth} px wide in ${innerWidth}`);
        }
        assert.deepEqual(wide, [], `pages scroll sideways at ${label}`);
        // The measure sees overflow where there is some: a too-wide block in the page makes it wider than the window.
        await page.goto('/dashboard/files');
        await page.locator('main h2').first().waitFor();
        const overflowing = await page.evaluate(`(() => {
          const block = document.createElement('div');
          block.style.width = '2000px';
          block.style.height = '10px';
          document.querySelector('main').append(block);
          return document.documentElement.scrollWidth > window.innerWidth;
        })()`);
        assert.equal(overflowing, true, 'a 2000 px block is seen to overflow');
      } finally {
        await page.context().close();
      }
    });
  }
});
