// Signing in with an OpenID Connect provider from the dashboard, in a real browser against a real provider
// (oidc-provider) the test starts: the sign-in page's button registers and signs in a new user; a user with a
// password links the provider from the settings page and unlinks it again.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { DASHBOARD_ENV, describeBrowser, openPage, PHONE, screenshot, signIn, useBrowser } from '../support/browser.js';
import { makeAccount, NO_RATE_LIMIT, superadminOf } from '../support/factory.js';
import { startOidcProvider, type TestOidcProvider } from '../support/oidc-provider.js';
import { useTestServer } from '../support/server.js';

describeBrowser('dashboard: sign in with OpenID Connect', () => {
  const server = useTestServer({ engine: 'sqlite', env: { ...DASHBOARD_ENV, ...NO_RATE_LIMIT } });
  const browser = useBrowser();
  let provider: TestOidcProvider;

  before(async () => {
    const admin = await superadminOf(server());
    provider = await startOidcProvider([`${server().url}/api/auth/oauth/oidc`]);
    const res = await server().json('PATCH', '/api/server/settings', {
      auth: admin.token,
      body: {
        oauthRegistration: true,
        oauthOidcIssuer: provider.issuer,
        oauthOidcClientId: provider.clientId,
        oauthOidcClientSecret: provider.clientSecret,
      },
    });
    assert.equal(res.status, 200);
  });
  after(async () => {
    await provider?.close();
  });

  it('the sign-in page has a button for the provider, which registers and signs in a new user', async () => {
    provider.signInAs({ sub: 'browser-sub-1', preferred_username: 'sso-person' });
    const { page, context, errors } = await openPage(browser(), server().url);
    await page.goto('/auth/login');
    const button = page.getByRole('link', { name: 'Sign in with SSO' });
    await button.waitFor();
    await screenshot(page, 'login-with-sso');
    await button.click();
    await page.waitForURL(`${server().url}/dashboard`);
    await page.getByRole('heading', { name: 'Hello, sso-person' }).waitFor();
    // The visitor's 401 from GET /api/user before signing in is expected; nothing else may fail.
    assert.deepEqual(
      errors.filter((e) => e !== 'http 401: GET /api/user'),
      [],
    );
    await context.close();
  });

  it('a user links the provider from the settings page, signs in with it, and unlinks it', async () => {
    const account = await makeAccount(server(), { username: 'linker' });
    provider.signInAs({ sub: 'browser-sub-2', preferred_username: 'linker-at-idp' });
    const { page, context, errors } = await openPage(browser(), server().url, { viewport: PHONE });
    await signIn(page, account.username, account.password);
    await page.goto('/dashboard/settings?tab=linked');
    const row = page.getByTestId('linked-oidc');
    await row.getByText('Not linked').waitFor();
    await row.getByRole('link', { name: 'Link SSO' }).click();
    await page.waitForURL(`${server().url}/dashboard/settings`);
    await page.goto('/dashboard/settings?tab=linked');
    await row.getByText(/As linker-at-idp, since/).waitFor();
    await screenshot(page, 'settings-linked-accounts-phone');

    // Signed out, the provider's button signs in to the same account.
    await context.clearCookies();
    await page.goto('/auth/login');
    await page.getByRole('link', { name: 'Sign in with SSO' }).click();
    await page.waitForURL(`${server().url}/dashboard`);
    await page.getByRole('heading', { name: 'Hello, linker' }).waitFor();

    await page.goto('/dashboard/settings?tab=linked');
    await row.getByRole('button', { name: 'Unlink' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Unlink' }).click();
    await row.getByText('Not linked').waitFor();
    const me = await server().json('GET', '/api/user', { auth: await server().login('linker', account.password) });
    assert.deepEqual(me.body.user.oauthProviders, []);
    assert.deepEqual(
      errors.filter((e) => e !== 'http 401: GET /api/user'),
      [],
    );
    await context.close();
  });
});
