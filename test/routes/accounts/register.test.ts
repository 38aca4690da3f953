// POST /api/auth/register: open registration, invite codes (expiry, maximum uses, racing for the last use),
// taken usernames, and the new user being logged in.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { ManualClock } from '../../../src/lib/clock.js';
import {
  forEachDatabase,
  sessionCookieOf,
  useTestServer,
  withTestServer,
  type TestUser,
} from '../../support/server.js';
import { assertError } from '../../support/api-errors.js';
import { NO_RATE_LIMIT } from '../../support/factory.js';

forEachDatabase('registration', (engine) => {
  const clock = new ManualClock(Date.UTC(2030, 0, 1));
  const server = useTestServer({ engine, env: NO_RATE_LIMIT, clock });
  let root: TestUser;

  const register = (body: Record<string, unknown>) => server().json('POST', '/api/auth/register', { body });
  const setSettings = async (body: Record<string, unknown>) => {
    const res = await server().json('PATCH', '/api/server/settings', { auth: root.token, body });
    assert.equal(res.status, 200, JSON.stringify(res.body));
  };
  const invite = async (body: Record<string, unknown> = {}) => {
    const res = await server().json('POST', '/api/auth/invites', { auth: root.token, body });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body as { id: string; code: string };
  };
  const usesOf = async (id: string) =>
    (await server().json('GET', `/api/auth/invites/${id}`, { auth: root.token })).body.uses as number;

  before(async () => {
    root = await server().setup('root', 'root-password');
  });

  describe('open registration', () => {
    it('is off by default (1037)', async () => {
      // A server of its own: this suite's server has its settings changed by the other tests.
      await withTestServer({ engine, env: NO_RATE_LIMIT }, async (fresh) => {
        await fresh.setup('root', 'root-password');
        const res = await fresh.json('POST', '/api/auth/register', {
          body: { username: 'early', password: 'pw-long-enough' },
        });
        assertError(res, 400, 1037);
      });
    });

    it('when enabled, creates a USER and logs them in with a session cookie', async () => {
      await setSettings({ registrationEnabled: true });
      const res = await register({ username: 'newbie', password: 'newbie-pw' });
      assert.equal(res.status, 200);
      assert.equal(res.body.user.username, 'newbie');
      assert.equal(res.body.user.role, 'USER');
      assert.equal(res.body.user.sessions.length, 1);
      const cookie = sessionCookieOf(res.headers);
      const me = await server().json('GET', '/api/user', { auth: cookie });
      assert.equal(me.body.user.id, res.body.user.id);
      await server().login('newbie', 'newbie-pw');
    });

    it('answers 1039 for a taken username, and 1000 for an empty one', async () => {
      await setSettings({ registrationEnabled: true });
      assert.equal((await register({ username: 'taken', password: 'taken-pw' })).status, 200);
      assertError(await register({ username: 'taken', password: 'x-long-enough' }), 400, 1039);
      assertError(await register({ username: 'root', password: 'x-long-enough' }), 400, 1039);
      assertError(await register({ username: '', password: 'x-long-enough' }), 400, 1000);
    });

    it('cannot ask for a role: the key is refused (1000 naming it) and no account is made', async () => {
      await setSettings({ registrationEnabled: true });
      const res = await register({ username: 'sneaky', password: 'pw-long-enough', role: 'SUPERADMIN' });
      assertError(res, 400, 1000);
      assert.match(res.body.error, /role/);
      assertError(
        await server().json('POST', '/api/auth/login', { body: { username: 'sneaky', password: 'pw-long-enough' } }),
        400,
        1044,
      );
    });
  });

  describe('with an invite code', () => {
    before(async () => {
      await setSettings({ registrationEnabled: false });
      await setSettings({ invitesEnabled: true });
    });

    it('needs invites enabled (1036), even for a code that exists', async () => {
      await setSettings({ invitesEnabled: true });
      const { code } = await invite();
      await setSettings({ invitesEnabled: false });
      assertError(await register({ username: 'inv0', password: 'pw-long-enough', code }), 400, 1036);
      await setSettings({ invitesEnabled: true });
    });

    it('registers with a live code while registration is closed, and counts the use', async () => {
      const { id, code } = await invite({ maxUses: 2 });
      const res = await register({ username: 'invited-1', password: 'pw-long-enough', code });
      assert.equal(res.status, 200);
      assert.equal(await usesOf(id), 1);
      assertError(await register({ username: 'uninvited', password: 'pw-long-enough' }), 400, 1037);
    });

    it('answers 1035 for an unknown, used-up or expired code', async () => {
      assertError(await register({ username: 'inv2', password: 'pw-long-enough', code: 'no-such-code' }), 400, 1035);
      const once = await invite({ maxUses: 1 });
      assert.equal((await register({ username: 'inv3', password: 'pw-long-enough', code: once.code })).status, 200);
      assertError(await register({ username: 'inv4', password: 'pw-long-enough', code: once.code }), 400, 1035);
      const soon = await invite({ expiresAt: '10m' });
      clock.advance(10 * 60_000 + 1);
      assertError(await register({ username: 'inv5', password: 'pw-long-enough', code: soon.code }), 400, 1035);
      assert.equal(await usesOf(soon.id), 0);
    });

    it('gives the use back when the username is taken (1039)', async () => {
      const once = await invite({ maxUses: 1 });
      assertError(await register({ username: 'root', password: 'pw-long-enough', code: once.code }), 400, 1039);
      assert.equal(await usesOf(once.id), 0);
      assert.equal((await register({ username: 'inv6', password: 'pw-long-enough', code: once.code })).status, 200);
    });

    it('gives the last use to exactly one of several registrations racing for it', async () => {
      for (const [maxUses, racers] of [
        [1, 6],
        [3, 8],
      ] as const) {
        const { id, code } = await invite({ maxUses });
        const results = await Promise.all(
          Array.from({ length: racers }, (_, i) =>
            register({ username: `racer-${maxUses}-${i}`, password: 'pw-long-enough', code }),
          ),
        );
        const won = results.filter((r) => r.status === 200);
        assert.equal(won.length, maxUses);
        for (const lost of results.filter((r) => r.status !== 200)) assertError(lost, 400, 1035);
        assert.equal(await usesOf(id), maxUses);
        const users = await server().json('GET', `/api/users?page=1&search=racer-${maxUses}-&perpage=100`, {
          auth: root.token,
        });
        assert.equal(users.body.total, maxUses);
      }
    });
  });
});

forEachDatabase('registration rate limit', (engine) => {
  it('shares the login limit: the 11th attempt within a minute from one address -> 429', async () => {
    await withTestServer({ engine }, async (server) => {
      for (let i = 0; i < 10; i++) {
        assertError(
          await server.json('POST', '/api/auth/register', { body: { username: `u${i}`, password: 'pw-long-enough' } }),
          400,
          1037,
        );
      }
      const limited = await server.json('POST', '/api/auth/register', {
        body: { username: 'u10', password: 'pw-long-enough' },
      });
      assert.equal(limited.status, 429);
      assert.equal(limited.body.code, 9000);
    });
  });
});
