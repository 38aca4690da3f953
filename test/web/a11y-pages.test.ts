// WCAG 2.2 AA, checked by axe-core in Chromium: every dashboard page and every server-rendered page, in the light and
// the dark scheme, with its lists empty and with content in them, and with the dialogs the pages open. One test per
// page and scheme, so that a change that brings a violation back fails with the rule, the element and the page.
import { after, before, describe, it } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { DASHBOARD_ENV, describeBrowser, openPage, useBrowser } from '../support/browser.js';
import { insertMetricSnapshots } from '../support/content.js';
import { makeFolder, makeTag, makeUrl } from '../support/factory.js';
import { rgbPng } from '../support/fixtures.js';
import { useTestServer, type TestUser } from '../support/server.js';
import { uploadOne } from '../support/uploads.js';
import { DASHBOARD_PAGES, expectNoAxeViolations, settle } from './a11y-support.js';

const SCHEMES = ['light', 'dark'] as const;
type Scheme = (typeof SCHEMES)[number];

function clickButton(name: string): (page: Page) => Promise<void> {
  return (page) => page.getByRole('button', { name, exact: true }).first().click();
}

describeBrowser('accessibility: axe-core finds no WCAG 2.2 A/AA violation', () => {
  const server = useTestServer({
    engine: 'sqlite',
    env: { ...DASHBOARD_ENV, REGISTRATION_ENABLED: 'true', INVITES_ENABLED: 'true' },
  });
  const browser = useBrowser();
  const pages = new Map<Scheme, { context: BrowserContext; page: Page }>();
  let admin: TestUser;

  /** One page per scheme for the whole file; signed in once setup has run. */
  async function pageFor(scheme: Scheme): Promise<Page> {
    let opened = pages.get(scheme);
    if (!opened) {
      opened = await openPage(browser(), server().url, { colorScheme: scheme });
      pages.set(scheme, opened);
    }
    return opened.page;
  }

  async function signedIn(scheme: Scheme): Promise<Page> {
    const page = await pageFor(scheme);
    const cookies = await page.context().cookies();
    if (!cookies.some((c) => c.name === 'chute_session')) {
      const [name, value] = admin.cookie.split('=') as [string, string];
      await page.context().addCookies([{ name, value, url: server().url }]);
    }
    return page;
  }

  /** Opens a dashboard page and waits for its title and its data. */
  async function openDashboard(page: Page, path: string): Promise<void> {
    await page.goto(path);
    // A page's title, or the words saying there is no such page.
    await page.locator('main h2, main [role=alert]').first().waitFor();
    await settle(page);
  }

  after(async () => {
    for (const { context } of pages.values()) await context.close();
  });

  describe('before setup', () => {
    for (const scheme of SCHEMES) {
      it(`/auth/setup [${scheme}]`, async () => {
        const page = await pageFor(scheme);
        await page.goto('/auth/setup');
        await page.getByRole('button', { name: /Create/ }).waitFor();
        await settle(page);
        await expectNoAxeViolations(page, `/auth/setup [${scheme}]`);
      });
    }
  });

  describe('signed out', () => {
    before(async () => {
      admin = await server().setup();
    });
    for (const scheme of SCHEMES) {
      for (const path of ['/auth/login', '/auth/register']) {
        it(`${path} [${scheme}]`, async () => {
          const page = await pageFor(scheme);
          await page.goto(path);
          await page.getByRole('heading', { level: 2 }).first().waitFor();
          await settle(page);
          await expectNoAxeViolations(page, `${path} [${scheme}]`);
        });
      }
    }
  });

  describe('empty lists', () => {
    for (const scheme of SCHEMES) {
      for (const path of DASHBOARD_PAGES) {
        it(`${path} [${scheme}, empty]`, async () => {
          const page = await signedIn(scheme);
          await openDashboard(page, path);
          await expectNoAxeViolations(page, `${path} [${scheme}, empty]`);
        });
      }
    }
  });

  describe('with content', () => {
    const made: { folderId: string; fileId: string; fileName: string; lockedName: string } = {
      folderId: '',
      fileId: '',
      fileName: '',
      lockedName: '',
    };
    before(async () => {
      const s = server();
      const tag = await makeTag(s, admin, { name: 'holiday', color: '#2f9e44' });
      const folder = await makeFolder(s, admin, { name: 'Trip', public: true, allowUploads: true });
      const png = rgbPng(64, 48, (x, y) => [x * 4, y * 5, 160]);
      const image = await uploadOne(s, admin.token, png, { name: 'photo.png', type: 'image/png' });
      await uploadOne(s, admin.token, 'some notes\n', { name: 'notes.txt', type: 'text/plain' });
      const locked = await uploadOne(s, admin.token, 'secret\n', {
        name: 'locked.txt',
        type: 'text/plain',
        headers: { 'x-zipline-password': 'open sesame' },
      });
      await s.json('PATCH', `/api/user/files/${image.id}`, {
        auth: admin.token,
        body: { favorite: true, folderId: folder.id, tags: [tag.id] },
      });
      await makeUrl(s, admin, { destination: 'https://example.com/a/long/path', vanity: 'docs' });
      await s.json('POST', '/api/auth/invites', { auth: admin.token, body: {} });
      await s.json('POST', '/api/users', {
        auth: admin.token,
        body: { username: 'second', password: 'second-password', role: 'USER' },
      });
      // The admin overview's charts: a few statistics snapshots.
      await insertMetricSnapshots(s, 4);
      made.folderId = folder.id;
      made.fileId = image.id;
      made.fileName = image.name;
      made.lockedName = locked.name;
    });

    for (const scheme of SCHEMES) {
      for (const path of [...DASHBOARD_PAGES, 'folder view']) {
        it(`${path} [${scheme}, with content]`, async () => {
          const page = await signedIn(scheme);
          await openDashboard(page, path === 'folder view' ? `/dashboard/folders?folder=${made.folderId}` : path);
          await expectNoAxeViolations(page, `${path} [${scheme}, with content]`);
        });
      }
    }

    for (const scheme of SCHEMES) {
      it(`/dashboard/admin [${scheme}, statistics charts]`, async () => {
        const page = await signedIn(scheme);
        await openDashboard(page, '/dashboard/admin');
        await page.locator('main figure svg').first().waitFor();
        await settle(page);
        await expectNoAxeViolations(page, `/dashboard/admin [${scheme}, statistics charts]`);
      });
    }

    /** Dialogs, each opened the way a person opens it, from the page it belongs to. */
    const DIALOGS: Array<{ name: string; path: () => string; open: (page: Page) => Promise<void>; inPage?: boolean }> =
      [
        {
          name: 'file details',
          path: () => `/dashboard/files?file=${made.fileId}`,
          open: async (page) => void (await page.getByRole('dialog').waitFor()),
        },
        {
          name: 'file delete confirmation',
          path: () => `/dashboard/files?file=${made.fileId}`,
          open: (page) =>
            page.getByRole('dialog').getByRole('button', { name: 'Delete the file', exact: true }).click(),
        },
        {
          name: 'upload options',
          path: () => '/dashboard/upload',
          // Not a dialog: a panel that unfolds in the page.
          open: async (page) => {
            await page.getByRole('button', { name: /Upload options/ }).click();
            await page.getByRole('textbox', { name: 'Expires', exact: true }).waitFor();
          },
          inPage: true,
        },
        { name: 'new folder', path: () => '/dashboard/folders', open: clickButton('New folder') },
        { name: 'new tag', path: () => '/dashboard/tags', open: clickButton('New tag') },
        { name: 'short URL edit', path: () => '/dashboard/urls', open: clickButton('Edit docs') },
        { name: 'short URL delete confirmation', path: () => '/dashboard/urls', open: clickButton('Delete docs') },
        { name: 'create user', path: () => '/dashboard/admin/users', open: clickButton('Create user') },
        { name: 'create invite', path: () => '/dashboard/admin/invites', open: clickButton('Create invite') },
        { name: 'new API token', path: () => '/dashboard/settings?tab=token', open: clickButton('New token') },
      ];

    for (const scheme of SCHEMES) {
      for (const dialog of DIALOGS) {
        it(`${dialog.name} dialog [${scheme}]`, async () => {
          const page = await signedIn(scheme);
          await openDashboard(page, dialog.path());
          await dialog.open(page);
          if (!dialog.inPage) await page.getByRole('dialog').last().waitFor();
          await settle(page);
          await expectNoAxeViolations(page, `${dialog.name} dialog on ${dialog.path()} [${scheme}]`);
        });
      }
    }

    for (const scheme of SCHEMES) {
      const serverPages: Array<[string, () => string]> = [
        ['file view page', () => `/view/${made.fileName}`],
        ['file password page', () => `/view/${made.lockedName}`],
        ['not-found page', () => '/view/no-such-file.png'],
        ['public folder page', () => `/folder/${made.folderId}`],
      ];
      for (const [label, path] of serverPages) {
        it(`${label} [${scheme}]`, async () => {
          const page = await pageFor(scheme);
          await page.goto(path());
          await settle(page);
          await expectNoAxeViolations(page, `${label} [${scheme}]`);
        });
      }
    }
  });
});
