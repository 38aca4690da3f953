// Zipline v4's body keys and addresses, as its dashboard sends them: each is understood, or refused with 1000 naming
// the key; never dropped in silence.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { makeFolder, makeTag, makeUser, NO_RATE_LIMIT } from '../support/factory.js';
import { forEachDatabase, useTestServer, type TestUser } from '../support/server.js';
import { uploadOne } from '../support/uploads.js';

forEachDatabase('compat: Zipline body keys and addresses', (engine) => {
  const server = useTestServer({ engine, env: NO_RATE_LIMIT });
  let root: TestUser;
  let ann: TestUser;
  before(async () => {
    root = await server().setup('root', 'root-password');
    ann = await makeUser(server(), { username: 'ann' });
  });
  const api = (method: string, path: string, body?: unknown, auth = ann.token) =>
    server().json(method, path, { auth, body });
  const fileOf = async (id: string) => (await api('GET', `/api/user/files/${id}`)).body;

  it('POST /api/user/folders {name, isPublic: true, files}: a public folder holding those files', async () => {
    const a = await uploadOne(server(), ann.token, 'a', { name: 'a.txt' });
    const b = await uploadOne(server(), ann.token, 'b', { name: 'b.txt' });
    const res = await api('POST', '/api/user/folders', { name: 'Shared', isPublic: true, files: [a.id, b.id] });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.public, true);
    assert.equal((await fileOf(a.id)).folderId, res.body.id);
    assert.equal((await fileOf(b.id)).folderId, res.body.id);
    // Anonymous visitors see it.
    assert.equal((await server().json('GET', `/api/folders/${res.body.id}`)).status, 200);
    // Someone else's file: 4000, and no folder is made.
    const bob = await makeUser(server());
    const foreign = await uploadOne(server(), bob.token, 'x', { name: 'x.txt' });
    const refused = await api('POST', '/api/user/folders', { name: 'Not made', files: [foreign.id] });
    assert.equal(refused.body.code, 4000);
    const names = ((await api('GET', '/api/user/folders')).body as Array<{ name: string }>).map((f) => f.name);
    assert.ok(!names.includes('Not made'));
  });

  it('PATCH /api/user/folders/:id {isPublic}: opens and closes the folder', async () => {
    const folder = await makeFolder(server(), ann, { name: 'Toggle' });
    const open = await api('PATCH', `/api/user/folders/${folder.id}`, { isPublic: true });
    assert.equal(open.status, 200, JSON.stringify(open.body));
    assert.equal(open.body.public, true);
    const closed = await api('PATCH', `/api/user/folders/${folder.id}`, { isPublic: false });
    assert.equal(closed.body.public, false);
  });

  it('PUT /api/user/folders/:id {id} adds a file (1011 when already there, 1013 without id)', async () => {
    const folder = await makeFolder(server(), ann, { name: 'Put here' });
    const file = await uploadOne(server(), ann.token, 'p', { name: 'p.txt' });
    const res = await api('PUT', `/api/user/folders/${folder.id}`, { id: file.id });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.id, folder.id);
    assert.equal((await fileOf(file.id)).folderId, folder.id);
    assert.equal((await api('PUT', `/api/user/folders/${folder.id}`, { id: file.id })).body.code, 1011);
    assert.equal((await api('PUT', `/api/user/folders/${folder.id}`, {})).body.code, 1013);
  });

  it('GET /api/user/folders/:id/export is the folder as a zip', async () => {
    const folder = await makeFolder(server(), ann, { name: 'Zipped' });
    await uploadOne(server(), ann.token, 'zip me', { name: 'z.txt', headers: { 'x-zipline-folder': folder.id } });
    const res = await server().fetch(`/api/user/folders/${folder.id}/export`, {
      headers: { authorization: ann.token },
    });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/zip');
    const bytes = Buffer.from(await res.arrayBuffer());
    assert.equal(bytes.subarray(0, 2).toString(), 'PK');
  });

  it('PATCH /api/user/files/:id {tags}: sets exactly those tags; a tag that is not yours is 1032 and nothing changes', async () => {
    const file = await uploadOne(server(), ann.token, 't', { name: 't.txt' });
    const red = await makeTag(server(), ann, { name: 'red', color: '#ff0000' });
    const blue = await makeTag(server(), ann, { name: 'blue', color: '#0000ff' });
    const res = await api('PATCH', `/api/user/files/${file.id}`, { tags: [red.id, blue.id], favorite: true });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body.tags.map((t: { name: string }) => t.name).sort(), ['blue', 'red']);
    const bob = await makeUser(server());
    const bobs = await makeTag(server(), bob, { name: 'bobs', color: '#00ff00' });
    const bad = await api('PATCH', `/api/user/files/${file.id}`, { tags: [bobs.id], favorite: false });
    assert.equal(bad.body.code, 1032);
    const after = await fileOf(file.id);
    assert.equal(after.favorite, true);
    assert.equal(after.tags.length, 2);
    const cleared = await api('PATCH', `/api/user/files/${file.id}`, { tags: [] });
    assert.deepEqual(cleared.body.tags, []);
  });

  it('DELETE /api/user/files/transaction {files, delete_datasourceFiles} deletes the files', async () => {
    const file = await uploadOne(server(), ann.token, 'd', { name: 'd.txt' });
    const res = await api('DELETE', '/api/user/files/transaction', { files: [file.id], delete_datasourceFiles: true });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body, { count: 1 });
    assert.equal((await server().fetch(`/raw/${file.name}`)).status, 404);
  });

  it('PATCH /api/users/:id {quota: {filesType, maxFiles}} sets the quota', async () => {
    const someone = await makeUser(server());
    const res = await api(
      'PATCH',
      `/api/users/${someone.id}`,
      { quota: { filesType: 'BY_FILES', maxFiles: 3, maxUrls: 2 } },
      root.token,
    );
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.user.quota.filesQuota, 'BY_FILES');
    assert.equal(res.body.user.quota.maxFiles, 3);
    const neither = await api('PATCH', `/api/users/${someone.id}`, { quota: { maxFiles: 3 } }, root.token);
    assert.equal(neither.body.code, 1000);
  });

  it('a body key Chute does not know is refused with 1000 naming it, and nothing changes', async () => {
    const folder = await makeFolder(server(), ann, { name: 'Strict' });
    const res = await api('PATCH', `/api/user/folders/${folder.id}`, { name: 'Renamed', colour: 'red' });
    assert.equal(res.status, 400);
    assert.equal(res.body.code, 1000);
    assert.match(res.body.error, /colour/);
    assert.equal((await api('GET', `/api/user/folders/${folder.id}`)).body.name, 'Strict');
    const nested = await api(
      'PATCH',
      `/api/users/${ann.id}`,
      { quota: { filesQuota: 'NONE', maxUrls: 1, extra: 1 } },
      root.token,
    );
    assert.equal(nested.body.code, 1000);
    assert.match(nested.body.error, /extra/);
  });
});
