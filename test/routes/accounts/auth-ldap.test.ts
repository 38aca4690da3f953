// Signing in through LDAP (issue 47, item 4) against a real OpenLDAP (Debian's slapd, test/support/slapd.ts) over
// StartTLS with a throwaway CA: the first sign-in creates the account, LDAP_ADMIN_GROUP promotes and demotes,
// LDAP_ALLOWED_GROUP refuses, a wrong password and an injection corpus in the name never sign anybody in, local
// accounts keep their own passwords, TOTP still applies, and a directory that is down answers 503 while local
// accounts still sign in. Also ldaps://, a certificate from an unknown CA, and the configuration's refusals.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Secret, TOTP } from 'otpauth';
import { ConfigError, loadConfig } from '../../../src/config.js';
import { ManualClock } from '../../../src/lib/clock.js';
import { assertError } from '../../support/api-errors.js';
import { makeAccount, NO_RATE_LIMIT } from '../../support/factory.js';
import { forEachDatabase, startTestServer, type TestServer } from '../../support/server.js';
import {
  groupDn,
  groupLdif,
  personLdif,
  READER_DN,
  READER_PASSWORD,
  slapdAvailable,
  startSlapd,
  SUFFIX,
  type TestSlapd,
} from '../../support/slapd.js';

const skip = slapdAvailable() ? false : 'slapd is not installed (apt-get install slapd ldap-utils)';
if (skip && process.env.CI === 'true') throw new Error(skip);

const PEOPLE = ['alice', 'bob', 'carol', 'dave', 'frank', 'tina'];
const passwordOf = (uid: string) => `${uid}-directory-password`;

function ldapEnv(slapd: TestSlapd, extra: Record<string, string> = {}): Record<string, string> {
  return {
    ...NO_RATE_LIMIT,
    LDAP_URL: slapd.url,
    LDAP_TLS_CA: slapd.caFile,
    LDAP_BIND_DN: READER_DN,
    LDAP_BIND_PASSWORD: READER_PASSWORD,
    LDAP_SEARCH_BASE: `ou=people,${SUFFIX}`,
    LDAP_ADMIN_GROUP: groupDn('chute-admins'),
    LDAP_ALLOWED_GROUP: groupDn('chute-users'),
    LDAP_TIMEOUT: '5',
    ...extra,
  };
}

function login(server: TestServer, username: string, password: string, code?: string) {
  return server.json('POST', '/api/auth/login', { body: { username, password, ...(code ? { code } : {}) } });
}

async function usernames(server: TestServer): Promise<string[]> {
  const rows = await server.ctx.db.selectFrom('users').select('username').orderBy('username').execute();
  return rows.map((r) => r.username);
}

forEachDatabase('signing in through LDAP', (engine) => {
  const clock = new ManualClock();
  let slapd: TestSlapd;
  let server: TestServer;
  let admin: { username: string; password: string };

  before(async () => {
    if (skip) return;
    slapd = await startSlapd();
    await slapd.add(PEOPLE.map((uid) => personLdif(uid, passwordOf(uid))).join('\n'));
    await slapd.add(
      [groupLdif('chute-users', ['alice', 'bob', 'carol', 'frank', 'tina']), groupLdif('chute-admins', ['carol'])].join(
        '\n',
      ),
    );
    server = await startTestServer({ engine, clock, env: ldapEnv(slapd) });
    await server.setup('owner', 'owner-password-123');
    admin = { username: 'owner', password: 'owner-password-123' };
  });
  after(async () => {
    await server?.close();
    await slapd?.close();
  });

  describe('with StartTLS and the test CA', { skip }, () => {
    it('creates the account at the first sign-in, and signs the same account in later', async () => {
      const first = await login(server, 'alice', passwordOf('alice'));
      assert.equal(first.status, 200, JSON.stringify(first.body));
      assert.equal(first.body.user.username, 'alice');
      assert.equal(first.body.user.role, 'USER');
      const link = await server.ctx.db
        .selectFrom('ldap_accounts')
        .selectAll()
        .where('user_id', '=', first.body.user.id)
        .executeTakeFirstOrThrow();
      assert.equal(link.dn, `uid=alice,ou=people,${SUFFIX}`);
      assert.match(link.entry_id, /^entryUUID:[0-9a-f-]{36}$/, 'known by its stable id');
      const user = await server.ctx.db
        .selectFrom('users')
        .select('password')
        .where('id', '=', first.body.user.id)
        .executeTakeFirstOrThrow();
      assert.equal(user.password, null, 'the directory password is not stored');

      const again = await login(server, 'alice', passwordOf('alice'));
      assert.equal(again.body.user.id, first.body.user.id);
      const otherCase = await login(server, 'ALICE', passwordOf('alice'));
      assert.equal(otherCase.status, 200);
      assert.equal(otherCase.body.user.id, first.body.user.id, 'the name in another case is the same person');
    });

    it('refuses a wrong password (1044), also for an account that came from the directory', async () => {
      assertError(await login(server, 'bob', 'not-bobs-password'), 400, 1044);
      assertError(await login(server, 'alice', passwordOf('bob')), 400, 1044);
      assertError(await login(server, 'nobody-at-all', 'whatever-password'), 400, 1044);
      assert.ok(!(await usernames(server)).includes('bob'), 'no account for a refused first sign-in');
    });

    it('makes LDAP_ADMIN_GROUP members ADMIN, and demotes them at the next sign-in after they leave', async () => {
      const carol = await login(server, 'carol', passwordOf('carol'));
      assert.equal(carol.body.user.role, 'ADMIN');
      await slapd.modify(`dn: ${groupDn('chute-admins')}
changetype: modify
replace: member
member: uid=tina,ou=people,${SUFFIX}
`);
      assert.equal((await login(server, 'carol', passwordOf('carol'))).body.user.role, 'USER');
      assert.equal((await login(server, 'tina', passwordOf('tina'))).body.user.role, 'ADMIN');
      await slapd.modify(`dn: ${groupDn('chute-admins')}
changetype: modify
add: member
member: uid=carol,ou=people,${SUFFIX}
`);
      assert.equal((await login(server, 'carol', passwordOf('carol'))).body.user.role, 'ADMIN');
    });

    it('refuses people outside LDAP_ALLOWED_GROUP (9001), and makes no account for them', async () => {
      const dave = await login(server, 'dave', passwordOf('dave'));
      assertError(dave, 403, 9001);
      assert.match(dave.body.error, /not in the directory group that may sign in/);
      assert.ok(!(await usernames(server)).includes('dave'));
    });

    it('never lets a name with filter syntax match anybody else (RFC 4515 escaping)', async () => {
      const before = await usernames(server);
      const corpus = [
        '*',
        'a*',
        'al*',
        '*ice',
        '*)(uid=*',
        'alice)(uid=*',
        '*)(|(uid=*',
        'alice)(|(uid=*)',
        ')(objectClass=*',
        '(uid=*)',
        '\\',
        '\\2a',
        'al\\69ce',
        'alice\\00',
        'alice\u0000',
        '\u0000',
        'alice\u0000)(uid=*',
        'alice*)(userPassword=*',
        'uid=alice,ou=people,dc=example,dc=test',
        '*)(&',
        'ali(ce',
        'alice ',
      ];
      for (const name of corpus) {
        for (const password of [passwordOf('alice'), passwordOf('bob'), '*']) {
          const res = await login(server, name, password);
          if (name === 'alice ' && password === passwordOf('alice')) continue; // the name, spaced: checked below
          assert.notEqual(res.status, 200, `${JSON.stringify(name)} / ${password} signed somebody in`);
          assert.ok([1044, 1000].includes(res.body.code), `${JSON.stringify(name)}: ${JSON.stringify(res.body)}`);
        }
      }
      assert.deepEqual(await usernames(server), before, 'no account was made by any of them');
    });

    it('keeps local accounts on their own password, never the directory, even with the same name', async () => {
      assert.equal((await login(server, admin.username, admin.password)).status, 200);
      const frank = await makeAccount(server, { username: 'frank' });
      assertError(await login(server, 'frank', passwordOf('frank')), 400, 1044);
      assert.equal((await login(server, 'frank', frank.password)).status, 200);
      const link = await server.ctx.db
        .selectFrom('ldap_accounts')
        .select('user_id')
        .where('user_id', '=', frank.id)
        .executeTakeFirst();
      assert.equal(link, undefined);
    });

    it('still asks for the second step of an account from the directory', async () => {
      const tina = await login(server, 'tina', passwordOf('tina'));
      const cookie = tina.headers
        .getSetCookie()
        .find((c) => c.startsWith('chute_session='))!
        .split(';')[0]!;
      const setup = await server.json('GET', '/api/user/mfa/totp', { auth: cookie });
      const secret = setup.body.secret as string;
      const codeAt = (t: number) =>
        new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30 }).generate({ timestamp: t });
      const on = await server.json('POST', '/api/user/mfa/totp', {
        auth: cookie,
        body: { secret, code: codeAt(clock.now()) },
      });
      assert.equal(on.status, 200, JSON.stringify(on.body));
      clock.advance(30_000);
      const step = await login(server, 'tina', passwordOf('tina'));
      assert.deepEqual(step.body, { totp: true });
      assert.equal(step.headers.getSetCookie().length, 0, 'no session before the code');
      assertError(await login(server, 'tina', passwordOf('tina'), '000000'), 400, 1045);
      assertError(await login(server, 'tina', 'wrong-password', codeAt(clock.now())), 400, 1044);
      const done = await login(server, 'tina', passwordOf('tina'), codeAt(clock.now()));
      assert.equal(done.status, 200, JSON.stringify(done.body));
    });

    it('lets an account from the directory unlink its last OAuth provider: the directory is its way in', async () => {
      const alice = await login(server, 'alice', passwordOf('alice'));
      const cookie = alice.headers
        .getSetCookie()
        .find((c) => c.startsWith('chute_session='))!
        .split(';')[0]!;
      const now = Date.now();
      await server.ctx.db
        .insertInto('oauth_providers')
        .values({
          id: `link-${engine}`,
          user_id: alice.body.user.id,
          provider: 'OIDC',
          username: 'alice',
          oauth_id: 'sub-alice',
          access_token: null,
          refresh_token: null,
          created_at: now,
          updated_at: now,
        })
        .execute();
      const res = await server.json('DELETE', '/api/auth/oauth', { auth: cookie, body: { provider: 'OIDC' } });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.deepEqual(res.body, []);
    });

    it('answers 503 while the directory is down, and local accounts still sign in', async () => {
      await slapd.stop();
      try {
        const alice = await login(server, 'alice', passwordOf('alice'));
        assertError(alice, 503, 9004);
        assert.match(alice.body.error, /LDAP directory cannot be reached/);
        assertError(await login(server, 'somebody-new', 'some-password'), 503, 9004);
        assert.equal((await login(server, admin.username, admin.password)).status, 200, 'the local SUPERADMIN');
        assert.equal((await login(server, 'frank', 'frank-password')).status, 200, 'a local account');
      } finally {
        await slapd.start();
      }
      assert.equal((await login(server, 'alice', passwordOf('alice'))).status, 200, 'back when the directory is');
    });
  });

  describe('TLS', { skip }, () => {
    async function oneSignIn(env: Record<string, string>) {
      const other = await startTestServer({ engine, env });
      try {
        return await login(other, 'bob', passwordOf('bob'));
      } finally {
        await other.close();
      }
    }

    it('signs in over ldaps:// with the test CA', async () => {
      const res = await oneSignIn(ldapEnv(slapd, { LDAP_URL: slapd.ldapsUrl }));
      assert.equal(res.status, 200, JSON.stringify(res.body));
    });

    it('signs in over plain ldap:// only when LDAP_STARTTLS=false says so', async () => {
      const env = ldapEnv(slapd, { LDAP_STARTTLS: 'false' });
      delete env.LDAP_TLS_CA;
      const res = await oneSignIn(env);
      assert.equal(res.status, 200, JSON.stringify(res.body));
    });

    it('refuses a certificate from a CA it does not trust (StartTLS and ldaps://), as the directory down', async () => {
      for (const url of [slapd.url, slapd.ldapsUrl]) {
        const env = ldapEnv(slapd, { LDAP_URL: url });
        delete env.LDAP_TLS_CA;
        assertError(await oneSignIn(env), 503, 9004);
      }
    });

    it('refuses a service account whose password the directory refuses, as unavailable', async () => {
      assertError(await oneSignIn(ldapEnv(slapd, { LDAP_BIND_PASSWORD: 'not-the-password' })), 503, 9004);
    });
  });
});

describe('the LDAP configuration', () => {
  const base = { LDAP_URL: 'ldaps://ldap.example.com', LDAP_SEARCH_BASE: 'ou=people,dc=example,dc=com' };
  const problems = (env: Record<string, string>): string[] => {
    try {
      loadConfig(env);
      return [];
    } catch (err) {
      assert.ok(err instanceof ConfigError);
      return err.problems;
    }
  };

  it('takes ldap:// and ldaps:// URLs, with a search base, and defaults the filter', () => {
    const config = loadConfig(base);
    assert.equal(config.LDAP_SEARCH_FILTER, '(uid={username})');
    assert.equal(config.LDAP_STARTTLS, true);
    assert.deepEqual(problems({ ...base, LDAP_URL: 'ldap://10.0.0.5:389' }), []);
  });

  it('names each variable that is wrong or missing', () => {
    assert.match(problems({ ...base, LDAP_URL: 'https://ldap.example.com' })[0]!, /^LDAP_URL=.*ldaps:\/\//);
    assert.match(problems({ LDAP_URL: base.LDAP_URL })[0]!, /^LDAP_SEARCH_BASE=.*required with LDAP_URL/);
    assert.match(problems({ ...base, LDAP_BIND_DN: 'cn=x' })[0]!, /^LDAP_BIND_PASSWORD=.*required with LDAP_BIND_DN/);
    assert.match(problems({ ...base, LDAP_SEARCH_FILTER: '(uid=*)' })[0]!, /^LDAP_SEARCH_FILTER=.*\{username\}/);
    assert.match(problems({ ...base, LDAP_TLS_CA: '/nonexistent/ca.pem' })[0]!, /^LDAP_TLS_CA=.*PEM/);
    assert.match(problems({ LDAP_SEARCH_BASE: 'ou=x' })[0]!, /^LDAP_SEARCH_BASE=.*without LDAP_URL/);
  });
});
