// Small stored files are served from memory after their first read (ctx.smallFiles, src/services/serving/files.ts):
// exact bytes and ranges, evicted when the file is deleted, never for large files, and max views still exact.
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { before, it } from 'node:test';
import { forEachDatabase, useTestServer, type TestServer, type TestUser } from '../../support/server.js';
import { storageKeyOf } from '../../support/stored.js';
import { uploadOne } from '../../support/uploads.js';

const uploadBytes = (server: TestServer, token: string, bytes: Buffer, headers: Record<string, string> = {}) =>
  uploadOne(server, token, bytes, { name: 'small.bin', type: 'application/octet-stream', headers });

const get = async (server: TestServer, pathname: string, headers: Record<string, string> = {}) => {
  const res = await server.fetch(pathname, { headers });
  return { status: res.status, bytes: Buffer.from(await res.arrayBuffer()), headers: res.headers };
};

forEachDatabase('small files from memory', (engine) => {
  const server = useTestServer({ engine });
  let user: TestUser;
  before(async () => {
    user = await server().setup('small', 'small-password');
  });

  it('after the first read a small file is served from memory, whole and in ranges', async () => {
    const content = Buffer.from(Array.from({ length: 64 * 1024 }, (_, i) => i % 251));
    const file = await uploadBytes(server(), user.token, content);
    const first = await get(server(), `/raw/${file.name}`);
    assert.equal(first.status, 200);
    assert.ok(first.bytes.equals(content));
    // The stored copy goes (as if by hand): the next answers can only come from memory.
    const key = await storageKeyOf(server(), file.id);
    assert.ok(server().ctx.smallFiles.get(key)?.equals(content));
    await rm(path.join(server().dataDir, 'uploads', key)); // fails if the stored copy is not where it should be
    const again = await get(server(), `/raw/${file.name}`);
    assert.ok(again.bytes.equals(content));
    const range = await get(server(), `/raw/${file.name}`, { range: 'bytes=1000-1999' });
    assert.equal(range.status, 206);
    assert.equal(range.headers.get('content-range'), `bytes 1000-1999/${content.length}`);
    assert.ok(range.bytes.equals(content.subarray(1000, 2000)));
    const owner = await get(server(), `/api/user/files/${file.id}/raw`, { authorization: user.token });
    assert.ok(owner.bytes.equals(content));
  });

  it("deleting a file drops its bytes from memory; a large file's are never kept", async () => {
    const small = await uploadBytes(server(), user.token, Buffer.from('small and soon gone'));
    await (await server().fetch(`/raw/${small.name}`)).arrayBuffer();
    const key = await storageKeyOf(server(), small.id);
    assert.ok(server().ctx.smallFiles.get(key));
    const deleted = await server().json('DELETE', `/api/user/files/${small.id}`, { auth: user.token });
    assert.equal(deleted.status, 200);
    assert.equal(server().ctx.smallFiles.get(key), undefined);
    assert.equal((await server().fetch(`/raw/${small.name}`)).status, 404);

    const large = Buffer.alloc(server().ctx.smallFiles.maxEntryBytes + 1, 7);
    const big = await uploadBytes(server(), user.token, large);
    const held = server().ctx.smallFiles.size;
    const res = await get(server(), `/raw/${big.name}`);
    assert.ok(res.bytes.equals(large));
    assert.equal(server().ctx.smallFiles.get(await storageKeyOf(server(), big.id)), undefined);
    assert.equal(server().ctx.smallFiles.size, held);
  });

  it('a small file with max views is served exactly that many times, also when already in memory', async () => {
    const file = await uploadBytes(server(), user.token, Buffer.from('twice only'), { 'x-service-max-views': '2' });
    // Read once by its owner (no view counted): now in memory.
    await get(server(), `/api/user/files/${file.id}/raw`, { authorization: user.token });
    const answers = await Promise.all(Array.from({ length: 10 }, () => get(server(), `/raw/${file.name}`)));
    assert.equal(answers.filter((a) => a.status === 200).length, 2);
    assert.ok(answers.filter((a) => a.status === 200).every((a) => a.bytes.toString() === 'twice only'));
    assert.equal((await server().fetch(`/raw/${file.name}`)).status, 404);
  });
});
