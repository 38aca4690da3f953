// Exporting the account from the dashboard in a real browser: "Export my account" on the settings page, the export
// made by the queue while the page waits, then the zip downloaded and opened (byte-identical files, records.json),
// and deleted. A user without files is told so in words (1025).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { it } from 'node:test';
import { DASHBOARD_ENV, describeBrowser, openPage, screenshot, signIn, useBrowser } from '../support/browser.js';
import { makeUser } from '../support/factory.js';
import { useTestServer } from '../support/server.js';
import { uploadOne } from '../support/uploads.js';

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describeBrowser('dashboard: exporting the account', () => {
  const server = useTestServer({ engine: 'sqlite', env: { ...DASHBOARD_ENV, RATELIMIT_ENABLED: 'false' } });
  const browser = useBrowser();

  it('starts an export, shows it once made, downloads a zip that opens to the same bytes, and deletes it', async () => {
    await server().setup();
    const empty = await makeUser(server());
    const dana = await makeUser(server());
    const picture = randomBytes(300_000);
    const file = await uploadOne(server(), dana.token, picture, { name: 'holiday.jpg' });

    const first = await openPage(browser(), server().url);
    await signIn(first.page, empty.username, empty.password);
    await first.page.goto('/dashboard/settings?tab=export');
    await first.page.getByRole('button', { name: 'Export my account' }).click();
    await first.page.getByText('You have no files to export yet.').first().waitFor();
    await first.context.close();

    const { page, context, errors } = await openPage(browser(), server().url);
    await signIn(page, dana.username, dana.password);
    await page.goto('/dashboard/settings?tab=export');
    await page.getByText('No exports yet.').waitFor();
    await page.getByRole('button', { name: 'Export my account' }).click();
    await page.getByTestId('export-row').getByText('Being made').waitFor();
    await server().chute.worker.runUntilIdle();
    const download = page.getByRole('link', { name: /^Download the export of/ });
    await download.waitFor();
    await screenshot(page, 'settings-export');

    const dir = await mkdtemp(path.join(os.tmpdir(), 'chute-export-web-'));
    try {
      const [saved] = await Promise.all([page.waitForEvent('download'), download.click()]);
      assert.match(saved.suggestedFilename(), /^chute-export-.+-\d{4}-\d{2}-\d{2}\.zip$/);
      const zip = path.join(dir, 'export.zip');
      await saved.saveAs(zip);
      execFileSync('unzip', ['-q', zip, '-d', path.join(dir, 'out')]);
      assert.equal(sha256(await readFile(path.join(dir, 'out', 'files', file.name))), sha256(picture));
      const records = JSON.parse(await readFile(path.join(dir, 'out', 'records.json'), 'utf8'));
      assert.equal(records.user.username, dana.username);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }

    await page.getByRole('button', { name: /^Delete the export of/ }).click();
    await page.getByRole('button', { name: 'Delete it' }).click();
    await page.getByText('No exports yet.').waitFor();
    // Only the sign-in page's look-up of a session that does not exist yet failed.
    assert.deepEqual(
      errors.filter((e) => e !== 'http 401: GET /api/user'),
      [],
    );
    await context.close();
  });
});
