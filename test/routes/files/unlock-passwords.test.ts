// Guessing the password of a file or short URL: one counter per file or URL and address, shared by the JSON unlock
// route and the page's password form; and a token handed out for a password stops working when it changes.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { assertError } from '../../support/api-errors.js';
import { makeUser } from '../../support/factory.js';
import { forEachDatabase, useTestServer, type TestUser } from '../../support/server.js';
import { uploadOne } from '../../support/uploads.js';

const BROWSER = { accept: 'text/html,application/xhtml+xml' };

function formPost(password: string): RequestInit {
  return {
    method: 'POST',
    headers: { ...BROWSER, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ password }),
  };
}

forEachDatabase('password guesses and unlock tokens', (engine) => {
  const server = useTestServer({ engine });
  let owner: TestUser;
  before(async () => {
    await server().setup();
    owner = await makeUser(server());
  });

  async function protectedUrl(destination: string, password: string): Promise<{ id: string; code: string }> {
    const res = await server().json('POST', '/api/user/urls', {
      auth: owner.token,
      body: { destination },
      headers: { 'x-service-password': password },
    });
    assert.equal(res.status, 200);
    return res.body;
  }

  it('a file: the JSON route and the form share one counter per file and address', async () => {
    const file = await uploadOne(server(), owner.token, 'x', { headers: { 'x-service-password': 'right' } });
    const other = await uploadOne(server(), owner.token, 'y', { headers: { 'x-service-password': 'right' } });
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await server().json('POST', `/api/user/files/${file.id}/password`, { body: { password: `g${i}` } });
      statuses.push(res.status);
      statuses.push((await server().fetch(`/view/${file.name}`, formPost(`h${i}`))).status);
    }
    // A wrong password: the JSON route refuses (403), the form page shows its form again (200, issue 50).
    assert.deepEqual(statuses, Array(5).fill([403, 200]).flat());
    const json = await server().json('POST', `/api/user/files/${file.id}/password`, { body: { password: 'right' } });
    assertError(json, 429, 9000);
    assert.equal((await server().fetch(`/u/${file.name}`, formPost('right'))).status, 429);
    // Another file is counted on its own.
    const fine = await server().json('POST', `/api/user/files/${other.id}/password`, { body: { password: 'right' } });
    assert.equal(fine.status, 200);
  });

  it('a short URL: the JSON route and the form share one counter per URL and address', async () => {
    const url = await protectedUrl('https://example.com/guarded', 'right');
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await server().json('POST', `/api/user/urls/${url.id}/password`, { body: { password: `g${i}` } });
      statuses.push(res.status);
      statuses.push((await server().fetch(`/go/${url.code}`, formPost(`h${i}`))).status);
    }
    // A wrong password: the JSON route refuses (403), the form page shows its form again (200, issue 50).
    assert.deepEqual(statuses, Array(5).fill([403, 200]).flat());
    assertError(
      await server().json('POST', `/api/user/urls/${url.id}/password`, { body: { password: 'right' } }),
      429,
      9000,
    );
    assert.equal((await server().fetch(`/go/${url.code}`, formPost('right'))).status, 429);
  });

  it("a file's unlock token stops working when its password changes", async () => {
    const file = await uploadOne(server(), owner.token, 'guarded', { headers: { 'x-service-password': 'first' } });
    const unlocked = await server().json('POST', `/api/user/files/${file.id}/password`, {
      body: { password: 'first' },
    });
    const raw = `/raw/${file.name}?token=${encodeURIComponent(unlocked.body.token)}`;
    assert.equal(await (await server().fetch(raw)).text(), 'guarded');
    const changed = await server().json('PATCH', `/api/user/files/${file.id}`, {
      auth: owner.token,
      body: { password: 'second' },
    });
    assert.equal(changed.status, 200);
    assertError(await server().json('GET', raw), 403, 3018);
  });

  it("a short URL's unlock token stops working when its password changes", async () => {
    const url = await protectedUrl('https://example.com/p2', 'first');
    const unlocked = await server().json('POST', `/api/user/urls/${url.id}/password`, { body: { password: 'first' } });
    const go = `/go/${url.code}?token=${encodeURIComponent(unlocked.body.token)}`;
    assert.equal((await server().fetch(go, { method: 'HEAD' })).status, 302);
    const changed = await server().json('PATCH', `/api/user/urls/${url.id}`, {
      auth: owner.token,
      body: { password: 'second' },
    });
    assert.equal(changed.status, 200);
    // The old token no longer opens it: the form again (200, issue 50), no redirect.
    const again = await server().fetch(go, { redirect: 'manual' });
    assert.equal(again.status, 200);
    assert.equal(again.headers.get('location'), null);
  });
});
