// What the dashboard's Files page needs of the API beyond the file management routes: the owner's copy of a file's
// bytes (GET /api/user/files/:id/raw: no view counted, no password asked, ranges, ?download) and changing a file's
// expiry (PATCH /api/user/files/:id with deletesAt).
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { ManualClock } from '../../../src/lib/clock.js';
import { deleteExpiredFiles } from '../../../src/services/files/manage.js';
import { createTestUser } from '../../support/content.js';
import { forEachDatabase, useTestServer, type TestUser } from '../../support/server.js';
import { uploadOne } from '../../support/uploads.js';

forEachDatabase('files for the dashboard', (engine) => {
  const clock = new ManualClock(Date.parse('2030-01-01T00:00:00Z'));
  const server = useTestServer({ engine, clock });
  let alice: TestUser;
  let bob: TestUser;

  const raw = (id: string, auth: string | undefined, headers: Record<string, string> = {}, query = '') =>
    server().fetch(`/api/user/files/${id}/raw${query}`, {
      headers: { ...(auth ? { authorization: auth } : {}), ...headers },
    });

  before(async () => {
    await server().setup();
    alice = await createTestUser(server(), 'alice');
    bob = await createTestUser(server(), 'bob');
  });

  it('gives the owner the bytes without counting a view, asking a password or using up max views', async () => {
    const file = await uploadOne(server(), alice.token, 'hello, dashboard', { name: 'note.txt', type: 'text/plain' });
    const patched = await server().json('PATCH', `/api/user/files/${file.id}`, {
      auth: alice.token,
      body: { password: 'secret', maxViews: 1 },
    });
    assert.equal(patched.status, 200);
    // The public link wants the password ...
    assert.equal((await server().fetch(`/raw/${file.name}`)).status, 403);
    // ... the owner's copy does not, and reading it three times neither counts nor uses up the one allowed view.
    for (let i = 0; i < 3; i++) {
      const res = await raw(file.id, alice.token);
      assert.equal(res.status, 200);
      assert.equal(await res.text(), 'hello, dashboard');
      assert.equal(res.headers.get('content-type'), 'text/plain; charset=utf-8');
      assert.match(res.headers.get('content-disposition') ?? '', /^inline/);
      assert.match(res.headers.get('content-security-policy') ?? '', /^sandbox/);
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
      assert.match(res.headers.get('cache-control') ?? '', /^private/);
    }
    const after = await server().json('GET', `/api/user/files/${file.id}`, { auth: alice.token });
    assert.equal(after.status, 200);
    assert.equal(after.body.views, 0);
    assert.equal(after.body.maxViews, 1);
  });

  it('answers ranges, ?download and the served name, and serves active content as an attachment', async () => {
    const file = await uploadOne(server(), alice.token, '0123456789', { name: 'digits.txt', type: 'text/plain' });
    const part = await raw(file.id, alice.token, { range: 'bytes=2-5' });
    assert.equal(part.status, 206);
    assert.equal(part.headers.get('content-range'), 'bytes 2-5/10');
    assert.equal(await part.text(), '2345');
    const beyond = await raw(file.id, alice.token, { range: 'bytes=50-' });
    assert.equal(beyond.status, 416);
    assert.equal(beyond.headers.get('content-range'), 'bytes */10');
    await beyond.arrayBuffer();
    const download = await raw(file.id, alice.token, {}, '?download');
    assert.match(download.headers.get('content-disposition') ?? '', /^attachment/);
    await download.arrayBuffer();
    const byName = await raw(encodeURIComponent(file.name), alice.token);
    assert.equal(await byName.text(), '0123456789');
    const page = await uploadOne(server(), alice.token, '<script>alert(1)</script>', {
      name: 'page.html',
      type: 'text/html',
    });
    const html = await raw(page.id, alice.token);
    assert.equal(html.status, 200);
    assert.match(html.headers.get('content-disposition') ?? '', /^attachment/);
    assert.equal(await html.text(), '<script>alert(1)</script>');
  });

  it('refuses strangers, other users and missing files in words of the error table', async () => {
    const file = await uploadOne(server(), alice.token, 'private', { name: 'private.txt' });
    const anonymous = await raw(file.id, undefined);
    assert.equal(anonymous.status, 401);
    assert.equal(((await anonymous.json()) as { code: number }).code, 2002);
    const other = await raw(file.id, bob.token);
    assert.equal(other.status, 404);
    assert.equal(((await other.json()) as { code: number }).code, 4000);
    assert.equal(other.headers.get('content-disposition'), null);
    const missing = await raw('no-such-file', alice.token);
    assert.equal(((await missing.json()) as { code: number }).code, 4000);
    // The bytes gone from storage: the same 4000, without the headers of a file answer.
    const row = await server()
      .ctx.db.selectFrom('files')
      .select('storage_key')
      .where('id', '=', file.id)
      .executeTakeFirstOrThrow();
    await server().ctx.storage.delete(row.storage_key);
    const gone = await raw(file.id, alice.token);
    assert.equal(gone.status, 404);
    assert.equal(((await gone.json()) as { code: number }).code, 4000);
    assert.equal(gone.headers.get('content-disposition'), null);
  });

  it("sets, moves and clears a file's expiry; the sweep deletes it once the time has come", async () => {
    const file = await uploadOne(server(), alice.token, 'short-lived', { name: 'short.txt' });
    const inAnHour = new Date(clock.now() + 3_600_000).toISOString();
    const set = await server().json('PATCH', `/api/user/files/${file.id}`, {
      auth: alice.token,
      body: { deletesAt: inAnHour },
    });
    assert.equal(set.status, 200);
    assert.equal(set.body.deletesAt, inAnHour);
    const cleared = await server().json('PATCH', `/api/user/files/${file.id}`, {
      auth: alice.token,
      body: { deletesAt: null },
    });
    assert.equal(cleared.body.deletesAt, null);
    for (const deletesAt of [
      new Date(clock.now() - 1000).toISOString(),
      'tomorrow',
      '10000-01-01T00:00:00Z',
      '9999-12-31T23:59:59.999-01:00',
    ]) {
      const bad = await server().json('PATCH', `/api/user/files/${file.id}`, {
        auth: alice.token,
        body: { deletesAt },
      });
      assert.equal(bad.status, 400, deletesAt);
      assert.equal(bad.body.code, 1000, deletesAt);
    }
    const withOffset = await server().json('PATCH', `/api/user/files/${file.id}`, {
      auth: alice.token,
      body: { deletesAt: '2030-01-01T02:00:00+01:00' },
    });
    assert.equal(withOffset.body.deletesAt, '2030-01-01T01:00:00.000Z');
    const notHers = await server().json('PATCH', `/api/user/files/${file.id}`, {
      auth: bob.token,
      body: { deletesAt: null },
    });
    assert.equal(notHers.body.code, 4000);
    assert.equal(await deleteExpiredFiles(server().ctx), 0);
    clock.advance(3_600_001);
    assert.equal(await deleteExpiredFiles(server().ctx), 1);
    assert.equal((await server().json('GET', `/api/user/files/${file.id}`, { auth: alice.token })).body.code, 4000);
  });
});
