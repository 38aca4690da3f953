// Zipline limits POST /api/user/urls with its global (upload) limiter and PATCH /api/user per second. Chute: shortening
// has the upload limit's budget (ratelimitMax per ratelimitWindow per user, counted on its own); PATCH /api/user counts
// against the login attempts (10 a minute per address) when it checks the current password.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { makeUser } from '../support/factory.js';
import { forEachDatabase, useTestServer, type TestUser } from '../support/server.js';
import { upload } from '../support/uploads.js';

forEachDatabase('compat: Zipline rate limits', (engine) => {
  const server = useTestServer({ engine, env: { RATELIMIT_MAX: '3', RATELIMIT_WINDOW: '3600' } });
  let ann: TestUser;
  before(async () => {
    await server().setup();
    ann = await makeUser(server(), { username: 'ann' });
  });

  it('POST /api/user/urls: ratelimitMax per window per user (429), counted apart from uploads', async () => {
    const shorten = () =>
      server().json('POST', '/api/user/urls', { auth: ann.token, body: { destination: 'https://example.com/' } });
    for (let i = 0; i < 3; i++) assert.equal((await shorten()).status, 200);
    const refused = await shorten();
    assert.equal(refused.status, 429);
    assert.equal(refused.body.code, 9000);
    // Uploads have their own count.
    const uploaded = await upload(server(), ann.token, [{ name: 'a.txt', content: 'a' }]);
    assert.equal(uploaded.status, 200, JSON.stringify(uploaded.body));
  });

  it('PATCH /api/user with currentPassword counts as a login attempt; without it, it is not limited', async () => {
    const guess = (n: number) =>
      server().json('PATCH', '/api/user', {
        auth: ann.cookie,
        body: { password: 'a-new-password', currentPassword: `guess-${n}` },
      });
    const statuses: number[] = [];
    for (let n = 0; n < 11; n++) statuses.push((await guess(n)).status);
    assert.ok(statuses.includes(429), `some guesses were refused: ${statuses.join(',')}`);
    assert.equal(statuses.filter((s) => s === 400).length + statuses.filter((s) => s === 429).length, 11);
    assert.equal((await guess(99)).body.code, 9000);
    for (let n = 0; n < 5; n++) {
      const res = await server().json('PATCH', '/api/user', {
        auth: ann.cookie,
        body: { view: { enabled: n % 2 === 0 } },
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
    }
  });
});
