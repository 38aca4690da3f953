// Motion and zoom: with the system's "reduce motion" preference the dashboard's transitions and animations stop; every
// page reads without scrolling sideways at 320 CSS pixels wide and at 200% zoom (WCAG 1.4.10 reflow, 1.4.4 resize).
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
          block.style.width = '1000px';
          block.style.height = '10px';
          document.querySelector('main').append(block);
          return document.documentElement.scrollWidth > window.innerWidth;
        })()`);
        assert.equal(overflowing, true, 'a 1000 px block is seen to overflow');
      } finally {
        await page.context().close();
      }
    });
  }
});
