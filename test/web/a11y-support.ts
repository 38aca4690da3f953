// What the accessibility tests share: axe-core (the dev dependency, its own file, never a copy) run inside the page
// under test with the WCAG 2.0/2.1/2.2 A and AA rules, and a failure that names the rule, the element and the page.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const require = createRequire(import.meta.url);
const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/** Every page of the dashboard a signed-in SUPERADMIN sees, the settings tabs each on its own. */
export const DASHBOARD_PAGES = [
  '/dashboard',
  '/dashboard/upload',
  '/dashboard/files',
  '/dashboard/urls',
  '/dashboard/folders',
  '/dashboard/tags',
  '/dashboard/settings',
  '/dashboard/settings?tab=view',
  '/dashboard/settings?tab=security',
  '/dashboard/settings?tab=sessions',
  '/dashboard/settings?tab=linked',
  '/dashboard/settings?tab=token',
  '/dashboard/settings?tab=uploaders',
  '/dashboard/settings?tab=export',
  '/dashboard/admin',
  '/dashboard/admin/users',
  '/dashboard/admin/invites',
  '/dashboard/admin/settings',
  '/dashboard/admin/actions',
  '/dashboard/admin/jobs',
  '/dashboard/no-such-page',
];

export const WCAG_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'] as const;

interface AxeNode {
  target: unknown[];
  html: string;
  failureSummary?: string;
}
interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: AxeNode[];
}

/**
 * Runs axe on the page as it is now (or on `include`, a CSS selector) and fails with every violation: its rule, each
 * element (selector and markup) and `where` (the page, the scheme, what is open). axe is evaluated through the
 * DevTools protocol, so a page's Content-Security-Policy (the server-rendered pages allow no script) does not block it.
 */
export async function expectNoAxeViolations(page: Page, where: string, include?: string): Promise<void> {
  const loaded = await page.evaluate('typeof window.axe === "object"');
  if (!loaded) await page.evaluate(AXE_SOURCE);
  const violations = (await page.evaluate(
    `window.axe.run(${include ? JSON.stringify(include) : 'document'}, {
      runOnly: { type: 'tag', values: ${JSON.stringify(WCAG_TAGS)} },
      resultTypes: ['violations'],
    }).then((r) => r.violations.map((v) => ({
      id: v.id, impact: v.impact, help: v.help,
      nodes: v.nodes.map((n) => ({ target: n.target, html: n.html, failureSummary: n.failureSummary })),
    })))`,
  )) as AxeViolation[];
  const lines = violations.flatMap((v) =>
    v.nodes.map(
      (n) =>
        `${where} (${page.url()}): ${v.id} (${v.impact}: ${v.help}) at ${JSON.stringify(n.target)}: ` +
        `${n.html.slice(0, 200)}\n    ${(n.failureSummary ?? '').replaceAll('\n', '\n    ')}`,
    ),
  );
  assert.deepEqual(lines, [], `axe found ${lines.length} violation(s) on ${where}:\n${lines.join('\n')}`);
}

/** Waits until no loader is shown and no Mantine transition is running (a half-faded element fails contrast). */
export async function settle(page: Page): Promise<void> {
  // A function, not a string: Playwright polls a string predicate with eval, which the dashboard's
  // Content-Security-Policy (script-src 'self') refuses as soon as the first check is false.
  await page.waitForFunction(
    () => {
      const { document } = globalThis as unknown as { document: { querySelector(selector: string): unknown } };
      return !document.querySelector('.mantine-Loader-root') && !document.querySelector('[data-loading]');
    },
    undefined,
    { timeout: 15_000 },
  );
  await page.evaluate(`Promise.all(document.getAnimations().map((a) => a.finished.catch(() => undefined)))`);
  // Mantine's transitions are CSS transitions started by a state change a frame later.
  await page.waitForTimeout(50);
  await page.evaluate(`Promise.all(document.getAnimations().map((a) => a.finished.catch(() => undefined)))`);
}
