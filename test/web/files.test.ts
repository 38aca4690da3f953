// The Files page in a real browser: the empty state, the gallery and table views, pages, search, sort and filters
// kept in the address, bulk actions on a selection, the detail panel (preview, rename, password, max views, expiry,
// tags, favourite, copy link, delete), and a list of 100,000 files. Results are checked through the API.
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { before, it } from 'node:test';
import type { Page } from 'playwright-core';
import { newId } from '../../src/lib/security/ids.js';
import type { TagDto } from '../../src/schemas/tag.js';
import {
  DASHBOARD_ENV,
  DESKTOP,
  describeBrowser,
  openPage,
  PHONE,
  screenshot,
  SCREENSHOT_DIR,
  signIn,
  useBrowser,
} from '../support/browser.js';
import { makeAccount, makeTag } from '../support/factory.js';
import { rgbPng } from '../support/fixtures.js';
import { useTestServer, type TestUser } from '../support/server.js';
import { upload } from '../support/uploads.js';

/** A small RGB PNG: a diagonal gradient from `from` to `to`, so thumbnails are easy to tell apart. */
function png(width: number, height: number, from: [number, number, number], to: [number, number, number]): Buffer {
  return rgbPng(width, height, (x, y) => {
    const t = (x / width + y / height) / 2;
    const channel = (c: 0 | 1 | 2) => Math.round(from[c] + (to[c] - from[c]) * t);
    return [channel(0), channel(1), channel(2)];
  });
}

const COLORS: Array<[[number, number, number], [number, number, number]]> = [
  [
    [255, 94, 98],
    [255, 195, 113],
  ],
  [
    [67, 206, 162],
    [24, 90, 157],
  ],
  [
    [142, 45, 226],
    [74, 0, 224],
  ],
  [
    [252, 74, 26],
    [247, 183, 51],
  ],
  [
    [0, 180, 219],
    [0, 131, 176],
  ],
  [
    [238, 156, 167],
    [255, 221, 225],
  ],
  [
    [19, 78, 94],
    [113, 178, 128],
  ],
  [
    [255, 216, 155],
    [25, 84, 123],
  ],
];

interface SeedFile {
  name: string;
  content: string | Buffer;
  type: string;
}

/** 30 files of every kind, with predictable names and different sizes. */
function seedFiles(): SeedFile[] {
  const files: SeedFile[] = COLORS.map(([from, to], i) => ({
    name: `photo-${String(i + 1).padStart(2, '0')}.png`,
    content: png(320 + i * 16, 240, from, to),
    type: 'image/png',
  }));
  for (let i = 1; i <= 15; i++) {
    const lines = Array.from({ length: i * 3 }, (_, n) => `line ${n + 1} of notes ${i}`);
    files.push({
      name: `notes-${String(i).padStart(2, '0')}.txt`,
      content: `Notes number ${i}\n${lines.join('\n')}\n`,
      type: 'text/plain',
    });
  }
  files.push(
    { name: 'clip.mp4', content: Buffer.alloc(2048, 1), type: 'video/mp4' },
    { name: 'song.mp3', content: Buffer.alloc(1536, 2), type: 'audio/mpeg' },
    { name: 'data.json', content: '{"hello": "world", "list": [1, 2, 3]}\n', type: 'application/json' },
    { name: 'archive.zip', content: Buffer.alloc(4096, 3), type: 'application/zip' },
    { name: 'report.pdf', content: Buffer.alloc(3072, 4), type: 'application/pdf' },
    { name: 'script.py', content: 'def hello():\n    print("hello")\n', type: 'text/x-python' },
    { name: 'readme.md', content: '# Read me\n\nA markdown file.\n', type: 'text/markdown' },
  );
  return files;
}

interface ApiFile {
  id: string;
  name: string;
  favorite: boolean;
  folderId: string | null;
  password: boolean;
  maxViews: number | null;
  deletesAt: string | null;
  views: number;
  tags: Array<{ id: string; name: string }>;
}

/** The names on the cards (gallery) or rows (table) now shown. */
function shownNames(page: Page, testId: 'file-card' | 'file-row'): Promise<string[]> {
  return page
    .getByTestId(testId)
    .evaluateAll((els) => els.map((e) => (e as unknown as { dataset: { fileName: string } }).dataset.fileName));
}

/** The browser's globals the page functions below use (the tests are compiled without the DOM's types). */
interface BrowserGlobals {
  document: {
    querySelectorAll(selector: string): Iterable<{ complete: boolean; naturalWidth: number }>;
    documentElement: { scrollWidth: number };
    getAnimations(): unknown[];
  };
  innerWidth: number;
  scrollTo(x: number, y: number): void;
  localStorage: { getItem(key: string): string | null };
  navigator: { clipboard: { readText(): Promise<string> } };
}

/** Scrolls past every thumbnail (they load lazily, when near the screen) and waits until all (`expected`) have loaded. */
async function thumbnailsLoaded(page: Page, expected?: number): Promise<void> {
  for (const thumbnail of await page.getByTestId('file-thumbnail').all()) await thumbnail.scrollIntoViewIfNeeded();
  await page.waitForFunction((n) => {
    const images = [
      ...(globalThis as unknown as BrowserGlobals).document.querySelectorAll('[data-testid="file-thumbnail"]'),
    ];
    return (
      (n === null || images.length === n) &&
      images.length > 0 &&
      images.every((img) => img.complete && img.naturalWidth > 0)
    );
  }, expected ?? null);
  await page.getByRole('heading', { name: 'Files', exact: true }).scrollIntoViewIfNeeded();
}

/** Waits until no transition (a drawer sliding in, a section unfolding) is running. */
async function settled(page: Page): Promise<void> {
  await page.waitForFunction(() => (globalThis as unknown as BrowserGlobals).document.getAnimations().length === 0);
}

/** A full-page screenshot from the top (sticky bars drawn where they belong). */
async function pageShot(page: Page, name: string): Promise<void> {
  await page.evaluate(() => (globalThis as unknown as BrowserGlobals).scrollTo(0, 0));
  await settled(page);
  await screenshot(page, name);
}

/** What is on the screen (for the detail panel, which covers the screen rather than the page). */
async function screenShot(page: Page, name: string): Promise<void> {
  await settled(page);
  await mkdir(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`) });
}

/** Switches between the gallery and the table (on a phone the switch shows icons only). */
const switchView = (page: Page, view: 'Gallery' | 'Table') => page.locator('label', { hasText: view }).click();

/** What went wrong in the page, less the visitor's 401 from GET /api/user that every sign-in starts with. */
const unexpected = (errors: string[]): string[] => errors.filter((e) => e !== 'http 401: GET /api/user');

/** Waits until the range line reads `text` (the list has loaded what the address asks for). */
async function waitForRange(page: Page, text: string): Promise<void> {
  await page
    .getByTestId('files-range')
    .filter({ hasText: new RegExp(`^${text}$`) })
    .waitFor();
  await page.locator('[aria-busy="true"]').waitFor({ state: 'detached' });
}

describeBrowser('dashboard: files', () => {
  const server = useTestServer({ engine: 'sqlite', env: DASHBOARD_ENV });
  const browser = useBrowser();
  let admin: TestUser;
  const byName = new Map<string, string>();

  const apiFile = async (id: string): Promise<{ status: number; body: ApiFile }> =>
    server().json('GET', `/api/user/files/${id}`, { auth: admin.token });
  const allFiles = async (query = ''): Promise<{ page: ApiFile[]; total: number }> =>
    (await server().json('GET', `/api/user/files?perpage=500${query}`, { auth: admin.token })).body;
  /** The admin's "holiday" tag: made by whichever test needs it first. */
  const holidayTag = async (): Promise<{ id: string; name: string }> => {
    const tags = (await server().json('GET', '/api/user/tags', { auth: admin.token })).body as TagDto[];
    return tags.find((t) => t.name === 'holiday') ?? makeTag(server(), admin, { name: 'holiday', color: '#e8590c' });
  };

  before(async () => {
    admin = await server().setup();
    // The admin's files, seeded through the API as an uploader would.
    for (const file of seedFiles()) {
      const res = await upload(server(), admin.token, [{ name: file.name, content: file.content, type: file.type }], {
        'x-service-format': 'name',
        'x-service-original-name': 'true',
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      byName.set(file.name, res.body.files[0].id);
    }
    assert.equal((await allFiles()).total, 30);
  });

  it('an account without files shows how to get started', async () => {
    const newcomer = await makeAccount(server());
    const { page, context, errors } = await openPage(browser(), server().url);
    await signIn(page, newcomer.username, newcomer.password);
    await page.goto('/dashboard/files');
    const empty = page.getByTestId('files-empty');
    await empty.getByRole('heading', { name: 'No files yet' }).waitFor();
    await pageShot(page, 'files-empty');
    await empty.getByRole('link', { name: 'Upload files' }).click();
    await page.waitForURL(/\/dashboard\/upload$/);
    assert.deepEqual(unexpected(errors), []);
    await context.close();
  });

  it('shows the files as a gallery with thumbnails and as a table, and remembers the choice', async () => {
    const { page, context, errors } = await openPage(browser(), server().url);
    await signIn(page, 'admin', 'admin-password');
    // Names from z to a: all eight pictures on the first page.
    await page.goto('/dashboard/files?sortBy=name&order=desc');
    await waitForRange(page, '1–24 of 30');
    assert.equal(await page.getByTestId('file-card').count(), 24);
    // The images' thumbnails load (lazily) from the owner's copy of the bytes.
    await page
      .getByTestId('file-card')
      .filter({ has: page.getByTestId('file-thumbnail') })
      .first()
      .waitFor();
    await thumbnailsLoaded(page, 8);
    await pageShot(page, 'files-gallery-desktop-light');

    await switchView(page, 'Table');
    await page.getByTestId('file-table').waitFor();
    assert.equal(await page.getByTestId('file-row').count(), 24);
    const row = page.getByTestId('file-row').filter({ hasText: 'photo-01.png' });
    await row.getByText('Image').waitFor();
    await pageShot(page, 'files-table-desktop-light');
    await page.reload();
    await page.getByTestId('file-table').waitFor();
    assert.equal(
      await page.evaluate(() => (globalThis as unknown as BrowserGlobals).localStorage.getItem('chute.files.view')),
      '"table"',
    );
    await switchView(page, 'Gallery');
    await page.getByTestId('file-gallery').waitFor();

    // Looking at thumbnails counted no view and needed no password.
    for (const file of (await allFiles()).page) assert.equal(file.views, 0, file.name);
    assert.deepEqual(unexpected(errors), []);
    await context.close();
  });

  it('moves between pages, searches, sorts and filters, all kept in the address', async () => {
    const holiday = await holidayTag();
    for (const name of ['photo-02.png', 'photo-05.png', 'notes-03.txt']) {
      await server().json('POST', `/api/user/files/${byName.get(name)}/tags/${holiday.id}`, { auth: admin.token });
    }
    await server().json('PATCH', '/api/user/files/transaction', {
      auth: admin.token,
      body: { files: [byName.get('clip.mp4'), byName.get('song.mp3')], favorite: true },
    });

    const { page, context, errors } = await openPage(browser(), server().url);
    const listed: URLSearchParams[] = [];
    page.on('request', (req) => {
      const url = new URL(req.url());
      if (url.pathname === '/api/user/files') listed.push(url.searchParams);
    });
    await signIn(page, 'admin', 'admin-password');
    await page.goto('/dashboard/files?sortBy=name&order=asc');
    await waitForRange(page, '1–24 of 30');
    const firstPage = await shownNames(page, 'file-card');
    assert.deepEqual(firstPage.slice(0, 3), ['archive.zip', 'clip.mp4', 'data.json']);

    // Pages: the next one is read after the last file of this one (the answer's nextCursor), not by number.
    await page.getByRole('button', { name: 'Page 2' }).click();
    await waitForRange(page, '25–30 of 30');
    await page.waitForURL(/page=2/);
    const turned = listed.at(-1)!;
    assert.ok(turned.get('cursor') && !turned.has('page'), `page 2 was asked for as ${turned}`);
    const secondPage = await shownNames(page, 'file-card');
    assert.equal(secondPage.length, 6);
    assert.equal(secondPage.filter((n) => firstPage.includes(n)).length, 0);
    // After a reload the page number is all there is: asked for by number, the same files.
    await page.reload();
    await waitForRange(page, '25–30 of 30');
    assert.deepEqual(await shownNames(page, 'file-card'), secondPage);
    assert.equal(listed.at(-1)!.get('page'), '2');
    await page.getByRole('button', { name: 'Previous page' }).click();
    await waitForRange(page, '1–24 of 30');

    // Sort: the order toggle reverses it; the sort field is a choice.
    await page.getByRole('button', { name: /Ascending order/ }).click();
    await page.waitForURL((url) => !url.search.includes('order=asc'));
    await waitForRange(page, '1–24 of 30');
    assert.deepEqual((await shownNames(page, 'file-card')).slice(0, 2), ['song.mp3', 'script.py']);
    await page.getByRole('textbox', { name: 'Sort by' }).click();
    await page.getByRole('option', { name: 'Sort: Size' }).click();
    await page.waitForURL(/sortBy=size/);
    await waitForRange(page, '1–24 of 30');
    const bySize = (await allFiles('&sortBy=size&order=desc')).page.map((f) => f.name);
    assert.deepEqual(await shownNames(page, 'file-card'), bySize.slice(0, 24));

    // Search narrows (after typing pauses), and the address keeps it.
    await page.getByLabel('Search files').fill('notes-1');
    await page.waitForURL(/q=notes-1/);
    await waitForRange(page, '1–6 of 6');
    assert.deepEqual((await shownNames(page, 'file-card')).sort(), [
      'notes-10.txt',
      'notes-11.txt',
      'notes-12.txt',
      'notes-13.txt',
      'notes-14.txt',
      'notes-15.txt',
    ]);
    await page.getByRole('textbox', { name: 'Search in' }).click();
    await page.getByRole('option', { name: 'In type' }).click();
    await page.getByLabel('Search files').fill('image/');
    await waitForRange(page, '1–8 of 8');
    await page.reload();
    await waitForRange(page, '1–8 of 8');
    assert.equal(await page.getByLabel('Search files').inputValue(), 'image/');
    await page.getByLabel('Search files').fill('');
    await waitForRange(page, '1–24 of 30');

    // Favourites only.
    await page.getByText('Favourites', { exact: true }).click();
    await waitForRange(page, '1–2 of 2');
    assert.deepEqual((await shownNames(page, 'file-card')).sort(), ['clip.mp4', 'song.mp3']);
    await page.getByText('All', { exact: true }).click();
    await waitForRange(page, '1–24 of 30');

    // A tag.
    await page.getByRole('textbox', { name: 'Filter by tags' }).click();
    await page.getByRole('option', { name: 'holiday' }).click();
    await page.keyboard.press('Escape');
    await waitForRange(page, '1–3 of 3');
    assert.deepEqual((await shownNames(page, 'file-card')).sort(), ['notes-03.txt', 'photo-02.png', 'photo-05.png']);
    assert.match(page.url(), new RegExp(`tags=${holiday.id}`));
    await pageShot(page, 'files-filtered-desktop-light');

    // Nothing matches: the empty state offers to clear the filters.
    await page.getByLabel('Search files').fill('no such file anywhere');
    await page.getByTestId('files-empty').getByRole('heading', { name: 'No files match' }).waitFor();
    await page.getByTestId('files-empty').getByRole('button', { name: 'Clear filters' }).click();
    await waitForRange(page, '1–24 of 30');
    assert.equal(await page.getByLabel('Search files').inputValue(), '');
    assert.doesNotMatch(page.url(), /tags=|q=/);
    assert.deepEqual(unexpected(errors), []);
    await context.close();
  });

  it('acts on several selected files: favourite, move to a folder, delete', async () => {
    const total = (await allFiles()).total;
    const folder = await server().json('POST', '/api/user/folders', {
      auth: admin.token,
      body: { name: 'Screenshots' },
    });
    assert.equal(folder.status, 200);
    const { page, context, errors } = await openPage(browser(), server().url);
    await signIn(page, 'admin', 'admin-password');
    await page.goto('/dashboard/files?sortBy=name&order=asc');
    await waitForRange(page, `1–24 of ${total}`);

    const select = (name: string) => page.getByLabel(`Select ${name}`, { exact: true }).check();
    for (const name of ['notes-01.txt', 'notes-02.txt', 'photo-03.png']) await select(name);
    const bar = page.getByRole('region', { name: 'Selected files' });
    await bar.getByText('3 files selected').waitFor();
    await pageShot(page, 'files-selection-desktop-light');
    await bar.getByRole('button', { name: 'Favourite', exact: true }).click();
    await page.getByText('3 files added to favourites.').waitFor();
    await bar.waitFor({ state: 'detached' });
    for (const name of ['notes-01.txt', 'notes-02.txt', 'photo-03.png'])
      assert.equal((await apiFile(byName.get(name)!)).body.favorite, true, name);
    // The stars on the cards follow.
    await page
      .getByTestId('file-card')
      .filter({ hasText: 'photo-03.png' })
      .getByRole('button', { name: 'Remove photo-03.png from favourites' })
      .waitFor();

    // Move two into the folder (the table view this time, with its select-all box).
    await switchView(page, 'Table');
    await page.getByTestId('file-table').waitFor();
    await select('photo-03.png');
    await select('photo-04.png');
    await bar.getByRole('button', { name: 'Move to folder' }).click();
    const dialog = page.getByRole('dialog', { name: 'Move 2 files' });
    await dialog.getByRole('textbox', { name: 'Folder' }).click();
    await page.getByRole('option', { name: 'Screenshots' }).click();
    await dialog.getByRole('button', { name: 'Move' }).click();
    await page.getByText('2 files moved to Screenshots.').waitFor();
    await dialog.waitFor({ state: 'detached' });
    assert.equal((await apiFile(byName.get('photo-03.png')!)).body.folderId, folder.body.id);
    assert.equal((await apiFile(byName.get('photo-04.png')!)).body.folderId, folder.body.id);
    // The folder filter now shows just those.
    await page.getByRole('textbox', { name: 'Folder' }).click();
    await page.getByRole('option', { name: 'Screenshots' }).click();
    await waitForRange(page, '1–2 of 2');
    assert.deepEqual((await shownNames(page, 'file-row')).sort(), ['photo-03.png', 'photo-04.png']);
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await waitForRange(page, `1–24 of ${total}`);

    // Delete two, after confirming.
    await page.getByLabel('Select all files on this page').check();
    await bar.getByText('24 files selected').waitFor();
    await page.getByLabel('Select all files on this page').uncheck();
    await bar.waitFor({ state: 'detached' });
    await select('notes-14.txt');
    await select('notes-15.txt');
    await bar.getByRole('button', { name: 'Delete' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete 2 files?' });
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await confirm.waitFor({ state: 'hidden' });
    assert.equal((await apiFile(byName.get('notes-14.txt')!)).status, 200);
    await bar.getByRole('button', { name: 'Delete' }).click();
    await screenShot(page, 'files-bulk-delete-confirm-desktop-light');
    await confirm.getByRole('button', { name: 'Delete 2 files' }).click();
    await page.getByText('2 files deleted.').waitFor();
    await waitForRange(page, `1–24 of ${total - 2}`);
    assert.equal((await apiFile(byName.get('notes-14.txt')!)).status, 404);
    assert.equal((await apiFile(byName.get('notes-15.txt')!)).status, 404);
    assert.equal((await allFiles()).total, total - 2);
    await switchView(page, 'Gallery');
    assert.deepEqual(unexpected(errors), []);
    await context.close();
  });

  it('opens a file in the detail panel: preview, rename, password, max views, expiry, tags, favourite, link, delete', async () => {
    await holidayTag();
    const total = (await allFiles()).total;
    const { page, context, errors } = await openPage(browser(), server().url);
    await signIn(page, 'admin', 'admin-password');
    await page.goto('/dashboard/files?sortBy=name&order=asc');
    await waitForRange(page, `1–24 of ${total}`);
    const id = byName.get('notes-05.txt')!;
    await page.getByRole('button', { name: 'Open notes-05.txt' }).click();
    await page.waitForURL(new RegExp(`file=${id}`));
    await page.getByRole('dialog', { name: 'notes-05.txt' }).waitFor();
    const panel = page.getByTestId('file-detail');
    await panel.getByTestId('file-preview-text').getByText('Notes number 5').waitFor();
    await screenShot(page, 'files-detail-desktop-light');

    // Copy link: the share link is on the clipboard.
    await panel.getByRole('button', { name: 'Copy link' }).click();
    await panel.getByRole('button', { name: 'Copied' }).waitFor();
    assert.equal(
      await page.evaluate(() => (globalThis as unknown as BrowserGlobals).navigator.clipboard.readText()),
      `${server().url}/u/notes-05.txt`,
    );
    assert.equal(
      await panel.getByRole('link', { name: 'Open link' }).getAttribute('href'),
      `${server().url}/u/notes-05.txt`,
    );
    const download = page.waitForEvent('download');
    await panel.getByRole('link', { name: 'Download' }).click();
    assert.equal((await download).suggestedFilename(), 'notes-05.txt');

    // Rename: a taken name is said in words; a free one renames it.
    const nameInput = panel.getByLabel('Name', { exact: true });
    await nameInput.fill('photo-01.png');
    await panel.getByRole('button', { name: 'Rename' }).click();
    await panel.getByText('Another file already has that name. Choose a different one.').waitFor();
    await nameInput.fill('meeting-notes.txt');
    await panel.getByRole('button', { name: 'Rename' }).click();
    await page.getByRole('dialog', { name: 'meeting-notes.txt' }).waitFor();
    assert.equal((await apiFile(id)).body.name, 'meeting-notes.txt');
    // The list shows the new name too.
    await page.getByTestId('file-card').filter({ hasText: 'meeting-notes.txt' }).waitFor({ state: 'attached' });

    // Password.
    await panel.getByLabel(/^Password/).fill('open sesame');
    await panel.getByRole('button', { name: 'Set the password' }).click();
    await panel.getByRole('button', { name: 'Remove the password' }).waitFor();
    assert.equal((await apiFile(id)).body.password, true);
    assert.equal((await server().fetch('/raw/meeting-notes.txt')).status, 403);

    // Max views.
    await panel.getByLabel('Max views').fill('5');
    await panel.getByRole('button', { name: 'Save the limit' }).click();
    await page.getByText('The file is deleted after 5 views.').waitFor();
    assert.equal((await apiFile(id)).body.maxViews, 5);

    // Expiry: a day from now, then never.
    await panel.getByRole('button', { name: '1 day' }).click();
    await panel.getByRole('button', { name: 'Save the expiry' }).click();
    await panel.getByRole('button', { name: 'Never delete' }).waitFor();
    const deletesAt = Date.parse((await apiFile(id)).body.deletesAt ?? '');
    assert.ok(
      deletesAt > Date.now() + 23 * 3_600_000 && deletesAt < Date.now() + 25 * 3_600_000,
      `deletesAt ${deletesAt}`,
    );
    await panel.getByRole('button', { name: 'Never delete' }).click();
    await panel.getByRole('button', { name: 'Never delete' }).waitFor({ state: 'detached' });
    assert.equal((await apiFile(id)).body.deletesAt, null);

    // Tags: an existing one and a new one (created on the way), then one removed.
    await panel.getByLabel('Add a tag').fill('holiday');
    await panel.getByRole('button', { name: 'Add', exact: true }).click();
    await panel.getByTestId('file-tags').getByText('holiday').waitFor();
    await panel.getByLabel('Add a tag').fill('invoices');
    await panel.getByRole('button', { name: 'Add', exact: true }).click();
    await panel.getByTestId('file-tags').getByText('invoices').waitFor();
    assert.deepEqual(
      (await apiFile(id)).body.tags.map((t) => t.name),
      ['holiday', 'invoices'],
    );
    const tags = (await server().json('GET', '/api/user/tags', { auth: admin.token })).body as Array<{ name: string }>;
    assert.deepEqual(tags.map((t) => t.name).sort(), ['holiday', 'invoices']);
    await panel.getByRole('button', { name: 'Remove tag holiday' }).click();
    await panel.getByRole('button', { name: 'Remove tag holiday' }).waitFor({ state: 'detached' });
    assert.deepEqual(
      (await apiFile(id)).body.tags.map((t) => t.name),
      ['invoices'],
    );

    // Favourite.
    await panel.getByRole('button', { name: 'Favourite', exact: true }).click();
    await panel.getByRole('button', { name: 'Unfavourite' }).waitFor();
    assert.equal((await apiFile(id)).body.favorite, true);
    await panel.getByRole('button', { name: 'Delete the file' }).scrollIntoViewIfNeeded();
    await screenShot(page, 'files-detail-edited-desktop-light');

    // The panel survives a reload (the open file is in the address).
    await page.reload();
    await page.getByRole('dialog', { name: 'meeting-notes.txt' }).getByTestId('file-preview-text').waitFor();

    // Delete, after confirming.
    await page
      .getByRole('dialog', { name: 'meeting-notes.txt' })
      .getByRole('button', { name: 'Delete the file' })
      .click();
    await page
      .getByRole('dialog', { name: 'Delete meeting-notes.txt?' })
      .getByRole('button', { name: 'Delete the file' })
      .click();
    await page.getByText('meeting-notes.txt was deleted.').waitFor();
    await page.getByRole('dialog', { name: 'meeting-notes.txt' }).waitFor({ state: 'detached' });
    assert.doesNotMatch(page.url(), /file=/);
    assert.equal((await apiFile(id)).status, 404);
    await waitForRange(page, `1–24 of ${total - 1}`);

    // The only failure was the taken name.
    assert.deepEqual(unexpected(errors), [`http 400: PATCH /api/user/files/${id}`]);
    await context.close();
  });

  it('previews images, video and audio inline, and shows a type icon for the rest', async () => {
    const { page, context, errors } = await openPage(browser(), server().url);
    await signIn(page, 'admin', 'admin-password');
    await page.goto(`/dashboard/files?file=${byName.get('photo-01.png')}`);
    const image = page
      .getByRole('dialog', { name: 'photo-01.png' })
      .getByRole('img', { name: 'Preview of photo-01.png' });
    await image.waitFor();
    await page.waitForFunction(() => {
      const [img] = [
        ...(globalThis as unknown as BrowserGlobals).document.querySelectorAll('[data-testid="file-preview-image"]'),
      ];
      return img !== undefined && img.complete && img.naturalWidth === 320;
    });
    await page.goto(`/dashboard/files?file=${byName.get('clip.mp4')}`);
    assert.match(
      (await page.getByRole('dialog', { name: 'clip.mp4' }).locator('video').getAttribute('src')) ?? '',
      /\/api\/user\/files\/.+\/raw$/,
    );
    await page.goto(`/dashboard/files?file=${byName.get('song.mp3')}`);
    await page.getByRole('dialog', { name: 'song.mp3' }).locator('audio').waitFor();
    await page.goto(`/dashboard/files?file=${byName.get('archive.zip')}`);
    await page.getByRole('dialog', { name: 'archive.zip' }).getByText('No preview for this type of file.').waitFor();
    // A file that is gone is said in words.
    await page.goto('/dashboard/files?file=no-such-file');
    await page.getByRole('dialog').getByText('That file does not exist (or is not yours).').waitFor();
    assert.deepEqual(unexpected(errors), ['http 404: GET /api/user/files/no-such-file']);
    await context.close();
  });

  it('looks finished on a phone and in the dark', async () => {
    const total = (await allFiles()).total;
    for (const colorScheme of ['light', 'dark'] as const) {
      const phone = await openPage(browser(), server().url, { viewport: PHONE, colorScheme });
      await signIn(phone.page, 'admin', 'admin-password');
      await phone.page.goto('/dashboard/files?sortBy=name&order=desc');
      await waitForRange(phone.page, `1–24 of ${total}`);
      await thumbnailsLoaded(phone.page);
      await pageShot(phone.page, `files-gallery-phone-${colorScheme}`);
      await phone.page.getByRole('button', { name: 'Sort and filter' }).click();
      await phone.page.getByRole('textbox', { name: 'Sort by' }).waitFor();
      await screenShot(phone.page, `files-filters-phone-${colorScheme}`);
      await phone.page.getByRole('button', { name: 'Sort and filter' }).click();
      // Nothing sticks out sideways.
      const sideways = await phone.page.evaluate(() => {
        const browser = globalThis as unknown as BrowserGlobals;
        return browser.document.documentElement.scrollWidth - browser.innerWidth;
      });
      assert.equal(sideways, 0, 'the page scrolls sideways');
      await phone.page.getByRole('button', { name: 'Open photo-02.png' }).click();
      const panel = phone.page.getByRole('dialog', { name: 'photo-02.png' });
      await panel.getByRole('img', { name: 'Preview of photo-02.png' }).waitFor();
      const box = await panel.boundingBox();
      assert.equal(Math.round(box?.width ?? 0), PHONE.width, 'the detail panel fills a phone screen');
      await screenShot(phone.page, `files-detail-phone-${colorScheme}`);
      await panel.getByRole('button', { name: 'Close the file details' }).click();
      await switchView(phone.page, 'Table');
      await phone.page.getByTestId('file-table').waitFor();
      await pageShot(phone.page, `files-table-phone-${colorScheme}`);
      await switchView(phone.page, 'Gallery');
      assert.deepEqual(unexpected(phone.errors), []);
      await phone.context.close();
    }
    const dark = await openPage(browser(), server().url, { viewport: DESKTOP, colorScheme: 'dark' });
    await signIn(dark.page, 'admin', 'admin-password');
    await dark.page.goto('/dashboard/files?sortBy=name&order=desc');
    await waitForRange(dark.page, `1–24 of ${total}`);
    await thumbnailsLoaded(dark.page, 8);
    await pageShot(dark.page, 'files-gallery-desktop-dark');
    await switchView(dark.page, 'Table');
    await dark.page.getByTestId('file-table').waitFor();
    await pageShot(dark.page, 'files-table-desktop-dark');
    await dark.page.getByRole('button', { name: 'Open notes-06.txt' }).click();
    await dark.page.getByRole('dialog', { name: 'notes-06.txt' }).getByTestId('file-preview-text').waitFor();
    await screenShot(dark.page, 'files-detail-desktop-dark');
    assert.deepEqual(unexpected(dark.errors), []);
    await dark.context.close();
  });

  it('stays a page at a time with 100,000 files', async () => {
    const many = await server().json('POST', '/api/users', {
      auth: admin.token,
      body: { username: 'many', password: 'many-password' },
    });
    assert.equal(many.status, 200);
    // 100,000 records straight into the database (uploading them would take the test's whole budget); no bytes.
    const start = Date.parse('2024-01-01T00:00:00Z');
    await server()
      .ctx.db.transaction()
      .execute(async (trx) => {
        for (let batch = 0; batch < 200; batch++) {
          const rows = Array.from({ length: 500 }, (_, i) => {
            const n = batch * 500 + i + 1;
            return {
              id: newId(),
              name: `bulk-${String(n).padStart(6, '0')}.bin`,
              original_name: null,
              type: 'application/octet-stream',
              size: (n * 7919) % 1_000_000,
              views: n % 50,
              max_views: null,
              favorite: (n % 10 === 0 ? 1 : 0) as 0 | 1,
              password: null,
              deletes_at: null,
              folder_id: null,
              user_id: many.body.user.id,
              storage_key: `bulk/${n}`,
              created_at: start + n * 1000,
              updated_at: start + n * 1000,
            };
          });
          await trx.insertInto('files').values(rows).execute();
        }
      });

    const { page, context, errors } = await openPage(browser(), server().url);
    const listed: string[] = [];
    page.on('request', (req) => {
      const url = new URL(req.url());
      if (url.pathname === '/api/user/files') listed.push(url.search);
    });
    await signIn(page, 'many', 'many-password');
    await page.goto('/dashboard/files');
    await waitForRange(page, '1–24 of 100,000');
    assert.deepEqual(await shownNames(page, 'file-card').then((n) => n.slice(0, 2)), [
      'bulk-100000.bin',
      'bulk-099999.bin',
    ]);
    await page.getByRole('button', { name: 'Page 4167' }).click();
    await waitForRange(page, '99,985–100,000 of 100,000');
    assert.deepEqual(await shownNames(page, 'file-card').then((n) => n.slice(-1)), ['bulk-000001.bin']);
    await page.getByLabel('Search files').pressSequentially('bulk-04242');
    await waitForRange(page, '1–10 of 10');
    await page.getByText('Favourites', { exact: true }).click();
    await waitForRange(page, '1–1 of 1');
    assert.deepEqual(await shownNames(page, 'file-card'), ['bulk-042420.bin']);
    await pageShot(page, 'files-100k-desktop-light');
    // Every list request asked for one page, never for everything.
    assert.ok(listed.length > 0);
    for (const search of listed) assert.match(search, /[?&]perpage=24(&|$)/, search);
    assert.deepEqual(unexpected(errors), []);
    await context.close();
  });
});
