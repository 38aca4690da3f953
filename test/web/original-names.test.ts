// Original names in a real browser, at 390 and 1280 px wide, light and dark: the upload page's "Keep original file
// name" and the uploader configurations start from the server's filesKeepOriginalName and always send the choice;
// the files list (table and gallery), the overview, the file panel and a folder's contents show each file's original
// name under its link name, and the list finds a file by it; a typed text name that became a random link name says so.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import type { Page } from 'playwright-core';
import type { FileDto } from '../../src/schemas/file.js';
import { describeBrowser, openPage, screenshot, signIn, useBrowser } from '../support/browser.js';
import { makeAccount, makeFolder, makeUser, NO_RATE_LIMIT } from '../support/factory.js';
import { useTestServer, type TestServer, type TestUser } from '../support/server.js';
import { UPLOAD_ENV, waitForStatus } from '../support/upload-page.js';
import { upload } from '../support/uploads.js';

const NARROW = { width: 390, height: 844 } as const;
const WIDE = { width: 1280, height: 800 } as const;
type Scheme = 'light' | 'dark';
interface View {
  viewport: typeof NARROW | typeof WIDE;
  colorScheme: Scheme;
  tag: string;
}
const view = (viewport: View['viewport'], colorScheme: Scheme): View => ({
  viewport,
  colorScheme,
  tag: `${viewport.width}-${colorScheme}`,
});
/** Every width in both schemes. */
const ALL_VIEWS = [view(NARROW, 'light'), view(NARROW, 'dark'), view(WIDE, 'light'), view(WIDE, 'dark')];
/** Each width once and each scheme once. */
const TWO_VIEWS = [view(NARROW, 'light'), view(WIDE, 'dark')];
const OTHER_TWO_VIEWS = [view(NARROW, 'dark'), view(WIDE, 'light')];

/** The browser globals the page functions below use (the tests compile without the DOM library). */
interface BrowserGlobals {
  document: { documentElement: { scrollWidth: number; clientWidth: number }; getAnimations(): unknown[] };
  localStorage: { setItem(key: string, value: string): void; removeItem(key: string): void };
}

/** Whether the page is wider than the window (something would need scrolling sideways). */
async function scrollsSideways(page: Page): Promise<boolean> {
  return page.evaluate(() => {
    const root = (globalThis as unknown as BrowserGlobals).document.documentElement;
    return root.scrollWidth > root.clientWidth;
  });
}

async function settled(page: Page): Promise<void> {
  await page.waitForFunction(() => (globalThis as unknown as BrowserGlobals).document.getAnimations().length === 0);
}

/** What went wrong in the page, less the visitor's 401 from GET /api/user that every sign-in starts with. */
const unexpected = (errors: string[]): string[] => errors.filter((e) => e !== 'http 401: GET /api/user');

/** The x-service-original-name of each upload request the page sends (one request or a tus creation). */
function sentOriginalNames(page: Page): Array<string | undefined> {
  const sent: Array<string | undefined> = [];
  page.on('request', (request) => {
    const path = new URL(request.url()).pathname;
    if (request.method() === 'POST' && (path === '/api/upload' || path === '/api/upload/tus')) {
      sent.push(request.headers()['x-service-original-name']);
    }
  });
  return sent;
}

async function chooseFile(page: Page, name: string): Promise<void> {
  await page.locator('input[type=file]').setInputFiles({ name, mimeType: 'text/plain', buffer: Buffer.from(name) });
  await waitForStatus(page, name, 'Done');
}

async function filesOf(server: TestServer, auth: string): Promise<FileDto[]> {
  const res = await server.json<{ page: FileDto[] }>('GET', '/api/user/files?perpage=100', { auth });
  assert.equal(res.status, 200);
  return res.body.page;
}

describeBrowser('dashboard: original names', () => {
  const server = useTestServer({ engine: 'sqlite', env: { ...UPLOAD_ENV, ...NO_RATE_LIMIT } });
  const browser = useBrowser();
  let admin: TestUser;
  const setKeep = async (value: boolean) => {
    const res = await server().json('PATCH', '/api/server/settings', {
      auth: admin.token,
      body: { filesKeepOriginalName: value },
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
  };

  before(async () => {
    admin = await server().setup();
  });

  for (const v of TWO_VIEWS) {
    it(`the upload page and the uploader configurations start from filesKeepOriginalName and send the choice (${v.tag})`, async () => {
      const account = await makeAccount(server());
      const { page, context, errors } = await openPage(browser(), server().url, v);
      const sent = sentOriginalNames(page);
      await signIn(page, account.username, account.password);
      // Options saved by the page before the setting existed held keepOriginalName: false whether chosen or not.
      await page.evaluate(() =>
        (globalThis as unknown as BrowserGlobals).localStorage.setItem(
          'chute.upload.options',
          JSON.stringify({ expiry: 'never', keepOriginalName: false }),
        ),
      );
      await page.goto('/dashboard/upload');
      const summary = page.getByRole('button', { name: /Upload options/ });
      await summary.click();
      const keep = page.getByLabel('Keep original file name');
      await keep.waitFor();
      assert.equal(await keep.isChecked(), true, 'on, as the server says (the old saved false is no choice)');
      assert.match((await summary.textContent()) ?? '', /Never expire/, 'the other saved options stay');
      assert.doesNotMatch((await summary.textContent()) ?? '', /Original names/);
      await page.getByText('server default: on').waitFor();
      await chooseFile(page, `kept-${v.tag}.txt`);

      await keep.uncheck();
      assert.match((await summary.textContent()) ?? '', /Original names not kept/);
      await chooseFile(page, `dropped-${v.tag}.txt`);
      assert.equal(await scrollsSideways(page), false);
      await settled(page);
      await screenshot(page, `original-names-upload-${v.tag}`);

      // The setting off: a fresh page (nothing chosen) follows it; checking the switch keeps the name again.
      await setKeep(false);
      try {
        await page.getByRole('button', { name: 'Reset to defaults' }).click();
        await page.reload();
        await summary.click();
        await keep.waitFor();
        assert.equal(await keep.isChecked(), false, 'off, as the server now says');
        await page.getByText('server default: off').waitFor();
        await chooseFile(page, `off-${v.tag}.txt`);
        await keep.check();
        assert.match((await summary.textContent()) ?? '', /Original names kept/);
        await chooseFile(page, `asked-${v.tag}.txt`);

        // The uploaders tab starts from the setting too, and its configurations say so either way.
        await page.goto('/dashboard/settings?tab=uploaders');
        const configKeep = page.getByLabel('Keep the original file name');
        await configKeep.waitFor();
        assert.equal(await configKeep.isChecked(), false);
        await page.getByRole('button', { name: /^Show .*-files\.sxcu$/ }).click();
        await page.getByText('"x-service-original-name": "false"').first().waitFor();
        await configKeep.check();
        await page.getByText('"x-service-original-name": "true"').first().waitFor();
        assert.equal(await scrollsSideways(page), false);
      } finally {
        await setKeep(true);
      }
      await page.reload();
      await page.getByLabel('Keep the original file name').waitFor();
      assert.equal(await page.getByLabel('Keep the original file name').isChecked(), true);

      assert.deepEqual(sent, ['true', 'false', 'false', 'true']);
      const files = await filesOf(server(), await server().login(account.username, account.password));
      const kept = files.map((f) => f.originalName).sort();
      assert.deepEqual(kept, [`asked-${v.tag}.txt`, `kept-${v.tag}.txt`, null, null].sort());
      assert.deepEqual(unexpected(errors), []);
      await context.close();
    });
  }

  it('the files list, the overview, the file panel and folder contents show the original name under the link name', async () => {
    const owner = await makeUser(server());
    const folder = await makeFolder(server(), owner, { name: 'Trip' });
    const originals = ['meeting notes.txt', 'budget 2026.csv', 'Résumé final.pdf'];
    const linkOf = new Map<string, string>();
    for (const name of originals) {
      // No x-service-original-name: the server's default keeps it.
      const res = await upload(server(), owner.token, [{ name, content: `contents of ${name}` }], {
        'x-service-folder': folder.id,
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.files[0].originalName, name);
      assert.notEqual(res.body.files[0].name, name, 'a random link name');
      linkOf.set(name, res.body.files[0].name);
    }
    const expectBoth = async (where: ReturnType<Page['locator']>, original: string) => {
      await where.getByTestId('original-name').filter({ hasText: original }).waitFor();
      assert.ok(((await where.textContent()) ?? '').includes(linkOf.get(original)!), `${original}: its link name too`);
    };

    for (const v of ALL_VIEWS) {
      const { page, context, errors } = await openPage(browser(), server().url, v);
      await signIn(page, owner.username, owner.password);

      // The overview's recent files.
      await page.goto('/dashboard');
      const recent = page.getByTestId('recent-files');
      for (const name of originals) await expectBoth(recent.locator('tr', { hasText: linkOf.get(name)! }), name);
      assert.equal(await scrollsSideways(page), false);
      await screenshot(page, `original-names-overview-${v.tag}`);

      // The files list: the gallery, then the table.
      await page.goto('/dashboard/files');
      await page.evaluate(() => (globalThis as unknown as BrowserGlobals).localStorage.removeItem('chute.files.view'));
      await page.reload();
      for (const name of originals) {
        await expectBoth(page.locator(`[data-testid="file-card"][data-file-name="${linkOf.get(name)}"]`), name);
      }
      assert.equal(await scrollsSideways(page), false);
      await screenshot(page, `original-names-gallery-${v.tag}`);
      await page.locator('label', { hasText: 'Table' }).click();
      for (const name of originals) {
        await expectBoth(page.locator(`[data-testid="file-row"][data-file-name="${linkOf.get(name)}"]`), name);
      }
      await screenshot(page, `original-names-table-${v.tag}`);

      // The file panel: under its title, and among its facts.
      await page
        .locator(`[data-testid="file-row"][data-file-name="${linkOf.get('meeting notes.txt')}"]`)
        .getByRole('button', { name: /^Open / })
        .click();
      const panel = page.getByRole('dialog');
      await expectBoth(panel, 'meeting notes.txt');
      await panel.getByText('Original name', { exact: true }).waitFor();
      await settled(page);
      await screenshot(page, `original-names-panel-${v.tag}`);
      await page.getByRole('button', { name: 'Close the file details' }).click();

      // A folder's contents.
      await page.goto(`/dashboard/folders?folder=${encodeURIComponent(folder.id)}`);
      for (const name of originals) {
        await expectBoth(page.getByTestId('folder-file').filter({ hasText: linkOf.get(name)! }), name);
      }
      assert.equal(await scrollsSideways(page), false);
      await screenshot(page, `original-names-folder-${v.tag}`);
      assert.deepEqual(unexpected(errors), []);
      await context.close();
    }

    // The list finds a file by its original name (the API's searchField=originalName, its trigram index).
    const { page, context, errors } = await openPage(browser(), server().url, view(WIDE, 'light'));
    await signIn(page, owner.username, owner.password);
    await page.goto('/dashboard/files?field=originalName&q=sum%C3%A9');
    await page.locator(`[data-testid="file-card"][data-file-name="${linkOf.get('Résumé final.pdf')}"]`).waitFor();
    assert.equal(await page.getByTestId('file-card').count(), 1);
    assert.deepEqual(unexpected(errors), []);
    await context.close();
  });

  for (const v of OTHER_TWO_VIEWS) {
    it(`a typed text name that becomes a random link name says so, and whether it was kept (${v.tag})`, async () => {
      const account = await makeAccount(server());
      const { page, context, errors } = await openPage(browser(), server().url, v);
      await signIn(page, account.username, account.password);
      await page.goto('/dashboard/upload');
      await page.getByRole('tab', { name: 'Text' }).click();
      const notice = page.getByTestId('text-uploaded');
      const sendText = async (name: string) => {
        await page.getByLabel('Text or code').fill(`the text of ${name}`);
        await page.getByLabel('File name', { exact: true }).fill(name);
        await page.getByRole('button', { name: 'Upload text' }).click();
        await waitForStatus(page, name, 'Done');
      };

      await sendText(`notes-${v.tag}.txt`);
      await notice
        .filter({
          hasText: new RegExp(
            `^Text uploadedSaved as [A-Za-z0-9]{8}\\.txt; “notes-${v.tag}\\.txt” is kept as its original name\\.`,
          ),
        })
        .waitFor();
      assert.equal(await scrollsSideways(page), false);
      await settled(page);
      await screenshot(page, `original-names-text-${v.tag}`);

      // Not kept: the notice says the name is gone.
      await page.getByRole('button', { name: /Upload options/ }).click();
      await page.getByLabel('Keep original file name').uncheck();
      await sendText(`scratch-${v.tag}.md`);
      await notice
        .filter({ hasText: new RegExp(`“scratch-${v.tag}\\.md” is not kept \\(Keep original file name is off`) })
        .waitFor();

      // The name format "name": the link is the typed name, and the notice says no more than that.
      await page.getByLabel('Keep original file name').check();
      await page.getByRole('textbox', { name: 'Name format', exact: true }).click();
      await page.getByRole('option', { name: 'Original file name', exact: true }).click();
      await sendText(`as-typed-${v.tag}.txt`);
      await notice.filter({ hasText: new RegExp(`Saved as as-typed-${v.tag}\\.txt\\.`) }).waitFor();

      const cookie = await server().login(account.username, account.password);
      const byOriginal = (await filesOf(server(), cookie)).map((f) => [f.originalName, f.name] as const);
      assert.ok(byOriginal.some(([o, n]) => o === `notes-${v.tag}.txt` && n !== o));
      assert.ok(byOriginal.some(([o, n]) => o === null && n.endsWith('.md')));
      assert.ok(byOriginal.some(([o, n]) => o === `as-typed-${v.tag}.txt` && n === o));
      assert.deepEqual(unexpected(errors), []);
      await context.close();
    });
  }
});
