// Details of the dashboard in a real browser, at a phone's 390 px and a laptop's 1280 px, in both colour schemes (issue
// 43 item 11): the shorten form shows the outcome of the last try only (a new error replaces an earlier short link,
// and a new link an earlier error); a file without tags says "No tags yet" only when the user has no tags at all.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { setUrlQuota } from '../support/content.js';
import { DASHBOARD_ENV, describeBrowser, openPage, screenshot, signIn, useBrowser } from '../support/browser.js';
import { makeUrl, makeUser, NO_RATE_LIMIT } from '../support/factory.js';
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
});
