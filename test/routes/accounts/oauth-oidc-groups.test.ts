// Roles and access from the OpenID Connect provider's groups (issue 47, item 3), against a real provider
// (oidc-provider) whose accounts carry groups: oauthOidcAllowedGroups refuses non-members with a page that says so,
// oauthOidcAdminGroups promotes and demotes at each sign-in, a missing or malformed claim grants nothing, a dotted
// path reads nested claims, and a SUPERADMIN is never demoted.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { assertError } from '../../support/api-errors.js';
import { NO_RATE_LIMIT, superadminOf } from '../../support/factory.js';
import { CookieBrowser, type FlowEnd } from '../../support/oauth-browser.js';
import { startOidcProvider, type OidcAccount, type TestOidcProvider } from '../../support/oidc-provider.js';
import { forEachDatabase, readJsonResponse, useTestServer } from '../../support/server.js';

const JSON_ACCEPT = 'application/json';

forEachDatabase('roles from the OpenID Connect groups claim', (engine) => {
  const server = useTestServer({ engine, env: NO_RATE_LIMIT });
  let provider: TestOidcProvider;
  let idTokenProvider: TestOidcProvider;
  let admin: string;

  before(async () => {
    admin = (await superadminOf(server())).token;
    const redirect = [`${server().url}/api/auth/oauth/oidc`];
    provider = await startOidcProvider(redirect);
    idTokenProvider = await startOidcProvider(redirect, { groupsInIdToken: true });
    await useProvider(provider);
    await configure({ oauthRegistration: true, oauthOidcScopes: 'openid profile email groups' });
  });
  after(async () => {
    await provider?.close();
    await idTokenProvider?.close();
  });

  async function configure(settings: Record<string, unknown>): Promise<void> {
    const res = await server().json('PATCH', '/api/server/settings', { auth: admin, body: settings });
    assert.equal(res.status, 200, JSON.stringify(res.body));
  }

  async function useProvider(p: TestOidcProvider): Promise<void> {
    await configure({
      oauthOidcIssuer: p.issuer,
      oauthOidcClientId: p.clientId,
      oauthOidcClientSecret: p.clientSecret,
    });
  }

  async function signIn(
    account: OidcAccount,
    options: { accept?: string; browser?: CookieBrowser; start?: string; at?: TestOidcProvider } = {},
  ): Promise<FlowEnd & { browser: CookieBrowser }> {
    const browser = options.browser ?? new CookieBrowser(options.accept);
    (options.at ?? provider).signInAs(account);
    const end = await browser.follow(
      `${server().url}${options.start ?? '/api/auth/oauth/oidc'}`,
      server().url,
      options,
    );
    return { ...end, browser };
  }

  async function roleAfterSignIn(account: OidcAccount, at?: TestOidcProvider): Promise<string> {
    const end = await signIn(account, at ? { at } : {});
    assert.equal(end.location, '/dashboard', `${account.sub} signed in`);
    const cookie = end.browser.cookie(server().url, 'chute_session')!;
    const me = await server().json('GET', '/api/user', { auth: `chute_session=${cookie}` });
    return me.body.user.role;
  }

  async function accountExists(username: string): Promise<boolean> {
    const row = await server()
      .ctx.db.selectFrom('users')
      .select('id')
      .where('username', '=', username)
      .executeTakeFirst();
    return row !== undefined;
  }

  it('defaults to the claim "groups" and no group rules: everyone signs in as before', async () => {
    const settings = await server().json('GET', '/api/server/settings', { auth: admin });
    assert.equal(settings.body.settings.oauthOidcGroupsClaim, 'groups');
    assert.deepEqual(settings.body.settings.oauthOidcAllowedGroups, []);
    assert.deepEqual(settings.body.settings.oauthOidcAdminGroups, []);
    assert.equal(await roleAfterSignIn({ sub: 'g-plain', preferred_username: 'g-plain' }), 'USER');
  });

  it('with allowed groups, lets members sign in and register, and refuses the others with a page', async () => {
    await configure({ oauthOidcAllowedGroups: ['staff', 'students'] });
    assert.equal(
      await roleAfterSignIn({ sub: 'g-member', preferred_username: 'g-member', groups: ['students'] }),
      'USER',
    );

    const refused = await signIn({ sub: 'g-outsider', preferred_username: 'g-outsider', groups: ['visitors'] });
    assert.equal(refused.response.status, 403);
    const text = await refused.response.text();
    assert.match(text, /not in a group that may use this server/);
    assert.match(text, /error 3017/);
    assert.match(text, /href="\/auth\/login"/);
    assert.equal(refused.browser.cookie(server().url, 'chute_session'), undefined, 'no session');
    assert.equal(await accountExists('g-outsider'), false, 'no account was registered');

    const api = await signIn(
      { sub: 'g-outsider', preferred_username: 'g-outsider', groups: ['visitors'] },
      { accept: JSON_ACCEPT },
    );
    const body = await readJsonResponse(api.response);
    assertError(body, 403, 3017);
    assert.equal(body.body.reason, 'not-in-allowed-groups');
  });

  it('refuses an existing linked account that left the allowed groups', async () => {
    assert.equal(await roleAfterSignIn({ sub: 'g-leaver', preferred_username: 'g-leaver', groups: ['staff'] }), 'USER');
    const again = await signIn({ sub: 'g-leaver', groups: ['alumni'] }, { accept: JSON_ACCEPT });
    assertError(await readJsonResponse(again.response), 403, 3017);
  });

  it('treats a missing or malformed claim as no group at all', async () => {
    const malformed: unknown[] = [
      undefined,
      42,
      'staff,students extra',
      { staff: true },
      [1, 'staff'],
      [['staff']],
      null,
    ];
    for (const [i, groups] of malformed.entries()) {
      const account: OidcAccount = { sub: `g-bad-${i}`, preferred_username: `g-bad-${i}` };
      if (groups !== undefined) account.groups = groups;
      const end = await signIn(account, { accept: JSON_ACCEPT });
      assertError(await readJsonResponse(end.response), 403, 3017);
      assert.equal(await accountExists(`g-bad-${i}`), false, `groups ${JSON.stringify(groups)} let nobody in`);
    }
    await configure({ oauthOidcAllowedGroups: [] });
  });

  it('makes members of the admin groups ADMIN, and demotes them when they leave', async () => {
    await configure({ oauthOidcAdminGroups: ['chute-admins'] });
    const ada = { sub: 'g-ada', preferred_username: 'g-ada' };
    assert.equal(await roleAfterSignIn({ ...ada, groups: ['chute-admins', 'staff'] }), 'ADMIN', 'registered as ADMIN');
    assert.equal(await roleAfterSignIn({ ...ada, groups: ['staff'] }), 'USER', 'demoted after leaving');
    assert.equal(await roleAfterSignIn({ ...ada, groups: 'chute-admins' }), 'ADMIN', 'a single string is one group');
    assert.equal(await roleAfterSignIn(ada), 'USER', 'a missing claim grants nothing');
    assert.equal(await roleAfterSignIn({ ...ada, groups: ['chute-admins'] }), 'ADMIN');
    assert.equal(await roleAfterSignIn({ ...ada, groups: [7] }), 'USER', 'a malformed claim grants nothing');
    assert.equal(await roleAfterSignIn({ ...ada, groups: ['Chute-Admins'] }), 'USER', 'names are compared exactly');
  });

  it('promotes a USER who was made by hand, at their next OIDC sign-in', async () => {
    assert.equal(await roleAfterSignIn({ sub: 'g-bob', preferred_username: 'g-bob' }), 'USER');
    assert.equal(await roleAfterSignIn({ sub: 'g-bob', groups: ['chute-admins'] }), 'ADMIN');
  });

  it('never demotes a SUPERADMIN', async () => {
    const owner = await superadminOf(server());
    const browser = new CookieBrowser();
    browser.setCookie(server().url, owner.cookie);
    const linked = await signIn({ sub: 'g-owner' }, { browser, start: '/api/auth/oauth/oidc?state=link' });
    assert.equal(linked.location, '/dashboard/settings');
    assert.equal(await roleAfterSignIn({ sub: 'g-owner', groups: [] }), 'SUPERADMIN');
    assert.equal(await roleAfterSignIn({ sub: 'g-owner', groups: ['chute-admins'] }), 'SUPERADMIN');
  });

  it('reads a dotted path (Keycloak realm roles), from the userinfo answer or the ID token', async () => {
    await configure({ oauthOidcGroupsClaim: 'realm_access.roles', oauthOidcAllowedGroups: ['chute'] });
    const kc = { sub: 'g-kc', preferred_username: 'g-kc', groups: ['chute-admins'] };
    assert.equal(await roleAfterSignIn({ ...kc, realm_access: { roles: ['chute', 'chute-admins'] } }), 'ADMIN');
    assert.equal(await roleAfterSignIn({ ...kc, realm_access: { roles: ['chute'] } }), 'USER', 'groups is not read');
    const flat = await signIn({ ...kc, realm_access: ['chute'] }, { accept: JSON_ACCEPT });
    assertError(await readJsonResponse(flat.response), 403, 3017);

    await useProvider(idTokenProvider);
    const viaIdToken = {
      sub: 'g-kc-2',
      preferred_username: 'g-kc-2',
      realm_access: { roles: ['chute', 'chute-admins'] },
    };
    assert.equal(await roleAfterSignIn(viaIdToken, idTokenProvider), 'ADMIN');
    const outsider = await signIn(
      { sub: 'g-kc-3', realm_access: { roles: ['other'] } },
      { accept: JSON_ACCEPT, at: idTokenProvider },
    );
    assertError(await readJsonResponse(outsider.response), 403, 3017);
    await useProvider(provider);
    await configure({ oauthOidcGroupsClaim: 'groups', oauthOidcAllowedGroups: [], oauthOidcAdminGroups: [] });
  });
});
