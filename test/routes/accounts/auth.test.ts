import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { Secret, TOTP } from 'otpauth';
import {
  forEachDatabase,
  sessionCookieOf,
  useTestServer,
  type JsonResponse,
  type TestUser,
} from '../../support/server.js';

forEachDatabase('login, logout and authentication', (engine) => {
  const server = useTestServer({ engine });
  // One account for the suite, made without logging in: logins are limited to 10 a minute, and these tests use them.
  let alice: TestUser;
  before(async () => {
    alice = await server().setup('alice', 'correct horse');
  });

  it('logs in with the right password and sets a session cookie', async () => {
    const res = await server().json('POST', '/api/auth/login', {
      body: { username: 'alice', password: 'correct horse' },
      headers: { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0' },
    });
    assert.equal(res.status, 200);
    assert.equal(res.body.user.id, alice.id);
    const setCookie = res.headers.getSetCookie().find((c) => c.startsWith('chute_session='))!;
    assert.match(setCookie, /HttpOnly/i);
    assert.match(setCookie, /SameSite=Lax/i);
    assert.doesNotMatch(setCookie, /Secure/i, 'plain HTTP gets no Secure flag');
    const me = await server().json('GET', '/api/user', { auth: sessionCookieOf(res.headers) });
    assert.equal(me.status, 200);
    const session = me.body.user.sessions.find((s: { client: string }) => s.client === 'Firefox');
    assert.ok(session, 'the session records the client from the User-Agent');
    assert.equal(session.device, 'Linux');
  });

  it('names the client from x-service-client when given', async () => {
    const res = await server().json('POST', '/api/auth/login', {
      body: { username: 'alice', password: 'correct horse' },
      headers: { 'x-service-client': 'Chute dashboard' },
    });
    const me = await server().json('GET', '/api/user/sessions', { auth: sessionCookieOf(res.headers) });
    assert.equal(me.body.current.client, 'Chute dashboard');
  });

  it('answers 1044 for a wrong password and for an unknown user alike', async () => {
    for (const body of [
      { username: 'alice', password: 'wrong' },
      { username: 'nobody', password: 'correct horse' },
    ]) {
      const res = await server().json('POST', '/api/auth/login', { body });
      assert.equal(res.status, 400);
      assert.deepEqual(res.body, { error: 'E1044: invalid username or password', code: 1044, statusCode: 400 });
      assert.equal(res.headers.getSetCookie().length, 0);
    }
  });

  it('stores no plaintext token, session secret or password', async () => {
    const cookie = await server().login('alice', 'correct horse');
    const me = await server().json('GET', '/api/user', { auth: cookie });
    const secret = decodeURIComponent(cookie.split('=')[1]!);
    const row = await server()
      .ctx.db.selectFrom('users')
      .selectAll()
      .where('username', '=', 'alice')
      .executeTakeFirstOrThrow();
    const sessions = await server().ctx.db.selectFrom('sessions').selectAll().execute();
    const dump = JSON.stringify({ row, sessions });
    assert.ok(!dump.includes(me.body.token), 'API token stored in clear');
    assert.ok(!dump.includes(secret), 'session secret stored in clear');
    assert.ok(!dump.includes('correct horse'), 'password stored in clear');
    assert.match(row.password!, /^\$argon2id\$/);
    assert.ok(!sessions.some((s) => s.id === secret), 'the public session id is not the cookie');
  });

  it('answers 2002 without credentials, 2001 for a bad token, 2000 for a bad session', async () => {
    const none = await server().json('GET', '/api/user');
    assert.equal(none.status, 401);
    assert.equal(none.body.code, 2002);
    const badToken = await server().json('GET', '/api/user', { auth: 'not-a-token' });
    assert.equal(badToken.status, 401);
    assert.equal(badToken.body.code, 2001);
    const badCookie = await server().json('GET', '/api/user', { auth: 'chute_session=forged' });
    assert.equal(badCookie.status, 401);
    assert.equal(badCookie.body.code, 2000);
  });

  it('accepts the token as the whole Authorization header (and with a Bearer prefix)', async () => {
    const cookie = await server().login('alice', 'correct horse');
    const { token } = (await server().json('GET', '/api/user/token', { auth: cookie })).body;
    assert.equal((await server().json('GET', '/api/user', { auth: token })).status, 200);
    assert.equal(
      (await server().json('GET', '/api/user', { headers: { authorization: `Bearer ${token}` } })).status,
      200,
    );
  });

  it('logout ends the session: its cookie then answers 2000', async () => {
    const cookie = await server().login('alice', 'correct horse');
    const out = await server().json('GET', '/api/auth/logout', { auth: cookie });
    assert.equal(out.status, 200);
    assert.deepEqual(out.body, { loggedOut: true });
    assert.ok(
      out.headers.getSetCookie().some((c) => /^chute_session=;/.test(c)),
      'cookie cleared',
    );
    assert.equal((await server().json('GET', '/api/user', { auth: cookie })).body.code, 2000);
  });

  it('asks for the TOTP code when the account has TOTP, and checks it', async () => {
    const secret = new Secret();
    const { ctx } = server();
    await ctx.db
      .updateTable('users')
      .set({ totp_secret: ctx.secrets.encrypt(secret.base32) })
      .where('username', '=', 'alice')
      .execute();
    try {
      const step = await server().json('POST', '/api/auth/login', {
        body: { username: 'alice', password: 'correct horse' },
      });
      assert.equal(step.status, 200);
      assert.deepEqual(step.body, { totp: true });
      assert.equal(step.headers.getSetCookie().length, 0, 'no session before the code');

      const wrong = await server().json('POST', '/api/auth/login', {
        body: { username: 'alice', password: 'correct horse', code: '000000' },
      });
      // 000000 is the right code once in a million windows; the next assertion would then fail loudly, not silently.
      assert.equal(wrong.status, 400);
      assert.equal(wrong.body.code, 1045);

      const code = new TOTP({ secret, digits: 6, period: 30 }).generate({ timestamp: ctx.clock.now() });
      const ok = await server().json('POST', '/api/auth/login', {
        body: { username: 'alice', password: 'correct horse', code },
      });
      assert.equal(ok.status, 200);
      assert.equal(ok.body.user.totpEnabled, true);
      assert.ok(!JSON.stringify(ok.body).includes(secret.base32), 'the TOTP secret never leaves the server');
    } finally {
      await ctx.db.updateTable('users').set({ totp_secret: null }).where('username', '=', 'alice').execute();
    }
  });
});

forEachDatabase('login rate limit', (engine) => {
  const server = useTestServer({ engine });

  it('answers 429 in the error shape after 10 attempts a minute', async () => {
    await server().setup('bob', 'pw-long-enough');
    const statuses: number[] = [];
    let last: JsonResponse | undefined;
    for (let i = 0; i < 11; i++) {
      last = await server().json('POST', '/api/auth/login', { body: { username: 'bob', password: 'nope' } });
      statuses.push(last.status);
    }
    assert.deepEqual(statuses, [...Array(10).fill(400), 429]);
    assert.ok(last);
    assert.equal(last.body.statusCode, 429);
    assert.equal(last.body.code, 9000);
    assert.match(last.body.error, /^E9000: bad request: too many requests/);
    assert.ok(last.headers.get('retry-after'));
  });
});

forEachDatabase('session cookie behind an HTTPS proxy', (engine) => {
  const server = useTestServer({ engine, env: { TRUST_PROXY: '1' } });

  it('is Secure when the proxy says the client came over HTTPS', async () => {
    await server().setup('ivan', 'pw-long-enough');
    const res = await server().json('POST', '/api/auth/login', {
      body: { username: 'ivan', password: 'pw-long-enough' },
      headers: { 'x-forwarded-proto': 'https' },
    });
    assert.equal(res.status, 200);
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith('chute_session='))!;
    assert.match(cookie, /; Secure/i);
    assert.match(cookie, /HttpOnly/i);
  });
});

forEachDatabase('authentication comes before validation', (engine) => {
  const server = useTestServer({ engine });

  it('answers 2002 (not 1000) to an anonymous request with an invalid body', async () => {
    const res = await server().json('PATCH', '/api/user', { body: { view: { align: 'diagonal' } } });
    assert.equal(res.status, 401);
    assert.equal(res.body.code, 2002);
  });

  it('answers 3000 (not 1000) to a USER sending an invalid body to an admin route', async () => {
    const admin = await server().setup('judy', 'pw-long-enough');
    const created = await server().json('POST', '/api/users', {
      auth: admin.token,
      body: { username: 'mallory', password: 'pw-long-enough' },
    });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const mallory = await server().login('mallory', 'pw-long-enough');
    const res = await server().json('POST', '/api/users', { auth: mallory, body: { username: 42 } });
    assert.equal(res.status, 403);
    assert.equal(res.body.code, 3000);
  });
});
