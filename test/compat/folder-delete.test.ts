// DELETE /api/user/folders/:id as Zipline v4's clients send it: a JSON body {delete: "file" | "folder", id,
// childrenAction, targetFolderId}. Before Chute honoured it, {delete: "file", id} (take one file out of a folder)
// deleted the whole folder and the folders below it.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { makeFolder, makeUser } from '../support/factory.js';
import { forEachDatabase, useTestServer, type TestUser } from '../support/server.js';
import { uploadOne } from '../support/uploads.js';

forEachDatabase('compat: DELETE /api/user/folders/:id with Zipline bodies', (engine) => {
  const server = useTestServer({ engine });
  let ann: TestUser;
  let bob: TestUser;
  before(async () => {
    ann = await server().setup('ann', 'ann-password');
    bob = await makeUser(server(), { by: ann.token, username: 'bob' });
  });

  const folder = (name: string, parentId: string | null = null, owner = ann) =>
    makeFolder(server(), owner, { name, parentId });
  const upload = (folderId: string, text = 'hello') =>
    uploadOne(server(), ann.token, text, { name: 'note.txt', headers: { 'x-service-folder': folderId } });
  const del = (id: string, body?: unknown, query = '') =>
    server().json('DELETE', `/api/user/folders/${id}${query}`, { auth: ann.token, body });
  const folderOf = async (fileId: string) =>
    (await server().json('GET', `/api/user/files/${fileId}`, { auth: ann.token })).body.folderId as string | null;
  const exists = async (folderId: string) =>
    (await server().json('GET', `/api/user/folders/${folderId}`, { auth: ann.token })).status === 200;
  const parentOf = async (folderId: string) =>
    (await server().json('GET', `/api/user/folders/${folderId}`, { auth: ann.token })).body.parentId as string | null;

  it('{delete: "file", id} takes that one file out of the folder and deletes nothing', async () => {
    const top = await folder('Trip');
    const child = await folder('Day 1', top.id);
    const leaving = await upload(top.id, 'leaving');
    const staying = await upload(top.id, 'staying');
    const res = await del(top.id, { delete: 'file', id: leaving.id });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.id, top.id);
    assert.equal(res.body.name, 'Trip');
    assert.equal(await exists(top.id), true);
    assert.equal(await exists(child.id), true);
    assert.equal(await folderOf(leaving.id), null);
    assert.equal(await folderOf(staying.id), top.id);
    // The file itself is still served.
    assert.equal(await (await server().fetch(`/raw/${leaving.name}`)).text(), 'leaving');
  });

  it('{delete: "file"} without id is 1013, a file not in the folder 1012, an unknown file 4000', async () => {
    const top = await folder('Refusals');
    const elsewhere = await upload((await folder('Elsewhere')).id);
    const missingId = await del(top.id, { delete: 'file' });
    assert.equal(missingId.status, 400);
    assert.equal(missingId.body.code, 1013);
    const notIn = await del(top.id, { delete: 'file', id: elsewhere.id });
    assert.equal(notIn.body.code, 1012);
    const unknown = await del(top.id, { delete: 'file', id: 'no-such-file' });
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.code, 4000);
    assert.equal(await exists(top.id), true);
  });

  it('{delete: "folder"} deletes only that folder: its children go to the top level, its files stay unfiled', async () => {
    for (const childrenAction of [undefined, 'root'] as const) {
      const parent = await folder('Parent');
      const top = await folder('Old', parent.id);
      const child = await folder('Kept child', top.id);
      const file = await upload(top.id);
      const res = await del(top.id, { delete: 'folder', ...(childrenAction ? { childrenAction } : {}) });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.success, true);
      assert.equal(res.body.id, top.id);
      assert.equal(await exists(top.id), false);
      assert.equal(await exists(child.id), true);
      assert.equal(await parentOf(child.id), null);
      assert.equal(await folderOf(file.id), null);
    }
  });

  it('childrenAction "folder" moves the children and files into targetFolderId', async () => {
    const top = await folder('Moving out');
    const child = await folder('Moved child', top.id);
    const target = await folder('Target');
    const file = await upload(top.id);
    const res = await del(top.id, { delete: 'folder', childrenAction: 'folder', targetFolderId: target.id });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(await exists(top.id), false);
    assert.equal(await parentOf(child.id), target.id);
    assert.equal(await folderOf(file.id), target.id);
  });

  it('childrenAction "folder": no target 1019, a missing or foreign target 4008, a target below 1016; nothing changes', async () => {
    const top = await folder('Stays');
    const child = await folder('Below', top.id);
    const file = await upload(top.id);
    const foreign = await folder('Bob’s', null, bob);
    const cases: Array<[Record<string, unknown>, number]> = [
      [{ delete: 'folder', childrenAction: 'folder' }, 1019],
      [{ delete: 'folder', childrenAction: 'folder', targetFolderId: 'no-such-folder' }, 4008],
      [{ delete: 'folder', childrenAction: 'folder', targetFolderId: foreign.id }, 4008],
      [{ delete: 'folder', childrenAction: 'folder', targetFolderId: child.id }, 1016],
      [{ delete: 'folder', childrenAction: 'folder', targetFolderId: top.id }, 1016],
    ];
    for (const [body, code] of cases) {
      const res = await del(top.id, body);
      assert.equal(res.body.code, code, JSON.stringify(body));
    }
    assert.equal(await exists(top.id), true);
    assert.equal(await parentOf(child.id), top.id);
    assert.equal(await folderOf(file.id), top.id);
  });

  it('childrenAction "cascade" deletes the folders below and keeps the files; "cascade-files" deletes them too', async () => {
    const top = await folder('Cascade');
    const child = await folder('Cascade child', top.id);
    const inChild = await upload(child.id);
    const res = await del(top.id, { delete: 'folder', childrenAction: 'cascade' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(await exists(top.id), false);
    assert.equal(await exists(child.id), false);
    assert.equal(await folderOf(inChild.id), null);

    const top2 = await folder('Cascade files');
    const child2 = await folder('Cascade files child', top2.id);
    const doomed = await upload(child2.id, 'doomed');
    const res2 = await del(top2.id, { delete: 'folder', childrenAction: 'cascade-files' });
    assert.equal(res2.status, 200, JSON.stringify(res2.body));
    assert.equal(await exists(child2.id), false);
    assert.equal((await server().json('GET', `/api/user/files/${doomed.id}`, { auth: ann.token })).status, 404);
    assert.equal((await server().fetch(`/raw/${doomed.name}`)).status, 404);
  });

  it('a body of another shape, or a body with ?files= / ?children=, is refused with 1000 and changes nothing', async () => {
    const top = await folder('Guarded');
    const child = await folder('Guarded child', top.id);
    const file = await upload(top.id);
    const bodies = [{}, { delete: 'everything' }, { delete: 'file', id: file.id, extra: true }, { files: 'delete' }];
    for (const body of bodies) {
      const res = await del(top.id, body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.code, 1000, JSON.stringify(body));
    }
    const both = await del(top.id, { delete: 'file', id: file.id }, '?children=lift');
    assert.equal(both.body.code, 1000);
    assert.equal(await exists(top.id), true);
    assert.equal(await exists(child.id), true);
    assert.equal(await folderOf(file.id), top.id);
  });

  it("Chute's own form (no body, ?files= and ?children=) is unchanged", async () => {
    const top = await folder('Chute form');
    const child = await folder('Chute child', top.id);
    await upload(top.id);
    const res = await del(top.id, undefined, '?children=lift');
    assert.deepEqual(res.body, { folders: 1, deletedFiles: 0, keptFiles: 1 });
    assert.equal(await exists(child.id), true);
    assert.equal(await parentOf(child.id), null);
  });
});
