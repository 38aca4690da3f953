// The dashboard by keyboard alone: key presses only (Tab, Shift+Tab, Enter, Space, Escape, typing), never a click.
// Every control the focus lands on shows a focus ring (read from its computed style), a dialog that closes gives the
// focus back to the control that opened it, and the skip link leads past the navigation to the page.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import type { FileChooser, Page } from 'playwright-core';
import { DASHBOARD_ENV, describeBrowser, openPage, useBrowser } from '../support/browser.js';
import { useTestServer, type TestUser } from '../support/server.js';

interface Focused {
  tag: string;
  name: string;
  id: string;
  /** The outline around the focused element (or its track or field, see focused()). */
  ring: string;
  inDialog: boolean;
  inNav: boolean;
}

/** What has the focus now: its name as a screen reader would start to say it, and its focus ring. */
async function focused(page: Page): Promise<Focused> {
  return page.evaluate(`(() => {
    const el = document.activeElement;
    if (!el || el === document.body) return { tag: 'body', name: '', id: '', ring: 'none', inDialog: false, inNav: false };
    const byIds = (ids) => ids.split(/\\s+/).map((id) => document.getElementById(id)?.textContent ?? '').join(' ');
    const labelled = el.getAttribute('aria-labelledby');
    const name = (el.getAttribute('aria-label') || (labelled ? byIds(labelled) : '') ||
      (el.labels && el.labels[0] ? el.labels[0].textContent : '') || el.textContent || '').replace(/\\s+/g, ' ').trim();
    const ringOf = (node) => {
      const style = getComputedStyle(node);
      return style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 2
        ? style.outlineWidth + ' ' + style.outlineStyle + ' ' + style.outlineColor
        : 'none';
    };
    let ring = ringOf(el);
    // A switch's input is hidden and its track shows the ring; a password field's ring is around the field.
    if (ring === 'none' && el.nextElementSibling) ring = ringOf(el.nextElementSibling);
    if (ring === 'none' && el.parentElement) ring = ringOf(el.parentElement);
    return { tag: el.tagName.toLowerCase(), name, id: el.id, ring, inDialog: !!el.closest('[role=dialog]'), inNav: !!el.closest('nav') };
  })()`);
}

/**
 * Presses `key` until the focused element's name matches `name`; every element passed on the way must show a focus
 * ring, and the walk fails (naming where it went) if the control is not reached.
 */
async function focusOn(
  page: Page,
  name: RegExp,
  key: 'Tab' | 'Shift+Tab' = 'Tab',
  max = 80,
  where: (f: Focused) => boolean = () => true,
): Promise<Focused> {
  const seen: string[] = [];
  for (let i = 0; i < max; i++) {
    await page.keyboard.press(key);
    const now = await focused(page);
    seen.push(`${now.tag}:${now.name.slice(0, 40)}`);
    if (now.tag !== 'body')
      assert.notEqual(now.ring, 'none', `the focused ${now.tag} "${now.name}" shows a focus ring (${page.url()})`);
    if (name.test(now.name) && where(now)) return now;
  }
  throw new Error(`${key} never reached ${name} on ${page.url()}; it went through: ${seen.join(' | ')}`);
}

/** A link of the navigation (the Upload tab of the upload page has the same name as the Upload page's link). */
const inNav = (f: Focused) => f.inNav;

async function until<T>(what: string, check: () => Promise<T | undefined | false>): Promise<T> {
  for (let i = 0; i < 400; i++) {
    const value = await check();
    if (value) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`never happened: ${what}`);
}

describeBrowser('accessibility: the dashboard by keyboard alone', () => {
  const server = useTestServer({ engine: 'sqlite', env: DASHBOARD_ENV });
  const browser = useBrowser();
  let admin: TestUser;

  before(async () => {
    admin = await server().setup();
  });

  it('signs in, uploads from the drop zone, copies the link, favourites and deletes the file, and shortens a link', async () => {
    const { page, context } = await openPage(browser(), server().url);
    // Listening from the start turns on Playwright's interception of file choosers before the key press opens one.
    const choosers: FileChooser[] = [];
    page.on('filechooser', (chooser) => choosers.push(chooser));
    try {
      await page.goto('/auth/login');
      await page.getByRole('heading', { level: 2 }).waitFor();
      await focusOn(page, /^Username/);
      await page.keyboard.type(admin.username);
      await focusOn(page, /^Password/);
      await page.keyboard.type(admin.password);
      await page.keyboard.press('Enter');
      await page.waitForURL(/\/dashboard$/);
      await page.getByRole('heading', { level: 2 }).first().waitFor();

      // The skip link is the first stop and takes the focus to the page itself.
      const skip = await focusOn(page, /^Skip to main content$/, 'Tab', 1);
      assert.equal(skip.tag, 'a');
      await page.keyboard.press('Enter');
      assert.equal((await focused(page)).id, 'main-content');

      // Upload: the drop zone's button opens the browser's file chooser.
      await focusOn(page, /^Upload$/, 'Shift+Tab', 40, inNav);
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { name: 'Upload', level: 2 }).waitFor();
      await focusOn(page, /^Choose files$/);
      await page.keyboard.press('Enter');
      const chooser = await until('the file chooser opens', async () => choosers[0]);
      await chooser.setFiles({
        name: 'keyboard.txt',
        mimeType: 'text/plain',
        buffer: Buffer.from('typed, not clicked'),
      });
      const row = page.getByRole('listitem', { name: 'keyboard.txt', exact: true });
      await row
        .getByTestId('upload-status')
        .filter({ hasText: /^Done$/ })
        .waitFor();
      const link = (await row.getByTestId('upload-link').textContent()) ?? '';
      assert.match(link, /^http/);
      await page.evaluate('navigator.clipboard.writeText("")');
      await focusOn(page, /^Copy the link of keyboard\.txt$/);
      await page.keyboard.press('Enter');
      await until('the link is copied', async () => (await page.evaluate('navigator.clipboard.readText()')) === link);

      // The file in the files list: open its details, close them (the focus comes back), open them again.
      await focusOn(page, /^Files$/, 'Shift+Tab', 120, inNav);
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { name: 'Files', level: 2 }).waitFor();
      const files = await server().json('GET', '/api/user/files', { auth: admin.token });
      const stored = (files.body.page as Array<{ id: string; name: string; favorite: boolean }>)[0]!;
      const opener = new RegExp(`^Open ${stored.name.replace('.', '\\.')}`);
      await focusOn(page, opener);
      await page.keyboard.press('Enter');
      const details = page.getByRole('dialog');
      await details.waitFor();
      await until('the focus moves into the details', async () => (await focused(page)).inDialog);
      await page.keyboard.press('Escape');
      await details.waitFor({ state: 'detached' });
      await until('the focus is back on the file', async () => opener.test((await focused(page)).name));

      await page.keyboard.press('Enter');
      await details.waitFor();
      await until('the focus moves into the details', async () => (await focused(page)).inDialog);
      await focusOn(page, /^Favourite$/);
      await page.keyboard.press('Space');
      await details.getByRole('button', { name: 'Unfavourite' }).waitFor();
      const favourite = await server().json('GET', `/api/user/files/${stored.id}`, { auth: admin.token });
      assert.equal(favourite.body.favorite, true);

      // Delete, through the confirmation; Escape first, which keeps the file and gives the focus back to Delete.
      const deleteButton = await focusOn(page, /^Delete the file$/);
      assert.ok(deleteButton.inDialog);
      await page.keyboard.press('Enter');
      const confirm = page.getByRole('dialog', { name: /Delete/ });
      await confirm.waitFor();
      await page.keyboard.press('Escape');
      await confirm.waitFor({ state: 'detached' });
      await until('the focus is back on Delete', async () => (await focused(page)).name === 'Delete the file');
      await page.keyboard.press('Enter');
      await confirm.waitFor();
      await until('the focus is in the confirmation', async () => (await focused(page)).inDialog);
      await focusOn(page, /^Delete the file$/);
      await page.keyboard.press('Enter');
      await until('the file is deleted', async () => {
        const res = await server().json('GET', `/api/user/files/${stored.id}`, { auth: admin.token });
        return res.status === 404;
      });

      // The confirmation closes first (its closing can outlast the delete), then Escape closes the file panel.
      await confirm.waitFor({ state: 'detached' });

      // A short URL.
      await page.keyboard.press('Escape');
      await page.getByRole('dialog').first().waitFor({ state: 'detached' });
      await focusOn(page, /^URLs$/, 'Shift+Tab', 120, inNav);
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { name: 'URLs', level: 2 }).waitFor();
      await focusOn(page, /^Destination/);
      await page.keyboard.type('https://example.com/by-keyboard');
      await page.keyboard.press('Enter');
      await until('the short URL is made', async () => {
        const res = await server().json('GET', '/api/user/urls', { auth: admin.token });
        const list = (Array.isArray(res.body) ? res.body : res.body.page) as Array<{ destination: string }>;
        return list.some((u) => u.destination === 'https://example.com/by-keyboard');
      });
    } finally {
      await context.close();
    }
  });
});
