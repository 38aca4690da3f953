import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { forEachDatabase, useTestServer, type TestUser } from '../../support/server.js';
import { makeUser } from '../../support/factory.js';
import { PNG_1X1 } from '../../support/fixtures.js';

const USER_FIELDS = [
  'id',
  'username',
  'createdAt',
  'updatedAt',
  'role',
  'view',
  'sessions',
  'oauthProviders',
  'totpEnabled',
];

forEachDatabase('GET/PATCH /api/user', (engine) => {
  const server = useTestServer({ engine });
  let admin: TestUser;
  before(async () => {
    admin = await server().setup('carol', 'first-password');
  });

  it('shows the user in the spec shape with the API token, and nothing secret', async () => {
    const res = await server().json('GET', '/api/user', { auth: admin.token });
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(res.body).sort(), ['token', 'user']);
    const user = res.body.user;
    for (const field of USER_FIELDS) assert.ok(field in user, `missing ${field}`);
    assert.equal(user.username, 'carol');
    assert.deepEqual(user.view, {});
    assert.deepEqual(user.passkeys, []);
    assert.equal(user.quota, null);
    assert.equal(user.avatar, null);
    assert.ok(!Number.isNaN(Date.parse(user.createdAt)));
    for (const session of user.sessions) {
      assert.deepEqual(Object.keys(session).sort(), ['client', 'createdAt', 'device', 'id', 'ua', 'userId']);
    }
    assert.equal(res.body.token, admin.token);
    const text = JSON.stringify(res.body);
    for (const secret of ['password', 'token_hash', 'tokenHash', 'totpSecret', 'totp_secret', 'argon2']) {
      assert.ok(!text.includes(secret), `response carries ${secret}`);
    }
  });

  it('merges view settings property by property and leaves missing properties alone', async () => {
    let res = await server().json('PATCH', '/api/user', {
      auth: admin.token,
      body: { view: { embed: true, embedTitle: 'Mine' } },
    });
    assert.equal(res.status, 200);
    res = await server().json('PATCH', '/api/user', {
      auth: admin.token,
      body: { view: { align: 'center', embedTitle: null } },
    });
    assert.deepEqual(res.body.user.view, { embed: true, embedTitle: null, align: 'center' });
    assert.equal(res.body.user.username, 'carol');
    res = await server().json('PATCH', '/api/user', { auth: admin.token, body: {} });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.user.view, { embed: true, embedTitle: null, align: 'center' });
  });

  it('refuses invalid properties with 400 naming them, and changes nothing', async () => {
    const res = await server().json('PATCH', '/api/user', {
      auth: admin.token,
      body: { username: 'carla', view: { align: 'diagonal' } },
    });
    assert.equal(res.status, 400);
    assert.equal(res.body.code, 1000);
    assert.deepEqual(
      res.body.issues.map((i: { path: string }) => i.path),
      ['body.view.align'],
    );
    const me = await server().json('GET', '/api/user', { auth: admin.token });
    assert.equal(me.body.user.username, 'carol');
  });

  it('renames; a username taken by another user -> 400 / 1038', async () => {
    const { insertUser } = await import('../../../src/services/accounts/account.js');
    await insertUser(server().ctx, server().ctx.db, { username: 'dave', passwordHash: null, role: 'USER' });
    const taken = await server().json('PATCH', '/api/user', { auth: admin.token, body: { username: 'dave' } });
    assert.equal(taken.status, 400);
    assert.equal(taken.body.code, 1038);
    const same = await server().json('PATCH', '/api/user', { auth: admin.token, body: { username: 'carol' } });
    assert.equal(same.status, 200, 'keeping your own name is not a conflict');
    const renamed = await server().json('PATCH', '/api/user', { auth: admin.token, body: { username: 'caroline' } });
    assert.equal(renamed.body.user.username, 'caroline');
    await server().json('PATCH', '/api/user', { auth: admin.token, body: { username: 'carol' } });
  });

  // The password tests change an account's password: each has an account of its own.
  it('changes the password; the current password is checked when given', async () => {
    const me = await makeUser(server());
    const wrong = await server().json('PATCH', '/api/user', {
      auth: me.token,
      body: { password: 'second-password', currentPassword: 'not-it' },
    });
    assert.equal(wrong.status, 400);
    assert.equal(wrong.body.code, 1066);
    const ok = await server().json('PATCH', '/api/user', {
      auth: me.token,
      body: { password: 'second-password', currentPassword: me.password },
    });
    assert.equal(ok.status, 200);
    const oldLogin = await server().json('POST', '/api/auth/login', {
      body: { username: me.username, password: me.password },
    });
    assert.equal(oldLogin.body.code, 1044);
    await server().login(me.username, 'second-password');
  });

  it('a new password signs out every other session and replaces the API token; the session that changed it stays', async () => {
    const me = await makeUser(server());
    const password = me.password;
    const here = await server().login(me.username, password);
    const elsewhere = await server().login(me.username, password);
    const changed = await server().json('PATCH', '/api/user', {
      auth: here,
      body: { password: 'third-password', currentPassword: password },
    });
    assert.equal(changed.status, 200);
    assert.equal((await server().json('GET', '/api/user', { auth: here })).status, 200);
    const signedOut = await server().json('GET', '/api/user', { auth: elsewhere });
    assert.equal(signedOut.status, 401);
    assert.equal((await server().json('GET', '/api/user', { auth: me.token })).status, 401);
    const newToken: string = changed.body.token;
    assert.notEqual(newToken, me.token);
    assert.equal((await server().json('GET', '/api/user', { auth: newToken })).status, 200);
    // Through the token there is no session of the caller's own: every session goes, and the token is replaced.
    const again = await server().json('PATCH', '/api/user', { auth: newToken, body: { password } });
    assert.equal(again.status, 200);
    assert.equal((await server().json('GET', '/api/user', { auth: newToken })).status, 401);
    const token: string = again.body.token;
    assert.equal((await server().json('GET', '/api/user', { auth: here })).status, 401);
    // Other changes leave sessions alone.
    const session = await server().login(me.username, password);
    await server().json('PATCH', '/api/user', { auth: token, body: { view: { embed: true } } });
    assert.equal((await server().json('GET', '/api/user', { auth: session })).status, 200);
  });

  it('sets an avatar from base64, refuses non-images, removes it with null', async () => {
    const set = await server().json('PATCH', '/api/user', { auth: admin.token, body: { avatar: PNG_1X1 } });
    assert.equal(set.status, 200);
    assert.equal(set.body.user.avatar, `data:image/png;base64,${PNG_1X1}`);
    const html = Buffer.from('<html><script>alert(1)</script></html>').toString('base64');
    const bad = await server().json('PATCH', '/api/user', { auth: admin.token, body: { avatar: html } });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.code, 1000);
    assert.match(bad.body.error, /avatar/);
    const kept = await server().json('GET', '/api/user', { auth: admin.token });
    assert.equal(kept.body.user.avatar, `data:image/png;base64,${PNG_1X1}`);
    const removed = await server().json('PATCH', '/api/user', { auth: admin.token, body: { avatar: null } });
    assert.equal(removed.body.user.avatar, null);
  });
});

forEachDatabase('API token and sessions', (engine) => {
  const server = useTestServer({ engine });
  let admin: TestUser;
  before(async () => {
    admin = await server().setup('erin', 'pw-long-enough');
  });

  it('shows the token and regenerates it; the old one stops working at once', async () => {
    const shown = await server().json('GET', '/api/user/token', { auth: admin.cookie });
    assert.deepEqual(shown.body, { token: admin.token });
    const regenerated = await server().json('PATCH', '/api/user/token', { auth: admin.cookie });
    assert.equal(regenerated.status, 200);
    const fresh = regenerated.body.token;
    assert.notEqual(fresh, admin.token);
    assert.equal(regenerated.body.user.username, 'erin');
    assert.equal((await server().json('GET', '/api/user', { auth: admin.token })).body.code, 2001);
    assert.equal((await server().json('GET', '/api/user', { auth: fresh })).status, 200);
    admin.token = fresh;
  });

  it('lists the current session and the others; revokes one, refuses the current and unknown ones', async () => {
    const othersBefore = (await server().json('GET', '/api/user/sessions', { auth: admin.cookie })).body.other.length;
    const second = await server().login('erin', 'pw-long-enough');
    const third = await server().login('erin', 'pw-long-enough');
    const list = await server().json('GET', '/api/user/sessions', { auth: admin.cookie });
    assert.equal(list.status, 200);
    assert.ok(list.body.current);
    assert.equal(list.body.other.length, othersBefore + 2);
    assert.ok(!list.body.other.some((s: { id: string }) => s.id === list.body.current.id));

    const secondId = (await server().json('GET', '/api/user/sessions', { auth: second })).body.current.id;
    const revoked = await server().json('DELETE', '/api/user/sessions', {
      auth: admin.cookie,
      body: { sessionId: secondId },
    });
    assert.equal(revoked.status, 200);
    assert.equal(revoked.body.other.length, othersBefore + 1);
    assert.equal((await server().json('GET', '/api/user', { auth: second })).body.code, 2000);

    const current = await server().json('DELETE', '/api/user/sessions', {
      auth: admin.cookie,
      body: { sessionId: list.body.current.id },
    });
    assert.equal(current.status, 400);
    assert.equal(current.body.code, 1021);

    const unknown = await server().json('DELETE', '/api/user/sessions', {
      auth: admin.cookie,
      body: { sessionId: 'nope' },
    });
    assert.equal(unknown.status, 400);
    assert.equal(unknown.body.code, 1031);

    const all = await server().json('DELETE', '/api/user/sessions', { auth: admin.cookie, body: { all: true } });
    assert.equal(all.status, 200);
    assert.deepEqual(all.body.other, []);
    assert.equal((await server().json('GET', '/api/user', { auth: third })).body.code, 2000);
    assert.equal((await server().json('GET', '/api/user', { auth: admin.cookie })).status, 200, 'current one kept');
  });

  it("cannot revoke another user's session (1031)", async () => {
    const { insertUser } = await import('../../../src/services/accounts/account.js');
    const { hashPassword } = await import('../../../src/lib/security/passwords.js');
    await insertUser(server().ctx, server().ctx.db, {
      username: 'frank',
      passwordHash: await hashPassword('pw2'),
      role: 'USER',
    });
    const frank = await server().login('frank', 'pw2');
    const frankSession = (await server().json('GET', '/api/user/sessions', { auth: frank })).body.current.id;
    const res = await server().json('DELETE', '/api/user/sessions', {
      auth: admin.cookie,
      body: { sessionId: frankSession },
    });
    assert.equal(res.body.code, 1031);
    assert.equal((await server().json('GET', '/api/user', { auth: frank })).status, 200);
  });
});
