import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { setUserQuota } from '../../../src/services/accounts/quotas.js';
import { createTestUser } from '../../support/content.js';
import { forEachDatabase, useTestServer, type TestUser } from '../../support/server.js';

forEachDatabase('anonymous uploads into a folder', (engine) => {
  const server = useTestServer({ engine });
  let bob: TestUser;
  before(async () => {
    await server().setup('ann', 'ann-password');
    bob = await createTestUser(server(), 'bob');
  });

  function upload(folderId: string, files: Array<[string, string]>) {
    const form = new FormData();
    for (const [name, text] of files) form.append('file', new Blob([text], { type: 'text/plain' }), name);
    return server().fetch(`/api/folders/${folderId}/upload`, { method: 'POST', body: form });
  }

  it("stores the files as the owner's, in the folder, readable at their links; the page offers the form", async () => {
    const folder = await server().json('POST', '/api/user/folders', {
      auth: bob.token,
      body: { name: 'Drop box', public: true, allowUploads: true },
    });
    const res = await upload(folder.body.id, [
      ['hello.txt', 'hello from a visitor'],
      ['second.txt', 'two'],
    ]);
    assert.equal(res.status, 200);
    const body = (await res.json()) as { files: Array<{ id: string; url: string; originalName: string | null }> };
    assert.equal(body.files.length, 2);
    assert.equal(body.files[0]!.originalName, 'hello.txt');

    const detail = await server().json('GET', `/api/user/folders/${folder.body.id}`, { auth: bob.token });
    assert.equal(detail.body.fileCount, 2);
    for (const file of detail.body.files) assert.equal(file.userId, bob.id);
    const raw = await fetch(body.files[0]!.url.replace('/u/', '/raw/'));
    assert.equal(await raw.text(), 'hello from a visitor');

    const page = await (await server().fetch(`/folder/${folder.body.id}`)).text();
    assert.ok(page.includes(`<form method="post" action="/folder/${folder.body.id}" enctype="multipart/form-data">`));
    assert.ok(page.includes('hello.txt'));
  });

  it('3002 when the owner does not allow uploads, 4001 for a missing folder; nothing is stored', async () => {
    const closed = await server().json('POST', '/api/user/folders', {
      auth: bob.token,
      body: { name: 'Closed', public: true },
    });
    let res = await upload(closed.body.id, [['x.txt', 'x']]);
    assert.equal(res.status, 403);
    assert.equal(((await res.json()) as { code: number }).code, 3002);
    res = await upload('nosuchfolder', [['x.txt', 'x']]);
    assert.equal(res.status, 404);
    assert.equal(((await res.json()) as { code: number }).code, 4001);
    const detail = await server().json('GET', `/api/user/folders/${closed.body.id}`, { auth: bob.token });
    assert.equal(detail.body.fileCount, 0);
    const page = await (await server().fetch(`/folder/${closed.body.id}`)).text();
    assert.ok(!page.includes('enctype="multipart/form-data"'), 'no upload form when uploads are not allowed');
  });

  it('3002 for a private folder even when it allows uploads; nothing is stored', async () => {
    const folder = await server().json('POST', '/api/user/folders', {
      auth: bob.token,
      body: { name: 'Private inbox', public: false, allowUploads: true },
    });
    assert.equal(folder.status, 200);
    const res = await upload(folder.body.id, [['x.txt', 'x']]);
    assert.equal(res.status, 403);
    assert.equal(((await res.json()) as { code: number }).code, 3002);
    const form = new FormData();
    form.append('file', new Blob(['x'], { type: 'text/plain' }), 'x.txt');
    const page = await server().fetch(`/folder/${folder.body.id}`, { method: 'POST', body: form });
    assert.equal(page.status, 403);
    const detail = await server().json('GET', `/api/user/folders/${folder.body.id}`, { auth: bob.token });
    assert.equal(detail.body.fileCount, 0);
  });

  it("counts against the owner's quota: over it -> 413 / 5002 and nothing is kept", async () => {
    const cleo = await createTestUser(server(), 'cleo');
    await setUserQuota(server().ctx, server().ctx.db, cleo.id, {
      filesQuota: 'BY_FILES',
      maxBytes: null,
      maxFiles: 1,
      maxUrls: null,
    });
    const folder = await server().json('POST', '/api/user/folders', {
      auth: cleo.token,
      body: { name: 'Limited', public: true, allowUploads: true },
    });
    let res = await upload(folder.body.id, [['one.txt', '1']]);
    assert.equal(res.status, 200);
    res = await upload(folder.body.id, [['two.txt', '2']]);
    assert.equal(res.status, 413);
    assert.equal(((await res.json()) as { code: number }).code, 5002);
    const files = await server().ctx.db.selectFrom('files').select('id').where('user_id', '=', cleo.id).execute();
    assert.equal(files.length, 1);
  });
});
