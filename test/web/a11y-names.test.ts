// Names and announcements: every icon-only button is named as its tooltip says (a person who sees the tooltip can say
// it to speech input), uploads are announced in a live region (the file's name and its link, or what went wrong),
// and a field's error is tied to the field (aria-describedby, aria-invalid) and read out when it appears.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { before, it } from 'node:test';
import type { Page } from 'playwright-core';
import { DASHBOARD_ENV, describeBrowser, openPage, useBrowser } from '../support/browser.js';
import { makeAccount, makeFolder, makeTag, makeUrl } from '../support/factory.js';
import { useTestServer, type TestUser } from '../support/server.js';
import { uploadOne } from '../support/uploads.js';

interface IconButton {
  index: number;
  name: string;
  disabled: boolean;
}

/** The page's buttons and links that show no text: only an icon. */
async function iconButtons(page: Page): Promise<IconButton[]> {
  return page.evaluate(`Array.from(document.querySelectorAll('main button, main a[href], header button'))
    .map((el, index) => ({ el, index }))
    .filter(({ el }) => el.offsetParent !== null && (el.innerText ?? '').trim() === '' && !el.closest('[data-dropzone-inner]'))
    .map(({ el, index }) => ({ index, name: (el.getAttribute('aria-label') ?? '').trim(), disabled: el.matches(':disabled,[data-disabled]') }))`);
}

/**
 * Hovers each icon-only control of the page; each must have a name, and where a tooltip shows, the tooltip says the
 * name (or the name and, after a colon, why the control cannot be used now). Returns how many tooltips were read.
 */
async function expectTooltipsMatchNames(page: Page, where: string): Promise<number> {
  const buttons = await iconButtons(page);
  let read = 0;
  for (const button of buttons) {
    assert.notEqual(button.name, '', `an icon-only control on ${where} has a name (#${button.index})`);
    const control = page.locator('main button, main a[href], header button').nth(button.index);
    await control.hover();
    const tooltip = page.getByRole('tooltip');
    const shown = await tooltip
      .first()
      .waitFor({ timeout: 1500 })
      .then(
        () => true,
        () => false,
      );
    if (shown) {
      const text = ((await tooltip.first().textContent()) ?? '').trim();
      assert.ok(
        text === button.name || text.startsWith(`${button.name}: `),
        `on ${where}, the tooltip "${text}" says the name "${button.name}"`,
      );
      read++;
    }
    await page.mouse.move(0, 0);
    await tooltip.first().waitFor({ state: 'hidden', timeout: 3000 });
  }
  return read;
}

describeBrowser('accessibility: names and announcements', () => {
  const server = useTestServer({ engine: 'sqlite', env: DASHBOARD_ENV });
  const browser = useBrowser();
  let admin: TestUser;
  let folderId: string;

  before(async () => {
    admin = await server().setup();
    const s = server();
    const folder = await makeFolder(s, admin, { name: 'Shared', public: true });
    folderId = folder.id;
    const file = await uploadOne(s, admin.token, 'in a folder\n', { name: 'inside.txt', type: 'text/plain' });
    await uploadOne(s, admin.token, 'secret\n', {
      name: 'locked.txt',
      type: 'text/plain',
      headers: { 'x-zipline-password': 'pw' },
    });
    await s.json('PATCH', `/api/user/files/${file.id}`, { auth: admin.token, body: { folderId, favorite: true } });
    await makeTag(s, admin, { name: 'work' });
    await makeUrl(s, admin, { vanity: 'home' });
    await s.json('POST', '/api/auth/invites', { auth: admin.token, body: {} });
    await makeAccount(s, { username: 'bob' });
  });

  async function signedInPage(): Promise<Page> {
    const { page } = await openPage(browser(), server().url);
    const [name, value] = admin.cookie.split('=') as [string, string];
    await page.context().addCookies([{ name, value, url: server().url }]);
    return page;
  }

  it('every icon-only button is named as its tooltip says', async () => {
    const page = await signedInPage();
    try {
      let read = 0;
      for (const path of [
        '/dashboard/files',
        '/dashboard/files?view=table',
        '/dashboard/urls',
        '/dashboard/tags',
        `/dashboard/folders?folder=${folderId}`,
        '/dashboard/settings?tab=token',
        '/dashboard/admin/users',
        '/dashboard/admin/invites',
      ]) {
        await page.goto(path);
        await page.locator('main h2').first().waitFor();
        // A locator, not a string predicate: the dashboard's CSP forbids eval, which a string predicate needs.
        await page
          .locator('main .mantine-Skeleton-root, main .mantine-Loader-root')
          .first()
          .waitFor({ state: 'detached' });
        read += await expectTooltipsMatchNames(page, path);
      }
      // Enough tooltips were read for the check to mean something (edit, delete, copy, favourite, theme ...).
      assert.ok(read >= 15, `${read} tooltips were read`);
    } finally {
      await page.context().close();
    }
  });

  it('announces each upload in a live region: its name and link, or what went wrong', async () => {
    const page = await signedInPage();
    try {
      await page.goto('/dashboard/upload');
      await page.getByRole('heading', { name: 'Upload', level: 2 }).waitFor();
      const region = page.getByTestId('upload-announcer');
      assert.equal(await region.getAttribute('aria-live'), 'polite');
      assert.equal(await region.getAttribute('role'), 'status');
      await page.locator('input[type=file]').setInputFiles({
        name: 'announced.txt',
        mimeType: 'text/plain',
        buffer: Buffer.from('hello'),
      });
      await region.getByText(/^announced\.txt uploaded: http:\/\/127\.0\.0\.1:\d+\/u\/\S+$/).waitFor();

      const limit = await server().json('PATCH', '/api/server/settings', {
        auth: admin.token,
        body: { filesMaxFileSize: '1kb' },
      });
      assert.equal(limit.status, 200);
      try {
        await page.locator('input[type=file]').setInputFiles({
          name: 'too-big.bin',
          mimeType: 'application/octet-stream',
          buffer: randomBytes(4096),
        });
        await region.getByText(/^too-big\.bin failed: That file is larger than this server allows/).waitFor();
      } finally {
        await server().json('PATCH', '/api/server/settings', { auth: admin.token, body: { filesMaxFileSize: '1gb' } });
      }
    } finally {
      await page.context().close();
    }
  });

  it("ties a field's error to the field and reads it out", async () => {
    const page = await signedInPage();
    try {
      await page.goto('/dashboard/urls');
      const destination = page.getByRole('textbox', { name: /^Destination/ });
      await destination.fill('not a link');
      await page.getByRole('button', { name: 'Shorten', exact: true }).click();
      await page.locator('[aria-invalid=true]').first().waitFor({ state: 'attached' });
      assert.equal(await destination.getAttribute('aria-invalid'), 'true');
      const describedBy = (await destination.getAttribute('aria-describedby')) ?? '';
      const errors = await page.evaluate(
        `${JSON.stringify(describedBy)}.split(/\\s+/).map((id) => document.getElementById(id)).filter(Boolean)
          .map((el) => ({ text: el.textContent, role: el.getAttribute('role') }))`,
      );
      const error = (errors as Array<{ text: string; role: string | null }>).find((e) => e.role === 'alert');
      assert.ok(error, `the field is described by an alert: ${JSON.stringify(errors)}`);
      assert.match(error.text, /\S/);
      assert.equal(
        await page.getByRole('alert').filter({ hasText: error.text }).count(),
        1,
        'the error is one alert, announced when it appears',
      );
    } finally {
      await page.context().close();
    }
  });
});
