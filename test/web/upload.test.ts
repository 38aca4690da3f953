// The upload page in a real browser: small files go up whole and large ones by tus in chunks (the threshold set low here), the
// progress reaches done, the links are shown, copied and serve the exact bytes; the options reach the server;
// a cancelled upload leaves nothing; a failure is said in words and a retry works; text and pasted files go up too.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { before, it } from 'node:test';
import type { Page } from 'playwright-core';
import type { FileDto } from '../../src/schemas/file.js';
import { describeBrowser, DESKTOP, openPage, PHONE, screenshot, useBrowser } from '../support/browser.js';
import { useTestServer, type TestServer, type TestUser } from '../support/server.js';
import { appendTempFiles } from '../support/stored.js';
import { row, throttleUploads, UPLOAD_ENV, waitForStatus } from '../support/upload-page.js';

const KB = 1024;
const MB = 1024 * KB;

async function linkOf(page: Page, name: string): Promise<string> {
  const text = await row(page, name).getByTestId('upload-link').textContent();
  assert.ok(text, `a link is shown for ${name}`);
  return text;
}

async function download(url: string): Promise<Buffer> {
  const res = await fetch(url);
  assert.equal(res.status, 200, `GET ${url}`);
  return Buffer.from(await res.arrayBuffer());
}

async function chooseFiles(
  page: Page,
  files: Array<{ name: string; buffer: Buffer; mimeType?: string }>,
): Promise<void> {
  await page
    .locator('input[type=file]')
    .setInputFiles(files.map((f) => ({ mimeType: 'application/octet-stream', ...f })));
}

/** The upload requests the page sends, by path. */
function countUploads(page: Page): { whole: number; created: number; chunks: number } {
  const counts = { whole: 0, created: 0, chunks: 0 };
  page.on('request', (request) => {
    const path = new URL(request.url()).pathname;
    if (request.method() === 'POST' && path === '/api/upload') counts.whole++;
    if (request.method() === 'POST' && path === '/api/upload/tus') counts.created++;
    if (request.method() === 'PATCH' && path.startsWith('/api/upload/tus/')) counts.chunks++;
  });
  return counts;
}

/**
 * Opens the upload page signed in with the admin's session cookie. Not through the sign-in form: the tests of this
 * file would sign in more often than the 10 login attempts a minute one address has (signing in is tested elsewhere).
 */
async function openUploadPage(
  { page, errors }: { page: Page; errors: string[] },
  { url, cookie }: { url: string; cookie: string },
): Promise<void> {
  const [name, value] = cookie.split('=') as [string, string];
  await page.context().addCookies([{ name, value, url }]);
  await page.goto('/dashboard/upload');
  await page.getByRole('heading', { name: 'Upload' }).waitFor();
  assert.deepEqual(errors, []);
}

async function filesNamed(server: TestServer, auth: string, originalName: string): Promise<FileDto[]> {
  const res = await server.json<{ page: FileDto[] }>('GET', '/api/user/files?perpage=100', { auth });
  assert.equal(res.status, 200);
  return res.body.page.filter((f) => f.originalName === originalName || f.name === originalName);
}

async function until<T>(what: string, check: () => Promise<T | undefined | false>): Promise<T> {
  for (let i = 0; i < 400; i++) {
    const value = await check();
    if (value) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`never happened: ${what}`);
}

/** Pastes a file or text on the page, as Ctrl+V does outside any field (the tests' tsconfig has no DOM types). */
async function paste(
  page: Page,
  what: { file?: { name: string; type: string; bytes: number[] }; text?: string },
): Promise<void> {
  await page.evaluate(`(() => {
    const what = ${JSON.stringify(what)};
    const data = new DataTransfer();
    if (what.file) data.items.add(new File([new Uint8Array(what.file.bytes)], what.file.name, { type: what.file.type }));
    if (what.text) data.setData('text/plain', what.text);
    document.body.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
  })()`);
}

describeBrowser('dashboard: upload', () => {
  const server = useTestServer({ engine: 'sqlite', env: UPLOAD_ENV });
  const browser = useBrowser();
  let admin: TestUser;

  before(async () => {
    admin = await server().setup();
  });

  /** PATCH /api/server/settings as the admin; fails the test when refused. */
  const changeSettings = async (body: Record<string, unknown>) => {
    const res = await server().json('PATCH', '/api/server/settings', { auth: admin.token, body });
    assert.equal(res.status, 200, JSON.stringify(res.body));
  };

  it('sends a small file whole and a large one in chunks; progress reaches done; the links are shown, copied and serve the exact bytes', async () => {
    const opened = await openPage(browser(), server().url);
    const { page, context, errors } = opened;
    await openUploadPage(opened, { url: server().url, cookie: admin.cookie });
    await screenshot(page, 'upload-empty');
    const requests = countUploads(page);
    const small = randomBytes(200 * KB);
    const large = randomBytes(4 * MB + 123);
    await chooseFiles(page, [
      { name: 'small.bin', buffer: small },
      { name: 'large.bin', buffer: large },
    ]);
    await waitForStatus(page, 'small.bin', 'Done');
    await waitForStatus(page, 'large.bin', 'Done');
    assert.equal(
      await page.getByRole('progressbar', { name: 'Overall progress' }).getAttribute('aria-valuenow'),
      '100',
    );
    await page.getByTestId('upload-summary').filter({ hasText: '2 files uploaded' }).waitFor();
    assert.match((await row(page, 'large.bin').textContent()) ?? '', /sent in chunks/);
    assert.deepEqual(requests, { whole: 1, created: 1, chunks: 5 });

    const smallLink = await linkOf(page, 'small.bin');
    const largeLink = await linkOf(page, 'large.bin');
    assert.ok((await download(smallLink)).equals(small), 'the small file is served byte for byte');
    assert.ok((await download(largeLink)).equals(large), 'the chunked file is served byte for byte');

    await page.getByText('All 2 links are on your clipboard, one per line.').waitFor();
    assert.equal(await page.evaluate('navigator.clipboard.readText()'), `${smallLink}\n${largeLink}`);
    await screenshot(page, 'upload-done');
    assert.deepEqual(errors, []);
    await context.close();
  });

  it('a cancelled upload leaves nothing on the server; cancelled and retried, it goes up whole', async () => {
    const opened = await openPage(browser(), server().url);
    const { page, context, errors } = opened;
    await openUploadPage(opened, { url: server().url, cookie: admin.cookie });
    // 512 KiB/s: the 4 MiB file takes seconds, so the cancel lands while a chunk is on its way.
    const unthrottle = await throttleUploads(context, page, 512 * KB);
    const incompleteBefore = (await server().json('GET', '/api/user/files/incomplete', { auth: admin.token })).body;
    const file = randomBytes(4 * MB);
    await chooseFiles(page, [{ name: 'cancel-me.bin', buffer: file }]);
    await row(page, 'cancel-me.bin')
      .getByText(/chunk 2 of 4/)
      .waitFor();
    await row(page, 'cancel-me.bin').getByRole('button', { name: 'Cancel the upload of cancel-me.bin' }).click();
    await waitForStatus(page, 'cancel-me.bin', 'Cancelled');
    await screenshot(page, 'upload-cancelled');
    // Cancelling terminates the tus upload (DELETE): the server drops it and its bytes.
    await until(
      'the partial upload is discarded',
      async () => (await server().ctx.db.selectFrom('upload_sessions').select('id').execute()).length === 0,
    );
    assert.deepEqual(await filesNamed(server(), admin.token, 'cancel-me.bin'), []);
    assert.deepEqual(
      (await server().json('GET', '/api/user/files/incomplete', { auth: admin.token })).body,
      incompleteBefore,
    );
    assert.deepEqual(await appendTempFiles(server().dataDir), [], 'no chunk bytes are left in the temp folder');

    await unthrottle();
    await row(page, 'cancel-me.bin').getByRole('button', { name: 'Retry' }).click();
    await waitForStatus(page, 'cancel-me.bin', 'Done');
    assert.ok((await download(await linkOf(page, 'cancel-me.bin'))).equals(file));
    assert.deepEqual(errors, []);
    await context.close();
  });

  it('a large upload survives a page reload: the same file chosen again resumes at the server offset, byte-exact', async () => {
    const opened = await openPage(browser(), server().url);
    const { page, context, errors } = opened;
    await openUploadPage(opened, { url: server().url, cookie: admin.cookie });
    // A file on disk keeps its last-modified time, which is part of tus-js-client's fingerprint of it.
    const folder = await mkdtemp(path.join(os.tmpdir(), 'chute-resume-'));
    const file = randomBytes(4 * MB + 77);
    const onDisk = path.join(folder, 'resume-me.bin');
    await writeFile(onDisk, file);
    try {
      const unthrottle = await throttleUploads(context, page, 512 * KB);
      await page.locator('input[type=file]').setInputFiles(onDisk);
      await row(page, 'resume-me.bin')
        .getByText(/chunk 3 of 5/)
        .waitFor();
      const before = await server()
        .ctx.db.selectFrom('upload_sessions')
        .select(['id', 'received'])
        .where('protocol', '=', 'tus')
        .executeTakeFirstOrThrow();
      assert.ok(before.received >= 2 * MB, `offset ${before.received} before the reload`);
      const remembered = String(await page.evaluate('JSON.stringify(Object.keys(localStorage))'));
      assert.match(remembered, /tus::tus-br-resume-me\.bin/, 'tus-js-client remembers the upload');

      // Leaving with an upload running asks first (beforeunload): the person confirms.
      page.on('dialog', (dialog) => void dialog.accept());
      await page.reload();
      await unthrottle();
      await page.getByRole('heading', { name: 'Upload' }).waitFor();
      const requests = countUploads(page);
      const offsets: string[] = [];
      page.on('request', (request) => {
        if (request.method() === 'PATCH') offsets.push(request.headers()['upload-offset'] ?? '');
      });
      await page.locator('input[type=file]').setInputFiles(onDisk);
      await waitForStatus(page, 'resume-me.bin', 'Done');
      assert.equal(requests.created, 0, 'no new upload was created');
      assert.ok(Number(offsets[0]) >= before.received, `resumed at ${offsets[0]}, not at 0`);
      const [stored] = await filesNamed(server(), admin.token, (await linkOf(page, 'resume-me.bin')).split('/').pop()!);
      assert.ok(stored, 'the file is recorded');
      assert.ok((await download(await linkOf(page, 'resume-me.bin'))).equals(file), 'byte-exact after the reload');
      assert.equal(String(await page.evaluate('JSON.stringify(Object.keys(localStorage))')).includes('tus::'), false);
      assert.deepEqual(await appendTempFiles(server().dataDir), []);
      assert.deepEqual(errors, []);
    } finally {
      await rm(folder, { recursive: true, force: true });
      await context.close();
    }
  });

  it('a file over the size limit fails in words, whole or in chunks; once the limit is raised, retry uploads it', async () => {
    const opened = await openPage(browser(), server().url, { viewport: PHONE });
    const { page, context, errors } = opened;
    await openUploadPage(opened, { url: server().url, cookie: admin.cookie });
    const setLimit = (filesMaxFileSize: string) => changeSettings({ filesMaxFileSize });
    await setLimit('100kb');
    try {
      const whole = randomBytes(300 * KB);
      const chunked = randomBytes(3 * MB + 5);
      await chooseFiles(page, [
        { name: 'too-big.bin', buffer: whole },
        { name: 'too-big-chunked.bin', buffer: chunked },
      ]);
      const words = 'That file is larger than this server allows (the limit is 100 KiB).';
      await waitForStatus(page, 'too-big.bin', 'Failed');
      await waitForStatus(page, 'too-big-chunked.bin', 'Failed');
      assert.equal(await row(page, 'too-big.bin').getByRole('alert').textContent(), words);
      assert.equal(await row(page, 'too-big-chunked.bin').getByRole('alert').textContent(), words);
      await screenshot(page, 'upload-failed-phone');

      await setLimit('1gb');
      await row(page, 'too-big.bin').getByRole('button', { name: 'Retry' }).click();
      await row(page, 'too-big-chunked.bin').getByRole('button', { name: 'Retry' }).click();
      await waitForStatus(page, 'too-big.bin', 'Done');
      await waitForStatus(page, 'too-big-chunked.bin', 'Done');
      assert.ok((await download(await linkOf(page, 'too-big.bin'))).equals(whole));
      assert.ok((await download(await linkOf(page, 'too-big-chunked.bin'))).equals(chunked));
      assert.deepEqual(errors.sort(), ['http 413: POST /api/upload', 'http 413: POST /api/upload/tus']);
    } finally {
      await setLimit('1gb');
      await context.close();
    }
  });

  it('an empty file goes up with a warning in words; with filesRefuseEmpty on it fails in words', async () => {
    for (const [viewport, colorScheme] of [
      [PHONE, 'dark'],
      [DESKTOP, 'light'],
    ] as const) {
      const opened = await openPage(browser(), server().url, { viewport, colorScheme });
      const { page, context, errors } = opened;
      await openUploadPage(opened, { url: server().url, cookie: admin.cookie });
      const refuse = (filesRefuseEmpty: boolean) => changeSettings({ filesRefuseEmpty });
      try {
        const name = `empty-${colorScheme}.txt`;
        await chooseFiles(page, [{ name, buffer: Buffer.alloc(0), mimeType: 'text/plain' }]);
        await waitForStatus(page, name, 'Done');
        assert.equal(await row(page, name).getByTestId('upload-warning').textContent(), 'Empty file: it has 0 bytes.');
        assert.equal((await download(await linkOf(page, name))).length, 0);

        await refuse(true);
        const refused = `refused-${colorScheme}.txt`;
        await chooseFiles(page, [{ name: refused, buffer: Buffer.alloc(0), mimeType: 'text/plain' }]);
        await waitForStatus(page, refused, 'Failed');
        assert.equal(
          await row(page, refused).getByRole('alert').textContent(),
          'This file is empty (0 bytes), and this server does not take empty files.',
        );
        await screenshot(page, `upload-empty-${colorScheme}`);
        assert.deepEqual(errors, ['http 400: POST /api/upload']);
      } finally {
        await refuse(false);
        await context.close();
      }
    }
  });

  it('sends the chosen options with whole and chunked uploads: expiry, name format, password, max views, folder, original name', async () => {
    const folder = await server().json('POST', '/api/user/folders', { auth: admin.token, body: { name: 'Holiday' } });
    assert.equal(folder.status, 200);
    const opened = await openPage(browser(), server().url, { colorScheme: 'dark' });
    const { page, context, errors } = opened;
    await openUploadPage(opened, { url: server().url, cookie: admin.cookie });
    await page.getByRole('button', { name: /Upload options/ }).click();
    const pick = async (label: string, option: string) => {
      await page.getByRole('textbox', { name: label, exact: true }).click();
      await page.getByRole('option', { name: option, exact: true }).click();
    };
    await pick('Expires', 'In 1 day');
    await pick('Name format', 'UUID');
    await pick('Folder', 'Holiday');
    await page.getByLabel('Password', { exact: true }).fill('open sesame');
    await page.getByLabel('Max views').fill('3');
    // On already: the server's filesKeepOriginalName (test/web/original-names.test.ts), so not among the changes.
    assert.equal(await page.getByLabel('Keep original file name').isChecked(), true);
    const summary = page.getByRole('button', { name: /Upload options/ });
    assert.match(
      (await summary.textContent()) ?? '',
      /Expire in 1 day · UUID names · Password · 3 views max · Folder: Holiday/,
    );
    assert.doesNotMatch((await summary.textContent()) ?? '', /Original names/);
    await screenshot(page, 'upload-options-dark');

    const started = Date.now();
    await chooseFiles(page, [
      { name: 'options-small.txt', buffer: Buffer.from('with options'), mimeType: 'text/plain' },
      { name: 'options-large.bin', buffer: randomBytes(2 * MB + 1) },
    ]);
    await waitForStatus(page, 'options-small.txt', 'Done');
    await waitForStatus(page, 'options-large.bin', 'Done');
    const res = await server().json('GET', `/api/user/files?folder=${folder.body.id}`, { auth: admin.token });
    assert.equal(res.status, 200);
    const files = res.body.page as FileDto[];
    assert.deepEqual(files.map((f) => f.originalName).sort(), ['options-large.bin', 'options-small.txt']);
    for (const file of files) {
      assert.match(
        file.name,
        /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.(txt|bin)$/,
        'a UUID name',
      );
      assert.equal(file.password, true);
      assert.equal(file.maxViews, 3);
      assert.equal(file.folderId, folder.body.id);
      const deletesAt = Date.parse(file.deletesAt ?? '');
      assert.ok(
        deletesAt >= started + 86_400_000 - 60_000 && deletesAt <= Date.now() + 86_400_000,
        `expires in a day: ${file.deletesAt}`,
      );
    }
    // The password protects the link.
    const link = await linkOf(page, 'options-small.txt');
    assert.notEqual((await fetch(link.replace('/u/', '/raw/'))).status, 200);
    // The options are remembered for the next visit, except the password.
    await page.reload();
    await page
      .getByRole('button', { name: /Upload options/ })
      .filter({ hasText: 'UUID names' })
      .waitFor();
    assert.doesNotMatch((await summary.textContent()) ?? '', /Password/);
    await page.evaluate('window.localStorage.clear()');
    assert.deepEqual(errors, []);
    await context.close();
  });

  it("links without the extension: the switch starts at the server's setting and either choice reaches the server", async () => {
    const setting = (on: boolean) =>
      server().json('PATCH', '/api/server/settings', { auth: admin.token, body: { filesExtensionlessUrls: on } });
    assert.equal((await setting(true)).status, 200);
    try {
      const opened = await openPage(browser(), server().url);
      const { page, context, errors } = opened;
      await openUploadPage(opened, { url: server().url, cookie: admin.cookie });
      await page.getByRole('button', { name: /Upload options/ }).click();
      const extensionless = page.getByLabel('Links without the extension');
      assert.equal(await extensionless.isChecked(), true, "the server's setting");
      const summary = page.getByRole('button', { name: /Upload options/ });
      assert.doesNotMatch((await summary.textContent()) ?? '', /Links/, 'the default is no choice');
      // So that the stored files can be found by the names they had here.
      await page.getByLabel('Keep original file name').check();

      // The default: the server hands out a link without the extension (whole and in chunks alike).
      await chooseFiles(page, [
        { name: 'short-small.txt', buffer: Buffer.from('short link'), mimeType: 'text/plain' },
        { name: 'short-large.bin', buffer: randomBytes(2 * MB + 1) },
      ]);
      for (const [name, content] of [
        ['short-small.txt', 'short link'],
        ['short-large.bin', null],
      ] as const) {
        await waitForStatus(page, name, 'Done');
        const link = await linkOf(page, name);
        const [stored] = await filesNamed(server(), admin.token, name);
        assert.ok(stored, `${name} is stored`);
        const served = stored.name.replace(/\.[a-z]+$/, '');
        assert.notEqual(served, stored.name, 'the file keeps its extension');
        assert.match(link, new RegExp(`/u/${served}$`), `${name}: the link leaves the extension out`);
        if (content !== null) assert.equal(await (await fetch(link)).text(), content);
      }

      // Turned off on the page: the upload asks for the extension (x-service-extensionless: false).
      await extensionless.uncheck();
      assert.match((await summary.textContent()) ?? '', /Links with extension/);
      await chooseFiles(page, [{ name: 'long-link.txt', buffer: Buffer.from('long link'), mimeType: 'text/plain' }]);
      await waitForStatus(page, 'long-link.txt', 'Done');
      assert.match(await linkOf(page, 'long-link.txt'), /\/u\/[^/]+\.txt$/);
      await page.evaluate('window.localStorage.clear()');
      assert.deepEqual(errors, []);
      await context.close();
    } finally {
      await setting(false);
    }
  });

  it('text typed in the Text tab goes up as a file with its name; files pasted anywhere join the queue; pasted text opens the Text tab', async () => {
    const opened = await openPage(browser(), server().url);
    const { page, context, errors } = opened;
    await openUploadPage(opened, { url: server().url, cookie: admin.cookie });
    await page.getByRole('tab', { name: 'Text' }).click();
    const code = 'def hello():\n    print("héllo, wörld")\n';
    await page.getByLabel('Text or code').fill(code);
    await page.getByLabel('File name', { exact: true }).fill('hello.py');
    await screenshot(page, 'upload-text');
    await page.getByRole('button', { name: 'Upload text' }).click();
    await waitForStatus(page, 'hello.py', 'Done');
    const served = await fetch(await linkOf(page, 'hello.py'));
    assert.equal(await served.text(), code);
    assert.match(served.headers.get('content-type') ?? '', /^text\/plain/);
    assert.equal(await page.getByLabel('Text or code').inputValue(), '', 'the box is emptied for the next paste');

    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3, 4]);
    await paste(page, { file: { name: 'image.png', type: 'image/png', bytes: [...png] } });
    const pasted = page.getByRole('listitem', { name: /^pasted-\d{8}-\d{6}\.png$/ });
    await pasted
      .getByTestId('upload-status')
      .filter({ hasText: /^Done$/ })
      .waitFor();
    const pastedLink = await pasted.getByTestId('upload-link').textContent();
    assert.ok((await download(pastedLink!)).equals(png));

    await page.getByRole('tab', { name: 'Files' }).click();
    await paste(page, { text: 'pasted words' });
    assert.equal(await page.getByLabel('Text or code').inputValue(), 'pasted words');
    assert.deepEqual(errors, []);
    await context.close();
  });

  it('shows speed and time left while files go up, and looks finished on a phone in the dark', async () => {
    const opened = await openPage(browser(), server().url, { viewport: PHONE, colorScheme: 'dark' });
    const { page, context, errors } = opened;
    await openUploadPage(opened, { url: server().url, cookie: admin.cookie });
    await screenshot(page, 'upload-empty-phone-dark');
    await throttleUploads(context, page, 256 * KB);
    await chooseFiles(page, [
      { name: 'holiday-video-with-a-long-name.mp4', buffer: randomBytes(3 * MB), mimeType: 'video/mp4' },
      { name: 'notes.txt', buffer: Buffer.from('notes'), mimeType: 'text/plain' },
    ]);
    await waitForStatus(page, 'notes.txt', 'Done');
    const video = row(page, 'holiday-video-with-a-long-name.mp4');
    await video.getByText(/of 3\.00 MiB · [\d.]+ [KM]iB\/s · [\d.]+ (s|min) left · chunk [123] of 3/).waitFor();
    await page
      .getByText(/of 3\.00 MiB · [\d.]+ [KM]iB\/s · [\d.]+ (s|min) left/)
      .first()
      .waitFor();
    await screenshot(page, 'upload-progress-phone-dark');
    await page.getByRole('button', { name: 'Cancel all' }).click();
    await waitForStatus(page, 'holiday-video-with-a-long-name.mp4', 'Cancelled');
    await page.setViewportSize(DESKTOP);
    await page.getByRole('link', { name: 'Upload' }).first().waitFor();
    // Let the navigation finish sliding in before the picture.
    await page.waitForTimeout(400);
    await screenshot(page, 'upload-desktop-dark');
    assert.deepEqual(errors, []);
    await context.close();
  });

  it('chunked uploads from elsewhere still being assembled are shown with their status until COMPLETE', async () => {
    // A record as the assembler writes it for an upload of another client (an uploader app, an earlier visit).
    const id = 'assemblyfromelsewhere01';
    const now = Date.now();
    const metadata = {
      name: 'from-sharex.mkv',
      type: 'video/x-matroska',
      size: 300 * MB,
      url: `${server().url}/u/from-sharex.mkv`,
    };
    await server()
      .ctx.db.insertInto('incomplete_files')
      .values({
        id,
        user_id: admin.id,
        file_id: null,
        status: 'PROCESSING',
        chunks_total: 12,
        chunks_complete: 5,
        metadata: JSON.stringify(metadata),
        created_at: now,
        updated_at: now,
      })
      .execute();
    const opened = await openPage(browser(), server().url, { viewport: PHONE });
    const { page, context, errors } = opened;
    await openUploadPage(opened, { url: server().url, cookie: admin.cookie });
    const record = page
      .getByRole('list', { name: 'Files being assembled' })
      .getByRole('listitem', { name: 'from-sharex.mkv' });
    await record.getByText('Assembling', { exact: true }).waitFor();
    await record.getByText('300 MiB · 12 chunks').waitFor();
    await screenshot(page, 'upload-assembling-elsewhere-phone');

    await server()
      .ctx.db.updateTable('incomplete_files')
      .set({ status: 'COMPLETE', chunks_complete: 12 })
      .where('id', '=', id)
      .execute();
    await record.getByText('Complete', { exact: true }).waitFor();
    assert.equal(await record.getByRole('link', { name: 'from-sharex.mkv' }).getAttribute('href'), metadata.url);
    await record.getByRole('button', { name: 'Dismiss from-sharex.mkv' }).click();
    await record.waitFor({ state: 'detached' });
    await until('the record is removed', async () => {
      const list = (await server().json('GET', '/api/user/files/incomplete', { auth: admin.token })).body as Array<{
        id: string;
      }>;
      return !list.some((r) => r.id === id);
    });
    assert.deepEqual(errors, []);
    await context.close();
  });
});
