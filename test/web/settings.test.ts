// The user's settings page in a real browser: username and password (then signing in with them), the avatar, the
// view and embed settings with their live preview (and the embed tags the server then writes), sessions, the API
// token, and the uploader configurations, which are downloaded and then run: the ShareX requests with fetch and the
// shell script with bash and curl.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, it } from 'node:test';
import type { Page } from 'playwright-core';
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
import { rgbPng } from '../support/fixtures.js';
import { makeUser } from '../support/factory.js';
import { useTestServer } from '../support/server.js';

const run = promisify(execFile);

/** Reads a ShareX {json:a.b[0].c} answer path out of a parsed JSON answer. */
function shareXJsonValue(template: string, answer: unknown): unknown {
  const match = /^\{json:([^}]+)\}$/.exec(template);
  assert.ok(match, `not a {json:...} template: ${template}`);
  return match[1]!
    .split(/\.|\[(\d+)\]/)
    .filter((part) => part !== undefined && part !== '')
    .reduce<unknown>((value, key) => (value as Record<string, unknown>)[key], answer);
}

/** The few browser globals the page functions below use (the tests compile without the DOM library). */
interface BrowserGlobals {
  document: { querySelectorAll(selector: string): ArrayLike<object>; querySelector(selector: string): object | null };
  getComputedStyle(element: object): { opacity: string; borderLeftColor: string };
  navigator: { clipboard: { readText(): Promise<string> } };
}

/** Waits for an opening dialog to finish its transition, so that a screenshot shows it whole. */
async function dialogSettled(page: Page): Promise<void> {
  await page.waitForFunction(() => {
    const w = globalThis as unknown as BrowserGlobals;
    return Array.from(w.document.querySelectorAll('.mantine-Modal-content')).every(
      (el) => w.getComputedStyle(el).opacity === '1',
    );
  });
}

async function download(page: Page, buttonName: string): Promise<{ name: string; text: string }> {
  const [file] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: buttonName }).click(),
  ]);
  const saved = await file.path();
  return { name: file.suggestedFilename(), text: await readFile(saved, 'utf8') };
}

const CHROME_LINUX =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
const FIREFOX_WINDOWS = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:127.0) Gecko/20100101 Firefox/127.0';

/** A page's errors less the 401 of GET /api/user that the sign-in page gets while nobody is signed in. */
function unexpected(errors: string[]): string[] {
  return errors.filter((e) => e !== 'http 401: GET /api/user');
}

/** The fields of a ShareX custom uploader (.sxcu) the tests read. */
interface ShareXUploader {
  RequestMethod: string;
  RequestURL: string;
  Body: string;
  FileFormName: string;
  URL: string;
  Headers: Record<string, string>;
  Data?: string;
}

describeBrowser('dashboard: user settings', () => {
  // Many sign-ins in a short time: the login rate limit would get in the way.
  const server = useTestServer({ engine: 'sqlite', env: { ...DASHBOARD_ENV, RATELIMIT_ENABLED: 'false' } });
  const browser = useBrowser();
  let workDir: string;

  before(async () => {
    await server().setup();
    workDir = await mkdtemp(path.join(os.tmpdir(), 'chute-settings-test-'));
  });
  after(async () => {
    await rm(workDir, { recursive: true, force: true });
  });

  it('changes the username and the password; the new ones sign in, a taken name and a wrong password are said in words', async () => {
    const alice = await makeUser(server(), { username: 'alice' });
    const { page, context, errors } = await openPage(browser(), server().url);
    await signIn(page, 'alice', alice.password);
    await page.goto('/dashboard/settings');
    await page.getByRole('heading', { name: 'Settings' }).waitFor();
    await screenshot(page, 'settings-profile');

    const username = page.getByLabel(/^Username/);
    await username.fill('admin');
    await page.getByRole('button', { name: 'Save username' }).click();
    await page.getByText('That username is taken. Choose another one.').waitFor();
    await username.fill('alice-renamed');
    await page.getByRole('button', { name: 'Save username' }).click();
    await page.getByText('You are now alice-renamed.', { exact: false }).waitFor();
    await page.getByTestId('account-menu').getByText('alice-renamed').waitFor();

    await page.getByLabel(/^Current password/).fill('not-my-password');
    await page.getByLabel(/^New password/).fill('brand-new-secret');
    await page.getByLabel(/^Repeat the new password/).fill('brand-new-typo');
    await page.getByText('Not the same as the new password.').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Change password' }).isDisabled(), false);
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByRole('alert').getByText('The new password and its repetition are not the same.').waitFor();
    await page.getByLabel(/^Repeat the new password/).fill('brand-new-secret');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByRole('alert').getByText('The current password is not right.').waitFor();
    await page.getByLabel(/^Current password/).fill(alice.password);
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByText('Use the new password the next time you sign in.').waitFor();
    await screenshot(page, 'settings-profile-changed');

    // The old name and password no longer sign in; the new ones do, in the browser.
    assert.equal(
      (await server().json('POST', '/api/auth/login', { body: { username: 'alice', password: alice.password } }))
        .status,
      400,
    );
    assert.equal(
      (
        await server().json('POST', '/api/auth/login', {
          body: { username: 'alice-renamed', password: alice.password },
        })
      ).status,
      400,
    );
    await page.getByTestId('account-menu').click();
    await page.getByRole('menuitem', { name: 'Sign out' }).click();
    await page.waitForURL(/\/auth\/login$/);
    await signIn(page, 'alice-renamed', 'brand-new-secret');
    await page.goto('/dashboard/settings');
    assert.equal(await page.getByLabel(/^Username/).inputValue(), 'alice-renamed');

    // The taken name (1038) and the wrong current password (1066) were 400s; nothing else failed.
    assert.deepEqual(unexpected(errors), ['http 400: PATCH /api/user', 'http 400: PATCH /api/user']);
    await context.close();
  });

  it('uploads an avatar with a preview, scales a large picture down, and removes it', async () => {
    const bob = await makeUser(server(), { username: 'bob' });
    const { page, context, errors } = await openPage(browser(), server().url, { viewport: PHONE, colorScheme: 'dark' });
    await signIn(page, 'bob', bob.password);
    await page.goto('/dashboard/settings');

    const small = rgbPng(64, 64, (x, y) => [x * 4, y * 4, 128]);
    await page.locator('input[type=file]').setInputFiles({ name: 'me.png', mimeType: 'image/png', buffer: small });
    await page.getByText('This is how your new avatar looks. Save it?').waitFor();
    const preview = page.getByTestId('avatar-preview').locator('img');
    assert.equal(await preview.getAttribute('src'), `data:image/png;base64,${small.toString('base64')}`);
    // Nothing is saved before "Save avatar".
    assert.equal((await server().json('GET', '/api/user', { auth: bob.token })).body.user.avatar ?? null, null);
    await screenshot(page, 'settings-avatar-preview-phone-dark');
    await page.getByRole('button', { name: 'Save avatar' }).click();
    await page.getByText('Your new avatar is saved.').waitFor();
    const saved = await server().json('GET', '/api/user', { auth: bob.token });
    assert.equal(saved.body.user.avatar, `data:image/png;base64,${small.toString('base64')}`);
    const image = await server().fetch('/api/user/avatar', {
      headers: { authorization: bob.token, accept: 'image/*' },
    });
    assert.equal(image.headers.get('content-type'), 'image/png');
    assert.deepEqual(Buffer.from(await image.arrayBuffer()), small);
    // The header's avatar is the new one too (session refreshed).
    await page.getByTestId('account-menu').locator(`img[src^="data:image/png"]`).waitFor();

    // A picture over the server's 1 MiB limit is scaled down in the browser and then accepted.
    // 700 x 700 of noise: about 1.4 MiB, over the limit, and small enough to hand to a slow browser in time.
    const side = 700;
    const noise = randomBytes(side * side * 3);
    const large = rgbPng(side, side, (x, y) => {
      const at = (y * side + x) * 3;
      return [noise[at]!, noise[at + 1]!, noise[at + 2]!];
    });
    assert.ok(large.length > 1024 * 1024);
    await page
      .locator('input[type=file]')
      .setInputFiles({ name: 'photo.png', mimeType: 'image/png', buffer: large }, { timeout: 60_000 });
    await page.getByRole('button', { name: 'Save avatar' }).click();
    await page.getByText('Your new avatar is saved.').nth(0).waitFor();
    await page.waitForFunction(async () => {
      const res = await fetch('/api/user');
      const { user } = (await res.json()) as { user: { avatar: string | null } };
      return user.avatar !== null && !user.avatar.startsWith('data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAEAAAABA');
    });
    const scaled = (await server().json('GET', '/api/user', { auth: bob.token })).body.user.avatar as string;
    assert.match(scaled, /^data:image\/(webp|png|jpeg);base64,/);
    assert.ok(Buffer.from(scaled.slice(scaled.indexOf(',') + 1), 'base64').length <= 1024 * 1024);

    await page.getByRole('button', { name: 'Remove' }).click();
    await page.getByRole('dialog', { name: 'Remove your avatar?' }).waitFor();
    await dialogSettled(page);
    await screenshot(page, 'settings-avatar-remove-phone-dark');
    await page.getByRole('button', { name: 'Remove avatar' }).click();
    await page.getByText('Your avatar was removed.').waitFor();
    assert.equal((await server().json('GET', '/api/user', { auth: bob.token })).body.user.avatar ?? null, null);
    await page.getByRole('button', { name: 'Upload an avatar' }).waitFor();
    assert.deepEqual(unexpected(errors), []);
    await context.close();
  });

  it('the embed preview follows what is typed; saved settings reach the API and the tags chat apps read', async () => {
    const carol = await makeUser(server(), { username: 'carol' });
    const { page, context, errors } = await openPage(browser(), server().url);
    await signIn(page, 'carol', carol.password);
    await page.goto('/dashboard/settings?tab=view');
    const card = page.getByTestId('embed-card');
    await page.getByTestId('embed-none').getByText('Embeds are off').waitFor();
    await page.getByRole('switch', { name: 'Show a card in chat apps' }).click();
    await card.waitFor();
    // The site name falls back on the site title until one is typed.
    assert.equal(await card.getByTestId('embed-site-name').textContent(), 'Chute');

    await page.getByLabel(/^Title/).fill('Shared by carol: ');
    await page.getByRole('button', { name: 'Insert {file.originalName}' }).click();
    await page.getByTestId('embed-title').getByText('Shared by carol: holiday.png').waitFor();
    await page.getByLabel(/^Description/).fill('{file.size}, {file.type}');
    await page.getByTestId('embed-description').getByText('1.40 MiB, image/png').waitFor();
    await page.getByLabel(/^Site name/).fill('Carol’s files');
    await page.getByTestId('embed-site-name').getByText('Carol’s files').waitFor();
    const colour = page.getByLabel(/^Colour/);
    await colour.fill('#ff0000');
    await page.keyboard.press('Escape');
    await page.waitForFunction(() => {
      const w = globalThis as unknown as BrowserGlobals;
      const card = w.document.querySelector('[data-testid="embed-card"]');
      return card !== null && w.getComputedStyle(card).borderLeftColor === 'rgb(255, 0, 0)';
    });
    await colour.fill('red-ish');
    await page.getByText('Use a hex colour such as #5865f2.').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Save view settings' }).isDisabled(), true);
    await colour.fill('#ff0000');
    await page.keyboard.press('Escape');

    // Media only: a text file gets no card; the view page text fills in too.
    await page.getByRole('switch', { name: 'Only for images, videos and audio' }).click();
    await page.getByText('Text file', { exact: true }).click();
    await page.getByTestId('embed-none').getByText('No card for this file').waitFor();
    await page.getByText('Image', { exact: true }).click();
    await card.waitFor();
    await page.getByRole('switch', { name: 'Show a view page' }).click();
    await page.getByLabel(/^Text on the page/).fill('Uploaded {file.createdAt}');
    await page
      .getByTestId('view-page-content')
      .getByText(/^Uploaded \d{4}-\d\d-\d\dT/)
      .waitFor();
    await page.getByRole('switch', { name: 'Show the file type' }).click();
    await page.getByTestId('view-page-meta').getByText('image/png', { exact: false }).waitFor();
    // Tags and folder: on the page and in the card's description, on a line of their own.
    await page.getByRole('switch', { name: "Show the file's tags" }).click();
    await page.getByRole('switch', { name: "Show the file's folder" }).click();
    await page.getByTestId('view-page-folder').getByText('Holiday').waitFor();
    assert.deepEqual(await page.getByTestId('view-page-tag').allTextContents(), ['beach', 'summer']);
    assert.equal(
      await page.getByTestId('embed-description').textContent(),
      '1.40 MiB, image/png\nFolder: Holiday · Tags: beach, summer',
    );
    await page.getByText('You have unsaved changes.').waitFor();
    await screenshot(page, 'settings-view');

    await page.getByRole('button', { name: 'Save view settings' }).click();
    await page.getByText('Your view and embed settings are saved.').waitFor();
    await page.getByText('All changes are saved.').waitFor();
    const { view } = (await server().json('GET', '/api/user', { auth: carol.token })).body.user;
    assert.deepEqual(
      {
        enabled: view.enabled,
        embed: view.embed,
        embedMediaOnly: view.embedMediaOnly,
        embedTitle: view.embedTitle,
        embedDescription: view.embedDescription,
        embedSiteName: view.embedSiteName,
        embedColor: view.embedColor,
        content: view.content,
        showMimetype: view.showMimetype,
        showTags: view.showTags,
        showFolder: view.showFolder,
        align: view.align,
      },
      {
        enabled: true,
        embed: true,
        embedMediaOnly: true,
        embedTitle: 'Shared by carol: {file.originalName}',
        embedDescription: '{file.size}, {file.type}',
        embedSiteName: 'Carol’s files',
        embedColor: '#ff0000',
        content: 'Uploaded {file.createdAt}',
        showMimetype: true,
        showTags: true,
        showFolder: true,
        align: 'center',
      },
    );

    // What Discord reads from one of carol's images is what the preview promised.
    const form = new FormData();
    form.append('file', new Blob([rgbPng(8, 8, () => [0, 0, 255])], { type: 'image/png' }), 'beach.png');
    const uploaded = await server().fetch('/api/upload', {
      method: 'POST',
      headers: { authorization: carol.token, 'x-service-original-name': 'true' },
      body: form,
    });
    assert.equal(uploaded.status, 200);
    const link = new URL(((await uploaded.json()) as { files: Array<{ url: string }> }).files[0]!.url);
    const embed = await (
      await server().fetch(link.pathname, { headers: { 'user-agent': 'Mozilla/5.0 (compatible; Discordbot/2.0)' } })
    ).text();
    assert.match(embed, /<meta property="og:title" content="Shared by carol: beach.png">/);
    assert.match(embed, /<meta property="og:description" content="\d+ B, image\/png">/);
    assert.match(embed, /<meta property="og:site_name" content="Carol’s files">/);
    assert.match(embed, /<meta name="theme-color" content="#ff0000">/);

    // A reload shows the saved values.
    await page.reload();
    assert.equal(await page.getByLabel(/^Title/).inputValue(), 'Shared by carol: {file.originalName}');
    await page.getByTestId('embed-title').getByText('Shared by carol: holiday.png').waitFor();
    assert.deepEqual(unexpected(errors), []);
    await context.close();

    for (const colorScheme of ['light', 'dark'] as const) {
      const phone = await openPage(browser(), server().url, { viewport: PHONE, colorScheme });
      await signIn(phone.page, 'carol', carol.password);
      await phone.page.goto('/dashboard/settings?tab=view');
      await phone.page.getByTestId('embed-card').waitFor();
      await screenshot(phone.page, `settings-view-phone-${colorScheme}`);
      assert.deepEqual(unexpected(phone.errors), []);
      await phone.context.close();
    }
  });

  it('lists the sessions in words with this browser marked; signing one out ends it in that browser; all others at once', async () => {
    const dave = await makeUser(server(), { username: 'dave' });
    const other = await openPage(browser(), server().url, { viewport: PHONE });
    await other.context.setExtraHTTPHeaders({ 'user-agent': FIREFOX_WINDOWS });
    await signIn(other.page, 'dave', dave.password);
    const { page, context, errors } = await openPage(browser(), server().url, { viewport: PHONE, colorScheme: 'dark' });
    await context.setExtraHTTPHeaders({ 'user-agent': CHROME_LINUX });
    await signIn(page, 'dave', dave.password);
    await page.goto('/dashboard/settings?tab=sessions');

    // makeUser() signed in over the API too (Node.js): three sessions, this one marked and not revocable here.
    const rows = page.getByTestId('session-row');
    await rows.nth(2).waitFor();
    assert.equal(await rows.count(), 3);
    const current = page.locator('[data-testid="session-row"][aria-current="true"]');
    await current.getByText('This browser').waitFor();
    await current.getByText('Chrome on Linux').waitFor();
    assert.equal(await current.getByRole('button', { name: /^Sign out/ }).count(), 0);
    await page
      .locator('[data-testid="session-row"]:not([aria-current])')
      .getByText('Node.js', { exact: true })
      .waitFor();
    await screenshot(page, 'settings-sessions-phone-dark');

    const firefox = page.getByTestId('session-row').filter({ hasText: 'Firefox on Windows' });
    await firefox.getByRole('button', { name: /^Sign out Firefox on Windows/ }).click();
    await page.getByRole('dialog', { name: 'Sign out this session?' }).waitFor();
    await page.getByRole('button', { name: 'Sign it out' }).click();
    await page.getByText('Firefox on Windows is signed out.').waitFor();
    assert.equal(await rows.count(), 2);
    const left = (await server().json('GET', '/api/user/sessions', { auth: dave.token })).body;
    assert.deepEqual(
      left.other.map((s: { client: string }) => s.client),
      ['Chrome', 'Node.js'],
    );

    // The other browser is signed out at its next request.
    await other.page.goto('/dashboard/files');
    await other.page.waitForURL(/\/auth\/login/);

    await page.getByRole('button', { name: 'Sign out all other sessions' }).click();
    await page.getByLabel('Also replace my API token').check();
    await page.getByRole('button', { name: 'Sign them out' }).click();
    await page.getByText('Every other session is signed out. Your API token was replaced.').waitFor();
    await page.getByText('You are not signed in anywhere else.').waitFor();
    assert.equal(await rows.count(), 1);
    // The old API token stopped working with them.
    assert.equal((await server().json('GET', '/api/user', { auth: dave.token })).status, 401);
    const browserCookie = (await page.context().cookies()).find((c) => c.name === 'chute_session')!;
    const newToken = (await server().json('GET', '/api/user/token', { auth: `chute_session=${browserCookie.value}` }))
      .body.token;
    // Seen with the new API token: only this browser's session is left.
    const none = (await server().json('GET', '/api/user/sessions', { auth: newToken })).body;
    assert.deepEqual(
      none.other.map((s: { client: string; device: string }) => `${s.client} on ${s.device}`),
      ['Chrome on Linux'],
    );
    // This browser is still signed in.
    await page.reload();
    await page.getByText('This browser').waitFor();
    assert.deepEqual(unexpected(errors), []);
    assert.deepEqual(unexpected(other.errors), []);
    await other.context.close();
    await context.close();
  });

  it('shows, copies and regenerates the API token; the old token stops working', async () => {
    const erin = await makeUser(server(), { username: 'erin' });
    const { page, context, errors } = await openPage(browser(), server().url);
    await signIn(page, 'erin', erin.password);
    await page.goto('/dashboard/settings?tab=token');
    const field = page.getByTestId('api-token');
    await field.waitFor();
    assert.doesNotMatch(await field.inputValue(), new RegExp(erin.token));
    await page.getByRole('button', { name: 'Show the token' }).click();
    assert.equal(await field.inputValue(), erin.token);
    await page.getByRole('button', { name: 'Copy the token' }).click();
    assert.equal(
      await page.evaluate(() => (globalThis as unknown as BrowserGlobals).navigator.clipboard.readText()),
      erin.token,
    );
    await page.getByRole('button', { name: 'Hide the token' }).click();
    assert.doesNotMatch(await field.inputValue(), new RegExp(erin.token));
    await screenshot(page, 'settings-token');

    await page.getByRole('button', { name: 'Regenerate token' }).click();
    const dialog = page.getByRole('dialog', { name: 'Make a new API token?' });
    await dialog.getByText('The current token stops working at once.').waitFor();
    await dialogSettled(page);
    await screenshot(page, 'settings-token-confirm');
    await dialog.getByRole('button', { name: 'Regenerate token' }).click();
    await page.getByText('New API token made').waitFor();
    const fresh = await field.inputValue();
    assert.notEqual(fresh, erin.token);
    assert.equal((await server().json('GET', '/api/user', { auth: erin.token })).status, 401);
    const me = await server().json('GET', '/api/user', { auth: fresh });
    assert.equal(me.status, 200);
    assert.equal(me.body.token, fresh);
    assert.deepEqual(unexpected(errors), []);
    await context.close();
  });

  it('the downloaded ShareX uploaders and the shell script carry the token and options, and really upload', async () => {
    const frank = await makeUser(server(), { username: 'frank' });
    const folder = await server().json('POST', '/api/user/folders', {
      auth: frank.token,
      body: { name: 'Screenshots' },
    });
    assert.equal(folder.status, 200);
    const { page, context, errors } = await openPage(browser(), server().url);
    await signIn(page, 'frank', frank.password);
    await page.goto('/dashboard/settings?tab=uploaders');

    await page.getByRole('textbox', { name: 'Name format' }).click();
    await page.getByRole('option', { name: 'UUID' }).click();
    await page.getByRole('textbox', { name: 'Expires' }).click();
    await page.getByRole('option', { name: '1 week' }).click();
    await page.getByLabel('Delete after this many views').fill('0');
    await page.getByText('Enter a whole number of at least 1, or leave it empty.').first().waitFor();
    assert.equal(await page.getByRole('button', { name: /^Download .*-files\.sxcu$/ }).isDisabled(), true);
    await page.getByLabel('Delete after this many views').fill('5');
    await page.getByRole('textbox', { name: 'Folder' }).click();
    await page.getByRole('option', { name: 'Screenshots' }).click();
    await page.getByLabel('Stop working after this many visits').fill('2');
    await page.getByRole('button', { name: /^Show .*-files\.sxcu$/ }).click();
    await page.getByText('"authorization": "<your API token>"').first().waitFor();
    await screenshot(page, 'settings-uploaders');

    // ShareX, files: the file says what ShareX sends, and sending exactly that uploads.
    const files = await download(page, `Download 127.0.0.1-${new URL(server().url).port}-files.sxcu`);
    const sxcu = JSON.parse(files.text) as ShareXUploader;
    assert.equal(sxcu.RequestMethod, 'POST');
    assert.equal(sxcu.RequestURL, `${server().url}/api/upload`);
    assert.equal(sxcu.Body, 'MultipartFormData');
    assert.equal(sxcu.FileFormName, 'file');
    assert.equal(sxcu.URL, '{json:files[0].url}');
    assert.deepEqual(sxcu.Headers, {
      authorization: frank.token,
      'x-service-format': 'uuid',
      'x-service-deletes-at': '7d',
      'x-service-original-name': 'true',
      'x-service-max-views': '5',
      'x-service-folder': folder.body.id,
    });
    const form = new FormData();
    form.append(sxcu.FileFormName, new Blob(['sent like ShareX\n'], { type: 'text/plain' }), 'sharex.txt');
    const answer = await fetch(sxcu.RequestURL, { method: sxcu.RequestMethod, headers: sxcu.Headers, body: form });
    assert.equal(answer.status, 200);
    const link = String(shareXJsonValue(sxcu.URL, await answer.json()));
    assert.match(link, /\/u\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.txt$/);
    assert.equal(await (await fetch(link)).text(), 'sent like ShareX\n');
    const listed = await server().json('GET', '/api/user/files', { auth: frank.token });
    const stored = listed.body.page.find((f: { url: string }) => f.url === link);
    assert.equal(stored.originalName, 'sharex.txt');
    assert.equal(stored.maxViews, 5);
    assert.equal(stored.folderId, folder.body.id);
    assert.ok(stored.deletesAt);

    // ShareX, URL shortener: {input} is the URL to shorten, put into the JSON body.
    const urls = await download(page, `Download 127.0.0.1-${new URL(server().url).port}-urls.sxcu`);
    const shortener = JSON.parse(urls.text) as ShareXUploader;
    assert.equal(shortener.RequestURL, `${server().url}/api/user/urls`);
    assert.equal(shortener.Body, 'JSON');
    assert.deepEqual(shortener.Headers, { authorization: frank.token, 'x-service-max-views': '2' });
    const destination = 'https://example.com/a "quoted" path?x=1&y=2';
    const body = String(shortener.Data).replace('{input}', JSON.stringify(destination).slice(1, -1));
    const shortened = await fetch(shortener.RequestURL, {
      method: shortener.RequestMethod,
      headers: { ...shortener.Headers, 'content-type': 'application/json' },
      body,
    });
    assert.equal(shortened.status, 200);
    const shortLink = String(shareXJsonValue(shortener.URL, await shortened.json()));
    const followed = await fetch(shortLink, { redirect: 'manual' });
    assert.ok(followed.status >= 300 && followed.status < 400);
    assert.equal(followed.headers.get('location'), new URL(destination).href);
    const created = (await server().json('GET', '/api/user/urls?page=1', { auth: frank.token })).body.page[0];
    assert.equal(created.maxViews, 2);

    // The script: bash and curl upload a file given as argument (a name curl would otherwise split at , and ;).
    const script = await download(page, 'Download chute-upload.sh');
    assert.equal(script.name, 'chute-upload.sh');
    assert.match(script.text, /^#!\/usr\/bin\/env bash\n/);
    assert.ok(script.text.includes(`CHUTE_TOKEN='${frank.token}'`));
    assert.ok(script.text.includes(`CHUTE_URL='${server().url}'`));
    assert.ok(script.text.includes(`-H 'x-service-folder: ${folder.body.id}'`));
    assert.ok(script.text.includes("-H 'x-service-max-views: 5'"));
    assert.ok(script.text.includes('flameshot gui --raw'));
    const scriptPath = path.join(workDir, 'chute-upload.sh');
    await writeFile(scriptPath, script.text);
    const notes = path.join(workDir, 'my notes, v2; final.txt');
    await writeFile(notes, 'uploaded by the script\n');
    const bin = path.join(workDir, 'bin');
    await mkdir(bin);
    // Only the tools the script may use: no display, so no clipboard tool is tried.
    const env = { PATH: `${bin}:/usr/bin:/bin`, HOME: workDir };
    const byFile = await run('bash', [scriptPath, notes], { env });
    const fileLink = byFile.stdout.trim();
    assert.match(fileLink, /^http:\/\/127\.0\.0\.1:\d+\/u\/[0-9a-f-]{36}\.txt$/);
    assert.equal(await (await fetch(fileLink)).text(), 'uploaded by the script\n');
    const scripted = (await server().json('GET', '/api/user/files', { auth: frank.token })).body.page.find(
      (f: { url: string }) => f.url === fileLink,
    );
    assert.equal(scripted.originalName, 'my notes, v2; final.txt');
    assert.equal(scripted.folderId, folder.body.id);

    // Without arguments it uploads what Flameshot captured and puts the link on the clipboard (xclip under X11).
    const shot = rgbPng(16, 16, (x) => [x * 16, 0, 0]);
    await writeFile(path.join(workDir, 'shot.png'), shot);
    await writeFile(
      path.join(bin, 'flameshot'),
      `#!/bin/sh\n[ "$1 $2" = "gui --raw" ] || exit 2\ncat '${workDir}/shot.png'\n`,
    );
    await writeFile(path.join(bin, 'xclip'), `#!/bin/sh\ncat > '${workDir}/clipboard'\n`);
    await chmod(path.join(bin, 'flameshot'), 0o755);
    await chmod(path.join(bin, 'xclip'), 0o755);
    const byShot = await run('bash', [scriptPath], { env: { ...env, DISPLAY: ':1' } });
    const shotLink = byShot.stdout.trim();
    assert.match(shotLink, /\/u\/[0-9a-f-]{36}\.png$/);
    assert.equal(await readFile(path.join(workDir, 'clipboard'), 'utf8'), shotLink);
    assert.deepEqual(Buffer.from(await (await fetch(shotLink)).arrayBuffer()), shot);

    // A cancelled capture (no output) uploads nothing and says so.
    await writeFile(path.join(bin, 'flameshot'), '#!/bin/sh\nexit 0\n');
    await assert.rejects(run('bash', [scriptPath], { env }), (err: { code: number; stderr: string }) => {
      assert.equal(err.code, 1);
      assert.match(err.stderr, /no screenshot was taken/);
      return true;
    });

    // After the token is regenerated the script's requests are refused, and the script says so.
    assert.equal((await server().json('PATCH', '/api/user/token', { auth: frank.token })).status, 200);
    await assert.rejects(run('bash', [scriptPath, notes], { env }), (err: { code: number; stderr: string }) => {
      assert.match(err.stderr, /the upload failed/);
      return true;
    });
    assert.deepEqual(unexpected(errors), []);
    await context.close();

    const phone = await openPage(browser(), server().url, { viewport: PHONE, colorScheme: 'dark' });
    await signIn(phone.page, 'frank', frank.password);
    await phone.page.goto('/dashboard/settings?tab=uploaders');
    await phone.page.getByRole('button', { name: 'Download chute-upload.sh' }).waitFor();
    await screenshot(phone.page, 'settings-uploaders-phone-dark');
    await phone.context.close();
  });

  it("the uploaders' links without the extension: off like the server's setting, on puts the header in the file", async () => {
    const grace = await makeUser(server(), { username: 'grace' });
    const { page, context, errors } = await openPage(browser(), server().url);
    await signIn(page, 'grace', grace.password);
    await page.goto('/dashboard/settings?tab=uploaders');
    const extensionless = page.getByLabel('Links without the extension');
    assert.equal(await extensionless.isChecked(), false, "the server's setting (off)");
    const fileName = `Download 127.0.0.1-${new URL(server().url).port}-files.sxcu`;
    const off = JSON.parse((await download(page, fileName)).text) as ShareXUploader;
    assert.equal(off.Headers['x-service-extensionless'], undefined, 'no choice: the server decides');
    await extensionless.check();
    const sxcu = JSON.parse((await download(page, fileName)).text) as ShareXUploader;
    assert.equal(sxcu.Headers['x-service-extensionless'], 'true');
    const form = new FormData();
    form.append(sxcu.FileFormName, new Blob(['short\n'], { type: 'text/plain' }), 'short.txt');
    const answer = await fetch(sxcu.RequestURL, { method: sxcu.RequestMethod, headers: sxcu.Headers, body: form });
    assert.equal(answer.status, 200);
    const body = (await answer.json()) as { files: Array<{ name: string }> };
    const link = String(shareXJsonValue(sxcu.URL, body));
    assert.match(body.files[0]!.name, /\.txt$/);
    assert.ok(link.endsWith(`/u/${body.files[0]!.name.slice(0, -'.txt'.length)}`), link);
    assert.equal(await (await fetch(link)).text(), 'short\n');
    const script = await download(page, 'Download chute-upload.sh');
    assert.ok(script.text.includes("-H 'x-service-extensionless: true'"));
    assert.deepEqual(unexpected(errors), []);
    await context.close();
  });

  it('every tab looks finished at desktop size in the dark theme', async () => {
    const { page, context, errors } = await openPage(browser(), server().url, {
      viewport: DESKTOP,
      colorScheme: 'dark',
    });
    await signIn(page, 'admin', 'admin-password');
    for (const tab of ['profile', 'view', 'sessions', 'token', 'uploaders']) {
      await page.goto(`/dashboard/settings?tab=${tab}`);
      await page.getByRole('tab', { selected: true }).waitFor();
      await page.waitForLoadState('networkidle');
      await screenshot(page, `settings-${tab}-dark`);
    }
    // The tabs are reachable by keyboard: arrow keys move between them (down, as they stand in a column at this
    // width).
    await page.goto('/dashboard/settings');
    assert.equal(await page.getByRole('tablist').getAttribute('aria-orientation'), 'vertical');
    await page.getByRole('tab', { name: 'Profile' }).focus();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await page.waitForURL(/tab=view$/);
    assert.deepEqual(unexpected(errors), []);
    await context.close();
  });
});
