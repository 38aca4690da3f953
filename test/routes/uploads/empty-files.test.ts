// Files of 0 bytes: stored with a warning in the answer ("empty file: it has 0 bytes"), or refused (400, code 9000)
// when the server setting filesRefuseEmpty is on, by every way in: one request (multipart, curl too), tus, the
// upload form of a public folder. A refused upload leaves nothing behind.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { before, it } from 'node:test';
import { createTestUser } from '../../support/content.js';
import { authHeaders, forEachDatabase, readJsonResponse, useTestServer, type TestUser } from '../../support/server.js';
import { fileRowCount, storedFiles, uploadSessionCount } from '../../support/stored.js';
import { upload } from '../../support/uploads.js';

const run = promisify(execFile);

forEachDatabase('empty uploads', (engine) => {
  const server = useTestServer({ engine });
  let admin: TestUser;
  let user: TestUser;
  before(async () => {
    admin = await server().setup();
    user = await createTestUser(server(), 'empty-uploader');
  });
  const refuseEmpty = async (on: boolean) => {
    const res = await server().json('PATCH', '/api/server/settings', {
      auth: admin.token,
      body: { filesRefuseEmpty: on },
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
  };

  it('a 0-byte file is stored and the answer says so; a file with bytes gets no warning', async () => {
    const res = await upload(server(), user.token, [
      { name: 'empty.txt', content: '', type: 'text/plain' },
      { name: 'full.txt', content: 'words', type: 'text/plain' },
    ]);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body.files[0].warnings, ['empty file: it has 0 bytes']);
    assert.equal(res.body.files[0].size, 0);
    assert.equal(res.body.files[1].warnings, undefined);
    const served = await server().fetch(`/raw/${res.body.files[0].name}`);
    assert.equal(served.status, 200);
    assert.equal((await served.arrayBuffer()).byteLength, 0);
  });

  it('filesRefuseEmpty: one request, curl and tus are refused with 9000 in words, and nothing is left', async () => {
    await refuseEmpty(true);
    const before = { files: await fileRowCount(server()), stored: await storedFiles(server()) };

    const res = await upload(server(), user.token, [{ name: 'empty.txt', content: '', type: 'text/plain' }]);
    assert.equal(res.status, 400, JSON.stringify(res.body));
    assert.equal(res.body.code, 9000);
    assert.match(res.body.error, /empty file: it has 0 bytes, and this server refuses empty files/);
    // With a file that has bytes in the same request: the whole request is refused, the other file is not kept.
    const mixed = await upload(server(), user.token, [
      { name: 'full.txt', content: 'words', type: 'text/plain' },
      { name: 'empty.txt', content: '', type: 'text/plain' },
    ]);
    assert.equal(mixed.status, 400);

    const curl = await run('curl', [
      '-s',
      '-w',
      '\n%{http_code}',
      '-H',
      `authorization: ${user.token}`,
      '-F',
      'file=@/dev/null;filename=nothing.bin',
      `${server().url}/api/upload`,
    ]);
    const [body, status] = curl.stdout.split('\n');
    assert.equal(status, '400', curl.stdout);
    assert.equal(JSON.parse(body!).code, 9000);

    const tus = await server().fetch('/api/upload/tus', {
      method: 'POST',
      headers: {
        'tus-resumable': '1.0.0',
        ...authHeaders(user.token),
        'upload-length': '0',
        'upload-metadata': 'filename ZW1wdHkudHh0',
      },
    });
    const tusBody = await readJsonResponse(tus);
    assert.equal(tus.status, 400, JSON.stringify(tusBody.body));
    assert.equal(tusBody.body.code, 9000);
    assert.equal(await uploadSessionCount(server()), 0);

    assert.equal(await fileRowCount(server()), before.files);
    assert.deepEqual(await storedFiles(server()), before.stored);

    // Files with bytes still go in.
    const full = await upload(server(), user.token, [{ name: 'full.txt', content: 'words', type: 'text/plain' }]);
    assert.equal(full.status, 200);
    await refuseEmpty(false);
  });

  it('the public upload form of a folder says it in words when empty files are refused', async () => {
    const folder = await server().json('POST', '/api/user/folders', {
      auth: user.token,
      body: { name: 'Drop box', public: true, allowUploads: true },
    });
    await refuseEmpty(true);
    const form = new FormData();
    form.append('file', new Blob([], { type: 'text/plain' }), 'empty.txt');
    const res = await server().fetch(`/folder/${folder.body.id}`, {
      method: 'POST',
      headers: { accept: 'text/html' },
      body: form,
    });
    assert.equal(res.status, 400);
    assert.match(await res.text(), /empty file: it has 0 bytes/);
    await refuseEmpty(false);
  });
});
