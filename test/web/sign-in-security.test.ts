// Sign-in security in a real browser: an authenticator app turned on from the settings page (QR code, key, code,
// recovery codes downloaded), then signing in with a code and with a recovery code, and turning it off; passkeys
// through Chromium's own WebAuthn with a CDP virtual authenticator: added and renamed on the settings page, then
// signing in with the passkey alone and as the second step after the password, and removing it. The code step sends
// the code by itself after its sixth digit (once, Enter or not) and has a way back to another account, at 390 px and
// 1280 px in both colour schemes.
// WebAuthn needs a secure context: the pages are opened on http://localhost:<port> (one), not 127.0.0.1.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { it } from 'node:test';
import { Secret, TOTP } from 'otpauth';
import type { BrowserContext, Page, Request, Route } from 'playwright-core';
import { ManualClock } from '../../src/lib/clock.js';
import { DASHBOARD_ENV, describeBrowser, openPage, screenshot, signIn, useBrowser } from '../support/browser.js';
import { makeAccount, makeUser, NO_RATE_LIMIT } from '../support/factory.js';
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

/** The four looks the code step is checked in. */
const LOOKS = [
  { name: '390-light', viewport: { width: 390, height: 844 }, colorScheme: 'light' as const },
  { name: '390-dark', viewport: { width: 390, height: 844 }, colorScheme: 'dark' as const },
  { name: '1280-light', viewport: { width: 1280, height: 900 }, colorScheme: 'light' as const },
  { name: '1280-dark', viewport: { width: 1280, height: 900 }, colorScheme: 'dark' as const },
];

/** The six boxes of the code as the page shows them. */
function codeBoxes(page: Page): Promise<string[]> {
  return page
    .getByRole('group', { name: 'Authentication code' })
    .locator('input')
    .evaluateAll((boxes) => boxes.map((box) => (box as unknown as { value: string }).value));
}

/**
 * Holds every sign-in request that carries a second-step code until release() lets it through, so that a test can
 * press keys while one is on its way; `sent` lists the codes of those requests in order.
 */
async function holdCodeRequests(page: Page) {
  const sent: string[] = [];
  const held: Route[] = [];
  let arrived: () => void = () => undefined;
  await page.route('**/api/auth/login', async (route: Route, request: Request) => {
    const body = request.postDataJSON() as { code?: string };
    if (body.code === undefined) return route.continue();
    sent.push(body.code);
    held.push(route);
    arrived();
  });
  return {
    sent,
    /** Waits until `n` code requests have been made (fails after 15 s, the pages' own timeout). */
    async made(n: number): Promise<void> {
      const deadline = Date.now() + 15_000;
      while (sent.length < n) {
        const left = deadline - Date.now();
        assert.ok(left > 0, `${n} code requests were expected, ${sent.length} made`);
        await new Promise<void>((resolve) => {
          arrived = resolve;
          setTimeout(resolve, left);
        });
      }
    },
    async release(): Promise<void> {
      for (const route of held.splice(0)) await route.continue();
    },
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
    // The sixth digit sends the code: no button to press.
    await page.keyboard.type(codeAt(secret, clock.now()));
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

  it('sends the code after its sixth digit, once even with Enter, and goes back for another account', async () => {
    for (const look of LOOKS) {
      // An account with TOTP on (turned on through the API), and another one without.
      const account = await makeUser(server());
      const other = await makeAccount(server());
      const setup = await server().json('GET', '/api/user/mfa/totp', { auth: account.token });
      const secret = setup.body.secret as string;
      const on = await server().json('POST', '/api/user/mfa/totp', {
        auth: account.token,
        body: { secret, code: codeAt(secret, clock.now()) },
      });
      assert.equal(on.status, 200);
      clock.advance(STEP_MS);
      const good = codeAt(secret, clock.now());
      // A code of long ago: wrong now (checked against the steps around now, which the server accepts).
      let back = 20;
      const near = [-1, 0, 1].map((n) => codeAt(secret, clock.now() + n * STEP_MS));
      while (near.includes(codeAt(secret, clock.now() - back * STEP_MS))) back++;
      const wrong = codeAt(secret, clock.now() - back * STEP_MS);

      const { page, context, errors } = await openPage(browser(), server().url, look);
      const codes = await holdCodeRequests(page);
      const toCodeStep = async (username: string, password: string) => {
        await page.getByLabel(/^Username/).fill(username);
        await page.getByLabel(/^Password/).fill(password);
        await page.getByRole('button', { name: 'Sign in', exact: true }).click();
        await page.getByText('Enter the 6-digit code from your authenticator app.').waitFor();
      };
      await page.goto('/auth/login');
      await toCodeStep(account.username, account.password);
      await screenshot(page, `sign-in-code-step-${look.name}`);
      // Each box has a name of its own for a screen reader.
      assert.deepEqual(
        await page
          .getByRole('group', { name: 'Authentication code' })
          .locator('input')
          .evaluateAll((boxes) =>
            boxes.map((box) =>
              (box as unknown as { getAttribute(name: string): string | null }).getAttribute('aria-label'),
            ),
          ),
        ['Digit 1 of 6', 'Digit 2 of 6', 'Digit 3 of 6', 'Digit 4 of 6', 'Digit 5 of 6', 'Digit 6 of 6'],
      );

      // A wrong code goes by itself; Enter while it is on its way sends nothing more.
      await page.keyboard.type(wrong);
      await codes.made(1);
      await page.keyboard.press('Enter');
      await codes.release();
      await page.getByRole('alert').getByText('That code is not right').waitFor();
      assert.deepEqual(codes.sent, [wrong], `${look.name}: the wrong code was sent once`);
      assert.deepEqual(await codeBoxes(page), ['', '', '', '', '', ''], `${look.name}: the boxes are emptied`);
      // Enter once it was refused does not send it again either, and the refusal stays shown.
      await page.keyboard.press('Enter');
      await page.getByRole('alert').getByText('That code is not right').waitFor();
      await screenshot(page, `sign-in-code-refused-${look.name}`);

      // Back to the first step: empty fields, no code step left over; the other account signs in without a code.
      await page.getByRole('button', { name: 'Use another account' }).click();
      await page.getByLabel(/^Username/).waitFor();
      assert.equal(await page.getByLabel(/^Username/).inputValue(), '');
      assert.equal(await page.getByLabel(/^Password/).inputValue(), '');
      assert.equal(await page.getByText('Enter the 6-digit code from your authenticator app.').count(), 0);
      assert.equal(await page.getByRole('alert').count(), 0, `${look.name}: the refusal went with the code step`);
      await page.getByLabel(/^Username/).fill(other.username);
      await page.getByLabel(/^Password/).fill(other.password);
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      await page.waitForURL(/\/dashboard$/);
      const me = (await page.evaluate(() => fetch('/api/user').then((r) => r.json()))) as {
        user: { username: string };
      };
      assert.equal(me.user.username, other.username);
      await signOut(page);

      // The right code, with Enter pressed on top: sent once, and signed in.
      await toCodeStep(account.username, account.password);
      await page.keyboard.type(good);
      await codes.made(2);
      await page.keyboard.press('Enter');
      await codes.release();
      await page.waitForURL(/\/dashboard$/);
      assert.deepEqual(codes.sent, [wrong, good], `${look.name}: the right code was sent once`);
      const signedIn = (await page.evaluate(() => fetch('/api/user').then((r) => r.json()))) as {
        user: { username: string };
      };
      assert.equal(signedIn.user.username, account.username);

      assert.deepEqual(
        unexpected(errors, []).filter((e) => !/^http 4\d\d: POST \/api\/auth\/login$/.test(e)),
        [],
      );
      assert.equal(
        errors.filter((e) => /POST \/api\/auth\/login$/.test(e)).length,
        1,
        'only the wrong code was refused',
      );
      await context.close();
    }
  });
});
