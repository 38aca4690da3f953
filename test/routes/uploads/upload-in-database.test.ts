// Small uploads keep their bytes in the database, written with their records (storage/database-objects.ts): which
// requests do (Content-Length at most UPLOADS_INLINE_MAX, through the fast path and through the route), that they are
// served, ranged, deleted and refused like any file, and that a refused or failed one leaves nothing behind.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { before, it } from 'node:test';
import { isDatabaseKey } from '../../../src/storage/database-objects.js';
import { createTestUser, setFileQuota } from '../../support/content.js';
import { forEachDatabase, useTestServer, type TestServer, type TestUser } from '../../support/server.js';
import { databaseObjectKeys, fileRowCount, filesUnder, storageKeyOf, storedFiles } from '../../support/stored.js';
import { upload, uploadOne } from '../../support/uploads.js';

/** The same multipart upload as `upload()`, sent without a Content-Length (chunked), as a streaming client does. */
async function uploadChunked(server: TestServer, token: string, content: Buffer): Promise<Response> {
  const boundary = `----chute${randomBytes(8).toString('hex')}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="streamed.bin"\r\n` +
      'Content-Type: application/octet-stream\r\n\r\n',
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const part of [head, content, tail]) controller.enqueue(new Uint8Array(part));
      controller.close();
    },
  });
  return server.fetch('/api/upload', {
    method: 'POST',
    headers: { authorization: token, 'content-type': `multipart/form-data; boundary=${boundary}` },
    body,
    duplex: 'half',
  } as RequestInit);
}

async function uploadedBytesOnDisk(server: TestServer): Promise<string[]> {
  return (await filesUnder(path.join(server.dataDir, 'uploads'))).filter((f) => !f.includes('.thumbnail.'));
}

forEachDatabase('uploads kept in the database', (engine) => {
  const server = useTestServer({ engine, env: { UPLOADS_INLINE_MAX: '8kb' } });
  let admin: TestUser;
  let user: TestUser;
  before(async () => {
    admin = await server().setup();
    user = await createTestUser(server(), 'small-uploads');
  });

  it('a small request (fast path and route) keeps its bytes in the database, served byte-exact, also by range', async () => {
    const before = await uploadedBytesOnDisk(server());
    // A token takes the fast path (http/uploads/fast-path.ts), a session cookie the route.
    for (const auth of [user.token, admin.cookie]) {
      const bytes = randomBytes(5_000);
      const file = await uploadOne(server(), auth, bytes, { name: 'small.bin' });
      const key = await storageKeyOf(server(), file.id);
      assert.ok(isDatabaseKey(key), key);
      assert.ok((await databaseObjectKeys(server())).includes(key));
      const raw = await server().fetch(`/raw/${file.name}`);
      assert.equal(raw.status, 200);
      assert.deepEqual(Buffer.from(await raw.arrayBuffer()), bytes);
      const part = await server().fetch(`/raw/${file.name}`, { headers: { range: 'bytes=100-199' } });
      assert.equal(part.status, 206);
      assert.equal(part.headers.get('content-range'), `bytes 100-199/${bytes.length}`);
      assert.deepEqual(Buffer.from(await part.arrayBuffer()), bytes.subarray(100, 200));
      const past = await server().fetch(`/raw/${file.name}`, { headers: { range: 'bytes=6000-' } });
      assert.equal(past.status, 416);
      await past.arrayBuffer();
    }
    assert.deepEqual(await uploadedBytesOnDisk(server()), before, 'no file was written for them');
  });

  it('several small files of one request are kept there together; an empty file too', async () => {
    const res = await upload(server(), user.token, [
      { name: 'one.txt', content: 'first' },
      { name: 'two.txt', content: 'second' },
      { name: 'empty.txt', content: '' },
    ]);
    assert.equal(res.status, 200);
    const files = res.body.files as Array<{ id: string; name: string }>;
    for (const [i, text] of ['first', 'second', ''].entries()) {
      assert.ok(isDatabaseKey(await storageKeyOf(server(), files[i]!.id)));
      const raw = await server().fetch(`/raw/${files[i]!.name}`);
      assert.equal(await raw.text(), text);
    }
  });

  it('a request over UPLOADS_INLINE_MAX, or without a Content-Length, goes to the datasource', async () => {
    const big = randomBytes(9_000);
    const file = await uploadOne(server(), user.token, big, { name: 'big.bin' });
    const bigKey = await storageKeyOf(server(), file.id);
    assert.ok(!isDatabaseKey(bigKey));
    assert.ok((await uploadedBytesOnDisk(server())).includes(bigKey));

    const small = randomBytes(1_000);
    const res = await uploadChunked(server(), user.token, small);
    assert.equal(res.status, 200);
    const streamed = ((await res.json()) as { files: Array<{ id: string; name: string }> }).files[0]!;
    const streamedKey = await storageKeyOf(server(), streamed.id);
    assert.ok(!isDatabaseKey(streamedKey), 'no Content-Length: the size is not known beforehand');
    const raw = await server().fetch(`/raw/${streamed.name}`);
    assert.deepEqual(Buffer.from(await raw.arrayBuffer()), small);
  });

  it('deleting the file removes its bytes from the database', async () => {
    const file = await uploadOne(server(), user.token, 'to be deleted');
    const key = await storageKeyOf(server(), file.id);
    const res = await server().fetch(`/api/user/files/${file.id}`, {
      method: 'DELETE',
      headers: { authorization: user.token },
    });
    assert.equal(res.status, 200);
    await res.arrayBuffer();
    assert.ok(!(await databaseObjectKeys(server())).includes(key));
    assert.equal((await server().fetch(`/raw/${file.name}`)).status, 404);
  });

  it('a statement that deletes many records deletes their bytes with them (no removal per key afterwards)', async () => {
    const owner = await createTestUser(server(), 'bulk-small');
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await uploadOne(server(), owner.token, `bulk ${i}`)).id);
    const keys = await Promise.all(ids.map((id) => storageKeyOf(server(), id)));
    const kept = (await databaseObjectKeys(server())).filter((k) => !keys.includes(k));
    // Straight through the database, as a batch of the heavy deletions does: nothing but the trigger runs.
    await server().ctx.db.deleteFrom('files').where('user_id', '=', owner.id).execute();
    assert.deepEqual(await databaseObjectKeys(server()), kept);
  });

  it('refused uploads (quota, taken name, too large) leave no record and no bytes', async () => {
    const quotaUser = await createTestUser(server(), 'small-quota');
    await uploadOne(server(), quotaUser.token, randomBytes(3_000), { name: 'fits.bin' });
    await setFileQuota(server(), quotaUser.id, { maxBytes: 4_000 });
    const files = await fileRowCount(server());
    const stored = await storedFiles(server());

    const overQuota = await upload(server(), quotaUser.token, [{ name: 'over.bin', content: randomBytes(2_000) }]);
    assert.equal(overQuota.status, 413);
    assert.equal(overQuota.body.code, 5002);

    const first = await uploadOne(server(), user.token, 'mine', { headers: { 'x-service-filename': 'taken-name' } });
    const taken = await upload(server(), user.token, [{ name: 'x.txt', content: 'again' }], {
      'x-service-filename': 'taken-name',
    });
    assert.equal(taken.status, 400);
    assert.equal(taken.body.code, 1009);

    assert.equal(await fileRowCount(server()), files + 1);
    assert.deepEqual(
      (await storedFiles(server())).filter((f) => !stored.includes(f)),
      [`database/${await storageKeyOf(server(), first.id)}`],
    );
  });
});

forEachDatabase('uploads kept in the database, turned off', (engine) => {
  const server = useTestServer({ engine, env: { UPLOADS_INLINE_MAX: '0' } });
  it('UPLOADS_INLINE_MAX=0 stores every file in the datasource', async () => {
    const admin = await server().setup();
    const file = await uploadOne(server(), admin.token, 'tiny');
    const key = await storageKeyOf(server(), file.id);
    assert.ok(!isDatabaseKey(key));
    assert.deepEqual(await databaseObjectKeys(server()), []);
    assert.equal(await (await server().fetch(`/raw/${file.name}`)).text(), 'tiny');
  });
});

forEachDatabase('uploads kept in the database, over the size limit', (engine) => {
  const server = useTestServer({ engine, env: { FILES_MAX_FILE_SIZE: '1kb' } });
  it('a small request whose file passes FILES_MAX_FILE_SIZE gets 5001, and nothing is kept', async () => {
    const admin = await server().setup();
    const res = await upload(server(), admin.token, [{ name: 'big.bin', content: randomBytes(3_000) }]);
    assert.equal(res.status, 413);
    assert.equal(res.body.code, 5001);
    assert.equal(await fileRowCount(server()), 0);
    assert.deepEqual(await storedFiles(server()), []);
    const fits = await uploadOne(server(), admin.token, randomBytes(1_000));
    assert.ok(isDatabaseKey(await storageKeyOf(server(), fits.id)));
  });
});
