// Zipline v4's addresses that Chute serves under other names: the alias answers as Zipline's route does.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { makeFolder, makeTag, makeUser, NO_RATE_LIMIT } from '../support/factory.js';
import { forEachDatabase, useTestServer, type TestUser } from '../support/server.js';
import { uploadOne } from '../support/uploads.js';

forEachDatabase('compat: Zipline addresses', (engine) => {
  const server = useTestServer({ engine, env: NO_RATE_LIMIT });
  let root: TestUser;
  let ann: TestUser;
  before(async () => {
    root = await server().setup('root', 'root-password');
    ann = await makeUser(server(), { username: 'ann' });
  });

  it('GET /api/server/folder/:id[?uploads] is the public folder (3002 when it is not public)', async () => {
    const open = await makeFolder(server(), ann, { name: 'Open', public: true, allowUploads: true });
    await uploadOne(server(), ann.token, 'seen', { name: 'seen.txt', headers: { 'x-zipline-folder': open.id } });
    for (const query of ['', '?uploads']) {
      const res = await server().json('GET', `/api/server/folder/${open.id}${query}`);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.name, 'Open');
      assert.equal(res.body.files.length, 1);
    }
    const closed = await makeFolder(server(), ann, { name: 'Closed' });
    assert.equal((await server().json('GET', `/api/server/folder/${closed.id}`)).body.code, 3002);
  });

  it('GET /api/auth/invites/web?code= answers {invite}, null when there is none', async () => {
    const settings = await server().json('PATCH', '/api/server/settings', {
      auth: root.token,
      body: { invitesEnabled: true },
    });
    assert.equal(settings.status, 200);
    const made = await server().json('POST', '/api/auth/invites', { auth: root.token, body: { maxUses: 2 } });
    assert.equal(made.status, 200, JSON.stringify(made.body));
    const res = await server().json('GET', `/api/auth/invites/web?code=${made.body.code}`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.invite.code, made.body.code);
    assert.equal(res.body.invite.maxUses, 2);
    const none = await server().json('GET', '/api/auth/invites/web?code=no-such-code');
    assert.equal(none.status, 200);
    assert.deepEqual(none.body, { invite: null });
    assert.deepEqual((await server().json('GET', '/api/auth/invites/web')).body, { invite: null });
    // Invite.inviter carries the role, as Zipline's.
    const listed = await server().json('GET', `/api/auth/invites/${made.body.id}`, { auth: root.token });
    assert.deepEqual(listed.body.inviter, { id: root.id, username: 'root', role: 'SUPERADMIN' });
  });

  it('DELETE /api/user/tags/:id answers {success: true} (with the tag); a missing tag or URL is 9002, as Zipline', async () => {
    const tag = await makeTag(server(), ann, { name: 'short-lived' });
    const res = await server().json('DELETE', `/api/user/tags/${tag.id}`, { auth: ann.token });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.success, true);
    assert.equal(res.body.name, 'short-lived');
    for (const method of ['GET', 'PATCH', 'DELETE']) {
      const body = method === 'PATCH' ? { name: 'x' } : undefined;
      assert.equal(
        (await server().json(method, `/api/user/tags/${tag.id}`, { auth: ann.token, body })).body.code,
        9002,
      );
      assert.equal(
        (
          await server().json(method, '/api/user/urls/no-such-url', {
            auth: ann.token,
            body: method === 'PATCH' ? {} : undefined,
          })
        ).body.code,
        9002,
      );
    }
  });

  it('GET /api/users/:id/tags: the user’s tags for an admin; 3019 for an ADMIN asking for a SUPERADMIN', async () => {
    await makeTag(server(), ann, { name: 'holiday', color: '#00aa00' });
    const res = await server().json('GET', `/api/users/${ann.id}/tags`, { auth: root.token });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(
      res.body.map((t: { name: string }) => t.name),
      ['holiday'],
    );
    const admin = await makeUser(server(), { role: 'ADMIN' });
    assert.equal((await server().json('GET', `/api/users/${root.id}/tags`, { auth: admin.token })).body.code, 3019);
    assert.equal((await server().json('GET', `/api/users/${ann.id}/tags`, { auth: ann.token })).body.code, 3000);
    assert.equal((await server().json('GET', '/api/users/no-such-user/tags', { auth: root.token })).body.code, 4009);
  });

  it('GET /api/users answers User[] (noincl=true leaves the caller out); with page, the page object', async () => {
    const all = await server().json('GET', '/api/users', { auth: root.token });
    assert.equal(all.status, 200, JSON.stringify(all.body));
    assert.ok(Array.isArray(all.body));
    const names = all.body.map((u: { username: string }) => u.username);
    assert.ok(names.includes('root') && names.includes('ann'));
    const others = await server().json('GET', '/api/users?noincl=true', { auth: root.token });
    assert.ok(!others.body.some((u: { username: string }) => u.username === 'root'));
    assert.equal(others.body.length, all.body.length - 1);
    const paged = await server().json('GET', '/api/users?page=1&perpage=1', { auth: root.token });
    assert.equal(paged.body.users.length, 1);
    assert.equal(paged.body.total, all.body.length);
  });

  it('POST/GET/PATCH/DELETE /api/users[/:id] answer the User itself (and Chute’s {user} beside it)', async () => {
    const made = await server().json('POST', '/api/users', {
      auth: root.token,
      body: { username: 'zed', password: 'zed-password' },
    });
    assert.equal(made.status, 200, JSON.stringify(made.body));
    assert.equal(made.body.username, 'zed');
    assert.equal(made.body.role, 'USER');
    const { user, ...top } = made.body;
    assert.deepEqual(top, user);
    const read = await server().json('GET', `/api/users/${made.body.id}`, { auth: root.token });
    assert.equal(read.body.username, 'zed');
    assert.equal(read.body.user.username, 'zed');
    const edited = await server().json('PATCH', `/api/users/${made.body.id}`, {
      auth: root.token,
      body: { username: 'zed2' },
    });
    assert.equal(edited.body.username, 'zed2');
    const deleted = await server().json('DELETE', `/api/users/${made.body.id}`, { auth: root.token });
    assert.equal(deleted.status, 200, JSON.stringify(deleted.body));
    assert.equal(deleted.body.username, 'zed2');
    assert.equal(deleted.body.user.id, made.body.id);
    assert.equal(deleted.body.deletedFiles, 0);
  });

  it('GET /api/user/urls answers Url[]; with page, the page object', async () => {
    for (const n of [1, 2, 3]) {
      const made = await server().json('POST', '/api/user/urls', {
        auth: ann.token,
        body: { destination: `https://example.com/${n}` },
      });
      assert.equal(made.status, 200);
    }
    const all = await server().json('GET', '/api/user/urls', { auth: ann.token });
    assert.ok(Array.isArray(all.body), JSON.stringify(all.body));
    assert.equal(all.body.length, 3);
    const found = await server().json('GET', '/api/user/urls?searchField=destination&searchQuery=example.com/2', {
      auth: ann.token,
    });
    assert.deepEqual(
      found.body.map((u: { destination: string }) => u.destination),
      ['https://example.com/2'],
    );
    const paged = await server().json('GET', '/api/user/urls?page=1&perPage=2', { auth: ann.token });
    assert.equal(paged.body.page.length, 2);
    assert.equal(paged.body.total, 3);
  });

  it('GET /api/user/folders?root=true lists the top level; noincl is accepted; user= is another user’s (admins)', async () => {
    const top = await makeFolder(server(), ann, { name: 'Top' });
    const inner = await makeFolder(server(), ann, { name: 'Inner', parentId: top.id });
    const names = (body: Array<{ name: string }>) => body.map((f) => f.name);
    const all = await server().json('GET', '/api/user/folders?noincl=true', { auth: ann.token });
    assert.ok(names(all.body).includes('Inner'));
    const roots = await server().json('GET', '/api/user/folders?root=true&noincl=true', { auth: ann.token });
    assert.equal(roots.status, 200, JSON.stringify(roots.body));
    assert.ok(names(roots.body).includes('Top'));
    assert.ok(!names(roots.body).includes('Inner'));
    const asAdmin = await server().json('GET', `/api/user/folders?user=${ann.id}&root=true`, { auth: root.token });
    assert.equal(asAdmin.status, 200, JSON.stringify(asAdmin.body));
    assert.deepEqual(names(asAdmin.body), names(roots.body));
    assert.ok(asAdmin.body.every((f: { userId: string }) => f.userId === ann.id));
    assert.ok(inner.parentId === top.id);
    assert.equal(
      (await server().json('GET', `/api/user/folders?user=${root.id}`, { auth: ann.token })).body.code,
      3000,
    );
    assert.equal((await server().json('GET', '/api/user/folders?user=nobody', { auth: root.token })).body.code, 4009);
  });

  it('GET /api/user/avatar answers the data URL as text, as Zipline; an image request gets the bytes', async () => {
    const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
    assert.equal((await server().json('GET', '/api/user/avatar', { auth: ann.token })).body.code, 9002);
    const set = await server().json('PATCH', '/api/user', {
      auth: ann.token,
      body: { avatar: `data:image/png;base64,${png}` },
    });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    const text = await server().fetch('/api/user/avatar', { headers: { authorization: ann.token } });
    assert.equal(text.status, 200);
    assert.match(text.headers.get('content-type') ?? '', /^text\/plain/);
    assert.equal(await text.text(), `data:image/png;base64,${png}`);
    const image = await server().fetch('/api/user/avatar', {
      headers: { authorization: ann.token, accept: 'image/webp,image/*,*/*;q=0.8' },
    });
    assert.equal(image.headers.get('content-type'), 'image/png');
    assert.deepEqual(Buffer.from(await image.arrayBuffer()), Buffer.from(png, 'base64'));
  });

  it('/r/<name> redirects (301) to /raw/<name>', async () => {
    const file = await uploadOne(server(), ann.token, 'raw bytes', { name: 'r.txt' });
    const res = await server().fetch(`/r/${file.name}`, { redirect: 'manual' });
    assert.equal(res.status, 301);
    assert.equal(res.headers.get('location'), `/raw/${file.name}`);
    assert.equal(await (await server().fetch(res.headers.get('location')!)).text(), 'raw bytes');
  });
});
