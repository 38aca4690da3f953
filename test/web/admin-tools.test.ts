// The admin pages for what the API already had, in a real browser, in both colour schemes at 390 px and 1280 px:
// Background jobs (a failed job's error, retry, delete), Server actions (clear zero-byte files after a dialog that
// lists them, with what was done shown), and the overview's charts, which show an empty state saying when the next
// snapshot comes instead of a line of one point.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import type { Page } from 'playwright-core';
import { enqueueJobs } from '../../src/services/operations/jobs.js';
import { takeMetricsSnapshots } from '../../src/services/statistics/snapshots.js';
import { insertTestFile } from '../support/content.js';
import { DASHBOARD_ENV, describeBrowser, openPage, screenshot, signIn, useBrowser } from '../support/browser.js';
import { useTestServer, type TestUser } from '../support/server.js';

const unexpected = (errors: string[]) => errors.filter((e) => e !== 'http 401: GET /api/user');

const SIZES = [
  { name: 'phone', viewport: { width: 390, height: 844 }, colorScheme: 'light' as const },
  { name: 'desktop', viewport: { width: 1280, height: 900 }, colorScheme: 'dark' as const },
  { name: 'phone-dark', viewport: { width: 390, height: 844 }, colorScheme: 'dark' as const },
  { name: 'desktop-light', viewport: { width: 1280, height: 900 }, colorScheme: 'light' as const },
];

/** The page is no wider than the window (nothing to scroll sideways to). */
async function assertNoOverflow(page: Page, what: string): Promise<void> {
  const { scrollWidth, innerWidth } = (await page.evaluate(
    '({ scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth })',
  )) as { scrollWidth: number; innerWidth: number };
  assert.ok(scrollWidth <= innerWidth, `${what}: ${scrollWidth} px wide in ${innerWidth}`);
}

describeBrowser('dashboard: background jobs, server actions, statistics', () => {
  const server = useTestServer({ engine: 'sqlite', env: { ...DASHBOARD_ENV, RATELIMIT_ENABLED: 'false' } });
  const browser = useBrowser();
  let root: TestUser;

  before(async () => {
    root = await server().setup('admin', 'admin-password');
  });

  /** A failed job of `kind` with `error`, as the worker leaves one after its last attempt. */
  const failedJob = async (kind: string, payload: unknown, error: string) => {
    const [id] = await enqueueJobs(server().ctx.db, Date.now(), [{ kind, payload }]);
    await server()
      .ctx.db.updateTable('jobs')
      .set({ state: 'failed', attempts: 3, last_error: error })
      .where('id', '=', id!)
      .execute();
    return id!;
  };

  for (const size of SIZES.slice(0, 2)) {
    it(`the jobs page shows a failed job's error, retries one and deletes one (${size.name})`, async () => {
      const retried = await failedJob(
        'thumbnail',
        { fileId: `file-${size.name}` },
        `ffmpeg exited with 1 (${size.name})`,
      );
      const deleted = await failedJob('user-export', { exportId: `exp-${size.name}` }, `disk full (${size.name})`);
      const { page, context, errors } = await openPage(browser(), server().url, size);
      await signIn(page, 'admin', 'admin-password');
      if (size.viewport.width < 768) await page.getByRole('button', { name: 'Open the menu' }).click();
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Background jobs' }).click();
      await page.waitForURL(/\/dashboard\/admin\/jobs$/);
      const job = page.getByTestId(`failed-job-${retried}`);
      await job.getByText(`ffmpeg exited with 1 (${size.name})`).waitFor();
      await job.getByText(`File file-${size.name}`).waitFor();
      await page.getByTestId(`failed-job-${deleted}`).getByText(`disk full (${size.name})`).waitFor();
      await assertNoOverflow(page, `jobs at ${size.name}`);
      await screenshot(page, `admin-jobs-${size.name}`);

      await job.getByRole('button', { name: /^Retry/ }).click();
      await job.waitFor({ state: 'detached' });
      const row = await server().ctx.db.selectFrom('jobs').selectAll().where('id', '=', retried).executeTakeFirst();
      assert.equal(row?.state, 'queued');

      await page
        .getByTestId(`failed-job-${deleted}`)
        .getByRole('button', { name: /^Delete/ })
        .click();
      const dialog = page.getByRole('dialog', { name: 'Delete this job?' });
      await dialog.getByText(`Export exp-${size.name}`, { exact: false }).waitFor();
      await dialog.getByRole('button', { name: 'Delete job' }).click();
      await page.getByTestId(`failed-job-${deleted}`).waitFor({ state: 'detached' });
      const gone = await server().ctx.db.selectFrom('jobs').select('id').where('id', '=', deleted).executeTakeFirst();
      assert.equal(gone, undefined);
      assert.deepEqual(unexpected(errors), []);
      await context.close();
    });
  }

  for (const size of SIZES.slice(2)) {
    it(`server actions: clearing zero-byte files lists them first and says what was done (${size.name})`, async () => {
      const empty = await insertTestFile(server(), root.id, { bytes: '' });
      const kept = await insertTestFile(server(), root.id, { bytes: 'not empty' });
      const { page, context, errors } = await openPage(browser(), server().url, size);
      await signIn(page, 'admin', 'admin-password');
      await page.goto('/dashboard/admin/actions');
      await page.getByRole('heading', { name: 'Server actions' }).waitFor();
      for (const title of [
        'Clear temporary files',
        'Read file sizes again',
        'Make thumbnails',
        'Export the instance',
      ]) {
        await page.getByRole('heading', { name: title }).waitFor();
      }
      await assertNoOverflow(page, `actions at ${size.name}`);
      await screenshot(page, `admin-actions-${size.name}`);
      await page.getByRole('button', { name: 'Clear zero-byte files...' }).click();
      const dialog = page.getByRole('dialog', { name: 'Delete the files of 0 bytes?' });
      await dialog.getByText(empty.name).waitFor();
      assert.equal(await dialog.getByText(kept.name).count(), 0);
      await screenshot(page, `admin-actions-zeros-${size.name}`);
      await dialog.getByRole('button', { name: 'Delete them' }).click();
      await page.getByTestId('action-clear-zeros-result').getByText('Cleared 1 file with a size of 0.').waitFor();
      const files = await server()
        .ctx.db.selectFrom('files')
        .select('id')
        .where('id', 'in', [empty.id, kept.id])
        .execute();
      assert.deepEqual(
        files.map((f) => f.id),
        [kept.id],
      );
      await assertNoOverflow(page, `actions result at ${size.name}`);
      assert.deepEqual(unexpected(errors), []);
      await context.close();
    });
  }

  it('the overview says there is one snapshot and when the next comes, instead of a one-point chart', async () => {
    await server().ctx.db.deleteFrom('metrics').execute();
    assert.equal(await takeMetricsSnapshots(server().ctx), true);
    for (const size of [SIZES[0]!, SIZES[1]!]) {
      const { page, context, errors } = await openPage(browser(), server().url, size);
      await signIn(page, 'admin', 'admin-password');
      await page.goto('/dashboard/admin');
      const empty = page.getByTestId('stats-empty');
      await empty.getByText('One snapshot so far').waitFor();
      await empty.getByText(/The next snapshot: (around|within)/).waitFor();
      assert.equal(await page.locator('.recharts-wrapper').count(), 0, 'no chart of one point');
      await assertNoOverflow(page, `overview at ${size.name}`);
      await screenshot(page, `admin-overview-one-snapshot-${size.name}`);
      assert.deepEqual(unexpected(errors), []);
      await context.close();
    }
  });
});
