// Signing in with Discord, GitHub and Google, against a local server that answers like their OAuth 2 endpoints
// (configured through the environment variables of the endpoint settings): the code flow with PKCE, registration and
// login, and how each answer of a provider that goes wrong is told (6004-6007, 6009).
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { assertError } from '../../support/api-errors.js';
import { NO_RATE_LIMIT, superadminOf } from '../../support/factory.js';
import { startFakeOAuthProviders, type FakeOAuthProviders } from '../../support/fake-oauth-providers.js';
import { CookieBrowser } from '../../support/oauth-browser.js';
import { forEachDatabase, readJsonResponse, useTestServer } from '../../support/server.js';

const PROVIDERS = [
  { name: 'discord', kind: 'DISCORD' },
  { name: 'github', kind: 'GITHUB' },
  { name: 'google', kind: 'GOOGLE' },
] as const;

forEachDatabase('sign in with Discord, GitHub and Google', (engine) => {
  let fake: FakeOAuthProviders;
  before(async () => {
    fake = await startFakeOAuthProviders();
  });
  after(async () => {
    await fake?.close();
  });
  const server = useTestServer(() => ({
    engine,
    env: { ...NO_RATE_LIMIT, OAUTH_REGISTRATION: 'true', ...fake.env() },
  }));

  before(async () => {
    await superadminOf(server());
  });

  async function signIn(provider: string, account: { id: string; username: string }, accept = 'application/json') {
    fake.signInAs(account);
    const browser = new CookieBrowser(accept);
    const end = await browser.follow(`${server().url}/api/auth/oauth/${provider}`, server().url);
    return { ...end, browser };
  }

  it('offers the three providers configured through the environment', async () => {
    const info = await server().json('GET', '/api/server/public');
    assert.deepEqual(info.body.oauthProviders, ['DISCORD', 'GITHUB', 'GOOGLE']);
    const settings = await server().json('GET', '/api/server/settings', { auth: server().superadmin!.token });
    assert.equal(settings.body.settings.oauthDiscordTokenUrl, `${fake.url}/discord/token`);
    assert.ok(settings.body.locked.includes('oauthGithubClientId'));
  });

  for (const { name, kind } of PROVIDERS) {
    it(`${kind}: registers on the first sign-in with PKCE S256, then signs the same account in`, async () => {
      const start = await new CookieBrowser().get(`${server().url}/api/auth/oauth/${name}`);
      const to = new URL(start.headers.get('location')!);
      assert.equal(`${to.origin}${to.pathname}`, `${fake.url}/${name}/authorize`);
      assert.equal(to.searchParams.get('code_challenge_method'), 'S256');
      assert.equal(to.searchParams.get('client_id'), fake.clientId);
      assert.equal(to.searchParams.get('redirect_uri'), `${server().url}/api/auth/oauth/${name}`);

      const account = { id: `4242${PROVIDERS.findIndex((p) => p.name === name)}`, username: `${name}-person` };
      const first = await signIn(name, account);
      assert.equal(first.location, '/dashboard');
      assert.ok(fake.tokenRequests.at(-1)?.get('code_verifier'), 'the token request carried the PKCE verifier');
      const cookie = `chute_session=${first.browser.cookie(server().url, 'chute_session')}`;
      const me = (await server().json('GET', '/api/user', { auth: cookie })).body.user;
      assert.equal(me.username, `${name}-person`);
      assert.deepEqual(
        me.oauthProviders.map((p: { provider: string; oauthId: string }) => [p.provider, p.oauthId]),
        [[kind, account.id]],
      );
      const row = await server()
        .ctx.db.selectFrom('oauth_providers')
        .selectAll()
        .where('oauth_id', '=', account.id)
        .where('provider', '=', kind)
        .executeTakeFirstOrThrow();
      assert.match(server().ctx.secrets.decrypt(row.access_token!), /^at-/, 'the access token is stored encrypted');
      assert.doesNotMatch(row.access_token!, /^at-/);
      if (kind === 'GITHUB') assert.equal(row.refresh_token, null);
      else assert.match(server().ctx.secrets.decrypt(row.refresh_token!), /^rt-/);

      const again = await signIn(name, account);
      assert.equal(again.location, '/dashboard');
      const cookie2 = `chute_session=${again.browser.cookie(server().url, 'chute_session')}`;
      assert.equal((await server().json('GET', '/api/user', { auth: cookie2 })).body.user.id, me.id);
    });
  }

  it('6004 when the token endpoint fails, or GitHub answers an error in a 200', async () => {
    fake.failNext('token-http-error');
    const res = await readJsonResponse((await signIn('discord', { id: '5001', username: 'x1' })).response);
    assertError(res, 500, 6004);
    assert.match(res.body.error, /answered 502/);
    fake.failNext('token-error-in-body');
    assertError(await readJsonResponse((await signIn('github', { id: '5002', username: 'x2' })).response), 500, 6004);
  });

  it('6005 when the token answer has no access token', async () => {
    fake.failNext('no-access-token');
    assertError(await readJsonResponse((await signIn('google', { id: '5003', username: 'x3' })).response), 500, 6005);
  });

  it('6006 when Discord answers without its refresh token', async () => {
    fake.failNext('no-refresh-token');
    assertError(await readJsonResponse((await signIn('discord', { id: '5004', username: 'x4' })).response), 500, 6006);
  });

  it('6007 when the user endpoint fails, as a page for a browser', async () => {
    fake.failNext('user-http-error');
    assertError(await readJsonResponse((await signIn('github', { id: '5005', username: 'x5' })).response), 500, 6007);
    fake.failNext('user-http-error');
    const page = await signIn('discord', { id: '5006', username: 'x6' }, 'text/html');
    assert.equal(page.response.status, 500);
    const text = await page.response.text();
    assert.match(text, /could not be read from Discord/);
    assert.match(text, /error 6007/);
  });

  it('6009 when the profile has no username to name the account after', async () => {
    const res = await readJsonResponse((await signIn('discord', { id: '5007', username: '' })).response);
    assertError(res, 500, 6009);
  });

  it('refuses a code meant for another provider (6004), so a code cannot be replayed across them', async () => {
    fake.signInAs({ id: '5008', username: 'x8' });
    const browser = new CookieBrowser('application/json');
    const end = await browser.follow(`${server().url}/api/auth/oauth/google`, server().url, {
      rewrite: async (url) => {
        if (url.origin === server().url && url.searchParams.has('code')) {
          // Start a GitHub flow in the same browser and bring Google's code to GitHub's callback.
          const started = await browser.get(`${server().url}/api/auth/oauth/github`);
          const state = new URL(started.headers.get('location')!).searchParams.get('state')!;
          const moved = new URL(`${server().url}/api/auth/oauth/github`);
          moved.searchParams.set('code', url.searchParams.get('code')!);
          moved.searchParams.set('state', state);
          return moved;
        }
        return url;
      },
    });
    assertError(await readJsonResponse(end.response), 500, 6004);
  });
});
