// A stolen session or token must not outlive the steps meant to lock its thief out: a password change (own or by an
// admin) replaces the API token, "sign out everywhere" can replace it too, and a session changes the password only
// with the current one (1067 missing, 1066 wrong, 1068 when the account has none).
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { insertUser } from '../../../src/services/accounts/account.js';
import { assertError } from '../../support/api-errors.js';
import { makeUser, NO_RATE_LIMIT } from '../../support/factory.js';
import { forEachDatabase, useTestServer } from '../../support/server.js';

forEachDatabase('credentials after a password change', (engine) => {
  const server = useTestServer({ engine, env: NO_RATE_LIMIT });

  it('a session needs the current password: 1067 when missing, 1066 when wrong', async () => {
    const me = await makeUser(server());
    const missing = await server().json('PATCH', '/api/user', { auth: me.cookie, body: { password: 'taken-over' } });
    assertError(missing, 400, 1067);
    const wrong = await server().json('PATCH', '/api/user', {
      auth: me.cookie,
      body: { password: 'taken-over', currentPassword: 'a-guess' },
    });
    assertError(wrong, 400, 1066);
    // Nothing changed: the old password still signs in.
    await server().login(me.username, me.password);
    const right = await server().json('PATCH', '/api/user', {
      auth: me.cookie,
      body: { password: 'my-new-password', currentPassword: me.password },
    });
    assert.equal(right.status, 200);
    await server().login(me.username, 'my-new-password');
  });

  it('an account without a password sets its first one without a current one; naming one answers 1068', async () => {
    const row = await insertUser(server().ctx, server().ctx.db, {
      username: 'oauth-only',
      passwordHash: null,
      role: 'USER',
    });
    const { createSession } = await import('../../../src/services/accounts/sessions.js');
    const { secret } = await createSession(server().ctx, row.id, { userAgent: undefined, client: undefined });
    const cookie = `chute_session=${secret}`;
    const named = await server().json('PATCH', '/api/user', {
      auth: cookie,
      body: { password: 'first-password', currentPassword: 'anything' },
    });
    assertError(named, 400, 1068);
    const first = await server().json('PATCH', '/api/user', { auth: cookie, body: { password: 'first-password' } });
    assert.equal(first.status, 200);
    await server().login('oauth-only', 'first-password');
  });

  it('replaces the API token on a change of one’s own password', async () => {
    const me = await makeUser(server());
    const changed = await server().json('PATCH', '/api/user', {
      auth: me.cookie,
      body: { password: 'changed-password', currentPassword: me.password },
    });
    assert.equal(changed.status, 200);
    assertError(await server().json('GET', '/api/user', { auth: me.token }), 401, 2001);
    assert.notEqual(changed.body.token, me.token);
    assert.equal((await server().json('GET', '/api/user', { auth: changed.body.token })).status, 200);
  });

  it('replaces the API token when an admin sets the password', async () => {
    const me = await makeUser(server());
    const admin = server().superadmin!;
    const set = await server().json('PATCH', `/api/users/${me.id}`, {
      auth: admin.token,
      body: { password: 'set-by-admin' },
    });
    assert.equal(set.status, 200);
    assertError(await server().json('GET', '/api/user', { auth: me.token }), 401, 2001);
    assertError(await server().json('GET', '/api/user', { auth: me.cookie }), 401, 2000);
    const cookie = await server().login(me.username, 'set-by-admin');
    const token = (await server().json('GET', '/api/user/token', { auth: cookie })).body.token;
    assert.notEqual(token, me.token);
  });

  it('signs out everywhere with the token too when asked ({all: true, rotateToken: true})', async () => {
    const me = await makeUser(server());
    const elsewhere = await server().login(me.username, me.password);
    const kept = await server().json('DELETE', '/api/user/sessions', { auth: me.cookie, body: { all: true } });
    assert.equal(kept.status, 200);
    assert.equal((await server().json('GET', '/api/user', { auth: me.token })).status, 200);
    assertError(await server().json('GET', '/api/user', { auth: elsewhere }), 401, 2000);
    const rotated = await server().json('DELETE', '/api/user/sessions', {
      auth: me.cookie,
      body: { all: true, rotateToken: true },
    });
    assert.equal(rotated.status, 200);
    assertError(await server().json('GET', '/api/user', { auth: me.token }), 401, 2001);
    const token = (await server().json('GET', '/api/user/token', { auth: me.cookie })).body.token;
    assert.notEqual(token, me.token);
    assert.equal((await server().json('GET', '/api/user', { auth: token })).status, 200);
  });
});
