// Another site cannot act with the user's session cookie: a state change authenticated by the cookie is refused with
// 403/9001 when Sec-Fetch-Site or Origin says another site made it; the API token is unaffected; logout takes POST,
// and a cross-site GET of it is refused.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { assertError } from '../../support/api-errors.js';
import { makeUser, NO_RATE_LIMIT } from '../../support/factory.js';
import { forEachDatabase, useTestServer, type TestUser } from '../../support/server.js';
import { upload } from '../../support/uploads.js';

const EVIL = 'https://evil.example';

forEachDatabase('cross-site requests', (engine) => {
  const server = useTestServer({ engine, env: NO_RATE_LIMIT });
  let me: TestUser;
  before(async () => {
    await server().setup();
    me = await makeUser(server());
  });

  it('refuses cookie-authenticated changes that another site makes (Sec-Fetch-Site or Origin)', async () => {
    for (const headers of <Array<Record<string, string>>>[
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site' },
      { origin: EVIL },
      { origin: 'null' },
    ]) {
      const patch = await server().json('PATCH', '/api/user', { auth: me.cookie, headers, body: { view: {} } });
      assertError(patch, 403, 9001, JSON.stringify(headers));
      const created = await server().json('POST', '/api/user/tags', { auth: me.cookie, headers, body: { name: 'x' } });
      assertError(created, 403, 9001);
      const uploaded = await upload(server(), me.cookie, [{ name: 'a.txt', content: 'a' }], headers);
      assertError(uploaded, 403, 9001);
    }
    const tags = await server().json('GET', '/api/user/tags', { auth: me.cookie });
    assert.deepEqual(tags.body, []);
  });

  it('lets this site change things with the cookie, and anyone with the API token', async () => {
    const own = `http://${new URL(server().url).host}`;
    const sameOrigin = await server().json('POST', '/api/user/tags', {
      auth: me.cookie,
      headers: { 'sec-fetch-site': 'same-origin', origin: own },
      body: { name: 'mine' },
    });
    assert.equal(sameOrigin.status, 200);
    const byOrigin = await server().json('PATCH', '/api/user', {
      auth: me.cookie,
      headers: { origin: own },
      body: { view: {} },
    });
    assert.equal(byOrigin.status, 200);
    const byToken = await server().json('POST', '/api/user/tags', {
      auth: me.token,
      headers: { 'sec-fetch-site': 'cross-site', origin: EVIL },
      body: { name: 'from a script' },
    });
    assert.equal(byToken.status, 200);
    // Reading with the cookie is not a change.
    const read = await server().json('GET', '/api/user', {
      auth: me.cookie,
      headers: { 'sec-fetch-site': 'cross-site' },
    });
    assert.equal(read.status, 200);
  });

  it('logout takes POST; a cross-site GET or POST of it is refused and the session stays', async () => {
    const cookie = await server().login(me.username, me.password);
    const get = await server().json('GET', '/api/auth/logout', {
      auth: cookie,
      headers: { 'sec-fetch-site': 'cross-site' },
    });
    assertError(get, 403, 9001);
    const post = await server().json('POST', '/api/auth/logout', { auth: cookie, headers: { origin: EVIL } });
    assertError(post, 403, 9001);
    assert.equal((await server().json('GET', '/api/user', { auth: cookie })).status, 200);
    const out = await server().json('POST', '/api/auth/logout', {
      auth: cookie,
      headers: { 'sec-fetch-site': 'same-origin' },
    });
    assert.equal(out.status, 200);
    assert.deepEqual(out.body, { loggedOut: true });
    assertError(await server().json('GET', '/api/user', { auth: cookie }), 401, 2000);
  });
});
