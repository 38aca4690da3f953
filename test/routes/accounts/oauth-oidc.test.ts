// Signing in with OpenID Connect against a real provider (oidc-provider) that the test starts: registration, login,
// linking and unlinking, and each way a flow fails (state, expiry, a tampered ID token, a provider that is down).
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { ManualClock } from '../../../src/lib/clock.js';
import { assertError } from '../../support/api-errors.js';
import { makeUser, NO_RATE_LIMIT, superadminOf } from '../../support/factory.js';
import { CookieBrowser, type FlowEnd } from '../../support/oauth-browser.js';
import { startOidcProvider, type TestOidcProvider } from '../../support/oidc-provider.js';
import { forEachDatabase, readJsonResponse, useTestServer, type TestServer } from '../../support/server.js';

const JSON_ACCEPT = 'application/json';

forEachDatabase('sign in with OpenID Connect', (engine) => {
  const clock = new ManualClock();
  const server = useTestServer({ engine, clock, env: NO_RATE_LIMIT });
  let provider: TestOidcProvider;
  let admin: string;

  before(async () => {
    admin = (await superadminOf(server())).token;
    provider = await startOidcProvider([`${server().url}/api/auth/oauth/oidc`]);
  });
  after(async () => {
    await provider?.close();
  });

  async function configure(settings: Record<string, unknown>): Promise<void> {
    const res = await server().json('PATCH', '/api/server/settings', { auth: admin, body: settings });
    assert.equal(res.status, 200, JSON.stringify(res.body));
  }

  /** One whole flow in a fresh browser (or `browser`), signing in at the provider as `account`. */
  async function signIn(
    account: { sub: string; preferred_username?: string; email?: string },
    options: {
      browser?: CookieBrowser;
      start?: string;
      accept?: string;
      rewrite?: (url: URL) => URL | Promise<URL>;
    } = {},
  ): Promise<FlowEnd & { browser: CookieBrowser }> {
    const browser = options.browser ?? new CookieBrowser();
    provider.signInAs(account);
    const end = await browser.follow(
      `${server().url}${options.start ?? '/api/auth/oauth/oidc'}`,
      server().url,
      options,
    );
    return { ...end, browser };
  }

  async function me(browser: CookieBrowser, s: TestServer = server()) {
    const cookie = browser.cookie(s.url, 'chute_session');
    assert.ok(cookie, 'a session cookie was set');
    return s.json('GET', '/api/user', { auth: `chute_session=${cookie}` });
  }

  it('answers 2003 while OIDC is not configured, and offers no button', async () => {
    const res = await readJsonResponse(await new CookieBrowser(JSON_ACCEPT).get(`${server().url}/api/auth/oauth/oidc`));
    assertError(res, 401, 2003);
    const info = await server().json('GET', '/api/server/public');
    assert.deepEqual(info.body.oauthProviders, []);
    await configure({
      oauthOidcIssuer: provider.issuer,
      oauthOidcClientId: provider.clientId,
      oauthOidcClientSecret: provider.clientSecret,
    });
    const configured = await server().json('GET', '/api/server/public');
    assert.deepEqual(configured.body.oauthProviders, ['OIDC']);
  });

  it('starts with PKCE S256, a state and a nonce, bound to the browser by an expiring cookie', async () => {
    const browser = new CookieBrowser();
    const res = await browser.get(`${server().url}/api/auth/oauth/oidc`);
    assert.equal(res.status, 302);
    const to = new URL(res.headers.get('location')!);
    assert.equal(to.origin, provider.issuer);
    assert.equal(to.searchParams.get('code_challenge_method'), 'S256');
    assert.match(to.searchParams.get('code_challenge') ?? '', /^[\w-]{43}$/);
    assert.ok(to.searchParams.get('state'));
    assert.ok(to.searchParams.get('nonce'));
    assert.equal(to.searchParams.get('redirect_uri'), `${server().url}/api/auth/oauth/oidc`);
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith('chute_oauth_flow='))!;
    assert.match(cookie, /HttpOnly/i);
    assert.match(cookie, /Max-Age=600/i);
    assert.match(cookie, /SameSite=Lax/i);
  });

  it('refuses a first sign-in while oauthRegistration is off (3016), as a page for browsers', async () => {
    const page = await signIn({ sub: 'nobody-1', preferred_username: 'nobody' });
    assert.equal(page.response.status, 403);
    assert.match(page.response.headers.get('content-type') ?? '', /text\/html/);
    const text = await page.response.text();
    assert.match(text, /does not create accounts/);
    assert.match(text, /href="\/auth\/login"/, 'the page leads back to the sign-in page');
    assert.doesNotMatch(text, /at \w+ \(|node:internal|\.ts:\d+/, 'no stack trace on the page');
    const api = await signIn({ sub: 'nobody-1', preferred_username: 'nobody' }, { accept: JSON_ACCEPT });
    assertError(await readJsonResponse(api.response), 403, 3016);
  });

  it('registers a new user on the first sign-in when oauthRegistration is on, and signs them in later', async () => {
    await configure({ oauthRegistration: true });
    const first = await signIn({ sub: 'sub-ada', preferred_username: 'ada', email: 'ada@example.test' });
    assert.equal(first.location, '/dashboard');
    const user = (await me(first.browser)).body.user;
    assert.equal(user.username, 'ada');
    assert.equal(user.role, 'USER');
    assert.equal(user.oauthProviders.length, 1);
    const link = user.oauthProviders[0];
    assert.deepEqual(Object.keys(link).sort(), [
      'createdAt',
      'id',
      'oauthId',
      'provider',
      'updatedAt',
      'userId',
      'username',
    ]);
    assert.equal(link.provider, 'OIDC');
    assert.equal(link.oauthId, 'sub-ada');
    assert.equal(link.username, 'ada');
    assert.equal(link.userId, user.id);
    assert.equal(first.browser.cookie(server().url, 'chute_oauth_flow'), undefined, 'the flow cookie is dropped');

    const again = await signIn({ sub: 'sub-ada', preferred_username: 'ada' });
    assert.equal(again.location, '/dashboard');
    assert.equal((await me(again.browser)).body.user.id, user.id, 'the same account signs in');
  });

  it('keeps the access token encrypted at rest', async () => {
    const row = await server()
      .ctx.db.selectFrom('oauth_providers')
      .select(['access_token', 'refresh_token'])
      .where('oauth_id', '=', 'sub-ada')
      .executeTakeFirstOrThrow();
    assert.ok(row.access_token);
    const clear = server().ctx.secrets.decrypt(row.access_token);
    assert.ok(clear.length > 0);
    assert.ok(!row.access_token.includes(clear), 'what is stored is not the token');
  });

  it('refuses a username another account has (6010) and a profile without any name (6009)', async () => {
    await makeUser(server(), { username: 'grace' });
    const taken = await signIn({ sub: 'sub-grace', preferred_username: 'grace' }, { accept: JSON_ACCEPT });
    assertError(await readJsonResponse(taken.response), 500, 6010);
    const nameless = await signIn({ sub: 'sub-nameless' }, { accept: JSON_ACCEPT });
    assertError(await readJsonResponse(nameless.response), 500, 6009);
  });

  it('refuses the same name in another case (6010) and a name with invisible characters (6009); trims', async () => {
    await makeUser(server(), { username: 'hopper' });
    const twin = await signIn({ sub: 'sub-hopper', preferred_username: 'Hopper' }, { accept: JSON_ACCEPT });
    assertError(await readJsonResponse(twin.response), 500, 6010);
    const hidden = await signIn({ sub: 'sub-hidden', preferred_username: 'hop\u200Bper' }, { accept: JSON_ACCEPT });
    assertError(await readJsonResponse(hidden.response), 500, 6009);
    const spaced = await signIn({ sub: 'sub-spaced', preferred_username: 'Spaced\u3000' });
    assert.equal((await me(spaced.browser)).body.user.username, 'Spaced');
  });

  it('links the provider to the signed-in account, once (1063), and not to a second account (3017)', async () => {
    const linda = await makeUser(server(), { username: 'linda' });
    const browser = new CookieBrowser();
    browser.setCookie(server().url, linda.cookie);
    const linked = await signIn(
      { sub: 'sub-linda', preferred_username: 'linda-at-idp' },
      { browser, start: '/api/auth/oauth/oidc?state=link' },
    );
    assert.equal(linked.location, '/dashboard/settings');
    const user = (await me(browser)).body.user;
    assert.equal(user.id, linda.id);
    assert.deepEqual(
      user.oauthProviders.map((p: { provider: string; oauthId: string; username: string }) => [
        p.provider,
        p.oauthId,
        p.username,
      ]),
      [['OIDC', 'sub-linda', 'linda-at-idp']],
    );
    const list = await server().json('GET', '/api/auth/oauth', { auth: linda.token });
    assert.equal(list.body.length, 1);

    const twice = await signIn(
      { sub: 'sub-linda-2' },
      { browser, start: '/api/auth/oauth/oidc?state=link', accept: JSON_ACCEPT },
    );
    assertError(await readJsonResponse(twice.response), 400, 1063);
    const twicePage = await signIn({ sub: 'sub-linda-2' }, { browser, start: '/api/auth/oauth/oidc?state=link' });
    assert.equal(twicePage.response.status, 400);
    const twiceText = await twicePage.response.text();
    assert.match(twiceText, /already linked to your identity provider/);
    assert.match(twiceText, /href="\/dashboard\/settings"/, 'the page leads back to the settings');

    const other = await makeUser(server(), { username: 'otto' });
    const otherBrowser = new CookieBrowser();
    otherBrowser.setCookie(server().url, other.cookie);
    const stolen = await signIn(
      { sub: 'sub-linda' },
      { browser: otherBrowser, start: '/api/auth/oauth/oidc?state=link', accept: JSON_ACCEPT },
    );
    assertError(await readJsonResponse(stolen.response), 403, 3017);

    const signedIn = await signIn({ sub: 'sub-linda' });
    assert.equal(signedIn.location, '/dashboard');
    assert.equal((await me(signedIn.browser)).body.user.id, linda.id, 'the linked identity signs in to linda');
  });

  it('needs a signed-in browser to link (2002)', async () => {
    const res = await readJsonResponse(
      await new CookieBrowser(JSON_ACCEPT).get(`${server().url}/api/auth/oauth/oidc?state=link`),
    );
    assertError(res, 401, 2002);
  });

  it('unlinks (1030 when there is no link; 1043 for the last way in of an account without a password)', async () => {
    const linda = await makeUser(server(), { username: 'linda-2' });
    const browser = new CookieBrowser();
    browser.setCookie(server().url, linda.cookie);
    await signIn({ sub: 'sub-linda-b' }, { browser, start: '/api/auth/oauth/oidc?state=link' });
    const removed = await server().json('DELETE', '/api/auth/oauth', { auth: linda.token, body: { provider: 'OIDC' } });
    assert.equal(removed.status, 200);
    assert.deepEqual(removed.body, []);
    assertError(
      await server().json('DELETE', '/api/auth/oauth', { auth: linda.token, body: { provider: 'OIDC' } }),
      400,
      1030,
    );

    const ada = await signIn({ sub: 'sub-ada' });
    const adaToken = (await me(ada.browser)).body.token;
    assertError(
      await server().json('DELETE', '/api/auth/oauth', { auth: adaToken, body: { provider: 'OIDC' } }),
      400,
      1043,
    );
    assertError(
      await server().json('DELETE', '/api/auth/oauth', { auth: adaToken, body: { provider: 'NOPE' } }),
      400,
      1000,
    );
  });

  it("takes the extra parameters providers add to the callback (Keycloak's session_state)", async () => {
    const end = await signIn(
      { sub: 'sub-ada' },
      {
        rewrite: (url) => {
          if (url.origin === server().url && url.searchParams.has('code')) url.searchParams.set('session_state', 'ks');
          return url;
        },
      },
    );
    assert.equal(end.location, '/dashboard');
  });

  it('refuses a state that does not match the browser, or a callback without the flow cookie (1064)', async () => {
    const wrong = await signIn(
      { sub: 'sub-ada' },
      {
        accept: JSON_ACCEPT,
        rewrite: (url) => {
          if (url.origin === server().url && url.searchParams.has('code'))
            url.searchParams.set('state', 'forged-state');
          return url;
        },
      },
    );
    assertError(await readJsonResponse(wrong.response), 400, 1064);

    // The provider's redirect arrives in another browser (no flow cookie there).
    const browser = new CookieBrowser(JSON_ACCEPT);
    let callback: URL | undefined;
    await signIn(
      { sub: 'sub-ada' },
      {
        browser,
        accept: JSON_ACCEPT,
        rewrite: (url) => {
          if (url.origin === server().url && url.searchParams.has('code')) {
            callback = new URL(url);
            url.searchParams.delete('code');
            url.searchParams.set('error', 'stopped-by-test');
          }
          return url;
        },
      },
    );
    assert.ok(callback);
    const elsewhere = await new CookieBrowser(JSON_ACCEPT).get(callback.href);
    assertError(await readJsonResponse(elsewhere), 400, 1064);
  });

  it('refuses a flow that took longer than ten minutes (1064)', async () => {
    const expired = await signIn(
      { sub: 'sub-ada' },
      {
        accept: JSON_ACCEPT,
        rewrite: (url) => {
          if (url.origin === server().url && url.searchParams.has('code')) clock.advance(11 * 60_000);
          return url;
        },
      },
    );
    const res = await readJsonResponse(expired.response);
    assertError(res, 400, 1064);
    assert.match(res.body.error, /expired/);
  });

  it('says so when the person refused at the provider (6008)', async () => {
    const refused = await signIn(
      { sub: 'sub-ada' },
      {
        rewrite: (url) => {
          if (url.origin === server().url && url.searchParams.has('code')) {
            url.searchParams.delete('code');
            url.searchParams.set('error', 'access_denied');
          }
          return url;
        },
      },
    );
    assert.equal(refused.response.status, 500);
    assert.match(await refused.response.text(), /could not be reached, or it refused the sign-in/);
  });

  it('refuses an ID token whose signature does not verify against the JWKS (6004)', async () => {
    provider.tamperIdTokens = true;
    try {
      const tampered = await signIn({ sub: 'sub-ada' }, { accept: JSON_ACCEPT });
      const res = await readJsonResponse(tampered.response);
      assertError(res, 500, 6004);
      assert.equal(tampered.browser.cookie(server().url, 'chute_session'), undefined, 'nobody is signed in');
      const page = await signIn({ sub: 'sub-ada' });
      assert.equal(page.response.status, 500);
      assert.match(await page.response.text(), /did not confirm the sign-in/);
    } finally {
      provider.tamperIdTokens = false;
    }
  });

  it('answers 6008 while the provider is down, and works again once it is back', async () => {
    await provider.goDown();
    try {
      const res = await readJsonResponse(
        await new CookieBrowser(JSON_ACCEPT).get(`${server().url}/api/auth/oauth/oidc`),
      );
      assertError(res, 500, 6008);
      const page = await new CookieBrowser().get(`${server().url}/api/auth/oauth/oidc`);
      assert.equal(page.status, 500);
      const text = await page.text();
      assert.match(text, /could not be reached/);
      assert.doesNotMatch(text, /ECONNREFUSED|at \w+ \(/, 'the details stay in the log');
    } finally {
      await provider.comeBack();
    }
    const back = await signIn({ sub: 'sub-ada' });
    assert.equal(back.location, '/dashboard');
  });
});
