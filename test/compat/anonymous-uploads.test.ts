// Zipline's anonymous uploads: POST /api/upload and /api/upload/partial without any credentials, naming a public
// folder that allows uploads in x-zipline-folder (or x-service-folder). The files go into that folder as its owner's,
// counted against the owner's quota, with the usual limits; any other anonymous upload is refused as before (401).
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { makeFolder, makeUser, NO_RATE_LIMIT } from '../support/factory.js';
import { sendChunk, uploadInChunks, waitForAssembly } from '../support/chunked-uploads.js';
import { forEachDatabase, useTestServer, type TestUser } from '../support/server.js';
import { upload } from '../support/uploads.js';

forEachDatabase('compat: anonymous uploads into a folder', (engine) => {
  const server = useTestServer({ engine, env: { ...NO_RATE_LIMIT, FILES_MAX_FILE_SIZE: '64kb' } });
  let owner: TestUser;
  let open: string;
  before(async () => {
    await server().setup();
    owner = await makeUser(server(), { quota: { filesQuota: 'BY_FILES', maxFiles: 4 } });
    // As Zipline's dashboard makes such a folder: isPublic and allowUploads.
    open = (await makeFolder(server(), owner, { name: 'Drop box', isPublic: true, allowUploads: true })).id;
  });

  const filesOfOwner = async () =>
    (await server().json('GET', `/api/user/files?folder=${open}`, { auth: owner.token })).body.page as Array<{
      id: string;
      name: string;
      folderId: string;
      maxViews: number | null;
    }>;

  it('POST /api/upload without credentials stores into the folder, as its owner’s file', async () => {
    const res = await upload(server(), '', [{ name: 'hello.txt', content: 'from a visitor', type: 'text/plain' }], {
      'x-zipline-folder': open,
      'x-zipline-max-views': '5',
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const answered = res.body.files[0];
    assert.equal(await (await fetch(answered.rawUrl)).text(), 'from a visitor');
    const listed = await filesOfOwner();
    const file = listed.find((f) => f.id === answered.id);
    assert.ok(file, 'the owner lists the file');
    assert.equal(file.folderId, open);
    assert.equal(file.maxViews, 5, 'the upload headers apply, as Zipline');
    // Counted against the owner: the owner's statistics and quota see it.
    const stats = await server().json('GET', '/api/user/stats', { auth: owner.token });
    assert.equal(stats.body.filesUploaded, 1);
  });

  it('refuses a folder that is missing (4001), private or closed to uploads (3002), and uploads without one (2002)', async () => {
    const send = (headers: Record<string, string>) =>
      upload(server(), '', [{ name: 'x.txt', content: 'x', type: 'text/plain' }], headers);
    assert.equal((await send({ 'x-zipline-folder': 'no-such-folder' })).body.code, 4001);
    const privateUploads = await makeFolder(server(), owner, { allowUploads: true });
    const publicClosed = await makeFolder(server(), owner, { isPublic: true });
    for (const folder of [privateUploads, publicClosed]) {
      const res = await send({ 'x-service-folder': folder.id });
      assert.equal(res.status, 403);
      assert.equal(res.body.code, 3002);
    }
    const none = await send({});
    assert.equal(none.status, 401);
    assert.equal(none.body.code, 2002);
    // Credentials that do not work are not anonymous: a bad token stays 2001 even with a folder.
    const badToken = await upload(server(), 'not-a-token', [{ name: 'x.txt', content: 'x' }], {
      'x-zipline-folder': open,
    });
    assert.equal(badToken.body.code, 2001);
    assert.equal((await filesOfOwner()).length, 1, 'nothing was stored');
  });

  it('the usual limits hold: the size limit (5001) and the owner’s quota (5002)', async () => {
    const big = await upload(server(), '', [{ name: 'big.bin', content: Buffer.alloc(65 * 1024, 1) }], {
      'x-zipline-folder': open,
    });
    assert.equal(big.status, 413);
    assert.equal(big.body.code, 5001);
    // The owner may keep 4 files and has 1: three files in one request fit, a fourth does not.
    const three = await upload(
      server(),
      '',
      ['a', 'b', 'c'].map((n) => ({ name: `${n}.txt`, content: n })),
      { 'x-zipline-folder': open },
    );
    assert.equal(three.status, 200, JSON.stringify(three.body));
    const over = await upload(server(), '', [{ name: 'd.txt', content: 'd' }], { 'x-zipline-folder': open });
    assert.equal(over.status, 413);
    assert.equal(over.body.code, 5002);
    assert.equal((await filesOfOwner()).length, 4);
  });

  it('POST /api/upload/partial without credentials: every chunk names the folder; the file is the owner’s', async () => {
    const other = await makeUser(server());
    const drop = (await makeFolder(server(), other, { isPublic: true, allowUploads: true })).id;
    const file = Buffer.from('0123456789'.repeat(100));
    const res = await uploadInChunks(server(), '', file, [400, 400], {
      headers: { 'x-zipline-folder': drop },
      fileName: 'chunked.txt',
      type: 'text/plain',
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    // The assembly is the owner's: it is listed in the owner's incomplete files.
    const record = await waitForAssembly(server(), other.token, res.body.incompleteFileId);
    assert.equal(record.status, 'COMPLETE', JSON.stringify(record));
    const served = Buffer.from(await (await fetch(res.body.files[0].rawUrl)).arrayBuffer());
    assert.ok(served.equals(file));
    const listed = await server().json('GET', `/api/user/files?folder=${drop}`, { auth: other.token });
    assert.deepEqual(
      listed.body.page.map((f: { name: string }) => f.name),
      [res.body.files[0].name],
    );

    // A chunk without the folder is an anonymous request like any other: 2002; a closed folder: 3002.
    const first = await sendChunk(server(), '', {
      file,
      start: 0,
      end: 399,
      headers: { 'x-zipline-folder': drop },
    });
    assert.equal(first.status, 200, JSON.stringify(first.body));
    const withoutFolder = await sendChunk(server(), '', { file, start: 400, end: 799, token: first.body.partialToken });
    assert.equal(withoutFolder.body.code, 2002);
    const closed = await makeFolder(server(), other, { isPublic: true });
    const refused = await sendChunk(server(), '', {
      file,
      start: 0,
      end: 399,
      headers: { 'x-service-folder': closed.id },
    });
    assert.equal(refused.body.code, 3002);
  });
});
