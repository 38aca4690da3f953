import assert from 'node:assert/strict';
import { it } from 'node:test';
import { forEachDatabase, startTestServer, withTestServer } from '../../support/server.js';

forEachDatabase('GET /api/healthcheck', (engine) => {
  it('passes when the database answers, and answers 500 / 6003 when it does not', async () => {
    const server = await startTestServer({ engine });
    try {
      const ok = await server.json('GET', '/api/healthcheck');
      assert.equal(ok.status, 200);
      assert.deepEqual(ok.body, { pass: true });
      await server.chute.database.close();
      const broken = await server.json('GET', '/api/healthcheck');
      assert.equal(broken.status, 500);
      assert.equal(broken.body.code, 6003);
      assert.equal(broken.body.statusCode, 500);
    } finally {
      await server.close().catch(() => undefined);
    }
  });
});

// Setup happens once in a server's life: every test starts from a server of its own.
forEachDatabase('first-time setup', (engine) => {
  it('is in setup mode before the first user exists', async () => {
    await withTestServer({ engine }, async (server) => {
      const res = await server.json('GET', '/api/setup');
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, { firstSetup: true });
    });
  });

  it('refuses an invalid body without leaving setup mode', async () => {
    await withTestServer({ engine }, async (server) => {
      const res = await server.json('POST', '/api/setup', { body: { username: 'admin' } });
      assert.equal(res.status, 400);
      assert.equal(res.body.code, 1000);
      assert.deepEqual((await server.json('GET', '/api/setup')).body, { firstSetup: true });
    });
  });

  it('creates exactly one SUPERADMIN when several setups race', async () => {
    await withTestServer({ engine }, async (server) => {
      const attempts = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          server.json('POST', '/api/setup', { body: { username: `owner${i}`, password: 'pw-long-enough' } }),
        ),
      );
      const won = attempts.filter((a) => a.status === 200);
      assert.equal(won.length, 1, JSON.stringify(attempts.map((a) => a.status)));
      for (const lost of attempts.filter((a) => a.status !== 200)) {
        assert.equal(lost.status, 403);
        assert.equal(lost.body.code, 9001);
      }
      const body = won[0]!.body;
      assert.deepEqual(Object.keys(body).sort(), ['firstSetup', 'user']);
      assert.equal(body.firstSetup, false);
      assert.equal(body.user.role, 'SUPERADMIN');
      assert.equal(body.user.totpEnabled, false);
      assert.deepEqual(body.user.oauthProviders, []);
      assert.equal(body.user.sessions.length, 1, 'setup logs the new owner in');
      const users = await server.ctx.db.selectFrom('users').select(['username', 'role']).execute();
      assert.equal(users.length, 1);

      // The winner's session cookie works, and setup mode is over for good.
      const cookie = won[0]!.headers.getSetCookie().find((c) => c.startsWith('chute_session='))!;
      assert.match(cookie, /HttpOnly/i);
      assert.match(cookie, /SameSite=Lax/i);
      const me = await server.json('GET', '/api/user', { auth: cookie.split(';')[0] });
      assert.equal(me.status, 200);
      assert.equal(me.body.user.username, users[0]!.username);
      assert.deepEqual((await server.json('GET', '/api/setup')).body, { firstSetup: false });
    });
  });

  it('refuses a later setup and changes nothing', async () => {
    await withTestServer({ engine }, async (server) => {
      const owner = await server.setup('owner', 'owner-password');
      const res = await server.json('POST', '/api/setup', {
        body: { username: 'intruder', password: 'pw-long-enough' },
      });
      assert.equal(res.status, 403);
      assert.equal(res.body.code, 9001);
      const users = await server.ctx.db.selectFrom('users').select(['id', 'username']).execute();
      assert.equal(users.length, 1);
      assert.notEqual(users[0]!.username, 'intruder');
      assert.equal(users[0]!.id, owner.id);
    });
  });
});
