// Scoped API tokens: POST/GET/DELETE /api/user/tokens, what each scope allows (lib/security/token-scopes.ts) and refuses
// (403/9001), expiry and revocation (401/2001), the secret kept only as a keyed hash, and last-used written at most once
// a minute.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { ManualClock } from '../../../src/lib/clock.js';
import { SCOPE_ROUTES } from '../../../src/lib/security/token-scopes.js';
import { assertError } from '../../support/api-errors.js';
import { createTestUser } from '../../support/content.js';
import { makeUrl } from '../../support/factory.js';
import { forEachDatabase, useTestServer, type TestUser } from '../../support/server.js';
import { upload, uploadOne } from '../../support/uploads.js';

forEachDatabase('scoped API tokens', (engine) => {
  const clock = new ManualClock(Date.parse('2031-03-01T12:00:00Z'));
  const server = useTestServer({ engine, clock });
  let admin: TestUser;
  let bob: TestUser;
  before(async () => {
    admin = await server().setup('ann', 'ann-password');
    bob = await createTestUser(server(), 'bob');
  });

  async function makeToken(user: TestUser, scopes: string[], extra: Record<string, unknown> = {}) {
    const res = await server().json('POST', '/api/user/tokens', {
      auth: user.token,
      body: { name: `${scopes.join('+')} token`, scopes, ...extra },
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body as { id: string; name: string; scopes: string[]; token: string };
  }

  const call = (auth: string, method: string, path: string, body?: unknown) =>
    server().json(method, path, { auth, ...(body === undefined ? {} : { body }) });

  function assertOutOfScope(res: Awaited<ReturnType<typeof call>>, what: string) {
    assertError(res, 403, 9001, what);
  }

  it('answers {id, name, scopes, token} once, and stores only a keyed hash of the secret', async () => {
    const res = await server().json('POST', '/api/user/tokens', {
      auth: bob.token,
      body: { name: 'ShareX on the shared PC', scopes: ['upload'] },
    });
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(res.body).sort(), ['id', 'name', 'scopes', 'token']);
    assert.equal(res.body.name, 'ShareX on the shared PC');
    assert.deepEqual(res.body.scopes, ['upload']);
    assert.match(res.body.token, /^chute_[A-Za-z0-9_-]{43}$/);

    const row = await server()
      .ctx.db.selectFrom('api_tokens')
      .selectAll()
      .where('id', '=', res.body.id)
      .executeTakeFirst();
    assert.ok(row);
    for (const value of Object.values(row)) assert.ok(!String(value).includes(res.body.token), 'the secret is stored');
    assert.equal(row.token_hash, server().ctx.secrets.hash(res.body.token));
    assert.notEqual(row.token_hash, res.body.token);

    const list = await call(bob.token, 'GET', '/api/user/tokens');
    assert.equal(list.status, 200);
    const listed = list.body.find((t: { id: string }) => t.id === res.body.id);
    assert.deepEqual(listed, {
      id: res.body.id,
      name: 'ShareX on the shared PC',
      scopes: ['upload'],
      createdAt: new Date(clock.now()).toISOString(),
      lastUsedAt: null,
      expiresAt: null,
    });
    assert.ok(!JSON.stringify(list.body).includes(res.body.token), 'the list shows the secret');
    for (const t of list.body) assert.equal('token' in t, false);
  });

  it('refuses a bad body with 400/1000: no scopes, an unknown scope, an expiry in the past', async () => {
    for (const body of [
      { name: 'x', scopes: [] },
      { name: 'x', scopes: ['everything'] },
      { name: '', scopes: ['upload'] },
      { name: 'x', scopes: ['upload'], expiresAt: new Date(clock.now() - 1000).toISOString() },
    ]) {
      assertError(await server().json('POST', '/api/user/tokens', { auth: bob.token, body }), 400, 1000);
    }
  });

  it('upload: uploads (single and chunked) but cannot list, read, delete, shorten or reach the account', async () => {
    const { token } = await makeToken(bob, ['upload']);
    const mine = await uploadOne(server(), bob.token, 'kept');

    const up = await upload(server(), token, [{ name: 'shot.png', content: 'png bytes', type: 'image/png' }]);
    assert.equal(up.status, 200, JSON.stringify(up.body));
    const chunk = await server().fetch('/api/upload/partial', {
      method: 'POST',
      headers: {
        authorization: token,
        'content-range': 'bytes 0-2/3',
        'x-service-p-content-length': '3',
        'x-service-p-filename': 'a.txt',
        'x-service-p-content-type': 'text/plain',
        'x-service-p-lastchunk': 'true',
        'content-type': 'application/octet-stream',
      },
      body: 'abc',
    });
    assert.notEqual(chunk.status, 403, 'the chunked upload is refused');
    assert.notEqual(chunk.status, 401);
    assert.equal((await call(token, 'GET', '/api/user/files/incomplete')).status, 200);

    assertOutOfScope(await call(token, 'GET', '/api/user/files'), 'list files');
    assertOutOfScope(await call(token, 'GET', `/api/user/files/${mine.id}`), 'read a file');
    assertOutOfScope(await call(token, 'DELETE', `/api/user/files/${mine.id}`), 'delete a file');
    assertOutOfScope(await call(token, 'POST', '/api/user/urls', { destination: 'https://example.com/' }), 'shorten');
    assertOutOfScope(await call(token, 'GET', '/api/user'), 'the account');
    assertOutOfScope(await call(token, 'GET', '/api/user/token'), 'the main token');
    assertOutOfScope(await call(token, 'GET', '/api/user/tokens'), 'the token list');
    assertOutOfScope(await call(token, 'POST', '/api/user/tokens', { name: 'x', scopes: ['admin'] }), 'a new token');
    assertOutOfScope(await call(token, 'GET', '/api/user/sessions'), 'sessions');
    assert.equal((await call(bob.token, 'GET', `/api/user/files/${mine.id}`)).status, 200, 'the file is still there');
  });

  it('files:read reads files, folders and tags but cannot upload, change or delete', async () => {
    const { token } = await makeToken(bob, ['files:read']);
    const file = await uploadOne(server(), bob.token, 'read me');
    assert.equal((await call(token, 'GET', '/api/user/files')).status, 200);
    assert.equal((await call(token, 'GET', `/api/user/files/${file.id}`)).status, 200);
    const head = await server().fetch(`/api/user/files/${file.id}/raw`, {
      method: 'HEAD',
      headers: { authorization: token },
    });
    assert.equal(head.status, 200);
    assert.equal((await call(token, 'GET', '/api/user/folders')).status, 200);
    assert.equal((await call(token, 'GET', '/api/user/tags')).status, 200);

    assertOutOfScope(await upload(server(), token, [{ name: 'a.txt', content: 'a' }]), 'upload');
    assertOutOfScope(await call(token, 'PATCH', `/api/user/files/${file.id}`, { favorite: true }), 'change');
    assertOutOfScope(await call(token, 'DELETE', `/api/user/files/${file.id}`), 'delete');
    assertOutOfScope(await call(token, 'POST', '/api/user/folders', { name: 'f' }), 'make a folder');
    assertOutOfScope(await call(token, 'GET', '/api/user/urls'), 'short URLs');
  });

  it('files:write changes and deletes files but cannot list them or upload', async () => {
    const { token } = await makeToken(bob, ['files:write']);
    const file = await uploadOne(server(), bob.token, 'change me');
    const patched = await call(token, 'PATCH', `/api/user/files/${file.id}`, { favorite: true });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    assert.equal((await call(token, 'POST', '/api/user/folders', { name: 'from a token' })).status, 200);
    assert.equal((await call(token, 'DELETE', `/api/user/files/${file.id}`)).status, 200);

    assertOutOfScope(await call(token, 'GET', '/api/user/files'), 'list');
    assertOutOfScope(await upload(server(), token, [{ name: 'a.txt', content: 'a' }]), 'upload');
    assertOutOfScope(await call(token, 'POST', '/api/user/urls', { destination: 'https://example.com/' }), 'shorten');
  });

  it('urls shortens, lists, edits and deletes short URLs but cannot upload or read files', async () => {
    const { token } = await makeToken(bob, ['urls']);
    const made = await call(token, 'POST', '/api/user/urls', { destination: 'https://example.com/x' });
    assert.equal(made.status, 200, JSON.stringify(made.body));
    assert.equal((await call(token, 'GET', '/api/user/urls')).status, 200);
    assert.equal((await call(token, 'PATCH', `/api/user/urls/${made.body.id}`, { enabled: false })).status, 200);
    assert.equal((await call(token, 'DELETE', `/api/user/urls/${made.body.id}`)).status, 200);

    assertOutOfScope(await upload(server(), token, [{ name: 'a.txt', content: 'a' }]), 'upload');
    assertOutOfScope(await call(token, 'GET', '/api/user/files'), 'files');
  });

  it("admin reaches the administration routes, and only with an administrator's role (3000 otherwise)", async () => {
    const { token } = await makeToken(admin, ['admin']);
    assert.equal((await call(token, 'GET', '/api/users')).status, 200);
    assert.equal((await call(token, 'GET', '/api/server/settings')).status, 200);
    assert.equal((await call(token, 'GET', '/api/auth/invites')).status, 200);
    assertOutOfScope(await call(token, 'GET', '/api/user/files'), 'files');
    assertOutOfScope(await upload(server(), token, [{ name: 'a.txt', content: 'a' }]), 'upload');

    const bobs = await makeToken(bob, ['admin']);
    assertError(await call(bobs.token, 'GET', '/api/users'), 403, 3000);
  });

  it('several scopes add up', async () => {
    const { token } = await makeToken(bob, ['upload', 'files:read']);
    const up = await upload(server(), token, [{ name: 'a.txt', content: 'a' }]);
    assert.equal(up.status, 200);
    assert.equal((await call(token, 'GET', `/api/user/files/${up.body.files[0].id}`)).status, 200);
    assertOutOfScope(await call(token, 'DELETE', `/api/user/files/${up.body.files[0].id}`), 'delete');
  });

  it('an expired token answers 401/2001', async () => {
    const { token } = await makeToken(bob, ['urls'], { expiresAt: new Date(clock.now() + 3_600_000).toISOString() });
    assert.equal((await call(token, 'GET', '/api/user/urls')).status, 200);
    clock.advance(3_600_000);
    assertError(await call(token, 'GET', '/api/user/urls'), 401, 2001);
    assertError(await upload(server(), token, [{ name: 'a.txt', content: 'a' }]), 401, 2001);
  });

  it('a revoked token answers 401/2001 at once; the list no longer has it', async () => {
    const { id, token } = await makeToken(bob, ['urls']);
    await makeUrl(server(), bob);
    assert.equal((await call(token, 'GET', '/api/user/urls')).status, 200);
    const revoked = await call(bob.token, 'DELETE', `/api/user/tokens/${id}`);
    assert.equal(revoked.status, 200);
    assert.equal(revoked.body.id, id);
    assert.equal('token' in revoked.body, false);
    assertError(await call(token, 'GET', '/api/user/urls'), 401, 2001);
    const list = await call(bob.token, 'GET', '/api/user/tokens');
    assert.equal(
      list.body.some((t: { id: string }) => t.id === id),
      false,
    );
    assertError(await call(bob.token, 'DELETE', `/api/user/tokens/${id}`), 404, 9002);
  });

  it("another user's token cannot be revoked (404/9002, as if it did not exist) and keeps working", async () => {
    const anns = await makeToken(admin, ['urls']);
    assertError(await call(bob.token, 'DELETE', `/api/user/tokens/${anns.id}`), 404, 9002);
    assert.equal((await call(anns.token, 'GET', '/api/user/urls')).status, 200);
    const bobsList = await call(bob.token, 'GET', '/api/user/tokens');
    assert.equal(
      bobsList.body.some((t: { id: string }) => t.id === anns.id),
      false,
    );
  });

  it('the session and the main token still reach everything, including the token routes', async () => {
    const viaSession = await server().json('GET', '/api/user/tokens', { auth: admin.cookie });
    assert.equal(viaSession.status, 200);
    assert.equal((await call(admin.token, 'GET', '/api/user/files')).status, 200);
    assertError(await call('chute_not-a-real-token', 'GET', '/api/user/files'), 401, 2001);
  });

  it('deleting a user deletes their tokens: they answer 401/2001', async () => {
    const carl = await createTestUser(server(), 'carl');
    const { id, token } = await makeToken(carl, ['urls']);
    assert.equal((await call(token, 'GET', '/api/user/urls')).status, 200);
    assert.equal((await call(admin.token, 'DELETE', `/api/users/${carl.id}`)).status, 200);
    assertError(await call(token, 'GET', '/api/user/urls'), 401, 2001);
    const row = await server().ctx.db.selectFrom('api_tokens').select('id').where('id', '=', id).executeTakeFirst();
    assert.equal(row, undefined);
  });

  it('last-used is written at most once a minute per token', async () => {
    const { id, token } = await makeToken(bob, ['urls']);
    const lastUsed = async () =>
      (
        await server()
          .ctx.db.selectFrom('api_tokens')
          .select('last_used_at')
          .where('id', '=', id)
          .executeTakeFirstOrThrow()
      ).last_used_at;
    assert.equal(await lastUsed(), null);
    const first = clock.now();
    await call(token, 'GET', '/api/user/urls');
    assert.equal(Number(await lastUsed()), first);
    clock.advance(30_000);
    await call(token, 'GET', '/api/user/urls');
    assert.equal(Number(await lastUsed()), first, 'written again within the minute');
    clock.advance(30_000);
    await call(token, 'GET', '/api/user/urls');
    assert.equal(Number(await lastUsed()), first + 60_000);
    const listed = (await call(bob.token, 'GET', '/api/user/tokens')).body.find((t: { id: string }) => t.id === id);
    assert.equal(listed.lastUsedAt, new Date(first + 60_000).toISOString());
  });

  it('every route of the scope table exists', async () => {
    const doc = server().chute.app.swagger() as { paths: Record<string, Record<string, unknown>> };
    const routes = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.keys(ops).map((m) => `${m.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`),
    );
    for (const entries of Object.values(SCOPE_ROUTES)) {
      for (const entry of entries) {
        const [method, path] = entry.split(' ') as [string, string];
        const prefix = path.endsWith('/*') ? path.slice(0, -1) : null;
        const found = routes.some((r) => {
          const [m, p] = r.split(' ') as [string, string];
          return (method === '*' || m === method) && (prefix ? p.startsWith(prefix) : p === path);
        });
        assert.ok(found, `${entry} matches no route`);
      }
    }
  });
});
