// The dashboard's upload page as the browser tests drive it: its settings for tus uploads, a file's row and status,
// and slowed-down uploads (so that a test can act in the middle of one).
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { DASHBOARD_ENV } from './browser.js';

/** Files over 1 MiB go by tus in 1 MiB chunks (a 4 MiB file takes a creation and five PATCHes). */
export const UPLOAD_ENV = { ...DASHBOARD_ENV, CHUNKS_THRESHOLD: '1mb', CHUNKS_SIZE: '1mb' };

/** A file's row in the upload queue. */
export function row(page: Page, name: string): Locator {
  return page.getByRole('listitem', { name, exact: true });
}

/** Waits until the file's row says exactly `status`. */
export async function waitForStatus(page: Page, name: string, status: string): Promise<void> {
  await row(page, name)
    .getByTestId('upload-status')
    .filter({ hasText: new RegExp(`^${status}$`) })
    .waitFor();
}

/** Slows this page's uploads down (Chromium's network emulation); returns the function that lifts the limit. */
export async function throttleUploads(
  context: BrowserContext,
  page: Page,
  bytesPerSecond: number,
): Promise<() => Promise<void>> {
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  const limit = (upload: number) =>
    cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 0,
      downloadThroughput: -1,
      uploadThroughput: upload,
    });
  await limit(bytesPerSecond);
  return async () => {
    await limit(-1);
  };
}
