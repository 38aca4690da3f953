// Details of the dashboard in a real browser, at a phone's 390 px and a laptop's 1280 px, in both colour schemes (issue
// 43 item 11): the shorten form shows the outcome of the last try only (a new error replaces an earlier short link,
// and a new link an earlier error); a file without tags says "No tags yet" only when the user has no tags at all; a tag
// is the same chip in the Files gallery and table, the file panel and the Tags page.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import { setUrlQuota } from '../support/content.js';
import { DASHBOARD_ENV, describeBrowser, openPage, screenshot, signIn, useBrowser } from '../support/browser.js';
import { makeTag, makeUrl, makeUser, NO_RATE_LIMIT } from '../support/factory.js';
import { useTestServer } from '../support/server.js';
import { uploadOne } from '../support/uploads.js';

const PHONE_390 = { width: 390, height: 844 } as const;
const LAPTOP_1280 = { width: 1280, height: 900 } as const;

/** The four looks every check runs in. */
const LOOKS = [
  { name: '390-light', viewport: PHONE_390, colorScheme: 'light' as const },
  { name: '390-dark', viewport: PHONE_390, colorScheme: 'dark' as const },
  { name: '1280-light', viewport: LAPTOP_1280, colorScheme: 'light' as const },
  { name: '1280-dark', viewport: LAPTOP_1280, colorScheme: 'dark' as const },
];

const NO_TAGS_YET =
  'No tags yet. Type a name below to create your first tag: tags group files across folders and filter the list.';
const NONE_ON_FILE = 'No tags on this file. Pick one of your tags below, or type a new name to create one.';

/** What makes a chip look the way it does, but for its size (small in the file lists). */
interface ChipLook {
  component: string | null;
  background: string;
  text: string;
  radius: string;
  weight: string;
  transform: string;
  border: string;
}

/** The browser's globals the page functions below use (the tests are compiled without the DOM's types). */
interface BrowserGlobals {
  document: { getAnimations(): unknown[] };
  getComputedStyle(element: unknown): {
    backgroundColor: string;
    color: string;
    borderTopLeftRadius: string;
    fontWeight: string;
    textTransform: string;
    borderTopWidth: string;
    borderTopStyle: string;
  };
}

/** The look of the Mantine badge (a chip) under `within` that holds `name`. */
async function chipLook(within: Locator, name: string): Promise<ChipLook> {
  const chip = within.locator('.mantine-Badge-root', { hasText: name });
  await chip.first().waitFor();
  assert.equal(await chip.count(), 1, `one chip of ${name}`);
  return chip.evaluate((el) => {
    const style = (globalThis as unknown as BrowserGlobals).getComputedStyle(el);
    return {
      component: (el as unknown as { getAttribute(name: string): string | null }).getAttribute('data-testid'),
      background: style.backgroundColor,
      text: style.color,
      radius: style.borderTopLeftRadius,
      weight: style.fontWeight,
      transform: style.textTransform,
      border: `${style.borderTopWidth} ${style.borderTopStyle}`,
    };
  });
}

/** WCAG's relative luminance of a computed `rgb(r, g, b)` colour. */
function luminance(rgb: string): number {
  const channels = /^rgba?\((\d+), (\d+), (\d+)/.exec(rgb);
  assert.ok(channels, `not an rgb() colour: ${rgb}`);
  const [r, g, b] = channels.slice(1, 4).map((c) => {
    const v = Number(c) / 255;
    return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

function contrast(a: string, b: string): number {
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (light + 0.05) / (dark + 0.05);
}

const switchView = (page: Page, view: 'Gallery' | 'Table') => page.locator('label', { hasText: view }).click();

/** The sign-in page's look at GET /api/user (401 before signing in) is always expected; `expected` lists more. */
function unexpected(errors: string[], expected: string[] = []): string[] {
  return errors.filter((e) => e !== 'http 401: GET /api/user' && !expected.includes(e));
}

describeBrowser('dashboard: form outcomes and tags', () => {
  const server = useTestServer({ engine: 'sqlite', env: { ...DASHBOARD_ENV, ...NO_RATE_LIMIT } });
  const browser = useBrowser();

  it('the shorten form shows only the last outcome: an error replaces the short link, a link replaces the error', async () => {
    for (const look of LOOKS) {
      const user = await makeUser(server());
      const taken = `taken-${look.name}`;
      await makeUrl(server(), user, { vanity: taken });
      const { page, context, errors } = await openPage(browser(), server().url, look);
      await signIn(page, user.username, user.password);
      await page.goto('/dashboard/urls');
      const form = page.getByRole('form', { name: 'Shorten a link' });
      const result = form.getByTestId('short-link-result');
      // The short link is shown in an alert too: the form's failure is the one with this title.
      const failure = form.getByRole('alert').filter({ hasText: 'The link was not shortened' });
      const destination = form.getByLabel(/^Destination/);
      const shorten = form.getByRole('button', { name: 'Shorten', exact: true });
      const shortened = async (path: string) => {
        await destination.fill(`example.com/${path}`);
        await shorten.click();
        await result.getByText(`Leads to https://example.com/${path}`).waitFor();
      };
      const openOptions = async () => {
        const more = form.getByRole('button', { name: 'More options' });
        if ((await more.getAttribute('aria-expanded')) !== 'true') await more.click();
      };

      // A check of the form's own (no destination) after a link: the link goes.
      await shortened('first');
      await shorten.click();
      await form.getByText('Enter the address the short link should lead to.').waitFor();
      assert.equal(await result.count(), 0, `${look.name}: the earlier link is gone when the form says what is wrong`);

      // A link after that error: the error goes.
      await shortened('second');
      assert.equal(await form.getByText('Enter the address the short link should lead to.').count(), 0);

      // The server's refusal of a field (a custom name that is taken) after a link: the link goes.
      await destination.fill('example.com/third');
      await openOptions();
      await form.getByLabel(/^Custom name/).fill(taken);
      await shorten.click();
      await form.getByText('That name is already used by another short link. Choose a different one.').waitFor();
      assert.equal(await result.count(), 0, `${look.name}: the earlier link is gone next to the taken name`);

      // A refusal of the whole form (the URL quota is full) after a link: the alert takes the link's place.
      await form.getByLabel(/^Custom name/).fill('');
      await shortened('fourth');
      const count = (await server().json('GET', '/api/user/urls?page=1', { auth: user.token })).body.total as number;
      await setUrlQuota(server(), user.id, count);
      await destination.fill('example.com/fifth');
      await shorten.click();
      await failure.getByText(/You have reached your limit of \d+ short links/).waitFor();
      assert.equal(await result.count(), 0, `${look.name}: the earlier link is gone next to the quota's alert`);
      await screenshot(page, `shorten-error-after-link-${look.name}`);

      // And a link after the alert: the alert goes.
      await setUrlQuota(server(), user.id, 1000);
      await shortened('sixth');
      assert.equal(await failure.count(), 0, `${look.name}: the alert is gone once a link is made`);
      await screenshot(page, `shorten-link-after-error-${look.name}`);

      // The taken name and the full quota are refusals of POST /api/user/urls, expected here.
      assert.deepEqual(
        unexpected(errors).filter((e) => !/^http 4\d\d: POST \/api\/user\/urls$/.test(e)),
        [],
      );
      await context.close();
    }
  });

  it('a file without tags says "No tags on this file" once the user has tags, "No tags yet" before', async () => {
    for (const look of LOOKS) {
      const user = await makeUser(server());
      // The server names files by its own format: the list shows those names.
      const first = await uploadOne(server(), user.token, 'first', { name: 'first.txt', type: 'text/plain' });
      const second = await uploadOne(server(), user.token, 'second', { name: 'second.txt', type: 'text/plain' });
      const { page, context, errors } = await openPage(browser(), server().url, look);
      await signIn(page, user.username, user.password);
      await page.goto('/dashboard/files');
      await page.getByRole('button', { name: `Open ${first.name}` }).click();
      const panel = page.getByTestId('file-detail');

      // No tags at all: "No tags yet", with how to make one.
      await panel.getByText(NO_TAGS_YET, { exact: true }).waitFor();
      await screenshot(page, `file-tags-none-yet-${look.name}`);

      // A tag made from the panel, then taken off again: the user has a tag now, this file has none.
      await panel.getByLabel('Add a tag').fill('holiday');
      await panel.getByRole('button', { name: 'Add', exact: true }).click();
      await panel.getByTestId('file-tags').getByText('holiday').waitFor();
      await panel.getByRole('button', { name: 'Remove tag holiday' }).click();
      await panel.getByText(NONE_ON_FILE, { exact: true }).waitFor();

      // Another file without tags, opened afresh, says the same.
      await page.goto('/dashboard/files');
      await page.getByRole('button', { name: `Open ${second.name}` }).click();
      await panel.getByText(NONE_ON_FILE, { exact: true }).waitFor();
      assert.equal(
        await panel.getByText('No tags yet', { exact: false }).count(),
        0,
        `${look.name}: not "No tags yet"`,
      );
      await screenshot(page, `file-tags-none-on-file-${look.name}`);

      assert.deepEqual(unexpected(errors), []);
      await context.close();
    }
  });

  it('a tag is the same chip in the gallery, the table, the file panel and the Tags page, in both schemes', async () => {
    // A light colour (black text on it) and a dark one (white text).
    const tags = [
      { name: 'sunny', color: '#fab005', rgb: 'rgb(250, 176, 5)' },
      { name: 'inky', color: '#123abc', rgb: 'rgb(18, 58, 188)' },
    ];
    const looks = new Map<string, ChipLook>();
    for (const look of LOOKS) {
      const user = await makeUser(server());
      const files = [];
      for (const tag of tags) {
        const made = await makeTag(server(), user, { name: tag.name, color: tag.color });
        const file = await uploadOne(server(), user.token, tag.name, { name: `${tag.name}.txt`, type: 'text/plain' });
        const tagged = await server().json('POST', `/api/user/files/${file.id}/tags/${made.id}`, { auth: user.token });
        assert.equal(tagged.status, 200);
        files.push(file);
      }
      const { page, context, errors } = await openPage(browser(), server().url, look);
      await signIn(page, user.username, user.password);
      const seen: Array<[string, string, ChipLook]> = [];

      await page.goto('/dashboard/files');
      for (const [i, tag] of tags.entries()) {
        const card = page.getByTestId('file-card').filter({ hasText: files[i]!.name });
        seen.push(['gallery', tag.name, await chipLook(card, tag.name)]);
      }
      await screenshot(page, `tag-chips-gallery-${look.name}`);
      await switchView(page, 'Table');
      for (const [i, tag] of tags.entries()) {
        const row = page.getByTestId('file-row').filter({ hasText: files[i]!.name });
        seen.push(['table', tag.name, await chipLook(row, tag.name)]);
      }
      await screenshot(page, `tag-chips-table-${look.name}`);
      for (const [i, tag] of tags.entries()) {
        await page.getByRole('button', { name: `Open ${files[i]!.name}` }).click();
        const panel = page.getByTestId('file-detail');
        seen.push(['file panel', tag.name, await chipLook(panel.getByTestId('file-tags'), tag.name)]);
        if (i === 0) {
          // The panel slides in: photographed once it stands still.
          await page.waitForFunction(
            () => (globalThis as unknown as BrowserGlobals).document.getAnimations().length === 0,
          );
          await screenshot(page, `tag-chips-panel-${look.name}`);
        }
        await page.getByRole('dialog').getByRole('button', { name: 'Close' }).first().click();
        await panel.waitFor({ state: 'detached' });
      }
      await page.goto('/dashboard/tags');
      for (const tag of tags) {
        const row = page.getByTestId('tag-row').filter({ hasText: tag.name });
        seen.push(['Tags page', tag.name, await chipLook(row, tag.name)]);
      }
      await screenshot(page, `tag-chips-tags-page-${look.name}`);

      for (const [where, name, chip] of seen) {
        const tag = tags.find((t) => t.name === name)!;
        assert.equal(chip.background, tag.rgb, `${look.name}, ${where}: ${name} is filled with its colour`);
        assert.ok(
          contrast(chip.text, chip.background) >= 4.5,
          `${look.name}, ${where}: ${name}'s text ${chip.text} reads on ${chip.background}`,
        );
        assert.equal(chip.component, 'tag-chip', `${look.name}, ${where}: ${name} is drawn by TagChip`);
        // One look per tag: the same on every page, at both widths and in both schemes.
        const first = looks.get(name);
        if (first) assert.deepEqual(chip, first, `${look.name}, ${where}: ${name} looks as it does elsewhere`);
        else looks.set(name, chip);
      }
      assert.deepEqual(unexpected(errors), []);
      await context.close();
    }
  });
});
