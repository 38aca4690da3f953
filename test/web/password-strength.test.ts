// The strength meter and the password rules in a real browser, on the setup page (light, desktop) and the
// registration page (dark, phone): the server's minimum shown and checked before anything is sent, the meter's
// words (not its colour alone) as a password gets longer and stronger, the server's refusal of a common password
// said in words, and no axe violation in either scheme.
import assert from 'node:assert/strict';
import { it } from 'node:test';
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
import { useTestServer } from '../support/server.js';
import { expectNoAxeViolations } from './a11y-support.js';

const OWNER_PASSWORD = 'violet tractor 🦊 sings at midnight';

/** The meter's sentence once it has settled on `expected`. */
async function meterSays(page: Page, expected: RegExp): Promise<void> {
  const meter = page.getByTestId('password-strength');
  await meter.getByText(expected).waitFor();
}

describeBrowser('dashboard: password strength and rules', () => {
  const server = useTestServer({ engine: 'sqlite', env: { ...DASHBOARD_ENV, REGISTRATION_ENABLED: 'true' } });

  const browser = useBrowser();

  it('setup (light, desktop): the minimum is shown and checked before sending; the meter says how strong', async () => {
    const { page, context, errors } = await openPage(browser(), server().url, { viewport: DESKTOP });
    const sent: string[] = [];
    page.on('request', (req) => {
      if (req.method() === 'POST' && new URL(req.url()).pathname === '/api/setup') sent.push(req.url());
    });
    await page.goto('/auth/setup');
    await page.getByText('At least 8 characters. Any characters count, spaces and emoji too').waitFor();
    await page.getByLabel(/^Username/).fill('owner');
    const password = page.getByLabel(/^Password/);
    await password.fill('abc');
    await meterSays(page, /^Too short: 3 of at least 8 characters\.$/);
    assert.equal(await page.getByTestId('password-strength').getAttribute('data-score'), 'short');
    await page.getByLabel(/^Repeat the password/).fill('abc');
    await page.getByRole('button', { name: 'Create the account' }).click();
    await page.getByText('The password must be at least 8 characters long (it has 3).').waitFor();
    assert.deepEqual(sent, [], 'nothing was sent');

    // Seven emoji are seven characters, as the server counts them.
    await password.fill('🦊'.repeat(7));
    await meterSays(page, /^Too short: 7 of at least 8 characters\.$/);
    await password.fill('password1');
    await meterSays(page, /^Strength: very weak\./);
    await screenshot(page, 'password-strength-setup-weak-light');
    await expectNoAxeViolations(page, 'setup page, weak password, light', 'form');
    await password.fill(OWNER_PASSWORD);
    await meterSays(page, /^Strength: very strong\.$/);
    assert.equal(await page.getByTestId('password-strength').getAttribute('data-score'), '4');
    await screenshot(page, 'password-strength-setup-strong-light');

    await page.getByLabel(/^Repeat the password/).fill(OWNER_PASSWORD);
    await page.getByRole('button', { name: 'Create the account' }).click();
    await page.waitForURL(/\/dashboard$/);
    assert.equal(sent.length, 1);
    assert.deepEqual(errors, []);
    await context.close();
  });

  it("registration (dark, phone): the server's minimum of 10, and a common password refused in words", async () => {
    // The owner the first test made through the setup page (made here when that test did not run).
    const owner = (await server().json('GET', '/api/setup')).body.firstSetup
      ? (await server().setup('owner', OWNER_PASSWORD)).cookie
      : await server().login('owner', OWNER_PASSWORD);
    const res = await server().json('PATCH', '/api/server/settings', {
      auth: owner,
      body: { passwordMinLength: 10 },
    });
    assert.equal(res.status, 200);

    const { page, context, errors } = await openPage(browser(), server().url, { viewport: PHONE, colorScheme: 'dark' });
    await page.goto('/auth/register');
    await page.getByText('At least 10 characters.', { exact: false }).waitFor();
    await page.getByLabel(/^Username/).fill('newcomer');
    const password = page.getByLabel(/^Password/);
    await password.fill('baseball1');
    await meterSays(page, /^Too short: 9 of at least 10 characters\.$/);
    await password.fill('1234567890');
    await meterSays(page, /^Strength: very weak\./);
    await screenshot(page, 'password-strength-register-weak-dark');
    await expectNoAxeViolations(page, 'registration page, weak password, dark', 'form');
    await page.getByLabel(/^Repeat the password/).fill('1234567890');
    await page.getByRole('button', { name: 'Register' }).click();
    await page.getByText('That password is one of the 10,000 most common ones, which are guessed first.').waitFor();
    // The refusal is the server's 400, the one failed request of this page.
    // (Besides the visitor's 401 of GET /api/user, which tells the page nobody is signed in.)
    assert.deepEqual(
      errors.filter((e) => e !== 'http 401: GET /api/user'),
      ['http 400: POST /api/auth/register'],
    );

    await password.fill('my own long sentence');
    await meterSays(page, /^Strength: (strong|very strong)\.$/);
    await page.getByLabel(/^Repeat the password/).fill('my own long sentence');
    await page.getByRole('button', { name: 'Register' }).click();
    await page.waitForURL(/\/dashboard$/);
    await context.close();
  });
});
