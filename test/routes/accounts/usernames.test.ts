// Usernames are stored in one canonical spelling and are unique as a reader sees them: `Admin` beside `admin`, a
// full-width twin or trailing spaces are the same name; invisible and control characters and Latin/Cyrillic mixes
// are refused with 1000 before anything is written; signing in finds the name whatever its case.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { withTestServer, forEachDatabase, useTestServer, type TestUser } from '../../support/server.js';
import { assertError } from '../../support/api-errors.js';
import { makeUser, NO_RATE_LIMIT } from '../../support/factory.js';

/** Names refused everywhere a name is chosen, each with why. */
const REFUSED: Array<[string, string]> = [
  ['zero-width space', 'ad\u200Bmin'],
  ['zero-width joiner', 'ad\u200Dmin'],
  ['right-to-left override', 'ad\u202Emin'],
  ['byte order mark', '\uFEFFadmin'],
  ['soft hyphen', 'ad\u00ADmin'],
  ['bell', 'ad\u0007min'],
  ['newline', 'ad\nmin'],
  ['Hangul filler', 'ad\u3164min'],
  ['variation selector', 'admin\uFE0F'],
  ['lone surrogate', 'ad\uD800min'],
  ['Cyrillic a among Latin letters', '\u0430dmin'],
  ['only spaces', '   '],
];

forEachDatabase('usernames', (engine) => {
  const server = useTestServer({ engine, env: NO_RATE_LIMIT });
  let root: TestUser;
  let admin: TestUser;
  let user: TestUser;

  const userCount = async () =>
    Number(
      (
        await server()
          .ctx.db.selectFrom('users')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  before(async () => {
    root = await server().setup('root', 'root-password');
    admin = await makeUser(server(), { by: root.token, username: 'admin', role: 'ADMIN' });
    user = await makeUser(server(), { by: root.token, username: 'Carol', role: 'USER' });
    assert.equal(
      (await server().json('PATCH', '/api/server/settings', { auth: root.token, body: { registrationEnabled: true } }))
        .status,
      200,
    );
  });

  describe('are unique whatever their case or width', () => {
    for (const twin of ['Admin', 'ADMIN', ' admin ', '\uFF41\uFF44\uFF4D\uFF49\uFF4E', 'admin\u00A0']) {
      it(`${JSON.stringify(twin)} is taken on register (1039), admin create (1040), own edit (1038) and an admin's edit (1039)`, async () => {
        const before = await userCount();
        const body = { username: twin, password: 'twin-password' };
        assertError(await server().json('POST', '/api/auth/register', { body }), 400, 1039);
        assertError(await server().json('POST', '/api/users', { auth: root.token, body }), 400, 1040);
        assertError(
          await server().json('PATCH', '/api/user', { auth: user.token, body: { username: twin } }),
          400,
          1038,
        );
        assertError(
          await server().json('PATCH', `/api/users/${user.id}`, { auth: root.token, body: { username: twin } }),
          400,
          1039,
        );
        assert.equal(await userCount(), before);
      });
    }

    it('stores the canonical form: NFKC and trimmed', async () => {
      const res = await server().json('POST', '/api/users', {
        auth: root.token,
        body: { username: '  \uFF24ave\u2460  ', password: 'dave-password' },
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.user.username, 'Dave1');
    });

    it('lets a user change only the case of their own name', async () => {
      const res = await server().json('PATCH', '/api/user', { auth: user.token, body: { username: 'carol' } });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.user.username, 'carol');
    });
  });

  describe('refuse invisible and control characters and mixed scripts with 1000', () => {
    for (const [what, name] of REFUSED) {
      it(`${what}, nothing saved`, async () => {
        const before = await userCount();
        for (const [method, path, auth, taken] of [
          ['POST', '/api/auth/register', undefined, 'password'],
          ['POST', '/api/users', root.token, 'password'],
          ['PATCH', '/api/user', user.token, undefined],
          ['PATCH', `/api/users/${user.id}`, root.token, undefined],
        ] as const) {
          const body = taken ? { username: name, password: 'some-password' } : { username: name };
          const res = await server().json(method, path, { auth, body });
          assertError(res, 400, 1000, `${method} ${path}`);
          assert.equal(res.body.issues?.[0]?.path, 'body.username', JSON.stringify(res.body));
        }
        assert.equal(await userCount(), before);
        const me = await server().json('GET', '/api/user', { auth: user.token });
        assert.equal(me.body.user.username.toLowerCase(), 'carol', 'the name stays as it was');
      });
    }

    it('still takes names in one other script, or Latin with digits and punctuation', async () => {
      for (const username of [
        'Jos\u00E9 M.',
        '\u0438\u0432\u0430\u043D',
        '\u03B1\u03B2\u03B3-2',
        '\u5C71\u7530\u3055\u3093',
      ]) {
        const res = await server().json('POST', '/api/users', {
          auth: root.token,
          body: { username, password: 'ok-password' },
        });
        assert.equal(res.status, 200, `${username}: ${JSON.stringify(res.body)}`);
      }
    });
  });

  describe('sign-in', () => {
    it('finds the account whatever the case, width or surrounding spaces', async () => {
      for (const typed of ['ADMIN', 'Admin', ' admin ', '\uFF41\uFF44\uFF4D\uFF49\uFF4E']) {
        const res = await server().json('POST', '/api/auth/login', {
          body: { username: typed, password: admin.password },
        });
        assert.equal(res.status, 200, `${typed}: ${JSON.stringify(res.body)}`);
        assert.equal(res.body.user.id, admin.id);
      }
      assertError(
        await server().json('POST', '/api/auth/login', { body: { username: 'ADMIN', password: 'wrong' } }),
        400,
        1044,
      );
    });
  });
});

describe('usernames at first setup', () => {
  for (const engine of ['sqlite', 'postgres'] as const) {
    it(`refuses an invisible character and keeps setup open, then trims [${engine}]`, async (t) => {
      if (engine === 'postgres' && !process.env.TEST_DATABASE_URL) return t.skip('TEST_DATABASE_URL is not set');
      await withTestServer({ engine }, async (server) => {
        const bad = await server.json('POST', '/api/setup', {
          body: { username: 'ro\u200Bot', password: 'pw-123456' },
        });
        assertError(bad, 400, 1000);
        const good = await server.json('POST', '/api/setup', { body: { username: ' Root ', password: 'pw-123456' } });
        assert.equal(good.status, 200, JSON.stringify(good.body));
        assert.equal(good.body.user.username, 'Root');
      });
    });
  }
});
