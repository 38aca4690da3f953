// The server-rendered public pages in a real browser, at desktop and phone widths, light and dark: a file's view page
// (an image that fits the screen, a text file whose HTML-looking content stays text), the password forms of a file
// and of a short URL (a wrong password said in words, the right one reaching the content or the destination), and a
// public folder (its files as tiles, the zip, uploading from the page). No script may run from anything uploaded.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import type { Page } from 'playwright-core';
import {
  DASHBOARD_ENV,
  DESKTOP,
  describeBrowser,
  openPage,
  PHONE,
  screenshot,
  useBrowser,
} from '../support/browser.js';
import { rgbPng } from '../support/fixtures.js';
import { useTestServer, type TestUser } from '../support/server.js';

// What the page's own globals look like inside page.evaluate() callbacks (the tests compile without the DOM types).
interface PageImage {
  complete: boolean;
  naturalWidth: number;
  getBoundingClientRect(): { right: number };
}
declare const document: {
  documentElement: { scrollWidth: number };
  querySelectorAll(selector: string): Iterable<PageImage>;
  querySelector(selector: string): { duration: number } | null;
};
declare const window: { innerWidth: number; __pwned?: unknown };
declare function getComputedStyle(element: unknown): { overflowY: string };

/** A left-to-right, top-to-bottom colour gradient (so a cropped or squashed image shows in screenshots). */
function gradientPng(width: number, height: number): Buffer {
  return rgbPng(width, height, (x, y) => [Math.round((x / width) * 255), Math.round((y / height) * 200) + 30, 190]);
}

/** A real WAV: half a second of a 440 Hz tone. */
function toneWav(seconds = 0.5, rate = 8000): Buffer {
  const data = Buffer.alloc(Math.round(seconds * rate) * 2);
  for (let i = 0; i < data.length / 2; i++)
    data.writeInt16LE(Math.round(Math.sin((2 * Math.PI * 440 * i) / rate) * 8000), i * 2);
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(36 + data.length, 4);
  header.write('WAVEfmt ', 8);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(rate, 24);
  header.writeUInt32LE(rate * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36);
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]);
}

/** Text that would run if it were ever treated as markup. */
const HOSTILE_TEXT =
  '<script>window.__pwned = "script"</script>\n<img src=x onerror="window.__pwned = \'img\'">\n<b>not bold</b> & done\n';
const HOSTILE_NAME = '<img src=x onerror=window.__pwned=1>notes.txt';

const VARIANTS = [
  { label: 'desktop-light', viewport: DESKTOP, colorScheme: 'light' },
  { label: 'desktop-dark', viewport: DESKTOP, colorScheme: 'dark' },
  { label: 'phone-light', viewport: PHONE, colorScheme: 'light' },
  { label: 'phone-dark', viewport: PHONE, colorScheme: 'dark' },
] as const;

interface Uploaded {
  id: string;
  name: string;
  url: string;
}

describeBrowser('public pages: file view, password forms, public folder', () => {
  const server = useTestServer({ engine: 'sqlite', env: { ...DASHBOARD_ENV, SITE_TITLE: 'Pixel <Drop>' } });
  const browser = useBrowser();
  let owner: TestUser;
  let image: Uploaded;
  let text: Uploaded;
  let locked: Uploaded;
  let audio: Uploaded;
  let shortCode: string;
  let folderId: string;
  let childId: string;

  async function uploadFile(
    content: Buffer | string,
    name: string,
    type: string,
    headers: Record<string, string> = {},
  ): Promise<Uploaded> {
    const form = new FormData();
    form.append('file', new Blob([content], { type }), name);
    const res = await server().fetch('/api/upload', {
      method: 'POST',
      headers: { authorization: owner.token, 'x-service-original-name': 'true', ...headers },
      body: form,
    });
    const body = (await res.json()) as { files: Uploaded[] };
    assert.equal(res.status, 200, JSON.stringify(body));
    return body.files[0]!;
  }

  before(async () => {
    owner = await server().setup('owner', 'owner-password');
    const view = await server().json('PATCH', '/api/user', {
      auth: owner.token,
      body: {
        view: {
          showMimetype: true,
          showFolder: true,
          showTags: true,
          content: 'Shared by {file.originalName}, <b>{file.size}</b>',
        },
      },
    });
    assert.equal(view.status, 200);
    const folder = await server().json('POST', '/api/user/folders', {
      auth: owner.token,
      body: { name: '<b>Trip</b> & "friends"', public: true, allowUploads: true },
    });
    assert.equal(folder.status, 200, JSON.stringify(folder.body));
    folderId = folder.body.id;
    const child = await server().json('POST', '/api/user/folders', {
      auth: owner.token,
      body: { name: `Day 1: ${'a_very_long_name_without_spaces_'.repeat(3)}`, parentId: folderId, public: true },
    });
    assert.equal(child.status, 200, JSON.stringify(child.body));
    childId = child.body.id;
    const inFolder = { 'x-service-folder': folderId };
    image = await uploadFile(gradientPng(1600, 900), 'mountain-panorama.png', 'image/png', inFolder);
    text = await uploadFile(HOSTILE_TEXT, HOSTILE_NAME, 'text/plain', inFolder);
    await uploadFile(gradientPng(400, 600), 'portrait.png', 'image/png', inFolder);
    await uploadFile(Buffer.alloc(2048, 1), 'backup.zip', 'application/zip', inFolder);
    audio = await uploadFile(toneWav(), 'tone.wav', 'audio/wav');
    locked = await uploadFile('the secret plans', 'plans.txt', 'text/plain', {
      ...inFolder,
      'x-service-password': 'open sesame',
    });
    const tag = await server().json('POST', '/api/user/tags', {
      auth: owner.token,
      body: { name: 'holiday', color: '#e8590c' },
    });
    assert.equal(tag.status, 200, JSON.stringify(tag.body));
    const tagged = await server().json('PUT', `/api/user/files/${image.id}/tags`, {
      auth: owner.token,
      body: { tags: [tag.body.id] },
    });
    assert.equal(tagged.status, 200, JSON.stringify(tagged.body));
    const url = await server().json('POST', '/api/user/urls', {
      auth: owner.token,
      headers: { 'x-service-password': 'letmein' },
      body: { destination: `${server().url}/view/${image.name}` },
    });
    assert.equal(url.status, 200, JSON.stringify(url.body));
    shortCode = url.body.code;
  });

  /** Neither the page nor its images may be wider than the window (no sideways scrolling on a phone). */
  async function assertFitsWidth(page: Page): Promise<void> {
    const { scrollWidth, innerWidth } = await page.evaluate(() => ({
      scrollWidth: document.documentElement.scrollWidth,
      innerWidth: window.innerWidth,
    }));
    assert.ok(scrollWidth <= innerWidth, `the page scrolls sideways: ${scrollWidth} > ${innerWidth}`);
  }

  async function assertNothingRan(page: Page): Promise<void> {
    assert.equal(await page.evaluate(() => window.__pwned), undefined);
    assert.equal(await page.locator('script').count(), 0, 'the public pages carry no script at all');
  }

  it('the view page of an image shows it whole, within the window, with its facts, tags, folder and a download button', async () => {
    for (const variant of VARIANTS) {
      const { page, context, errors } = await openPage(browser(), server().url, variant);
      await page.goto(`/view/${image.name}`);
      await page.getByRole('heading', { name: 'mountain-panorama.png' }).waitFor();
      await page.getByText('Pixel <Drop>', { exact: true }).waitFor();
      const img = page.getByRole('img', { name: 'mountain-panorama.png' });
      await img.waitFor();
      const shown = await img.evaluate((el: PageImage) => ({
        loaded: el.complete && el.naturalWidth === 1600,
        right: el.getBoundingClientRect().right,
      }));
      assert.ok(shown.loaded, 'the image loaded');
      assert.ok(
        shown.right <= variant.viewport.width,
        `the image fits the window (${shown.right} > ${variant.viewport.width})`,
      );
      await assertFitsWidth(page);
      await page.getByText('image/png').waitFor();
      await page.getByText(/^Uploaded \d+ \w{3} \d{4}$/).waitFor();
      await page.getByText('holiday').waitFor();
      await page.getByText('Shared by mountain-panorama.png, <b>').waitFor();
      const folderLink = page.getByRole('link', { name: '<b>Trip</b> & "friends"' });
      assert.equal(await folderLink.getAttribute('href'), `/folder/${folderId}`);
      const download = page.getByRole('link', { name: 'Download' });
      assert.equal(await download.getAttribute('href'), `/raw/${image.name}?download`);
      await assertNothingRan(page);
      await screenshot(page, `public-view-image-${variant.label}`);
      assert.deepEqual(errors, []);
      await context.close();
    }
  });

  it('a text file with markup in it and in its name is shown as text in a scrollable box; nothing of it runs', async () => {
    for (const variant of VARIANTS) {
      const { page, context, errors } = await openPage(browser(), server().url, variant);
      await page.goto(`/view/${text.name}`);
      await page.getByRole('heading', { name: HOSTILE_NAME }).waitFor();
      const pre = page.locator('pre');
      assert.equal(await pre.textContent(), HOSTILE_TEXT);
      assert.equal(await pre.locator('*').count(), 0, 'the text made no elements');
      assert.equal(await pre.evaluate((el) => getComputedStyle(el).overflowY), 'auto');
      await assertFitsWidth(page);
      await assertNothingRan(page);
      await screenshot(page, `public-view-text-${variant.label}`);
      assert.deepEqual(errors, []);
      await context.close();
    }
  });

  it('an audio file plays in its page, as wide as the page', async () => {
    for (const variant of [VARIANTS[0], VARIANTS[3]]) {
      const { page, context, errors } = await openPage(browser(), server().url, variant);
      await page.goto(`/view/${audio.name}`);
      await page.getByRole('heading', { name: 'tone.wav' }).waitFor();
      await page.waitForFunction(() => (document.querySelector('audio')?.duration ?? 0) > 0.4);
      await assertFitsWidth(page);
      await screenshot(page, `public-view-audio-${variant.label}`);
      assert.deepEqual(errors, []);
      await context.close();
    }
  });

  it('a protected file asks for its password: a wrong one is said in words, the right one shows the file', async () => {
    for (const variant of VARIANTS) {
      const { page, context, errors } = await openPage(browser(), server().url, variant);
      await page.goto(`/view/${locked.name}`);
      await page.getByRole('heading', { name: 'This file is password protected' }).waitFor();
      assert.equal(await page.getByText('the secret plans').count(), 0);
      await page.getByLabel('Password').fill('not it');
      await page.getByRole('button', { name: 'Open file' }).click();
      await page.getByRole('alert').getByText('Wrong password. Check it and try again.').waitFor();
      await assertFitsWidth(page);
      await screenshot(page, `public-file-password-wrong-${variant.label}`);
      await page.getByLabel('Password').fill('open sesame');
      await page.getByRole('button', { name: 'Open file' }).click();
      await page.getByText('the secret plans').waitFor();
      assert.match(new URL(page.url()).pathname, new RegExp(`^/view/${locked.name}$`));
      // The download button carries the access token, so it works too.
      const download = await page.getByRole('link', { name: 'Download' }).getAttribute('href');
      assert.match(download ?? '', new RegExp(`^/raw/${locked.name}\\?token=[^&]+&download$`));
      const bytes = await page.request.get(download!);
      assert.equal(await bytes.text(), 'the secret plans');
      if (variant.label === 'phone-light') await screenshot(page, 'public-file-password-open-phone-light');
      // The form and the form again after a wrong password are pages, 200: nothing went wrong in the page.
      assert.deepEqual(errors, []);
      await context.close();
    }
  });

  it('a protected short URL asks for its password: a wrong one is said in words, the right one follows the link', async () => {
    for (const variant of VARIANTS) {
      const { page, context, errors } = await openPage(browser(), server().url, variant);
      await page.goto(`/go/${shortCode}`);
      await page.getByRole('heading', { name: 'This link is password protected' }).waitFor();
      assert.ok(!(await page.content()).includes(image.name), 'the page does not give the destination away');
      await page.getByLabel('Password').fill('wrong guess');
      await page.getByRole('button', { name: 'Open link' }).click();
      await page.getByRole('alert').getByText('Wrong password. Check it and try again.').waitFor();
      await assertFitsWidth(page);
      await screenshot(page, `public-url-password-wrong-${variant.label}`);
      await page.getByLabel('Password').fill('letmein');
      await page.getByRole('button', { name: 'Open link' }).click();
      await page.waitForURL(`**/view/${image.name}`);
      await page.getByRole('img', { name: 'mountain-panorama.png' }).waitFor();
      assert.deepEqual(errors, []);
      await context.close();
    }
  });

  it('the public folder shows its files as tiles with thumbnails or type icons, each linking to its page', async () => {
    for (const variant of VARIANTS) {
      const { page, context, errors } = await openPage(browser(), server().url, variant);
      await page.goto(`/folder/${folderId}`);
      await page.getByRole('heading', { name: '<b>Trip</b> & "friends"' }).waitFor();
      const tiles = page.getByRole('list', { name: 'Files' }).getByRole('listitem');
      assert.equal(await tiles.count(), 5);
      // A password-protected file shows its served name, never its original one.
      assert.equal(await tiles.filter({ hasText: 'plans.txt' }).count(), 0);
      for (const name of ['mountain-panorama.png', 'portrait.png', 'backup.zip', locked.name, HOSTILE_NAME]) {
        await tiles.filter({ hasText: name }).waitFor();
      }
      // Images show themselves (loaded); the protected file shows no bytes of its own.
      const thumbs = page.locator('.thumb img');
      assert.equal(await thumbs.count(), 2);
      await page.waitForFunction(() =>
        [...document.querySelectorAll('.thumb img')].every((i) => i.complete && i.naturalWidth > 0),
      );
      assert.equal(await tiles.filter({ hasText: locked.name }).locator('img').count(), 0);
      assert.equal(
        await page.getByRole('link', { name: /Download all/ }).getAttribute('href'),
        `/api/folders/${folderId}/zip`,
      );
      assert.equal(
        await page
          .getByRole('list', { name: 'Folders' })
          .getByRole('link', { name: /^Day 1: a_very_long/ })
          .getAttribute('href'),
        `/folder/${childId}`,
      );
      await assertFitsWidth(page);
      await assertNothingRan(page);
      await screenshot(page, `public-folder-${variant.label}`);
      if (variant.label === 'phone-light') {
        await page.getByRole('link', { name: /^Day 1: a_very_long/ }).click();
        await page.getByRole('heading', { name: /^Day 1: a_very_long/ }).waitFor();
        await assertFitsWidth(page);
        await page.getByText('This folder has no files.').waitFor();
        await screenshot(page, 'public-folder-child-phone-light');
        await page.getByRole('link', { name: '<b>Trip</b> & "friends"' }).click();
        await tiles.filter({ hasText: 'portrait.png' }).getByRole('link').click();
        await page.getByRole('heading', { name: 'portrait.png' }).waitFor();
        await assertFitsWidth(page);
        await screenshot(page, 'public-view-portrait-phone-light');
      }
      assert.deepEqual(errors, []);
      await context.close();
    }
  });

  it('a visitor uploads into the folder from its page, without any script', async () => {
    const { page, context, errors } = await openPage(browser(), server().url, {
      viewport: PHONE,
      colorScheme: 'light',
    });
    await page.goto(`/folder/${folderId}`);
    await page.getByLabel('Choose files').setInputFiles([
      { name: 'from-a-visitor.txt', mimeType: 'text/plain', buffer: Buffer.from('hello from the page') },
      { name: 'second.txt', mimeType: 'text/plain', buffer: Buffer.from('two') },
    ]);
    await page.getByRole('button', { name: 'Upload' }).click();
    await page.getByRole('status').getByText('2 files uploaded.').waitFor();
    await page.getByRole('list', { name: 'Files' }).getByText('from-a-visitor.txt').waitFor();
    await screenshot(page, 'public-folder-uploaded-phone-light');
    const detail = await server().json('GET', `/api/user/folders/${folderId}`, { auth: owner.token });
    assert.equal(detail.body.fileCount, 7);
    assert.deepEqual(errors, []);
    await context.close();
  });

  it('dead links explain themselves in words', async () => {
    const { page, context } = await openPage(browser(), server().url, { viewport: PHONE, colorScheme: 'dark' });
    await page.goto('/view/no-such-file.png');
    await page.getByRole('heading', { name: 'File not found' }).waitFor();
    await screenshot(page, 'public-not-found-phone-dark');
    await page.goto('/go/nosuchlink');
    await page.getByRole('heading', { name: 'Link not found' }).waitFor();
    await page.goto('/folder/nosuchfolder');
    await page.getByRole('heading', { name: 'Folder not found' }).waitFor();
    await context.close();
  });
});
