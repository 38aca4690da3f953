// The first run and sign-in pages in a real browser: setup while the server is new, sign out, sign in (wrong
// password shown in words), and the redirect of a visitor to the sign-in page and back.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { DASHBOARD_ENV, describeBrowser, openPage, PHONE, screenshot, signIn, useBrowser } from '../support/browser.js';
import { useTestServer } from '../support/server.js';

describeBrowser('dashboard: first run and sign-in', () => {
  const server = useTestServer({ engine: 'sqlite', env: DASHBOARD_ENV });
  const browser = useBrowser();
  /** The owner the first test makes through the setup page; made through the API when that test has not run. */
  const ensureOwner = async () => {
    if ((await server().json('GET', '/api/setup')).body.firstSetup) await server().setup('owner', 'owner-password');
  };

  it('a new server shows the setup page, which creates the super administrator and goes straight to the overview', async () => {
    const { page, context, errors } = await openPage(browser(), server().url);
    await page.goto('/');
    await page.waitForURL(/\/auth\/setup$/);
    await screenshot(page, 'setup');
    await page.getByLabel(/^Username/).fill('owner');
    await page.getByLabel(/^Password/).fill('owner-password');
    await page.getByLabel(/^Repeat the password/).fill('owner-password');
    // Every address and every page heading shown after the submit, however briefly: the mutation records keep the
    // nodes that were added, even when React replaced them within the same task.
    const addresses: string[] = [];
    page.on('framenavigated', (frame) => {
      if (frame === page.mainFrame()) addresses.push(new URL(frame.url()).pathname);
    });
    await page.evaluate(`(() => {
      const shown = (window.shownHeadings = []);
      new MutationObserver((records) => {
        for (const record of records) {
          for (const node of record.addedNodes) {
            if (!(node instanceof Element)) continue;
            const headings = node.matches('h1, h2') ? [node] : [...node.querySelectorAll('h1, h2')];
            for (const heading of headings) shown.push(window.location.pathname + ': ' + heading.textContent);
          }
        }
      }).observe(document.body, { childList: true, subtree: true });
    })()`);
    await page.getByRole('button', { name: 'Create the account' }).click();
    await page.waitForURL(/\/dashboard$/);
    await page.getByRole('heading', { name: 'Hello, owner' }).waitFor();
    const headings = (await page.evaluate('window.shownHeadings')) as string[];
    assert.ok(!headings.some((h) => h.endsWith(': Sign in')), `the sign-in page was shown: ${headings.join(', ')}`);
    assert.ok(!addresses.includes('/auth/login'), `the sign-in page's address was shown: ${addresses.join(', ')}`);
    const setup = await server().json('GET', '/api/setup');
    assert.equal(setup.body.firstSetup, false);
    await screenshot(page, 'overview');
    assert.deepEqual(errors, []);
    await context.close();
  });

  it('a visitor is sent to sign in and back to the page they asked for; a wrong password is said in words', async () => {
    await ensureOwner();
    const { page, context, errors } = await openPage(browser(), server().url, { viewport: PHONE });
    await page.goto('/dashboard/files');
    await page.waitForURL(/\/auth\/login\?next=%2Fdashboard%2Ffiles$/);
    await page.getByLabel(/^Username/).fill('owner');
    await page.getByLabel(/^Password/).fill('wrong-password');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('alert').getByText('Wrong username or password.').waitFor();
    await screenshot(page, 'login-error-phone');
    await page.getByLabel(/^Password/).fill('owner-password');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL(/\/dashboard\/files$/);
    // The setup page is closed once setup is done.
    await page.goto('/auth/setup');
    await page.waitForURL(/\/dashboard$/);
    // The wrong password's 400 and the visitor's 401 from GET /api/user are expected; nothing else may fail.
    assert.deepEqual(
      errors.filter((e) => e !== 'http 400: POST /api/auth/login' && e !== 'http 401: GET /api/user'),
      [],
    );
    await context.close();
  });

  it('signing out ends the session', async () => {
    await ensureOwner();
    const { page, context } = await openPage(browser(), server().url);
    await signIn(page, 'owner', 'owner-password');
    await page.getByTestId('account-menu').click();
    await page.getByRole('menuitem', { name: 'Sign out' }).click();
    await page.waitForURL(/\/auth\/login$/);
    await page.goto('/dashboard');
    await page.waitForURL(/\/auth\/login/);
    await context.close();
  });
});
