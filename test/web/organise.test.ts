// The URLs, Folders and Tags pages in a real browser: shortening a link and following it, editing and deleting it;
// a folder made, filled, made public and seen by a visitor, then deleted with its files kept; tags made, edited and
// deleted. Every result is checked through the API, and the pages are photographed at desktop and phone widths.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import type { Page } from 'playwright-core';
import { setUrlQuota } from '../support/content.js';
import { DASHBOARD_ENV, describeBrowser, openPage, PHONE, screenshot, signIn, useBrowser } from '../support/browser.js';
import { useTestServer, type TestUser } from '../support/server.js';
import { uploadOne } from '../support/uploads.js';
import { makeFolder } from '../support/factory.js';
import { insertFileRows } from '../support/file-rows.js';

/**
 * Lets a test list the failed requests it expects; anything else that failed is a defect. The sign-in page's look
 * at GET /api/user (401 before signing in) is always expected.
 */
function unexpected(errors: string[], expected: string[] = []): string[] {
  return errors.filter((e) => e !== 'http 401: GET /api/user' && !expected.includes(e));
}

/** A 4x4 PNG. */
const TINY_PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAQAAAAECAIAAAAmkwkpAAAAEElEQVR4nGM4EaABRwzEcQASUhQBFGG4BQAAAABJRU5ErkJggg==';

/** The page is no wider than the window (nothing sticks out sideways on a phone). */
async function assertNoSidewaysScroll(page: Page): Promise<void> {
  // A string: the tests compile without the DOM's types.
  const { scroll, client } = await page.evaluate<{ scroll: number; client: number }>(
    '({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth })',
  );
  assert.ok(scroll <= client, `the page is ${scroll}px wide in a ${client}px window`);
}

describeBrowser('dashboard: URLs, folders and tags', () => {
  const server = useTestServer({ engine: 'sqlite', env: DASHBOARD_ENV });
  const browser = useBrowser();
  let admin: TestUser;

  before(async () => {
    admin = await server().setup();
  });

  const urlsOf = async () => (await server().json('GET', '/api/user/urls?page=1', { auth: admin.token })).body;

  it('shortens a link in the page, follows it, edits it (destination, limit, password, enabled) and deletes it', async () => {
    const { page, context, errors } = await openPage(browser(), server().url);
    await signIn(page, 'admin', 'admin-password');
    await page.goto('/dashboard/urls');
    await page.getByText('No short links yet').waitFor();
    await screenshot(page, 'urls-empty');

    // A destination typed without https:// is taken as a web address.
    await page.getByLabel(/^Destination/).fill('example.com/docs/start');
    await page.getByRole('button', { name: 'More options' }).click();
    await page.getByLabel(/^Custom name/).fill('docs');
    await page.getByLabel(/^Visit limit/).fill('5');
    await page.getByRole('button', { name: 'Shorten' }).click();
    const result = page.getByTestId('short-link-result');
    await result.getByText('Copied to the clipboard.').waitFor();
    const shown = (await result.getByRole('link').textContent()) ?? '';
    await screenshot(page, 'urls-shortened');

    const list = await urlsOf();
    assert.equal(list.total, 1);
    const [url] = list.page;
    assert.equal(url.vanity, 'docs');
    assert.equal(url.maxViews, 5);
    assert.equal(url.destination, 'https://example.com/docs/start');
    assert.equal(shown, url.url);
    assert.equal(url.url, `${server().url}/go/docs`);
    assert.equal(await page.evaluate<string>('navigator.clipboard.readText()'), url.url);

    // The short link leads to the destination, and the visit is counted in the list.
    const followed = await fetch(url.url, { redirect: 'manual' });
    assert.equal(followed.status, 302);
    assert.equal(followed.headers.get('location'), 'https://example.com/docs/start');
    await page.reload();
    const row = page.getByTestId('url-item').filter({ hasText: '/go/docs' });
    await row.getByText('1 of 5').waitFor();
    await screenshot(page, 'urls');

    // A custom name that is taken is said next to the field, and nothing is created.
    await page.getByLabel(/^Destination/).fill('https://example.net/');
    await page.getByRole('button', { name: 'More options' }).click();
    await page.getByLabel(/^Custom name/).fill('docs');
    await page.getByRole('button', { name: 'Shorten' }).click();
    await page.getByText('That name is already used by another short link. Choose a different one.').waitFor();
    assert.equal((await urlsOf()).total, 1);

    // Over the quota: said in words, not as the server's text.
    await setUrlQuota(server(), admin.id, 1);
    await page.getByLabel(/^Custom name/).fill('');
    await page.getByRole('button', { name: 'Shorten' }).click();
    await page
      .getByRole('alert')
      .getByText('You have reached your limit of 1 short link. Delete some to make room')
      .waitFor();
    await setUrlQuota(server(), admin.id, 1000);

    // Edit: a new destination, no visit limit, a password.
    await page.getByRole('button', { name: 'Edit docs' }).click();
    const dialog = page.getByRole('dialog', { name: 'Edit short link' });
    await dialog.getByLabel(/^Destination/).fill('https://example.org/new');
    await dialog.getByLabel(/^Visit limit/).fill('');
    await dialog.getByLabel(/^Password/).fill('let-me-in');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'hidden' });
    let saved = (await urlsOf()).page[0];
    assert.equal(saved.destination, 'https://example.org/new');
    assert.equal(saved.maxViews, null);
    assert.equal(saved.passwordProtected, true);
    await row.getByText('Password').waitFor();
    // A protected link shows its password form (200 since issue 50) and does not redirect.
    const locked = await fetch(url.url, { redirect: 'manual' });
    assert.equal(locked.status, 200, 'a protected link asks for the password');
    assert.equal(locked.headers.get('location'), null);
    assert.match(await locked.text(), /type="password"/);

    // Edit again: the password removed and the link disabled.
    await page.getByRole('button', { name: 'Edit docs' }).click();
    await dialog.getByText('Remove', { exact: true }).click();
    await dialog.getByRole('switch', { name: /^Enabled/ }).uncheck();
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'hidden' });
    saved = (await urlsOf()).page[0];
    assert.equal(saved.passwordProtected, false);
    assert.equal(saved.enabled, false);
    await row.getByText('Disabled').waitFor();
    assert.equal((await fetch(url.url, { redirect: 'manual' })).status, 404, 'a disabled link is not found');

    // Delete, after a confirmation.
    await page.getByRole('button', { name: 'Delete docs' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete this short link?' });
    await confirm.getByRole('button', { name: 'Delete' }).click();
    await page.getByText('No short links yet').waitFor();
    assert.equal((await urlsOf()).total, 0);

    assert.deepEqual(unexpected(errors, ['http 400: POST /api/user/urls', 'http 403: POST /api/user/urls']), []);
    await context.close();
  });

  it('makes a folder, adds a file to it, makes it public for visitors, downloads it, and deletes it keeping the files', async () => {
    const first = await uploadOne(server(), admin.token, 'notes from the trip', {
      name: 'notes.txt',
      type: 'text/plain',
    });
    // A picture that may be viewed once: its thumbnail in the folder must not use that view up.
    const second = await uploadOne(server(), admin.token, Buffer.from(TINY_PNG, 'base64'), {
      name: 'second.png',
      type: 'image/png',
      headers: { 'x-service-max-views': '1' },
    });
    const { page, context, errors } = await openPage(browser(), server().url);
    await signIn(page, 'admin', 'admin-password');
    await page.goto('/dashboard/folders');
    await page.getByText('No folders yet').waitFor();
    await screenshot(page, 'folders-empty');

    await page.getByRole('button', { name: 'New folder' }).first().click();
    const create = page.getByRole('dialog', { name: 'New folder' });
    await create.getByLabel(/^Name/).fill('Holiday');
    await create.getByRole('button', { name: 'Create folder' }).click();
    // A new folder opens, ready for files.
    await page.waitForURL(/\/dashboard\/folders\?folder=/);
    await page.getByRole('heading', { name: 'Holiday' }).waitFor();
    const folders = (await server().json('GET', '/api/user/folders', { auth: admin.token })).body;
    assert.equal(folders.length, 1);
    const folder = folders[0];
    assert.equal(folder.name, 'Holiday');
    assert.equal(folder.public, false);
    assert.equal(new URL(page.url()).searchParams.get('folder'), folder.id);

    // Add the first file from the folder page.
    await page.getByRole('button', { name: 'Add files' }).first().click();
    const picker = page.getByRole('dialog', { name: 'Add files to “Holiday”' });
    await picker.getByRole('checkbox', { name: `Add ${first.name}` }).check();
    await picker.getByRole('button', { name: 'Add file' }).click();
    await picker.waitFor({ state: 'hidden' });
    const fileRow = page.getByTestId('folder-file').filter({ hasText: first.name });
    assert.equal(
      await fileRow.getByRole('link', { name: first.name, exact: true }).getAttribute('href'),
      `/dashboard/files?folder=${folder.id}&file=${first.id}`,
      'the name opens the file on the Files page',
    );
    const folderFiles = async () =>
      (await server().json('GET', `/api/user/folders/${folder.id}`, { auth: admin.token })).body.files.map(
        (f: { id: string }) => f.id,
      );
    assert.deepEqual(await folderFiles(), [first.id]);

    // A file moved in elsewhere (the API, another tab) shows after a reload.
    const moved = await server().json('PATCH', '/api/user/files/transaction', {
      auth: admin.token,
      body: { files: [second.id], folder: folder.id },
    });
    assert.equal(moved.status, 200);
    await page.reload();
    const secondRow = page.getByTestId('folder-file').filter({ hasText: second.name });
    await secondRow.waitFor();
    // Its thumbnail is the picture, loaded from the owner's copy of the bytes, which counts no view.
    const thumbnail = secondRow.getByTestId('file-thumbnail');
    await thumbnail.waitFor();
    assert.match((await thumbnail.getAttribute('src')) ?? '', new RegExp(`^/api/user/files/${second.id}/raw$`));
    await page.waitForFunction(
      `document.querySelector('[data-testid="folder-file"] img[data-testid="file-thumbnail"]')?.naturalWidth === 4`,
    );
    assert.equal((await server().json('GET', `/api/user/files/${second.id}`, { auth: admin.token })).body.views, 0);

    // Public: the link is shown, and a visitor without an account sees the folder's page.
    await page.getByRole('switch', { name: /^Public/ }).click();
    const linkField = page.getByRole('textbox', { name: 'Public link' });
    await linkField.waitFor();
    // The switch moves at once; the server has saved it when the dashboard says so.
    await page.getByText('The folder is public: anyone with its link can see it.').waitFor();
    const publicLink = await linkField.inputValue();
    assert.equal(publicLink, `${server().url}/folder/${folder.id}`);
    assert.equal(
      (await server().json('GET', `/api/user/folders/${folder.id}`, { auth: admin.token })).body.public,
      true,
    );
    await screenshot(page, 'folders-open');
    const visitor = await openPage(browser(), server().url);
    await visitor.page.goto(publicLink);
    await visitor.page.getByRole('heading', { name: 'Holiday' }).waitFor();
    // Listed under the name it was uploaded with (kept by default), which a visitor knows it by.
    await visitor.page.getByRole('link').filter({ hasText: 'notes.txt' }).first().waitFor();
    await screenshot(visitor.page, 'folders-public-page');
    assert.deepEqual(unexpected(visitor.errors), []);
    await visitor.context.close();

    // The zip download is the folder's.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download zip' }).click(),
    ]);
    assert.equal(download.suggestedFilename(), 'Holiday.zip');
    assert.equal(await download.failure(), null);

    // Taking a file out of the folder keeps the file.
    await page.getByRole('button', { name: `Remove ${first.name} from the folder` }).click();
    await page.getByTestId('folder-file').filter({ hasText: first.name }).waitFor({ state: 'detached' });
    assert.deepEqual(await folderFiles(), [second.id]);
    assert.equal(
      (await server().json('GET', `/api/user/files/${first.id}`, { auth: admin.token })).body.folderId,
      null,
    );

    // Delete the folder; its file is kept, outside any folder.
    await page.getByRole('button', { name: 'More' }).click();
    await page.getByRole('menuitem', { name: 'Delete folder' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete “Holiday”?' });
    await confirm.getByText('It holds 1 file.').waitFor();
    await confirm.getByRole('button', { name: 'Delete folder' }).click();
    await page.waitForURL(/\/dashboard\/folders$/);
    await page.getByText('No folders yet').waitFor();
    assert.deepEqual((await server().json('GET', '/api/user/folders', { auth: admin.token })).body, []);
    const kept = await server().json('GET', `/api/user/files/${second.id}`, { auth: admin.token });
    assert.equal(kept.status, 200);
    assert.equal(kept.body.folderId, null);

    assert.deepEqual(unexpected(errors), []);
    await context.close();
  });

  it("shows a large folder's files a page at a time and reads on by cursor with Show more files", async () => {
    const folder = await makeFolder(server(), admin, { name: 'Screenshots' });
    const rows = await insertFileRows(
      server().ctx,
      Array.from({ length: 130 }, () => ({ user_id: admin.id, folder_id: folder.id })),
    );
    const { page, context, errors } = await openPage(browser(), server().url);
    await signIn(page, 'admin', 'admin-password');
    await page.goto(`/dashboard/folders?folder=${folder.id}`);
    const files = page.getByTestId('folder-file');
    await page.getByText('(130)').waitFor();
    await files.nth(99).waitFor();
    assert.equal(await files.count(), 100, 'the first page: 100 files');
    await page.getByRole('button', { name: 'Show more files' }).click();
    await files.nth(129).waitFor();
    assert.equal(await files.count(), 130);
    await page.getByRole('button', { name: 'Show more files' }).waitFor({ state: 'detached' });
    // Every file once.
    const shown = await files.allTextContents();
    for (const row of rows) assert.equal(shown.filter((t) => t.includes(row.name)).length, 1, row.name);
    assert.deepEqual(unexpected(errors), []);
    await context.close();
    await server().json('DELETE', `/api/user/folders/${folder.id}?files=delete`, { auth: admin.token });
  });

  it('turns the pages of the "Add files" search by cursor', async () => {
    const folder = await makeFolder(server(), admin, { name: 'Picked' });
    const rows = await insertFileRows(
      server().ctx,
      Array.from({ length: 30 }, () => ({ user_id: admin.id })),
    );
    const { page, context, errors } = await openPage(browser(), server().url);
    const listed: URLSearchParams[] = [];
    page.on('request', (req) => {
      const url = new URL(req.url());
      if (url.pathname === '/api/user/files') listed.push(url.searchParams);
    });
    await signIn(page, 'admin', 'admin-password');
    await page.goto(`/dashboard/folders?folder=${folder.id}`);
    await page.getByRole('button', { name: 'Add files' }).first().click();
    const picker = page.getByRole('dialog', { name: 'Add files to “Picked”' });
    const boxes = picker.getByRole('checkbox');
    await boxes.nth(11).waitFor();
    const firstPage = await Promise.all((await boxes.all()).map((b) => b.getAttribute('aria-label')));
    const asked = listed.length;
    await picker.getByRole('button', { name: 'next page' }).click();
    await page.waitForFunction(
      `${JSON.stringify(firstPage[0])} !== document.querySelector('[role=dialog] input[type=checkbox]')?.getAttribute('aria-label')`,
    );
    const turned = listed.slice(asked);
    assert.equal(turned.length, 1);
    assert.ok(turned[0]!.get('cursor') && !turned[0]!.has('page'), `page 2 was asked for as ${turned[0]}`);
    const secondPage = await Promise.all((await boxes.all()).map((b) => b.getAttribute('aria-label')));
    assert.equal(secondPage.length, 12);
    assert.equal(secondPage.filter((n) => firstPage.includes(n)).length, 0, 'no file on both pages');
    assert.deepEqual(unexpected(errors), []);
    await context.close();
    await server().json('DELETE', '/api/user/files/transaction', {
      auth: admin.token,
      body: { files: rows.map((r) => r.id) },
    });
    await server().json('DELETE', `/api/user/folders/${folder.id}`, { auth: admin.token });
  });

  it('makes, edits and deletes tags on a phone, in the dark theme', async () => {
    const { page, context, errors } = await openPage(browser(), server().url, { viewport: PHONE, colorScheme: 'dark' });
    await signIn(page, 'admin', 'admin-password');
    await page.goto('/dashboard/tags');
    await page.getByText('No tags yet').waitFor();
    await screenshot(page, 'tags-empty-phone');

    await page.getByRole('button', { name: 'New tag' }).first().click();
    const create = page.getByRole('dialog', { name: 'New tag' });
    await create.getByLabel(/^Name/).fill('work');
    await create.getByRole('button', { name: 'Pick #fa5252' }).click();
    await create.getByRole('button', { name: 'Create tag' }).click();
    await create.waitFor({ state: 'hidden' });
    const tagsOf = async () => (await server().json('GET', '/api/user/tags', { auth: admin.token })).body;
    let tags = await tagsOf();
    assert.equal(tags.length, 1);
    assert.equal(tags[0].name, 'work');
    assert.equal(tags[0].color, '#fa5252');

    // The count of files carrying the tag.
    const file = await uploadOne(server(), admin.token, 'tagged', { name: 'tagged.txt', type: 'text/plain' });
    assert.equal(
      (await server().json('POST', `/api/user/files/${file.id}/tags/${tags[0].id}`, { auth: admin.token })).status,
      200,
    );
    await page.reload();
    const count = page.getByTestId('tag-row').filter({ hasText: 'work' }).getByRole('link', { name: '1 file' });
    assert.equal(
      await count.getAttribute('href'),
      `/dashboard/files?tags=${tags[0].id}`,
      'the count opens the Files page filtered by the tag',
    );

    // Rename and recolour (typed as a hex value).
    await page.getByRole('button', { name: 'Edit tag work' }).click();
    const edit = page.getByRole('dialog', { name: 'Edit tag “work”' });
    await edit.getByLabel(/^Name/).fill('office');
    await edit.getByLabel(/^Colour/).fill('#123abc');
    await edit.getByRole('button', { name: 'Save' }).click();
    await edit.waitFor({ state: 'hidden' });
    tags = await tagsOf();
    assert.equal(tags[0].name, 'office');
    assert.equal(tags[0].color, '#123abc');

    // A name that is taken is said next to the field.
    await page.getByRole('button', { name: 'New tag' }).first().click();
    assert.equal(await create.getByLabel(/^Name/).inputValue(), '', 'a new tag starts from an empty form');
    await create.getByLabel(/^Name/).fill('office');
    await create.getByRole('button', { name: 'Create tag' }).click();
    await create.getByText('You already have a tag called “office”.').waitFor();
    await screenshot(page, 'tags-form-phone');
    await create.getByRole('button', { name: 'Cancel' }).click();
    assert.equal((await tagsOf()).length, 1);
    await screenshot(page, 'tags-phone');
    await assertNoSidewaysScroll(page);

    // Delete: the file stays, untagged.
    await page.getByRole('button', { name: 'Delete tag office' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete tag “office”?' });
    await confirm.getByText(/taken off the 1 file/).waitFor();
    await confirm.getByRole('button', { name: 'Delete tag' }).click();
    await page.getByText('No tags yet').waitFor();
    assert.deepEqual(await tagsOf(), []);
    const untagged = await server().json('GET', `/api/user/files/${file.id}`, { auth: admin.token });
    assert.equal(untagged.status, 200);
    assert.deepEqual(untagged.body.tags, []);

    assert.deepEqual(unexpected(errors, ['http 400: POST /api/user/tags']), []);
    await context.close();
  });

  it('the three pages fit a phone, with content, in both themes', async () => {
    const auth = admin.token;
    await server().json('POST', '/api/user/urls', {
      auth,
      body: { destination: `https://example.com/${'long-path/'.repeat(12)}`, vanity: 'a-rather-long-custom-name' },
    });
    await server().json('POST', '/api/user/urls', {
      auth,
      body: { destination: 'https://example.com/' },
      headers: { 'x-service-password': 'pw', 'x-service-max-views': '3' },
    });
    const folder = (
      await server().json('POST', '/api/user/folders', { auth, body: { name: 'Shared with the family', public: true } })
    ).body;
    await server().json('POST', '/api/user/folders', { auth, body: { name: 'Inside', parentId: folder.id } });
    const photo = await uploadOne(server(), auth, 'not really a photo', { name: 'beach.png', type: 'image/png' });
    await server().json('POST', `/api/user/folders/${folder.id}/files`, { auth, body: { id: photo.id } });
    await server().json('POST', '/api/user/tags', {
      auth,
      body: { name: 'screenshots-from-the-old-laptop', color: '#12b886' },
    });

    for (const colorScheme of ['light', 'dark'] as const) {
      const { page, context, errors } = await openPage(browser(), server().url, { viewport: PHONE, colorScheme });
      await signIn(page, 'admin', 'admin-password');
      const shots: Array<[string, string, string]> = [
        ['/dashboard/urls', '/go/a-rather-long-custom-name', 'urls'],
        ['/dashboard/folders', 'Shared with the family', 'folders'],
        [`/dashboard/folders?folder=${folder.id}`, photo.name, 'folders-open'],
        ['/dashboard/tags', 'screenshots-from-the-old-laptop', 'tags'],
      ];
      for (const [path, text, name] of shots) {
        await page.goto(path);
        await page.getByText(text).first().waitFor();
        await assertNoSidewaysScroll(page);
        await screenshot(page, `${name}-phone-${colorScheme}`);
      }
      assert.deepEqual(unexpected(errors), []);
      await context.close();
    }
  });
});
