// Scoped API tokens in a real browser: made in Settings -> API tokens with a name, scopes and an expiry, the secret
// shown once with a copy button, listed, revoked; and the Uploaders tab making an upload-only token for the ShareX
// file uploader, whose download then uploads but cannot list files.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { before, it } from 'node:test';
import type { Page } from 'playwright-core';
import { DASHBOARD_ENV, describeBrowser, openPage, screenshot, signIn, useBrowser } from '../support/browser.js';
import { makeUser } from '../support/factory.js';
import { useTestServer } from '../support/server.js';

interface BrowserGlobals {
  navigator: { clipboard: { readText(): Promise<string> } };
}

/** A page's errors less the 401 of GET /api/user that the sign-in page gets while nobody is signed in. */
function unexpected(errors: string[]): string[] {
  return errors.filter((e) => e !== 'http 401: GET /api/user');
}

async function download(page: Page, buttonName: string | RegExp): Promise<string> {
  const [file] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: buttonName }).click(),
  ]);
  return readFile(await file.path(), 'utf8');
}

describeBrowser('dashboard: scoped API tokens', () => {
  const server = useTestServer({ engine: 'sqlite', env: { ...DASHBOARD_ENV, RATELIMIT_ENABLED: 'false' } });
  const browser = useBrowser();
  before(async () => {
    await server().setup();
  });

  it('makes a token with name, scopes and expiry, shows it once with copy, lists it and revokes it', async () => {
    const gina = await makeUser(server(), { username: 'gina' });
    const { page, context, errors } = await openPage(browser(), server().url);
    await signIn(page, 'gina', gina.password);
    await page.goto('/dashboard/settings?tab=token');
    await page.getByText('You have no scoped tokens yet.').waitFor();

    await page.getByRole('button', { name: 'New token' }).click();
    const dialog = page.getByRole('dialog', { name: 'New API token' });
    await dialog.getByLabel(/^Name/).fill('Backup script');
    await dialog.getByRole('checkbox', { name: /^Upload/ }).uncheck();
    await dialog.getByRole('checkbox', { name: /^Read files/ }).check();
    await dialog.getByRole('textbox', { name: 'Expires' }).click();
    await page.getByRole('option', { name: 'In 30 days' }).click();
    await dialog.getByRole('button', { name: 'Make token' }).click();

    const secretField = page.getByTestId('new-api-token');
    await secretField.waitFor();
    const secret = await secretField.inputValue();
    assert.match(secret, /^chute_/);
    await page.getByRole('button', { name: 'Copy the token' }).last().click();
    assert.equal(
      await page.evaluate(() => (globalThis as unknown as BrowserGlobals).navigator.clipboard.readText()),
      secret,
    );
    const row = page.getByTestId('api-token-row').filter({ hasText: 'Backup script' });
    await row.getByText('Read files').waitFor();
    assert.match(await row.innerText(), /expires /);
    await screenshot(page, 'settings-api-tokens');

    // What the browser made is what the API holds, and the token does what its scope says.
    const listed = await server().json('GET', '/api/user/tokens', { auth: gina.token });
    assert.equal(listed.body.length, 1);
    assert.equal(listed.body[0].name, 'Backup script');
    assert.deepEqual(listed.body[0].scopes, ['files:read']);
    assert.ok(listed.body[0].expiresAt);
    assert.equal((await server().json('GET', '/api/user/files', { auth: secret })).status, 200);
    assert.equal((await server().json('GET', '/api/user/urls', { auth: secret })).status, 403);

    await page.getByRole('button', { name: 'Done, I have copied it' }).click();
    await secretField.waitFor({ state: 'detached' });
    await page.reload();
    await row.waitFor();
    assert.equal(await page.getByTestId('new-api-token').count(), 0, 'the secret is shown again');

    await page.getByRole('button', { name: 'Revoke Backup script' }).click();
    await page
      .getByRole('dialog', { name: /Revoke/ })
      .getByRole('button', { name: 'Revoke token' })
      .click();
    await page.getByText('You have no scoped tokens yet.').waitFor();
    assert.equal((await server().json('GET', '/api/user/files', { auth: secret })).status, 401);
    assert.deepEqual(unexpected(errors), []);
    await context.close();
  });

  it('the Uploaders tab makes an upload-only token for the ShareX file uploader: it uploads and cannot list', async () => {
    const hugo = await makeUser(server(), { username: 'hugo' });
    const { page, context, errors } = await openPage(browser(), server().url);
    await signIn(page, 'hugo', hugo.password);
    await page.goto('/dashboard/settings?tab=uploaders');
    await page.getByText('A new upload-only token').click();
    assert.equal(await page.getByRole('button', { name: /^Download .*-files\.sxcu$/ }).isDisabled(), true);
    await page.getByRole('button', { name: 'Make an upload-only token' }).click();
    await page.getByTestId('upload-token-made').waitFor();
    assert.equal(await page.getByRole('button', { name: /^Download .*-urls\.sxcu$/ }).isDisabled(), true);
    await screenshot(page, 'settings-uploaders-upload-only');

    const sxcu = JSON.parse(await download(page, /^Download .*-files\.sxcu$/)) as {
      RequestURL: string;
      Headers: Record<string, string>;
      FileFormName: string;
    };
    const token = sxcu.Headers.authorization!;
    assert.match(token, /^chute_/);
    assert.notEqual(token, hugo.token);
    const script = await download(page, 'Download chute-upload.sh');
    assert.ok(script.includes(token), 'the script carries the upload-only token');

    const form = new FormData();
    form.append(sxcu.FileFormName, new Blob(['from ShareX'], { type: 'text/plain' }), 'sharex.txt');
    const answer = await fetch(sxcu.RequestURL, { method: 'POST', headers: sxcu.Headers, body: form });
    assert.equal(answer.status, 200);
    assert.equal((await server().json('GET', '/api/user/files', { auth: token })).status, 403);

    const listed = await server().json('GET', '/api/user/tokens', { auth: hugo.token });
    assert.deepEqual(
      listed.body.map((t: { scopes: string[] }) => t.scopes),
      [['upload']],
    );
    assert.deepEqual(unexpected(errors), []);
    await context.close();
  });
});
