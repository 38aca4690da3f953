// The upload page in a real browser: small files go up whole and large ones in chunks (the threshold set low here), the
// progress reaches done, the links are shown, copied and serve the exact bytes; the options reach the server;
// a cancelled upload leaves nothing; a failure is said in words and a retry works; text and pasted files go up too.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { before, describe, it } from 'node:test';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { DASHBOARD_ENV, describeBrowser, DESKTOP, openPage, PHONE, screenshot, signIn, useBrowser } from '../support/browser.js';
import { useTestServer, type TestServer, type TestUser } from '../support/server.js';
import { appendTempFiles } from '../routes/upload-partial-support.js';

const KB = 1024;
const MB = 1024 * KB;

/** Files over 1 MiB go in 1 MiB chunks: a 4 MiB file takes five requests. */
const UPLOAD_ENV = { ...DASHBOARD_ENV, CHUNKS_THRESHOLD: '1mb', CHUNKS_SIZE: '1mb' };

function row(page: Page, name: string): Locator {
  return page.getByRole('listitem', { name, exact: true });
}

async function waitForStatus(page: Page, name: string, status: string): Promise<void> {
  await row(page, name).getByTestId('upload-status').filter({ hasText: new RegExp(`^${status}$`) }).waitFor();
}

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

async function chooseFiles(page: Page, files: Array<{ name: string; buffer: Buffer; mimeType?: string }>): Promise<void> {
  await page.locator('input[type=file]').setInputFiles(files.map((f) => ({ mimeType: 'application/octet-stream', ...f })));
}

/** The upload requests the page sends, by path. */
function countUploads(page: Page): { whole: number; chunks: number } {
  const counts = { whole: 0, chunks: 0 };
  page.on('request', (request) => {
    if (request.method() !== 'POST') return;
    const path = new URL(request.url()).pathname;
    if (path === '/api/upload') counts.whole++;
    if (path === '/api/upload/partial') counts.chunks++;
  });
  return counts;
}

/** Signs in and opens the upload page; forgets the sign-in page's expected 401 from GET /api/user. */
async function openUploadPage({ page, errors }: { page: Page; errors: string[] }): Promise<void> {
  await signIn(page, 'admin', 'admin-password');
  await page.goto('/dashboard/upload');
  await page.getByRole('heading', { name: 'Upload' }).waitFor();
  assert.deepEqual(errors, ['http 401: GET /api/user']);
  errors.length = 0;
}

async function filesNamed(server: TestServer, auth: string, originalName: string): Promise<any[]> {
  const res = await server.json('GET', '/api/user/files?perpage=100', { auth });
  assert.equal(res.status, 200);
  return res.body.page.filter((f: { originalName: string | null; name: string }) => f.originalName === originalName || f.name === originalName);
}

async function until<T>(what: string, check: () => Promise<T | undefined | false>): Promise<T> {
  for (let i = 0; i < 400; i++) {
    const value = await check();
    if (value) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`never happened: ${what}`);
}

/** Slows this page's uploads down (Chromium's network emulation), so that a cancel lands mid-upload. */
async function throttleUploads(context: BrowserContext, page: Page, bytesPerSecond: number): Promise<void> {
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: bytesPerSecond });
}

describeBrowser('dashboard: upload', () => {
  const server = useTestServer({ engine: 'sqlite', env: UPLOAD_ENV });
  const browser = useBrowser();
  let admin: TestUser;

  before(async () => {
    admin = await server().setup();
  });

  it('sends a small file whole and a large one in chunks; progress reaches done; the links are shown, copied and serve the exact bytes', async () => {
    const opened = await openPage(browser(), server().url);
    const { page, context, errors } = opened;
    await openUploadPage(opened);
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
    assert.equal(await page.getByRole('progressbar', { name: 'Overall progress' }).getAttribute('aria-valuenow'), '100');
    await page.getByTestId('upload-summary').filter({ hasText: '2 files uploaded' }).waitFor();
    assert.match(await row(page, 'large.bin').textContent() ?? '', /sent in chunks/);
    assert.deepEqual(requests, { whole: 1, chunks: 5 });

    const smallLink = await linkOf(page, 'small.bin');
    const largeLink = await linkOf(page, 'large.bin');
    assert.ok((await download(smallLink)).equals(small), 'the small file is served byte for byte');
    assert.ok((await download(largeLink)).equals(large), 'the chunked file is served byte for byte');

    await page.getByText('All 2 links are on your clipboard, one per line.').waitFor();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), `${smallLink}\n${largeLink}`);
    await screenshot(page, 'upload-done');
    assert.deepEqual(errors, []);
    await context.close();
  });

  it('a cancelled upload leaves nothing on the server; cancelled and retried, it goes up whole', async () => {
    const opened = await openPage(browser(), server().url);
    const { page, context, errors } = opened;
    await openUploadPage(opened);
    // 512 KiB/s: the 4 MiB file takes seconds, so the cancel lands while a chunk is on its way.
    await throttleUploads(context, page, 512 * KB);
    const incompleteBefore = (await server().json('GET', '/api/user/files/incomplete', { auth: admin.token })).body;
    const file = randomBytes(4 * MB);
    await chooseFiles(page, [{ name: 'cancel-me.bin', buffer: file }]);
    await row(page, 'cancel-me.bin').getByText(/chunk 2 of 4/).waitFor();
    await row(page, 'cancel-me.bin').getByRole('button', { name: 'Cancel the upload of cancel-me.bin' }).click();
    await waitForStatus(page, 'cancel-me.bin', 'Cancelled');
    await screenshot(page, 'upload-cancelled');
    // The server drops the session of the interrupted chunk, and its bytes, once it notices the client has gone.
    await until('the partial upload is discarded', async () => (await server().ctx.db.selectFrom('partial_uploads').select('id').execute()).length === 0);
    assert.deepEqual(await filesNamed(server(), admin.token, 'cancel-me.bin'), []);
    assert.deepEqual((await server().json('GET', '/api/user/files/incomplete', { auth: admin.token })).body, incompleteBefore);
    assert.deepEqual(await appendTempFiles(server().dataDir), [], 'no chunk bytes are left in the temp folder');

    await throttleUploads(context, page, -1);
    await row(page, 'cancel-me.bin').getByRole('button', { name: 'Retry' }).click();
    await waitForStatus(page, 'cancel-me.bin', 'Done');
    assert.ok((await download(await linkOf(page, 'cancel-me.bin'))).equals(file));
    assert.deepEqual(errors, []);
    await context.close();
  });
});
