// Sign-in security in a real browser: an authenticator app turned on from the settings page (QR code, key, code,
// recovery codes downloaded), then signing in with a code and with a recovery code, and turning it off; passkeys
// through Chromium's own WebAuthn with a CDP virtual authenticator: added and renamed on the settings page, then
// signing in with the passkey alone and as the second step after the password, and removing it.
// WebAuthn needs a secure context: the pages are opened on http://localhost:<port> (one), not 127.0.0.1.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { it } from 'node:test';
import { Secret, TOTP } from 'otpauth';
import type { BrowserContext, Page } from 'playwright-core';
import { ManualClock } from '../../src/lib/clock.js';
import { DASHBOARD_ENV, describeBrowser, openPage, screenshot, signIn, useBrowser } from '../support/browser.js';
import { makeAccount, NO_RATE_LIMIT } from '../support/factory.js';
import { useTestServer, type TestServer } from '../support/server.js';

const STEP_MS = 30_000;

function codeAt(secret: string, timestamp: number): string {
  return new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30 }).generate({ timestamp });
}

/** The server's address with the host name localhost, a secure context for WebAuthn. */
function localhostUrl(server: TestServer): string {
  const url = new URL(server.url);
  url.hostname = 'localhost';
  return url.origin;
}

async function signOut(page: Page): Promise<void> {
  await page.getByTestId('account-menu').click();
  await page.getByRole('menuitem', { name: 'Sign out' }).click();
  await page.waitForURL(/\/auth\/login$/);
}

async function openSecurityTab(page: Page): Promise<void> {
  await page.goto('/dashboard/settings?tab=security');
  await page.getByRole('heading', { name: 'Authenticator app' }).waitFor();
}

/** Chromium's virtual authenticator (CDP WebAuthn domain): a platform passkey that verifies its user. */
async function addVirtualAuthenticator(context: BrowserContext, page: Page) {
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return {
    credentials: async () => (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials,
  };
}

/** Only the refusals a test provokes on purpose (and the visitor's 401) may show up as failed requests. */
function unexpected(errors: string[], allowed: string[]): string[] {
  return errors.filter((e) => e !== 'http 401: GET /api/user' && !allowed.includes(e));
}

describeBrowser('dashboard: sign-in security', () => {
  const clock = new ManualClock(Date.UTC(2026, 0, 1, 12, 0, 0));
  const server = useTestServer({ engine: 'sqlite', clock, env: { ...DASHBOARD_ENV, ...NO_RATE_LIMIT } });
  const browser = useBrowser();

  it('turns on an authenticator app, signs in with a code and with a recovery code, and turns it off', async () => {
    const account = await makeAccount(server());
    const { page, context, errors } = await openPage(browser(), server().url);
    await signIn(page, account.username, account.password);
    await openSecurityTab(page);
    await page.getByRole('button', { name: 'Set up an authenticator app' }).click();
    const qr = page.getByRole('img', { name: 'QR code for your authenticator app' });
    await qr.waitFor();
    assert.match((await qr.getAttribute('src')) ?? '', /^data:image\/png;base64,/);
    const secret = await page.getByTestId('totp-secret').inputValue();
    assert.match(secret, /^[A-Z2-7]{32}$/);
    await screenshot(page, 'totp-setup');

    await page.getByLabel(/Enter the 6-digit code/).fill('000000');
    await page.getByRole('button', { name: 'Turn on' }).click();
    await page.getByText('That code is not right').waitFor();
    await page.getByLabel(/Enter the 6-digit code/).fill(codeAt(secret, clock.now()));
    await page.getByRole('button', { name: 'Turn on' }).click();
    const shown = page.getByTestId('recovery-codes');
    await shown.waitFor();
    const codes = (await shown.innerText()).split(/\s+/).filter(Boolean);
    assert.equal(codes.length, 10);
    await screenshot(page, 'totp-recovery-codes');
    const [file] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download' }).click(),
    ]);
    assert.equal(file.suggestedFilename(), 'chute-recovery-codes.txt');
    const saved = await readFile((await file.path())!, 'utf8');
    for (const code of codes) assert.ok(saved.includes(code), `${code} is in the downloaded file`);
    await page.getByRole('button', { name: 'I have saved them' }).click();
    await page.getByTestId('totp-section').getByText('On', { exact: true }).waitFor();

    // Sign in again: password, then a code of the next 30 s step (the one that turned TOTP on is used up).
    await signOut(page);
    clock.advance(STEP_MS);
    await page.getByLabel(/^Username/).fill(account.username);
    await page.getByLabel(/^Password/).fill(account.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByText('Enter the 6-digit code from your authenticator app.').waitFor();
    await page.keyboard.type(codeAt(secret, clock.now()));
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL(/\/dashboard$/);

    // And with a recovery code instead.
    await signOut(page);
    await page.getByLabel(/^Username/).fill(account.username);
    await page.getByLabel(/^Password/).fill(account.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('button', { name: 'Use a recovery code' }).click();
    await page.getByLabel(/^Recovery code/).fill(codes[0]!);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL(/\/dashboard$/);

    // Turn it off with another recovery code.
    await openSecurityTab(page);
    await page.getByRole('button', { name: 'Turn off' }).click();
    await page.getByLabel(/^Code from your authenticator app/).fill(codes[1]!);
    await page.getByRole('dialog').getByRole('button', { name: 'Turn off' }).click();
    await page.getByRole('button', { name: 'Set up an authenticator app' }).waitFor();
    const me = (await page.evaluate(() => fetch('/api/user').then((r) => r.json()))) as {
      user: { totpEnabled: boolean };
    };
    assert.equal(me.user.totpEnabled, false);
    assert.deepEqual(unexpected(errors, ['http 400: POST /api/user/mfa/totp']), []);
    await context.close();
  });

  it('adds and renames a passkey, signs in with it alone and as the second step, and removes it', async () => {
    const account = await makeAccount(server());
    const { page, context, errors } = await openPage(browser(), localhostUrl(server()));
    const authenticator = await addVirtualAuthenticator(context, page);
    await signIn(page, account.username, account.password);
    await openSecurityTab(page);
    await page.getByLabel('Name of the new passkey').fill('Test laptop');
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    const row = page.getByTestId('passkey-row');
    await row.getByText('Test laptop').waitFor();
    await row.getByText(/never used/).waitFor();
    assert.equal((await authenticator.credentials()).length, 1, 'the authenticator holds the new credential');

    await page.getByRole('button', { name: 'Rename Test laptop' }).click();
    await page.getByRole('dialog').getByLabel('Name').fill('Work laptop');
    await page.getByRole('dialog').getByRole('button', { name: 'Rename' }).click();
    await row.getByText('Work laptop').waitFor();
    await screenshot(page, 'passkeys');

    // A passkey alone: no username, no password.
    await signOut(page);
    clock.advance(60_000);
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await page.waitForURL(/\/dashboard$/);
    await openSecurityTab(page);
    await row.getByText(/last used/).waitFor();
    const [listed] = (await page.evaluate(() => fetch('/api/user/mfa/passkey').then((r) => r.json()))) as Array<{
      lastUsed: string | null;
    }>;
    assert.equal(listed!.lastUsed, new Date(clock.now()).toISOString());

    // With TOTP on, the passkey stands in for the code after the password.
    const token = (await page.evaluate(() => fetch('/api/user/token').then((r) => r.json()))) as { token: string };
    const setup = await server().json('GET', '/api/user/mfa/totp', { auth: token.token });
    const on = await server().json('POST', '/api/user/mfa/totp', {
      auth: token.token,
      body: { secret: setup.body.secret, code: codeAt(setup.body.secret, clock.now()) },
    });
    assert.equal(on.status, 200);
    await page.reload();
    // The page's own requests answered before signing out (one still in flight would be answered 401).
    await row.getByText('Work laptop').waitFor();
    await signOut(page);
    await page.getByLabel(/^Username/).fill(account.username);
    await page.getByLabel(/^Password/).fill(account.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('button', { name: 'Use a passkey instead' }).click();
    await page.waitForURL(/\/dashboard$/);

    await openSecurityTab(page);
    await page.getByRole('button', { name: 'Remove Work laptop' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Remove' }).click();
    await page.getByText('No passkeys yet.').waitFor();
    assert.deepEqual(unexpected(errors, []), []);
    await context.close();
  });

  it('shows the two switches on the admin settings page', async () => {
    const admin = server().superadmin ?? (await server().setup());
    const { page, context } = await openPage(browser(), server().url);
    await signIn(page, admin.username, admin.password);
    await page.goto('/dashboard/admin/settings');
    await page.getByText('Sign-in security').first().waitFor();
    await page.getByText('Authenticator apps (TOTP codes)').waitFor();
    await page.getByText('Passkeys', { exact: true }).waitFor();
    await context.close();
  });
});
