// Share links in a real browser: the owner makes a file private from its detail panel, creates a share link with a
// password, copies it; a visitor gets 404 under the plain link, opens the share link through its password form and
// sees the file; the owner revokes the link and it answers 404.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { DASHBOARD_ENV, describeBrowser, openPage, screenshot, signIn, useBrowser } from '../support/browser.js';
import { useTestServer, type TestUser } from '../support/server.js';
import { uploadOne } from '../support/uploads.js';

describeBrowser('dashboard: share links', () => {
  const server = useTestServer({ engine: 'sqlite', env: DASHBOARD_ENV });
  const browser = useBrowser();
  let admin: TestUser;
  let fileId: string;

  before(async () => {
    admin = await server().setup();
    const file = await uploadOne(server(), admin.token, 'A note shared only by link.\n', {
      name: 'shared-note.txt',
      headers: { 'x-service-format': 'name' },
    });
    fileId = file.id;
  });

  it('makes a file private, shares it with a password, and revokes the link', async () => {
    const { page, context, errors } = await openPage(browser(), server().url);
    await signIn(page, 'admin', 'admin-password');
    await page.goto(`/dashboard/files?file=${fileId}`);
    await page.getByRole('dialog', { name: 'shared-note.txt' }).waitFor();
    const panel = page.getByTestId('file-detail');
    const shares = panel.getByTestId('file-shares');

    await shares.getByRole('switch', { name: 'Private' }).click({ force: true });
    // Saved: the dashboard says so once the server has answered (the switch's own label reads "Private" before).
    await page.getByText('Only you and share links can open the file now.').waitFor();
    await shares.getByText('No share links yet.').waitFor();
    assert.equal((await server().fetch('/raw/shared-note.txt')).status, 404, 'the plain link is closed');

    await shares.getByLabel('Link password').fill('let me in');
    await shares.getByRole('textbox', { name: 'Most views' }).fill('5');
    await shares.getByRole('button', { name: 'Create share link' }).click();
    const row = shares.getByRole('listitem').first();
    await row.getByText('Password · 0 of 5 views · never expires').waitFor();
    await screenshot(page, 'files-detail-share-links');
    await row.getByRole('button', { name: 'Copy' }).click();
    const url = await page.evaluate(() =>
      (
        globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }
      ).navigator.clipboard.readText(),
    );
    assert.match(url, new RegExp(`^${server().url}/s/[A-Za-z0-9]{22}$`));
    const listed = await server().json('GET', `/api/user/files/${fileId}/shares`, { auth: admin.token });
    assert.equal(listed.body[0].url, url);

    // A visitor (no session) opens the link: the password form, then the file's page.
    const visitor = await openPage(browser(), server().url);
    await visitor.page.goto(url);
    await visitor.page.getByLabel('Password').fill('let me in');
    await visitor.page.getByRole('button', { name: 'Open file' }).click();
    await visitor.page.getByText('A note shared only by link.').waitFor();
    await visitor.context.close();

    await row.getByRole('button', { name: 'Revoke share link' }).click();
    await shares.getByText('No share links yet.').waitFor();
    assert.equal((await server().fetch(new URL(url).pathname)).status, 404, 'a revoked link is gone');
    // The login page asks who is signed in before anyone is: that 401 is expected.
    assert.deepEqual(
      errors.filter((e) => e !== 'http 401: GET /api/user'),
      [],
    );
    await context.close();
  });
});
