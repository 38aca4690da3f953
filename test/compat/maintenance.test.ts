// Zipline's maintenance routes for admins: DELETE /api/server/clear_temp, GET/DELETE /api/server/clear_zeros and
// POST /api/server/requery_size, with Zipline's answers ({status}, {files}) and Chute's guarantees: temp data of a
// chunked upload that may continue is kept, zero-byte files are deleted like any deletion (usage counters follow),
// sizes are read from the datasource.
import assert from 'node:assert/strict';
import { access, readdir, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { before, it } from 'node:test';
import { makeUser, NO_RATE_LIMIT } from '../support/factory.js';
import { sendChunk, waitForAllAssemblies } from '../support/chunked-uploads.js';
import { forEachDatabase, useTestServer, type TestUser } from '../support/server.js';
import { uploadOne } from '../support/uploads.js';

const exists = (file: string) =>
  access(file).then(
    () => true,
    () => false,
  );

forEachDatabase('compat: Zipline maintenance routes', (engine) => {
  const server = useTestServer({ engine, env: NO_RATE_LIMIT });
  let root: TestUser;
  let ann: TestUser;
  before(async () => {
    root = await server().setup();
    ann = await makeUser(server(), { username: 'ann' });
  });

  const stats = async () => (await server().json('GET', '/api/user/stats', { auth: ann.token })).body;
  const storageKeyOf = async (id: string) =>
    (await server().ctx.db.selectFrom('files').select('storage_key').where('id', '=', id).executeTakeFirstOrThrow())
      .storage_key;

  it('are for admins only (3000 for a USER, 2002 without credentials)', async () => {
    for (const [method, url] of [
      ['DELETE', '/api/server/clear_temp'],
      ['GET', '/api/server/clear_zeros'],
      ['DELETE', '/api/server/clear_zeros'],
      ['POST', '/api/server/requery_size'],
    ] as const) {
      assert.equal((await server().json(method, url, { auth: ann.token })).body.code, 3000, `${method} ${url}`);
      assert.equal((await server().json(method, url)).body.code, 2002, `${method} ${url}`);
    }
  });

  it('DELETE /api/server/clear_temp removes temp files left by a crash, not those of an upload that may continue', async () => {
    const tmpDir = server().ctx.storage.tempDirs[0]!;
    const appendDir = server().ctx.storage.tempDirs.at(-1)!;
    const hoursAgo = new Date(Date.now() - 2 * 3_600_000);
    // Left by a crash: a put's temp file, and the bytes of a chunked upload whose record is gone.
    const orphans = [
      path.join(tmpDir, 'put-bbbbbbbbbbbbbbbbbbbbbbbbbb.tmp'),
      path.join(appendDir, 'append-aaaaaaaaaaaaaaaaaaaaaaaaaa.tmp'),
    ];
    for (const file of orphans) {
      await writeFile(file, 'left behind');
      await utimes(file, hoursAgo, hoursAgo);
    }
    const fresh = path.join(tmpDir, 'put-cccccccccccccccccccccccccc.tmp');
    await writeFile(fresh, 'being written');
    // A chunked upload in the middle: its temp file is old but its session may continue.
    const file = Buffer.from('x'.repeat(300));
    const first = await sendChunk(server(), ann.token, { file, start: 0, end: 99 });
    assert.equal(first.status, 200, JSON.stringify(first.body));
    for (const dir of new Set([tmpDir, appendDir])) {
      for (const name of await readdir(dir)) {
        await utimes(path.join(dir, name), hoursAgo, hoursAgo).catch(() => undefined);
      }
    }
    await utimes(fresh, new Date(), new Date());

    const res = await server().json('DELETE', '/api/server/clear_temp', { auth: root.token });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.status, 'Cleared 2 temporary files.');
    for (const orphan of orphans) assert.ok(!(await exists(orphan)), `${orphan} was removed`);
    assert.ok(await exists(fresh), 'a temp file still being written is kept');
    const second = await sendChunk(server(), ann.token, { file, start: 100, end: 299, token: first.body.partialToken });
    assert.equal(second.status, 200, JSON.stringify(second.body));
    assert.equal(second.body.partialSuccess, false, 'the chunked upload went on to its last chunk');
    // Its assembly runs after the answer: let it record its file here, not in the middle of the next test's counts.
    await waitForAllAssemblies(server(), ann.token);
  });

  it('GET /api/server/clear_zeros lists the empty files; DELETE deletes them and the usage follows', async () => {
    const empty = await uploadOne(server(), ann.token, '', { name: 'empty.txt', type: 'text/plain' });
    await uploadOne(server(), ann.token, 'not empty', { name: 'full.txt' });
    const listed = await server().json('GET', '/api/server/clear_zeros', { auth: root.token });
    assert.equal(listed.status, 200);
    assert.deepEqual(listed.body, { files: [{ id: empty.id, name: empty.name }] });
    const filesBefore = (await stats()).filesUploaded;
    const res = await server().json('DELETE', '/api/server/clear_zeros', { auth: root.token });
    assert.deepEqual(res.body, { status: 'Cleared 1 file with a size of 0.' });
    assert.equal((await server().json('GET', `/api/user/files/${empty.id}`, { auth: ann.token })).body.code, 4000);
    assert.equal((await stats()).filesUploaded, filesBefore - 1);
    assert.deepEqual((await server().json('GET', '/api/server/clear_zeros', { auth: root.token })).body, { files: [] });
  });

  it('POST /api/server/requery_size reads sizes from the datasource; missing bytes are reported, or deleted', async () => {
    const db = server().ctx.db;
    const file = await uploadOne(server(), ann.token, '12345678', { name: 'sized.txt' });
    const storageBefore = (await stats()).storageUsed;
    // A record that says 0 bytes (as a Zipline import or an interrupted assembly left them).
    await db.updateTable('files').set({ size: 0 }).where('id', '=', file.id).execute();
    assert.equal((await stats()).storageUsed, storageBefore - 8);
    const res = await server().json('POST', '/api/server/requery_size', { auth: root.token, body: {} });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.match(res.body.status, /1 updated/);
    assert.equal((await server().json('GET', `/api/user/files/${file.id}`, { auth: ann.token })).body.size, 8);
    assert.equal((await stats()).storageUsed, storageBefore);

    // forceUpdate re-reads a file whose recorded size is wrong but not 0.
    await db.updateTable('files').set({ size: 3 }).where('id', '=', file.id).execute();
    assert.match(
      (await server().json('POST', '/api/server/requery_size', { auth: root.token })).body.status,
      /0 updated/,
    );
    const forced = await server().json('POST', '/api/server/requery_size', {
      auth: root.token,
      body: { forceUpdate: true },
    });
    assert.match(forced.body.status, /1 updated/);
    assert.equal((await stats()).storageUsed, storageBefore);

    // Bytes gone from the datasource: reported; removed with forceDelete.
    const lost = await uploadOne(server(), ann.token, 'lost', { name: 'lost.txt' });
    await server().ctx.storage.delete(await storageKeyOf(lost.id));
    await db.updateTable('files').set({ size: 0 }).where('id', '=', lost.id).execute();
    const reported = await server().json('POST', '/api/server/requery_size', { auth: root.token, body: {} });
    assert.match(reported.body.status, /1 file is in the database but not in the datasource/);
    assert.equal((await server().json('GET', `/api/user/files/${lost.id}`, { auth: ann.token })).status, 200);
    const deleted = await server().json('POST', '/api/server/requery_size', {
      auth: root.token,
      body: { forceDelete: true },
    });
    assert.match(deleted.body.status, /1 deleted because their bytes were missing/);
    assert.equal((await server().json('GET', `/api/user/files/${lost.id}`, { auth: ann.token })).body.code, 4000);
    assert.equal(
      (await server().json('POST', '/api/server/requery_size', { auth: root.token, body: { nope: 1 } })).body.code,
      1000,
    );
  });
});
