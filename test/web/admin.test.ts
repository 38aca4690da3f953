// The administration pages in a real browser, as the super administrator: create a user with a quota (who then
// signs in), change their role, change server settings (applied at once; a key the environment sets is locked),
// invite someone who registers through the link, delete a user; and a plain user, who sees none of these pages.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { insertTestFile } from '../support/content.js';
import { makeAccount } from '../support/factory.js';
import {
  DASHBOARD_ENV,
  DESKTOP,
  describeBrowser,
  openPage,
  PHONE,
  screenshot,
  signIn,
  useBrowser,
} from '../support/browser.js';
import { useTestServer, withTestServer, type TestUser } from '../support/server.js';

/** What went wrong in the page, less the 401 of GET /api/user that the sign-in page meets before signing in. */
const unexpected = (errors: string[]) => errors.filter((e) => e !== 'http 401: GET /api/user');

// URLS_LENGTH set in the environment locks "Short URL code length"; the suite signs in many times from one address.
const SERVER_ENV = { ...DASHBOARD_ENV, RATELIMIT_ENABLED: 'false', URLS_LENGTH: '7' };

describeBrowser('dashboard: administration', () => {
  const server = useTestServer({ engine: 'sqlite', env: SERVER_ENV });
  const browser = useBrowser();
  let root: TestUser;

  const userNamed = async (username: string) => {
    const res = await server().json('GET', `/api/users?page=1&search=${encodeURIComponent(username)}`, {
      auth: root.token,
    });
    return res.body.users.find((u: { username: string }) => u.username === username);
  };

  before(async () => {
    root = await server().setup('admin', 'admin-password');
  });

  it('the super administrator creates a user with a quota, who can then sign in', async () => {
    const { page, context, errors } = await openPage(browser(), server().url);
    await signIn(page, 'admin', 'admin-password');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Users' }).click();
    await page.waitForURL(/\/dashboard\/admin\/users$/);
    await page.getByRole('button', { name: 'Create user' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create a user' });
    await dialog.getByLabel(/^Username/).fill('dana');
    await dialog.getByLabel(/^Password/).fill('dana-password');
    await dialog.getByText('By size').click();
    await dialog.getByLabel(/^Storage limit/).fill('5mb');
    await dialog.getByText('5.00 MiB in all').waitFor();
    await dialog.getByLabel(/^Largest number of short URLs/).fill('10');
    await screenshot(page, 'admin-user-create');
    await dialog.getByRole('button', { name: 'Create user' }).click();
    await dialog.waitFor({ state: 'hidden' });

    const row = page.getByTestId('user-row-dana');
    await row.getByText('5.00 MiB, 10 URLs').waitFor();
    await row.getByText('User', { exact: true }).waitFor();
    const dana = await userNamed('dana');
    assert.equal(dana.role, 'USER');
    assert.deepEqual(
      {
        filesQuota: dana.quota.filesQuota,
        maxBytes: dana.quota.maxBytes,
        maxFiles: dana.quota.maxFiles,
        maxUrls: dana.quota.maxUrls,
      },
      { filesQuota: 'BY_BYTES', maxBytes: String(5 * 1024 * 1024), maxFiles: null, maxUrls: 10 },
    );
    await screenshot(page, 'admin-users');
    assert.deepEqual(unexpected(errors), []);

    const fresh = await openPage(browser(), server().url, { viewport: PHONE });
    await signIn(fresh.page, 'dana', 'dana-password');
    await fresh.page.getByRole('heading', { name: 'Hello, dana' }).waitFor();
    await fresh.context.close();
    await context.close();
  });

  it("the super administrator changes a user's role; a quota that is not a size is refused in words", async () => {
    await makeAccount(server(), { username: 'frank', quota: { filesQuota: 'BY_BYTES', maxBytes: '5mb', maxUrls: 10 } });
    const { page, context, errors } = await openPage(browser(), server().url, { viewport: PHONE, colorScheme: 'dark' });
    await signIn(page, 'admin', 'admin-password');
    await page.goto('/dashboard/admin/users');
    const card = page.getByTestId('user-card-frank');
    await card.getByRole('button', { name: 'Edit frank' }).click();
    const dialog = page.getByRole('dialog', { name: 'Edit frank' });
    await dialog.getByLabel(/^Storage limit/).fill('lots');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.getByText('Write a size such as 500mb, 10gb or a number of bytes.').waitFor();
    await dialog.getByLabel(/^Storage limit/).fill('8mb');
    await dialog.getByLabel(/^Role/).click();
    await page.getByRole('option', { name: 'Administrator', exact: true }).click();
    await screenshot(page, 'admin-user-edit-phone-dark');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await card.getByText('Administrator', { exact: true }).waitFor();
    const frank = await userNamed('frank');
    assert.equal(frank.role, 'ADMIN');
    assert.equal(frank.quota.maxBytes, String(8 * 1024 * 1024));
    await screenshot(page, 'admin-users-phone-dark');
    assert.deepEqual(unexpected(errors), []);
    await context.close();
  });

  it('an administrator (not super) may only give the USER role and cannot change a super administrator', async () => {
    const gina = await makeAccount(server(), { username: 'gina', role: 'ADMIN' });
    const { page, context, errors } = await openPage(browser(), server().url);
    await signIn(page, gina.username, gina.password);
    await page.goto('/dashboard/admin/users');
    await page.getByTestId('user-row-admin').getByRole('button', { name: 'Edit admin' }).waitFor();
    assert.equal(
      await page.getByTestId('user-row-admin').getByRole('button', { name: 'Edit admin' }).isDisabled(),
      true,
    );
    assert.equal(
      await page.getByTestId('user-row-admin').getByRole('button', { name: 'Delete admin' }).isDisabled(),
      true,
    );
    // The reason is in the tooltip.
    await page.getByTestId('user-row-admin').getByRole('button', { name: 'Edit admin' }).hover();
    await page.getByRole('tooltip', { name: 'Only this super administrator can change their account' }).waitFor();
    await page.getByRole('button', { name: 'Create user' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create a user' });
    assert.equal(await dialog.getByLabel(/^Role/).isDisabled(), true);
    await dialog.getByText('Only a super administrator can make someone an administrator.').waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    assert.deepEqual(unexpected(errors), []);
    await context.close();
  });

  it('server settings: grouped, a change is applied at once, an invalid value is named in words, an env-locked key is locked', async () => {
    const { page, context, errors } = await openPage(browser(), server().url);
    await signIn(page, 'admin', 'admin-password');
    await page.goto('/dashboard/admin/settings');
    for (const group of ['General', 'Registration and invites', 'Files', 'Short URLs', 'Rate limits']) {
      await page.getByRole('heading', { name: group, exact: true }).waitFor();
    }
    // Locked by URLS_LENGTH: disabled, with its variable named, and the API refuses it too.
    const locked = page.getByLabel('Short URL code length');
    assert.equal(await locked.isDisabled(), true);
    assert.equal(await locked.isEditable(), false);
    assert.equal(await locked.inputValue(), '7');
    await page.getByTestId('setting-urlsLength').getByLabel('Locked by the environment variable URLS_LENGTH').waitFor();
    await page
      .getByTestId('setting-urlsLength')
      .getByText('Set by the environment variable URLS_LENGTH.', { exact: false })
      .waitFor();
    const refused = await server().json('PATCH', '/api/server/settings', { auth: root.token, body: { urlsLength: 5 } });
    assert.equal(refused.body.code, 1022);

    // A refused value: nothing is saved, and the field says why.
    await page.getByLabel('Site title').fill('Team Drop');
    await page.getByLabel('Requests per window').fill('0');
    await page.getByText('2 unsaved changes').waitFor();
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page
      .getByRole('alert')
      .getByText(/Nothing was saved: Requests per window is not valid/)
      .waitFor();
    await page.getByTestId('setting-ratelimitMax').getByText('Must be at least 1.').waitFor();
    await screenshot(page, 'admin-settings-refused');
    assert.equal((await server().json('GET', '/api/server/public')).body.siteTitle, 'Chute');

    // Fixed, saved: only the changed keys, and the header shows the new title at once.
    await page.getByLabel('Requests per window').fill('120');
    // The switch's track covers its input, as in any Mantine switch: a click lands on the track.
    await page.getByLabel('Invites', { exact: true }).check({ force: true });
    await page.getByText('3 unsaved changes').waitFor();
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('banner').getByText('Team Drop').waitFor();
    await page.getByText(/unsaved change/).waitFor({ state: 'hidden' });
    const settings = (await server().json('GET', '/api/server/settings', { auth: root.token })).body.settings;
    assert.equal(settings.siteTitle, 'Team Drop');
    assert.equal(settings.ratelimitMax, 120);
    assert.equal(settings.invitesEnabled, true);
    await page.reload();
    assert.equal(await page.getByLabel('Site title').inputValue(), 'Team Drop');
    assert.equal(await page.title(), 'Team Drop');
    await screenshot(page, 'admin-settings');
    // The 1022 above is the only failed request.
    assert.deepEqual(unexpected(errors), ['http 400: PATCH /api/server/settings']);
    await context.close();

    const phone = await openPage(browser(), server().url, { viewport: PHONE, colorScheme: 'dark' });
    await signIn(phone.page, 'admin', 'admin-password');
    await phone.page.goto('/dashboard/admin/settings');
    await phone.page.getByLabel('Site title').waitFor();
    await screenshot(phone.page, 'admin-settings-phone-dark');
    await phone.context.close();
  });

  it('server settings in words: every setting labelled and explained with its default, its names under Details, and a search box', async () => {
    const { fields } = (await server().json('GET', '/api/server/settings', { auth: root.token })).body as {
      fields: Record<string, { description: string; env: string; default: unknown }>;
    };
    const humanized = (key: string) => {
      const words = key.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
      return words.charAt(0).toUpperCase() + words.slice(1);
    };
    for (const [viewport, colorScheme] of [
      [{ width: 1280, height: 900 }, 'light'],
      [{ width: 390, height: 844 }, 'dark'],
    ] as const) {
      const { page, context, errors } = await openPage(browser(), server().url, { viewport, colorScheme });
      await signIn(page, 'admin', 'admin-password');
      await page.goto('/dashboard/admin/settings');
      await page.getByLabel('Site title').waitFor();
      for (const [key, field] of Object.entries(fields)) {
        const row = page.getByTestId(`setting-${key}`);
        const label = (await row.locator('label').first().innerText()).trim();
        // A key's own name in words is a label only where it already reads as one ("Site title").
        if (key !== 'siteTitle') assert.notEqual(label, humanized(key), `${key} is labelled in words`);
        const help = (await page.locator(`#setting-${key}-help`).innerText())
          .replace(/ Set by the environment variable [A-Z0-9_]+\.$/, '')
          .trim();
        assert.ok(!help.includes(field.description), `${key}: the help is not the technical description`);
        const words = help.split(' Default: ')[0]!;
        assert.doesNotMatch(words, /\/api\/|\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b|\bnull\b/, `${key}: ${help}`);
        assert.match(help, /Default: [^.]+\.$|Default: .+\.$/, `${key} says its default`);
      }
      assert.match(await page.locator('#setting-thumbnailsEnabled-help').innerText(), /Default: on\./);
      assert.match(await page.locator('#setting-filesDefaultExpiration-help').innerText(), /Default: not set\./);
      // The technical names and meaning, one click away.
      const details = page.getByTestId('setting-siteTitle-details');
      assert.equal(await details.getByText('SITE_TITLE', { exact: true }).isVisible(), false);
      await details.getByText('Details').click();
      await details.getByText('SITE_TITLE', { exact: true }).waitFor();
      await details.getByText('siteTitle', { exact: true }).waitFor();
      await details.getByText(fields.siteTitle!.description, { exact: false }).waitFor();

      // Search: by words (any case, every word), by key or environment variable; nothing found says so.
      const total = Object.keys(fields).length;
      const search = page.getByLabel('Find a setting');
      await search.fill('GPS photos');
      await page.getByTestId('settings-search-status').getByText(`1 of ${total} settings match.`).waitFor();
      await page.getByTestId('setting-filesRemoveGpsMetadata').waitFor();
      assert.equal(await page.getByTestId('setting-siteTitle').count(), 0);
      assert.equal(await page.getByRole('heading', { name: 'Rate limits', exact: true }).count(), 0);
      await search.fill('RATELIMIT_MAX');
      await page.getByTestId('setting-ratelimitMax').waitFor();
      await page.getByTestId('settings-search-status').getByText(`1 of ${total} settings match.`).waitFor();
      await search.fill('no such setting');
      await page.getByTestId('settings-search-status').getByText('No setting matches “no such setting”.').waitFor();
      const width = await page.evaluate<number>('document.scrollingElement.scrollWidth - window.innerWidth');
      assert.ok(width <= 0, `no sideways scrolling at ${viewport.width} px (${width} px too wide)`);
      await search.fill('');
      await page.getByTestId('setting-siteTitle').waitFor();
      assert.equal(await page.locator('[data-testid^="setting-"][data-testid$="-details"]').count(), total);
      await screenshot(page, `admin-settings-words-${viewport.width}-${colorScheme}`);
      assert.deepEqual(unexpected(errors), []);
      await context.close();
    }
  });

  it('an invite link lets someone register and land signed in; the invite is then used up and can be deleted', async () => {
    const { page, context, errors } = await openPage(browser(), server().url, { viewport: PHONE });
    await signIn(page, 'admin', 'admin-password');
    await page.goto('/dashboard/admin/invites');
    await page.getByText('No invites yet').waitFor();
    await page.getByRole('button', { name: 'Create invite' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create an invite' });
    await dialog.getByLabel(/^Accounts it may create/).fill('1');
    await dialog.getByRole('button', { name: 'Create invite' }).click();
    const created = page.getByRole('dialog', { name: 'Invite created' });
    const link = await created.getByLabel('Invite link').inputValue();
    const code = new URL(link).searchParams.get('code');
    assert.ok(code);
    assert.equal(link, `${server().url}/auth/register?code=${code}`);
    await screenshot(page, 'admin-invite-created-phone');
    await created.getByRole('button', { name: 'Copy link' }).click();
    assert.equal(await page.evaluate<string>('navigator.clipboard.readText()'), link);
    await created.getByRole('button', { name: 'Done' }).click();
    const card = page.getByTestId(`invite-card-${code}`);
    await card.getByText('Used 0 of 1', { exact: false }).waitFor();

    const guest = await openPage(browser(), server().url);
    await guest.page.goto(link);
    assert.equal(await guest.page.getByLabel(/^Invite code/).inputValue(), code);
    await guest.page.getByLabel(/^Username/).fill('erin');
    await guest.page.getByLabel(/^Password/).fill('erin-password');
    await guest.page.getByLabel(/^Repeat the password/).fill('erin-password');
    await guest.page.getByRole('button', { name: 'Register' }).click();
    await guest.page.waitForURL(/\/dashboard$/);
    await guest.page.getByRole('heading', { name: 'Hello, erin' }).waitFor();
    assert.deepEqual(unexpected(guest.errors), []);
    await guest.context.close();

    await page.reload();
    await card.getByText('Used up').waitFor();
    await card.getByText('Used 1 of 1', { exact: false }).waitFor();
    await card.getByText('By admin', { exact: false }).waitFor();
    await screenshot(page, 'admin-invites-phone');
    await card.getByRole('button', { name: `Delete invite ${code}` }).click();
    await page
      .getByRole('dialog', { name: `Delete invite ${code}?` })
      .getByRole('button', { name: 'Delete invite' })
      .click();
    await card.waitFor({ state: 'detached' });
    assert.deepEqual((await server().json('GET', '/api/auth/invites', { auth: root.token })).body, []);
    assert.deepEqual(unexpected(errors), []);
    await context.close();
  });

  it('the overview counts users, files and storage of everyone', async () => {
    // A server of its own: the totals are of everyone on it.
    await withTestServer({ engine: 'sqlite', env: SERVER_ENV }, async (own) => {
      await own.setup('admin', 'admin-password');
      const dana = await makeAccount(own, { username: 'dana' });
      await makeAccount(own, { username: 'erin' });
      await insertTestFile(own, dana.id, { bytes: 'x'.repeat(3000), type: 'image/png' });
      await insertTestFile(own, dana.id, { bytes: 'y'.repeat(1000), type: 'text/plain' });
      const { page, context, errors } = await openPage(browser(), own.url);
      await signIn(page, 'admin', 'admin-password');
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Server overview' }).click();
      // admin, dana, erin; two files of 4000 bytes.
      await page.getByTestId('stat-Users').getByText('3', { exact: true }).waitFor();
      await page.getByTestId('stat-Files').getByText('2', { exact: true }).waitFor();
      await page.getByTestId('stat-Storage used').getByText('3.91 KiB', { exact: true }).waitFor();
      await page.getByRole('cell', { name: 'image/png' }).waitFor();
      await page.getByText('Who stores the most').waitFor();
      await screenshot(page, 'admin-overview');
      assert.deepEqual(unexpected(errors), []);
      await context.close();

      const phone = await openPage(browser(), own.url, { viewport: PHONE, colorScheme: 'dark' });
      await signIn(phone.page, 'admin', 'admin-password');
      await phone.page.goto('/dashboard/admin');
      await phone.page.getByRole('cell', { name: 'image/png' }).waitFor();
      await screenshot(phone.page, 'admin-overview-phone-dark');
      await phone.context.close();
    });
  });

  it('the super administrator deletes a user together with their files', async () => {
    const hugo = await makeAccount(server(), { username: 'hugo' });
    await insertTestFile(server(), hugo.id, { bytes: 'x'.repeat(3000), type: 'image/png' });
    await insertTestFile(server(), hugo.id, { bytes: 'y'.repeat(1000), type: 'text/plain' });
    const filesBefore = (await server().json('GET', '/api/server/stats', { auth: root.token })).body.files;
    const { page, context, errors } = await openPage(browser(), server().url, {
      viewport: DESKTOP,
      colorScheme: 'dark',
    });
    await signIn(page, 'admin', 'admin-password');
    await page.goto('/dashboard/admin/users');
    const row = page.getByTestId('user-row-hugo');
    await row.getByText('3.91 KiB').waitFor();
    await row.getByRole('button', { name: 'Delete hugo' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete hugo?' });
    await dialog.getByLabel(/Also delete 2 file\(s\)/).check();
    await screenshot(page, 'admin-user-delete-dark');
    await dialog.getByRole('button', { name: 'Delete user' }).click();
    await row.waitFor({ state: 'detached' });
    assert.equal(await userNamed('hugo'), undefined);
    const stats = (await server().json('GET', '/api/server/stats', { auth: root.token })).body;
    assert.equal(stats.files, filesBefore - 2);
    assert.deepEqual(unexpected(errors), []);
    await context.close();
  });

  it('a plain user does not see the administration pages', async () => {
    const ivy = await makeAccount(server(), { username: 'ivy' });
    const { page, context, errors } = await openPage(browser(), server().url);
    await signIn(page, ivy.username, ivy.password);
    const nav = page.getByRole('navigation', { name: 'Main' });
    await nav.getByRole('link', { name: 'Files' }).waitFor();
    assert.equal(await nav.getByRole('link', { name: 'Users' }).count(), 0);
    assert.equal(await nav.getByRole('link', { name: 'Server settings' }).count(), 0);
    for (const path of [
      '/dashboard/admin',
      '/dashboard/admin/users',
      '/dashboard/admin/invites',
      '/dashboard/admin/settings',
    ]) {
      await page.goto(path);
      await page.getByText('Page not found').waitFor();
      assert.equal(
        await page.getByRole('heading', { name: /Users|Server settings|Server overview|Invites/ }).count(),
        0,
      );
    }
    await screenshot(page, 'admin-not-found-for-user');
    assert.deepEqual(unexpected(errors), []);
    await context.close();
  });
});
