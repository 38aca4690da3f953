// The whole first-day journey through the dashboard, as a new user would do it in a real browser, on SQLite and on
// PostgreSQL: setup -> sign in -> upload a small file and a large one (tus, in chunks) -> both in the gallery -> open the
// share link -> shorten a URL -> create a folder and move a file into it -> the admin creates a user who signs in.
// Screenshots of each main page, on desktop and phone, are saved under test-artifacts/screenshots/journey-*.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { it } from 'node:test';
import type { Page } from 'playwright-core';
import { DASHBOARD_ENV, describeBrowser, openPage, PHONE, screenshot, signIn, useBrowser } from '../support/browser.js';
import { forEachDatabase, useTestServer } from '../support/server.js';

const MB = 1024 * 1024;

/** What went wrong in a page, less the visitor's 401 from GET /api/user that each sign-in page starts with. */
const unexpected = (errors: string[]): string[] => errors.filter((e) => e !== 'http 401: GET /api/user');

function uploadRow(page: Page, name: string) {
  return page.getByRole('listitem', { name, exact: true });
}

async function navigateTo(page: Page, label: string, path: RegExp): Promise<void> {
  const nav = page.getByRole('navigation', { name: 'Main' });
  // On a phone the navigation hides behind the menu button (which only phones show).
  const menu = page.getByRole('button', { name: 'Open the menu' });
  if (await menu.isVisible()) await menu.click();
  await nav.getByRole('link', { name: label, exact: true }).click();
  await page.waitForURL(path);
}

describeBrowser("dashboard: a new user's first day, end to end", () => {
  forEachDatabase('journey', (engine) => {
    // Files over 1 MiB go by tus in 1 MiB chunks, so the "large" file below is a resumable upload.
    const server = useTestServer({ engine, env: { ...DASHBOARD_ENV, CHUNKS_THRESHOLD: '1mb', CHUNKS_SIZE: '1mb' } });
    const browser = useBrowser();
    const shot = (page: Page, name: string) => screenshot(page, `journey-${engine}-${name}`);

    it('setup, sign in, upload (whole and chunked), gallery, share link, short URL, folder, a second user', async () => {
      const { page, context, errors } = await openPage(browser(), server().url);

      // 1. First run: the setup page creates the super administrator.
      await page.goto('/');
      await page.waitForURL(/\/auth\/setup$/);
      await page.getByLabel(/^Username/).fill('founder');
      await page.getByLabel(/^Password/).fill('founder-password');
      await page.getByLabel(/^Repeat the password/).fill('founder-password');
      await page.getByRole('button', { name: 'Create the account' }).click();
      await page.getByRole('heading', { name: 'Hello, founder' }).waitFor();

      // 2. Sign out and back in.
      await page.getByTestId('account-menu').click();
      await page.getByRole('menuitem', { name: 'Sign out' }).click();
      await page.waitForURL(/\/auth\/login$/);
      await shot(page, 'login');
      await signIn(page, 'founder', 'founder-password');
      await shot(page, 'overview');

      // 3. Upload a small file (one request) and a large one (chunks).
      await navigateTo(page, 'Upload', /\/dashboard\/upload$/);
      const uploads: string[] = [];
      page.on('request', (request) => {
        const path = new URL(request.url()).pathname;
        if (request.method() === 'POST') uploads.push(path);
        if (request.method() === 'PATCH' && path.startsWith('/api/upload/tus/')) uploads.push('PATCH tus');
      });
      const small = Buffer.from('Hello from the journey test.\n'.repeat(40));
      const large = randomBytes(3 * MB + 4321);
      await page.locator('input[type=file]').setInputFiles([
        { name: 'notes.txt', mimeType: 'text/plain', buffer: small },
        { name: 'archive.bin', mimeType: 'application/octet-stream', buffer: large },
      ]);
      for (const name of ['notes.txt', 'archive.bin']) {
        await uploadRow(page, name)
          .getByTestId('upload-status')
          .filter({ hasText: /^Done$/ })
          .waitFor({ timeout: 60_000 });
      }
      await page.getByTestId('upload-summary').filter({ hasText: '2 files uploaded' }).waitFor();
      await shot(page, 'upload-done');
      assert.equal(uploads.filter((p) => p === '/api/upload').length, 1, 'the small file went in one request');
      assert.equal(uploads.filter((p) => p === '/api/upload/tus').length, 1, 'the large one by tus');
      assert.equal(uploads.filter((p) => p === 'PATCH tus').length, 4, 'in four chunks');
      const smallLink = (await uploadRow(page, 'notes.txt').getByTestId('upload-link').textContent()) ?? '';
      const largeLink = (await uploadRow(page, 'archive.bin').getByTestId('upload-link').textContent()) ?? '';
      const smallName = new URL(smallLink).pathname.split('/').pop()!;
      const largeName = new URL(largeLink).pathname.split('/').pop()!;

      // 4. Both are in the gallery.
      await navigateTo(page, 'Files', /\/dashboard\/files/);
      const gallery = page.getByTestId('file-gallery');
      if (!(await gallery.isVisible())) await page.getByText('Gallery', { exact: true }).click();
      for (const name of [smallName, largeName]) await gallery.locator(`[data-file-name="${name}"]`).waitFor();
      await shot(page, 'gallery');

      // 5. The share links serve the exact bytes; the small one opens in the browser.
      const largeServed = Buffer.from(await (await fetch(largeLink)).arrayBuffer());
      assert.ok(largeServed.equals(large), 'the chunked file is served byte for byte');
      const shared = await context.newPage();
      await shared.goto(smallLink);
      const shown = await shared.evaluate(
        () => (globalThis as unknown as { document: { body: { innerText: string } } }).document.body.innerText,
      );
      assert.equal(shown.trimEnd(), small.toString().trimEnd());
      await shared.close();

      // 6. Shorten a URL and follow the short link.
      await navigateTo(page, 'URLs', /\/dashboard\/urls$/);
      await page.getByLabel(/^Destination/).fill('https://example.com/journey?step=6');
      await page.getByRole('button', { name: 'Shorten' }).click();
      const result = page.getByTestId('short-link-result');
      await result.getByText('Copied to the clipboard.').waitFor();
      const shortLink = (await result.getByRole('link').textContent()) ?? '';
      const followed = await fetch(shortLink, { redirect: 'manual' });
      assert.ok(followed.status >= 300 && followed.status < 400, `a redirect, not ${followed.status}`);
      assert.equal(followed.headers.get('location'), 'https://example.com/journey?step=6');
      await shot(page, 'urls');

      // 7. Create a folder and move the small file into it from the files page.
      await navigateTo(page, 'Folders', /\/dashboard\/folders/);
      await page.getByRole('button', { name: 'New folder' }).first().click();
      const create = page.getByRole('dialog', { name: 'New folder' });
      await create.getByLabel(/^Name/).fill('Journey');
      await create.getByRole('button', { name: 'Create folder' }).click();
      await page.getByRole('heading', { name: 'Journey' }).waitFor();
      await navigateTo(page, 'Files', /\/dashboard\/files/);
      await page.getByLabel(`Select ${smallName}`, { exact: true }).check();
      const bar = page.getByRole('region', { name: 'Selected files' });
      await bar.getByRole('button', { name: 'Move to folder' }).click();
      const move = page.getByRole('dialog', { name: /^Move 1 file/ });
      await move.getByRole('textbox', { name: 'Folder' }).click();
      await page.getByRole('option', { name: 'Journey' }).click();
      await move.getByRole('button', { name: 'Move' }).click();
      await move.waitFor({ state: 'detached' });
      await navigateTo(page, 'Folders', /\/dashboard\/folders/);
      await page.getByText('Journey', { exact: true }).first().click();
      await page.getByText(smallName).first().waitFor();
      await shot(page, 'folder');

      // 8. The admin creates a user, who signs in in another browser.
      await navigateTo(page, 'Users', /\/dashboard\/admin\/users$/);
      await page.getByRole('button', { name: 'Create user' }).click();
      const dialog = page.getByRole('dialog', { name: 'Create a user' });
      await dialog.getByLabel(/^Username/).fill('casey');
      await dialog.getByLabel(/^Password/).fill('casey-password');
      await dialog.getByRole('button', { name: 'Create user' }).click();
      await dialog.waitFor({ state: 'hidden' });
      await page.getByTestId('user-row-casey').waitFor();
      await shot(page, 'users');
      const phone = await openPage(browser(), server().url, { viewport: PHONE });
      await signIn(phone.page, 'casey', 'casey-password');
      await phone.page.getByRole('heading', { name: 'Hello, casey' }).waitFor();
      await shot(phone.page, 'phone-overview');
      await navigateTo(phone.page, 'Upload', /\/dashboard\/upload$/);
      await shot(phone.page, 'phone-upload');
      assert.deepEqual(unexpected(phone.errors), []);
      await phone.context.close();

      // The server agrees with what the pages showed.
      const admin = await server().login('founder', 'founder-password');
      const files = await server().json('GET', '/api/user/files?perpage=10', { auth: admin });
      const folders = await server().json('GET', '/api/user/folders', { auth: admin });
      const journey = folders.body.find((f: { name: string }) => f.name === 'Journey');
      const moved = files.body.page.find((f: { name: string }) => f.name === smallName);
      assert.equal(moved.folderId, journey.id);
      assert.deepEqual(unexpected(errors), []);
      await context.close();
    });
  });
});
