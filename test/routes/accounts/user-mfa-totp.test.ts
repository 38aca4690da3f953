// TOTP and recovery codes, end to end over HTTP: codes are computed from the secret the server hands out (otpauth),
// time comes from a clock the test moves.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { Secret, TOTP } from 'otpauth';
import { ManualClock } from '../../../src/lib/clock.js';
import { assertError } from '../../support/api-errors.js';
import { makeUser, NO_RATE_LIMIT, superadminOf } from '../../support/factory.js';
import { forEachDatabase, sessionCookieOf, useTestServer, type TestServer } from '../../support/server.js';

const STEP_MS = 30_000;

function codeAt(secret: string, timestamp: number): string {
  return new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30 }).generate({ timestamp });
}

/** Turns TOTP on for the account behind `auth`; returns the secret and the recovery codes. */
async function turnOn(server: TestServer, clock: ManualClock, auth: string) {
  const setup = await server.json('GET', '/api/user/mfa/totp', { auth });
  assert.equal(setup.status, 200, JSON.stringify(setup.body));
  const on = await server.json('POST', '/api/user/mfa/totp', {
    auth,
    body: { secret: setup.body.secret, code: codeAt(setup.body.secret, clock.now()) },
  });
  assert.equal(on.status, 200, JSON.stringify(on.body));
  return { secret: setup.body.secret as string, recoveryCodes: on.body.recoveryCodes as string[] };
}

function login(server: TestServer, username: string, password: string, code?: string) {
  return server.json('POST', '/api/auth/login', { body: { username, password, ...(code ? { code } : {}) } });
}

forEachDatabase('TOTP and recovery codes', (engine) => {
  const clock = new ManualClock(Date.UTC(2026, 0, 1, 12, 0, 0));
  const server = useTestServer({ engine, clock, env: NO_RATE_LIMIT });
  before(async () => {
    await superadminOf(server());
  });

  it('hands out a new secret with its otpauth URI and a PNG QR code while TOTP is off, storing nothing', async () => {
    const user = await makeUser(server());
    const res = await server().json('GET', '/api/user/mfa/totp', { auth: user.token });
    assert.equal(res.status, 200);
    assert.match(res.body.secret, /^[A-Z2-7]{32}$/);
    const uri = new URL(res.body.uri);
    assert.equal(uri.protocol, 'otpauth:');
    assert.equal(uri.searchParams.get('secret'), res.body.secret);
    assert.equal(uri.searchParams.get('issuer'), 'Chute');
    assert.ok(decodeURIComponent(uri.pathname).endsWith(user.username));
    assert.match(res.body.qrcode, /^data:image\/png;base64,/);
    const png = Buffer.from(res.body.qrcode.split(',')[1], 'base64');
    assert.equal(png.subarray(1, 4).toString('latin1'), 'PNG');
    const again = await server().json('GET', '/api/user/mfa/totp', { auth: user.token });
    assert.notEqual(again.body.secret, res.body.secret, 'a fresh secret each time');
    const me = await server().json('GET', '/api/user', { auth: user.token });
    assert.equal(me.body.user.totpEnabled, false);
  });

  it('turns on with a code made from the secret (1045 for a wrong one), keeping the secret encrypted', async () => {
    const user = await makeUser(server());
    const { body: setup } = await server().json('GET', '/api/user/mfa/totp', { auth: user.token });
    const wrong = await server().json('POST', '/api/user/mfa/totp', {
      auth: user.token,
      body: { secret: setup.secret, code: codeAt(setup.secret, clock.now() - 10 * STEP_MS) },
    });
    assertError(wrong, 400, 1045);

    const on = await server().json('POST', '/api/user/mfa/totp', {
      auth: user.token,
      body: { secret: setup.secret, code: codeAt(setup.secret, clock.now()) },
    });
    assert.equal(on.status, 200);
    assert.equal(on.body.totpEnabled, true);
    assert.equal(on.body.id, user.id);
    assert.equal(on.body.recoveryCodes.length, 10);
    assert.equal(new Set(on.body.recoveryCodes).size, 10);
    for (const code of on.body.recoveryCodes) assert.match(code, /^[a-z2-9]{5}-[a-z2-9]{5}$/);

    const row = await server()
      .ctx.db.selectFrom('users')
      .select('totp_secret')
      .where('id', '=', user.id)
      .executeTakeFirstOrThrow();
    assert.ok(row.totp_secret && !row.totp_secret.includes(setup.secret), 'the secret is not stored in clear');
    assert.equal(server().ctx.secrets.decrypt(row.totp_secret), setup.secret);
    const stored = await server()
      .ctx.db.selectFrom('recovery_codes')
      .select('code_hash')
      .where('user_id', '=', user.id)
      .execute();
    assert.equal(stored.length, 10);
    for (const { code_hash } of stored) {
      assert.ok(!on.body.recoveryCodes.some((c: string) => code_hash.includes(c.replace('-', ''))), 'stored hashed');
    }
    const me = await server().json('GET', '/api/user', { auth: user.token });
    assert.equal(me.body.user.totpEnabled, true);
    assert.ok(!JSON.stringify(me.body).includes(setup.secret), 'the secret never leaves the server again');

    assertError(await server().json('GET', '/api/user/mfa/totp', { auth: user.token }), 400, 1069);
    const twice = await server().json('POST', '/api/user/mfa/totp', {
      auth: user.token,
      body: { secret: setup.secret, code: codeAt(setup.secret, clock.now() + STEP_MS) },
    });
    assertError(twice, 400, 1069);
  });

  it('asks for the code at login and accepts each code once, also the one that turned TOTP on', async () => {
    const user = await makeUser(server());
    const { secret } = await turnOn(server(), clock, user.cookie);

    const step = await login(server(), user.username, user.password);
    assert.deepEqual(step.body, { totp: true });
    assert.equal(step.headers.getSetCookie().length, 0);

    // The code that confirmed TOTP was used up by that confirmation.
    assertError(await login(server(), user.username, user.password, codeAt(secret, clock.now())), 400, 1045);

    clock.advance(STEP_MS);
    const code = codeAt(secret, clock.now());
    const ok = await login(server(), user.username, user.password, code);
    assert.equal(ok.status, 200);
    assert.equal(ok.body.user.id, user.id);
    sessionCookieOf(ok.headers);
    assertError(await login(server(), user.username, user.password, code), 400, 1045, 'a replayed code');
    // An older code still inside the window is no good either once a later one was accepted.
    clock.advance(STEP_MS);
    assertError(await login(server(), user.username, user.password, codeAt(secret, clock.now() - STEP_MS)), 400, 1045);
    const spaced = codeAt(secret, clock.now()).replace(/^(\d{3})/, '$1 ');
    assert.equal((await login(server(), user.username, user.password, spaced)).status, 200, 'spaces are ignored');
  });

  it('takes a recovery code in place of a code, once each, in any case and with or without its dash', async () => {
    const user = await makeUser(server());
    const { recoveryCodes } = await turnOn(server(), clock, user.cookie);
    const [first, second] = recoveryCodes as [string, string];

    const ok = await login(server(), user.username, user.password, first);
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assertError(await login(server(), user.username, user.password, first), 400, 1045, 'a used recovery code');
    const typed = second.replace('-', '').toUpperCase();
    assert.equal((await login(server(), user.username, user.password, typed)).status, 200);
    assertError(await login(server(), user.username, user.password, 'abcde-fghjk'), 400, 1045);
    const left = await server()
      .ctx.db.selectFrom('recovery_codes')
      .select('id')
      .where('user_id', '=', user.id)
      .execute();
    assert.equal(left.length, 8);
  });

  it('regenerates the recovery codes with a code; the old ones stop working', async () => {
    const user = await makeUser(server());
    const { secret, recoveryCodes } = await turnOn(server(), clock, user.cookie);
    const wrong = await server().json('POST', '/api/user/mfa/totp/recovery', {
      auth: user.cookie,
      body: { code: '000000' },
    });
    assertError(wrong, 400, 1045);
    clock.advance(STEP_MS);
    const res = await server().json('POST', '/api/user/mfa/totp/recovery', {
      auth: user.cookie,
      body: { code: codeAt(secret, clock.now()) },
    });
    assert.equal(res.status, 200);
    assert.equal(res.body.recoveryCodes.length, 10);
    assertError(await login(server(), user.username, user.password, recoveryCodes[0]), 400, 1045);
    assert.equal((await login(server(), user.username, user.password, res.body.recoveryCodes[0])).status, 200);
  });

  it('turns off with a code (1045 for a wrong one, 1053 when not on), and login asks for none after', async () => {
    const user = await makeUser(server());
    assertError(
      await server().json('DELETE', '/api/user/mfa/totp', { auth: user.token, body: { code: '123456' } }),
      400,
      1053,
    );
    const regenerate = await server().json('POST', '/api/user/mfa/totp/recovery', {
      auth: user.token,
      body: { code: '123456' },
    });
    assertError(regenerate, 400, 1053);

    const { secret } = await turnOn(server(), clock, user.token);
    clock.advance(STEP_MS);
    const wrong = await server().json('DELETE', '/api/user/mfa/totp', {
      auth: user.token,
      body: { code: codeAt(secret, clock.now() - 5 * STEP_MS) },
    });
    assertError(wrong, 400, 1045);
    const off = await server().json('DELETE', '/api/user/mfa/totp', {
      auth: user.token,
      body: { code: codeAt(secret, clock.now()) },
    });
    assert.equal(off.status, 200);
    assert.equal(off.body.totpEnabled, false);
    const codes = await server()
      .ctx.db.selectFrom('recovery_codes')
      .select('id')
      .where('user_id', '=', user.id)
      .execute();
    assert.equal(codes.length, 0, 'the recovery codes go with it');
    const plain = await login(server(), user.username, user.password);
    assert.equal(plain.status, 200);
    assert.ok(plain.body.user);
  });

  it('turns off with a recovery code (a lost phone)', async () => {
    const user = await makeUser(server());
    const { recoveryCodes } = await turnOn(server(), clock, user.token);
    const off = await server().json('DELETE', '/api/user/mfa/totp', {
      auth: user.token,
      body: { code: recoveryCodes[3] },
    });
    assert.equal(off.status, 200);
    assert.equal(off.body.totpEnabled, false);
  });

  it('answers 1054 on all three routes while the setting mfaTotpEnabled is off', async () => {
    const admin = await superadminOf(server());
    const user = await makeUser(server());
    const { secret } = await turnOn(server(), clock, user.token);
    const patch = await server().json('PATCH', '/api/server/settings', {
      auth: admin.token,
      body: { mfaTotpEnabled: false },
    });
    assert.equal(patch.status, 200, JSON.stringify(patch.body));
    try {
      clock.advance(STEP_MS);
      const code = codeAt(secret, clock.now());
      assertError(await server().json('GET', '/api/user/mfa/totp', { auth: user.token }), 400, 1054);
      assertError(
        await server().json('POST', '/api/user/mfa/totp', { auth: user.token, body: { secret, code } }),
        400,
        1054,
      );
      assertError(await server().json('DELETE', '/api/user/mfa/totp', { auth: user.token, body: { code } }), 400, 1054);
      // An account that has TOTP keeps its second step: turning the feature off must not weaken it.
      assert.deepEqual((await login(server(), user.username, user.password)).body, { totp: true });
      assert.equal((await login(server(), user.username, user.password, code)).status, 200);
    } finally {
      await server().json('PATCH', '/api/server/settings', { auth: admin.token, body: { mfaTotpEnabled: true } });
    }
  });
});

forEachDatabase('TOTP code step and the login rate limit', (engine) => {
  const server = useTestServer({ engine });

  it('counts code guesses against the login limit: after 10 attempts even the right code answers 429', async () => {
    const admin = await server().setup('carol', 'carol-password');
    const setup = await server().json('GET', '/api/user/mfa/totp', { auth: admin.token });
    const on = await server().json('POST', '/api/user/mfa/totp', {
      auth: admin.token,
      body: { secret: setup.body.secret, code: codeAt(setup.body.secret, Date.now()) },
    });
    assert.equal(on.status, 200);
    const statuses: number[] = [];
    for (let i = 0; i < 9; i++) {
      statuses.push((await login(server(), 'carol', 'carol-password', 'aaaaa-aaaaa')).status);
    }
    const right = await login(server(), 'carol', 'carol-password', on.body.recoveryCodes[0]);
    // The confirmation (POST /api/user/mfa/totp) was attempt 1 of the same budget.
    assert.deepEqual(statuses, Array(9).fill(400));
    assert.equal(right.status, 429);
    assert.equal(right.body.statusCode, 429);
  });
});
