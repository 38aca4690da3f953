// Passkeys over HTTP with a software authenticator (test/support/webauthn.ts): registration, renaming, removal,
// passwordless login, the passkey as the second step of a password login, and every error of these flows.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { Secret, TOTP } from 'otpauth';
import { ManualClock } from '../../../src/lib/clock.js';
import { assertError } from '../../support/api-errors.js';
import { makeUser, NO_RATE_LIMIT, superadminOf } from '../../support/factory.js';
import {
  forEachDatabase,
  sessionCookieOf,
  useTestServer,
  withTestServer,
  type TestServer,
  type TestUser,
} from '../../support/server.js';
import { SoftAuthenticator } from '../../support/webauthn.js';

const FIVE_MINUTES = 5 * 60_000;

async function registerWith(server: TestServer, user: TestUser, authenticator: SoftAuthenticator, name = 'Laptop') {
  const options = await server.json('GET', '/api/user/mfa/passkey/options', { auth: user.token });
  assert.equal(options.status, 200, JSON.stringify(options.body));
  const res = await server.json('POST', '/api/user/mfa/passkey', {
    auth: user.token,
    body: { response: authenticator.register(options.body), name },
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body as { id: string; name: string; lastUsed: string | null };
}

async function loginOptions(server: TestServer) {
  const res = await server.json('GET', '/api/auth/webauthn/options');
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body as { id: string; options: { challenge: string; rpId: string } };
}

forEachDatabase('passkeys', (engine) => {
  const clock = new ManualClock(Date.UTC(2026, 0, 1, 12, 0, 0));
  const server = useTestServer({ engine, clock, env: NO_RATE_LIMIT });
  before(async () => {
    await superadminOf(server());
  });

  it('registers a passkey from the options it handed out, and never shows its registration data', async () => {
    const user = await makeUser(server());
    const authenticator = new SoftAuthenticator(server().url);
    const options = await server().json('GET', '/api/user/mfa/passkey/options', { auth: user.token });
    assert.equal(options.status, 200);
    assert.equal(options.body.rp.id, '127.0.0.1', 'the RP ID is the request host without PUBLIC_URL');
    assert.equal(options.body.rp.name, 'Chute');
    assert.equal(options.body.user.name, user.username);
    assert.equal(Buffer.from(options.body.user.id, 'base64url').toString(), user.id);
    assert.equal(options.body.authenticatorSelection.residentKey, 'required');

    const res = await server().json('POST', '/api/user/mfa/passkey', {
      auth: user.token,
      body: { response: authenticator.register(options.body), name: '  YubiKey  ' },
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.name, 'YubiKey');
    assert.equal(res.body.userId, user.id);
    assert.equal(res.body.lastUsed, null);
    assert.equal('reg' in res.body, false);

    const list = await server().json('GET', '/api/user/mfa/passkey', { auth: user.token });
    assert.deepEqual(list.body, [res.body]);
    const me = await server().json('GET', '/api/user', { auth: user.token });
    assert.equal(me.body.user.passkeys.length, 1);
    assert.equal(me.body.user.passkeys[0].reg, null);
    const row = await server()
      .ctx.db.selectFrom('passkeys')
      .selectAll()
      .where('id', '=', res.body.id)
      .executeTakeFirstOrThrow();
    assert.equal(row.credential_id, authenticator.credentialId);
    const reg = JSON.parse(row.reg);
    assert.equal(reg.webauthn.id, authenticator.credentialId);
    assert.ok(!JSON.stringify(me.body).includes(reg.webauthn.publicKey), 'the public key stays on the server');

    // The challenge was used up: the same answer again has none to answer.
    const replay = await server().json('POST', '/api/user/mfa/passkey', {
      auth: user.token,
      body: { response: authenticator.register(options.body), name: 'again' },
    });
    assertError(replay, 400, 1046);
    // The next options exclude the passkey the user already has.
    const next = await server().json('GET', '/api/user/mfa/passkey/options', { auth: user.token });
    assert.deepEqual(
      next.body.excludeCredentials.map((c: { id: string }) => c.id),
      [authenticator.credentialId],
    );
  });

  it('answers 1046 without options, 1047 without a response, 1048 after 5 minutes, 1049 and 1050', async () => {
    const user = await makeUser(server());
    const authenticator = new SoftAuthenticator(server().url);
    const fake = authenticator.register({ challenge: 'bm9uZQ', user: { id: 'eA' } });
    const post = (body: Record<string, unknown>) =>
      server().json('POST', '/api/user/mfa/passkey', { auth: user.token, body: { name: 'k', ...body } });

    assertError(await post({ response: fake }), 400, 1046);

    let options = await server().json('GET', '/api/user/mfa/passkey/options', { auth: user.token });
    assertError(await post({}), 400, 1047);

    clock.advance(FIVE_MINUTES + 1);
    assertError(await post({ response: authenticator.register(options.body) }), 400, 1048);

    options = await server().json('GET', '/api/user/mfa/passkey/options', { auth: user.token });
    const otherOrigin = authenticator.register(options.body, { origin: 'http://evil.example' });
    assertError(await post({ response: otherOrigin }), 400, 1049);

    options = await server().json('GET', '/api/user/mfa/passkey/options', { auth: user.token });
    const wrongChallenge = authenticator.register({ ...options.body, challenge: 'd3Jvbmc' });
    assertError(await post({ response: wrongChallenge }), 400, 1049);

    options = await server().json('GET', '/api/user/mfa/passkey/options', { auth: user.token });
    const forged = authenticator.register(options.body, { badSignature: true });
    assertError(await post({ response: forged }), 400, 1050);

    const list = await server().json('GET', '/api/user/mfa/passkey', { auth: user.token });
    assert.deepEqual(list.body, []);
  });

  it("renames and removes the user's own passkeys only (9002 for another's)", async () => {
    const user = await makeUser(server());
    const other = await makeUser(server());
    const passkey = await registerWith(server(), user, new SoftAuthenticator(server().url));
    clock.advance(1000);

    const renamed = await server().json('PATCH', '/api/user/mfa/passkey', {
      auth: user.token,
      body: { id: passkey.id, name: 'Phone' },
    });
    assert.equal(renamed.status, 200);
    assert.equal(renamed.body.name, 'Phone');
    assert.notEqual(renamed.body.updatedAt, renamed.body.createdAt);

    const foreign = { id: passkey.id, name: 'mine now' };
    assertError(await server().json('PATCH', '/api/user/mfa/passkey', { auth: other.token, body: foreign }), 404, 9002);
    assertError(
      await server().json('DELETE', '/api/user/mfa/passkey', { auth: other.token, body: { id: passkey.id } }),
      404,
      9002,
    );
    const removed = await server().json('DELETE', '/api/user/mfa/passkey', {
      auth: user.token,
      body: { id: passkey.id },
    });
    assert.equal(removed.status, 200);
    assert.equal(removed.body.id, passkey.id);
    assert.deepEqual((await server().json('GET', '/api/user/mfa/passkey', { auth: user.token })).body, []);
  });

  it('signs in with a passkey alone, setting lastUsed and the signature counter', async () => {
    const user = await makeUser(server());
    const authenticator = new SoftAuthenticator(server().url);
    const passkey = await registerWith(server(), user, authenticator);
    clock.advance(60_000);

    const options = await server().json('GET', '/api/auth/webauthn/options');
    assert.equal(options.status, 200);
    assert.equal(options.body.options.rpId, '127.0.0.1');
    const setCookie = options.headers.getSetCookie().find((c) => c.startsWith('webauthn-challenge-id='));
    assert.ok(setCookie, 'the challenge id travels in a cookie');
    assert.match(setCookie, /HttpOnly/i);
    const cookie = setCookie.split(';')[0]!;
    assert.equal(cookie, `webauthn-challenge-id=${options.body.id}`);

    const res = await server().json('POST', '/api/auth/webauthn', {
      headers: { cookie },
      body: { response: authenticator.authenticate(options.body.options) },
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.user.id, user.id);
    const session = sessionCookieOf(res.headers);
    assert.equal((await server().json('GET', '/api/user', { auth: session })).body.user.id, user.id);

    const [listed] = (await server().json('GET', '/api/user/mfa/passkey', { auth: user.token })).body;
    assert.equal(listed.id, passkey.id);
    assert.equal(listed.lastUsed, new Date(clock.now()).toISOString());
    const row = await server()
      .ctx.db.selectFrom('passkeys')
      .select('reg')
      .where('id', '=', passkey.id)
      .executeTakeFirstOrThrow();
    assert.equal(JSON.parse(row.reg).webauthn.counter, 1);

    // The challenge id also works in the body (clients without cookies); each challenge works once.
    const again = await loginOptions(server());
    const second = await server().json('POST', '/api/auth/webauthn', {
      body: { id: again.id, response: authenticator.authenticate(again.options) },
    });
    assert.equal(second.status, 200);
    const reused = await server().json('POST', '/api/auth/webauthn', {
      body: { id: again.id, response: authenticator.authenticate(again.options) },
    });
    assertError(reused, 400, 1046);
  });

  it('refuses passkey logins: 1046, 1047, 1051 (counter, user verification, origin), 1052, 1060', async () => {
    const user = await makeUser(server());
    const authenticator = new SoftAuthenticator(server().url);
    await registerWith(server(), user, authenticator);
    const post = (body: Record<string, unknown>) => server().json('POST', '/api/auth/webauthn', { body });

    let o = await loginOptions(server());
    assertError(await post({ response: authenticator.authenticate(o.options) }), 400, 1046, 'no challenge id');
    assertError(await post({ id: 'unknown', response: authenticator.authenticate(o.options) }), 400, 1046);
    assertError(await post({ id: o.id }), 400, 1047);

    o = await loginOptions(server());
    clock.advance(FIVE_MINUTES + 1);
    assertError(await post({ id: o.id, response: authenticator.authenticate(o.options) }), 400, 1046, 'expired');

    o = await loginOptions(server());
    assert.equal((await post({ id: o.id, response: authenticator.authenticate(o.options) })).status, 200);
    // A cloned authenticator shows itself by a counter that does not move forward.
    o = await loginOptions(server());
    const cloned = authenticator.authenticate(o.options, { counter: authenticator.counter });
    assertError(await post({ id: o.id, response: cloned }), 400, 1051, 'counter');

    o = await loginOptions(server());
    const unverified = authenticator.authenticate(o.options, { userVerified: false });
    assertError(await post({ id: o.id, response: unverified }), 400, 1051, 'passwordless needs user verification');

    o = await loginOptions(server());
    const elsewhere = authenticator.authenticate(o.options, { origin: 'http://evil.example' });
    assertError(await post({ id: o.id, response: elsewhere }), 400, 1051, 'origin');

    o = await loginOptions(server());
    const forged = authenticator.authenticate(o.options, { badSignature: true });
    assertError(await post({ id: o.id, response: forged }), 400, 1052, 'signature');

    o = await loginOptions(server());
    const stranger = new SoftAuthenticator(server().url);
    assertError(await post({ id: o.id, response: stranger.authenticate(o.options) }), 400, 1052, 'unknown passkey');

    // A passkey kept in an older format (Zipline 4.0 stored the browser's raw registration answer).
    const legacy = new SoftAuthenticator(server().url);
    const now = clock.now();
    await server()
      .ctx.db.insertInto('passkeys')
      .values({
        id: `legacy-${legacy.credentialId}`,
        user_id: user.id,
        name: 'old',
        reg: JSON.stringify({ id: legacy.credentialId, rawId: legacy.credentialId, type: 'public-key', response: {} }),
        credential_id: legacy.credentialId,
        last_used: null,
        created_at: now,
        updated_at: now,
      })
      .execute();
    o = await loginOptions(server());
    assertError(await post({ id: o.id, response: legacy.authenticate(o.options) }), 400, 1060);
  });

  it('takes a passkey as the second step of a password login when the account has TOTP', async () => {
    const user = await makeUser(server());
    const other = await makeUser(server());
    const authenticator = new SoftAuthenticator(server().url);
    const othersKey = new SoftAuthenticator(server().url);
    await registerWith(server(), other, othersKey);
    const setup = await server().json('GET', '/api/user/mfa/totp', { auth: user.token });
    const code = new TOTP({ secret: Secret.fromBase32(setup.body.secret) }).generate({ timestamp: clock.now() });
    await server().json('POST', '/api/user/mfa/totp', { auth: user.token, body: { secret: setup.body.secret, code } });
    const password = { username: user.username, password: user.password };

    assert.deepEqual((await server().json('POST', '/api/auth/login', { body: password })).body, { totp: true });
    await registerWith(server(), user, authenticator);
    const step = await server().json('POST', '/api/auth/login', { body: password });
    assert.deepEqual(step.body, { totp: true, passkey: true });

    let o = await loginOptions(server());
    const foreign = await server().json('POST', '/api/auth/login', {
      body: { ...password, challengeId: o.id, passkey: othersKey.authenticate(o.options) },
    });
    assertError(foreign, 400, 1052, "another account's passkey");

    o = await loginOptions(server());
    const wrongPassword = await server().json('POST', '/api/auth/login', {
      body: { ...password, password: 'nope', challengeId: o.id, passkey: authenticator.authenticate(o.options) },
    });
    assertError(wrongPassword, 400, 1044, 'the password is still checked');

    o = await loginOptions(server());
    // A second step needs user presence only: the password was the first factor.
    const ok = await server().json('POST', '/api/auth/login', {
      body: { ...password, challengeId: o.id, passkey: authenticator.authenticate(o.options, { userVerified: false }) },
    });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.equal(ok.body.user.id, user.id);
    sessionCookieOf(ok.headers);
  });

  it('turns every passkey route off while the setting mfaPasskeys is off (9001)', async () => {
    const admin = await superadminOf(server());
    const user = await makeUser(server());
    const authenticator = new SoftAuthenticator(server().url);
    const passkey = await registerWith(server(), user, authenticator);
    const o = await loginOptions(server());
    await server().json('PATCH', '/api/server/settings', { auth: admin.token, body: { mfaPasskeys: false } });
    try {
      const auth = user.token;
      assertError(await server().json('GET', '/api/user/mfa/passkey/options', { auth }), 403, 9001);
      assertError(await server().json('POST', '/api/user/mfa/passkey', { auth, body: { name: 'x' } }), 403, 9001);
      const rename = { id: passkey.id, name: 'x' };
      assertError(await server().json('PATCH', '/api/user/mfa/passkey', { auth, body: rename }), 403, 9001);
      assertError(await server().json('GET', '/api/auth/webauthn/options'), 403, 9001);
      const login = { id: o.id, response: authenticator.authenticate(o.options) };
      assertError(await server().json('POST', '/api/auth/webauthn', { body: login }), 403, 9001);
    } finally {
      await server().json('PATCH', '/api/server/settings', { auth: admin.token, body: { mfaPasskeys: true } });
    }
  });
});

forEachDatabase('passkeys behind a reverse proxy', (engine) => {
  it('binds passkeys to PUBLIC_URL: its host is the RP ID and its origin the one expected', async () => {
    await withTestServer({ engine, env: { PUBLIC_URL: 'https://files.example.com' } }, async (server) => {
      const user = await makeUser(server);
      const options = await server.json('GET', '/api/user/mfa/passkey/options', { auth: user.token });
      assert.equal(options.body.rp.id, 'files.example.com');

      const direct = new SoftAuthenticator(server.url);
      const viaServerAddress = await server.json('POST', '/api/user/mfa/passkey', {
        auth: user.token,
        body: { response: direct.register(options.body), name: 'direct' },
      });
      assertError(viaServerAddress, 400, 1049);

      const authenticator = new SoftAuthenticator('https://files.example.com');
      await registerWith(server, user, authenticator);
      const login = await server.json('GET', '/api/auth/webauthn/options');
      assert.equal(login.body.options.rpId, 'files.example.com');
      const res = await server.json('POST', '/api/auth/webauthn', {
        body: { id: login.body.id, response: authenticator.authenticate(login.body.options) },
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
    });
  });
});
