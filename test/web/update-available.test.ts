// The admin overview in a real browser with the update check on: a release feed (a real local HTTP server) names a
// newer version, and the overview says an update is available; with the feed failing it says nothing and the page
// works.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, it } from 'node:test';
import { DASHBOARD_ENV, describeBrowser, openPage, screenshot, signIn, useBrowser } from '../support/browser.js';
import { withTestServer } from '../support/server.js';

describeBrowser('dashboard: update available', () => {
  const browser = useBrowser();
  let feed: Server;
  let feedUrl = '';
  before(async () => {
    feed = createServer((req, res) => {
      if (req.url === '/latest') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ tag_name: 'v99.0.0', html_url: 'https://example.test/releases/v99.0.0' }));
      } else res.writeHead(502).end();
    });
    await new Promise<void>((resolve) => feed.listen(0, '127.0.0.1', resolve));
    feedUrl = `http://127.0.0.1:${(feed.address() as AddressInfo).port}`;
  });
  after(async () => {
    feed.closeAllConnections();
    await new Promise<void>((resolve) => feed.close(() => resolve()));
  });

  const env = (path: string) => ({
    ...DASHBOARD_ENV,
    FEATURES_VERSION_CHECKING: 'true',
    VERSION_CHECK_URL: `${feedUrl}${path}`,
  });

  it('tells an admin on the overview that a newer release is out', async () => {
    await withTestServer({ engine: 'sqlite', env: env('/latest') }, async (server) => {
      await server.setup('admin', 'admin-password');
      const { page, context } = await openPage(browser(), server.url);
      await signIn(page, 'admin', 'admin-password');
      await page.goto('/dashboard/admin');
      const note = page.getByTestId('update-available');
      await note.waitFor();
      assert.match(await note.innerText(), /Chute 99\.0\.0 is out; this server runs \d+\.\d+\.\d+/);
      assert.equal(
        await note.getByRole('link', { name: 'What is new' }).getAttribute('href'),
        'https://example.test/releases/v99.0.0',
      );
      await screenshot(page, 'admin-overview-update-available');
      await context.close();
    });
  });

  it('shows nothing when the check fails, and the overview still works', async () => {
    await withTestServer({ engine: 'sqlite', env: env('/down') }, async (server) => {
      await server.setup('admin', 'admin-password');
      const { page, context } = await openPage(browser(), server.url);
      await signIn(page, 'admin', 'admin-password');
      await page.goto('/dashboard/admin');
      await page.getByTestId('stat-Users').waitFor();
      assert.equal(await page.getByTestId('update-available').count(), 0);
      await context.close();
    });
  });
});
