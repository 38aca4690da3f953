// The rules of a new password (NIST SP 800-63B; lib/security/password-rules.ts) on every way in that sets one:
// setup, registration, PATCH /api/user, an admin's POST and PATCH /api/users; the server setting passwordMinLength;
// lengths counted in code points after NFKC; the 10,000 common passwords in any case; and accounts made before the
// rules, whose short passwords keep signing in. The chute user commands: test/cli/chute-command.test.ts.
import assert from 'node:assert/strict';
import { hash } from '@node-rs/argon2';
import { before, describe, it } from 'node:test';
import { insertUser } from '../../../src/services/accounts/account.js';
import { commonPasswords, PASSWORD_MAX_LENGTH } from '../../../src/lib/security/password-rules.js';
import { assertError } from '../../support/api-errors.js';
import { makeAccount, makeUser, NO_RATE_LIMIT, uniqueName } from '../../support/factory.js';
import {
  forEachDatabase,
  useTestServer,
  withTestServer,
  type JsonResponse,
  type TestUser,
} from '../../support/server.js';

/** A 1000 naming the password and the rule it broke. */
function assertRefused(res: JsonResponse, rule: string, minLength = 8): void {
  assertError(res, 400, 1000);
  assert.equal(res.body.passwordRule, rule, JSON.stringify(res.body));
  assert.equal(res.body.minLength, minLength);
  assert.equal(res.body.maxLength, PASSWORD_MAX_LENGTH);
  assert.equal(res.body.issues[0].path, 'body.password');
  if (rule === 'too-short')
    assert.match(res.body.error, new RegExp(`password must be at least ${minLength} characters`));
  if (rule === 'too-common') assert.match(res.body.error, /password is one of the 10,000 most common passwords/);
}

const SEVEN_FOXES = '🦊'.repeat(7);
const EIGHT_FOXES = '🦊'.repeat(8);

describe('the list of common passwords', () => {
  it('holds 10,000 lower-case passwords, among them password1 and qwerty123', () => {
    const list = commonPasswords();
    assert.equal(list.size, 10_000);
    for (const password of ['password', 'password1', 'qwerty123', 'iloveyou', '12345678'])
      assert.ok(list.has(password));
    assert.deepEqual(
      [...list].filter((p) => p !== p.toLowerCase()),
      [],
    );
  });
});

forEachDatabase('password rules', (engine) => {
  describe('setup', () => {
    it('refuses a short or common password, counts code points, and takes a long Unicode one', async () => {
      await withTestServer({ engine, env: NO_RATE_LIMIT }, async (fresh) => {
        const setup = (password: string) => fresh.json('POST', '/api/setup', { body: { username: 'root', password } });
        assertRefused(await setup('abc'), 'too-short');
        assertRefused(await setup('abcdefg'), 'too-short');
        // Seven emoji are fourteen UTF-16 units, but seven characters.
        assertRefused(await setup(SEVEN_FOXES), 'too-short');
        assertRefused(await setup('Password1'), 'too-common');
        assertRefused(await setup('QWERTY123'), 'too-common');
        // NFKC first: full-width letters are the common password they look like.
        assertRefused(await setup('ｐａｓｓｗｏｒｄ１'), 'too-common');
        assert.equal((await fresh.json('GET', '/api/setup')).body.firstSetup, true, 'still in setup');

        const long = `correct horse 🐎 battery staple ${'ü'.repeat(PASSWORD_MAX_LENGTH - 40)}`;
        assertRefused(await setup(`${long}${'x'.repeat(41)}`), 'too-long');
        const res = await setup(long);
        assert.equal(res.status, 200, JSON.stringify(res.body));
        await fresh.login('root', long);
        // The same password with its ü decomposed (u + combining diaeresis) is the same password.
        await fresh.login('root', long.normalize('NFD'));
      });
    });
  });

  describe('with an instance set up', () => {
    const server = useTestServer({ engine, env: NO_RATE_LIMIT });
    let root: TestUser;
    const setMinimum = async (passwordMinLength: number) => {
      const res = await server().json('PATCH', '/api/server/settings', {
        auth: root.token,
        body: { passwordMinLength },
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
    };

    before(async () => {
      root = await server().setup('root', 'root-password');
      const res = await server().json('PATCH', '/api/server/settings', {
        auth: root.token,
        body: { registrationEnabled: true, invitesEnabled: true },
      });
      assert.equal(res.status, 200);
    });

    it('registration: refuses short and common passwords, before an invite is used', async () => {
      const register = (body: Record<string, unknown>) => server().json('POST', '/api/auth/register', { body });
      assertRefused(await register({ username: uniqueName('reg'), password: 'short' }), 'too-short');
      assertRefused(await register({ username: uniqueName('reg'), password: 'password1' }), 'too-common');
      const invite = await server().json('POST', '/api/auth/invites', { auth: root.token, body: { maxUses: 1 } });
      assert.equal(invite.status, 200);
      const code = invite.body.code as string;
      assertRefused(await register({ username: uniqueName('reg'), password: 'qwerty123', code }), 'too-common');
      const name = uniqueName('reg');
      const ok = await register({ username: name, password: 'a b c d e f g h', code });
      assert.equal(ok.status, 200, 'spaces are characters like any other; the invite still had its use');
      await server().login(name, 'a b c d e f g h');
      assert.equal(ok.body.user.role, 'USER');
      assert.equal(EIGHT_FOXES.length, 16);
      const foxes = await register({ username: uniqueName('reg'), password: EIGHT_FOXES });
      assert.equal(foxes.status, 200, 'eight emoji are eight characters');
    });

    it('PATCH /api/user: a new password follows the rules, after the current one is checked', async () => {
      const user = await makeUser(server());
      const change = (body: Record<string, unknown>) =>
        server().json('PATCH', '/api/user', { auth: user.cookie, body });
      assertError(await change({ password: 'abc', currentPassword: 'wrong' }), 400, 1066);
      assertRefused(await change({ password: 'abc', currentPassword: user.password }), 'too-short');
      assertRefused(await change({ password: 'LetMeIn1', currentPassword: user.password }), 'too-common');
      await server().login(user.username, user.password);
      const ok = await change({ password: 'a new password, long enough', currentPassword: user.password });
      assert.equal(ok.status, 200, JSON.stringify(ok.body));
      await server().login(user.username, 'a new password, long enough');
    });

    it("an admin's POST and PATCH /api/users follow the rules too", async () => {
      const create = (password: string) =>
        server().json('POST', '/api/users', { auth: root.token, body: { username: uniqueName('made'), password } });
      assertRefused(await create('1234567'), 'too-short');
      assertRefused(await create('Football'), 'too-common');
      assert.equal((await create('made by the admin')).status, 200);

      const account = await makeAccount(server());
      const edit = (password: string) =>
        server().json('PATCH', `/api/users/${account.id}`, { auth: root.token, body: { password } });
      assertRefused(await edit('tiny'), 'too-short');
      assertRefused(await edit('baseball1'), 'too-common');
      await server().login(account.username, account.password);
      assert.equal((await edit('set by the admin')).status, 200);
      await server().login(account.username, 'set by the admin');
    });

    it('passwordMinLength changes the minimum (8 to 64), shown in GET /api/server/public', async () => {
      assert.equal((await server().json('GET', '/api/server/public')).body.passwordMinLength, 8);
      assert.equal((await server().json('GET', '/api/server/public')).body.passwordMaxLength, PASSWORD_MAX_LENGTH);
      for (const bad of [7, 65, 0, 8.5, '12'])
        assertError(
          await server().json('PATCH', '/api/server/settings', { auth: root.token, body: { passwordMinLength: bad } }),
          400,
          1022,
          `passwordMinLength ${JSON.stringify(bad)}`,
        );
      await setMinimum(12);
      try {
        assert.equal((await server().json('GET', '/api/server/public')).body.passwordMinLength, 12);
        const create = (password: string) =>
          server().json('POST', '/api/users', { auth: root.token, body: { username: uniqueName('min'), password } });
        assertRefused(await create('eleven char'), 'too-short', 12);
        assert.equal((await create('twelve chars')).status, 200);
        // An account whose password is shorter than the new minimum still signs in.
        await server().login('root', 'root-password');
      } finally {
        await setMinimum(8);
      }
    });

    it('an account made before the rules keeps signing in with its short or common password', async () => {
      // As the server made them before: argon2id of the password as typed, with no rule checked.
      const options = { algorithm: 2, memoryCost: 19456, timeCost: 2, parallelism: 1 } as const;
      const old = [
        { username: uniqueName('old'), password: 'abc' },
        { username: uniqueName('old'), password: 'password' },
        // Decomposed, as typed on some systems: NFKC would compose it, and the old hash is of the text as typed.
        { username: uniqueName('old'), password: 'cafe\u0301' },
      ];
      for (const account of old) {
        await insertUser(server().ctx, server().ctx.db, {
          username: account.username,
          passwordHash: await hash(account.password, options),
          role: 'USER',
        });
        const cookie = await server().login(account.username, account.password);
        // Other changes of the profile do not ask for a new password.
        const res = await server().json('PATCH', '/api/user', {
          auth: cookie,
          body: { view: { embed: true } },
        });
        assert.equal(res.status, 200, JSON.stringify(res.body));
        // Only a new password meets the rules.
        assertRefused(
          await server().json('PATCH', '/api/user', {
            auth: cookie,
            body: { password: account.password, currentPassword: account.password },
          }),
          account.password.length < 8 ? 'too-short' : 'too-common',
        );
      }
    });
  });
});
