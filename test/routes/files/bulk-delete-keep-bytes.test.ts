// DELETE /api/user/files/transaction with Zipline's delete_datasourceFiles: absent or true, the records and their
// bytes go; false, only the records go and the bytes stay (bytes kept in the database are moved into the datasource
// first), noted as kept: the periodic drain leaves them, GET /api/server/orphaned_files lists them and DELETE
// removes them. On both engines and on a local folder and S3.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { buffer } from 'node:stream/consumers';
import { before, it } from 'node:test';
import { drainBlobDeletions } from '../../../src/services/files/blob-deletions.js';
import { makeUser, NO_RATE_LIMIT } from '../../support/factory.js';
import { describeS3 } from '../../support/s3.js';
import { forEachDatabase, useTestServer, type TestServer, type TestUser } from '../../support/server.js';
import { databaseObjectKeys, storageKeyOf } from '../../support/stored.js';
import { uploadOne } from '../../support/uploads.js';

/** Larger than UPLOADS_INLINE_MAX (16 KiB): stored in the datasource. */
const LARGE = 64 * 1024;

function keepBytesSuite(server: () => TestServer): void {
  let admin: TestUser;
  let user: TestUser;
  before(async () => {
    admin = await server().setup();
    user = await makeUser(server());
  });

  const bulkDelete = (files: string[], body: Record<string, unknown> = {}) =>
    server().json('DELETE', '/api/user/files/transaction', { auth: user.token, body: { files, ...body } });
  const stored = async (key: string): Promise<Buffer | null> =>
    (await server().ctx.storage.stat(key)) ? buffer(await server().ctx.storage.get(key)) : null;
  const orphans = async (): Promise<Array<{ key: string; size: number | null; deletedAt: string }>> => {
    const res = await server().json('GET', '/api/server/orphaned_files', { auth: admin.token });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body.files;
  };
  const uploadBytes = async (content: Buffer) => {
    const file = await uploadOne(server(), user.token, content, { name: 'kept.bin' });
    return { id: file.id, key: await storageKeyOf(server(), file.id), content };
  };
  const recordExists = async (id: string) =>
    (await server().ctx.db.selectFrom('files').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;

  it('absent or true: the records and the bytes go', async () => {
    for (const body of [{}, { delete_datasourceFiles: true }]) {
      const file = await uploadBytes(randomBytes(LARGE));
      assert.deepEqual(await stored(file.key), file.content);
      const res = await bulkDelete([file.id], body);
      assert.deepEqual(res.body, { count: 1 }, JSON.stringify(body));
      assert.equal(await recordExists(file.id), false);
      assert.equal(await stored(file.key), null, JSON.stringify(body));
    }
    assert.deepEqual(await orphans(), []);
  });

  it('false: the records go, the bytes stay, the drain leaves them, the maintenance action lists and removes them', async () => {
    const files = [await uploadBytes(randomBytes(LARGE)), await uploadBytes(randomBytes(LARGE))];
    const res = await bulkDelete(
      files.map((f) => f.id),
      { delete_datasourceFiles: false },
    );
    assert.deepEqual(res.body, { count: 2 });
    for (const file of files) {
      assert.equal(await recordExists(file.id), false);
      assert.deepEqual(await stored(file.key), file.content);
      assert.equal((await server().fetch(`/raw/${file.id}`)).status, 404);
    }
    // The periodic drain of deleted files' bytes (every note, however recent) does not take them.
    await drainBlobDeletions(server().ctx, { minAgeMs: 0 });
    for (const file of files) assert.deepEqual(await stored(file.key), file.content);
    assert.deepEqual((await orphans()).map((o) => [o.key, o.size]).sort(), files.map((f) => [f.key, LARGE]).sort());
    const user403 = await server().json('GET', '/api/server/orphaned_files', { auth: user.token });
    assert.equal(user403.status, 403);
    const cleared = await server().json('DELETE', '/api/server/orphaned_files', { auth: admin.token });
    assert.equal(cleared.status, 200, JSON.stringify(cleared.body));
    assert.equal(cleared.body.status, 'Cleared 2 orphaned files.');
    for (const file of files) assert.equal(await stored(file.key), null);
    assert.deepEqual(await orphans(), []);
  });

  it('false on a file kept in the database: its bytes move into the datasource, under its key without the prefix', async () => {
    const file = await uploadBytes(randomBytes(1024));
    assert.ok(file.key.startsWith('.chute-db/'), file.key);
    const res = await bulkDelete([file.id], { delete_datasourceFiles: false });
    assert.deepEqual(res.body, { count: 1 });
    assert.equal(await recordExists(file.id), false);
    assert.ok(!(await databaseObjectKeys(server())).includes(file.key));
    const moved = file.key.slice('.chute-db/'.length);
    assert.deepEqual(await stored(moved), file.content);
    await drainBlobDeletions(server().ctx, { minAgeMs: 0 });
    const listed = await orphans();
    assert.deepEqual(
      listed.map((o) => [o.key, o.size]),
      [[moved, 1024]],
    );
    assert.ok(Date.parse(listed[0]!.deletedAt) > 0);
    await server().json('DELETE', '/api/server/orphaned_files', { auth: admin.token });
    assert.equal(await stored(moved), null);
  });

  it('false on files of someone else: 3013, nothing deleted', async () => {
    const file = await uploadBytes(randomBytes(LARGE));
    const other = await makeUser(server());
    const res = await server().json('DELETE', '/api/user/files/transaction', {
      auth: other.token,
      body: { files: [file.id], delete_datasourceFiles: false },
    });
    assert.equal(res.body.code, 3013);
    assert.equal(await recordExists(file.id), true);
    assert.deepEqual(await orphans(), []);
  });
}

forEachDatabase('bulk delete with delete_datasourceFiles', (engine) => {
  keepBytesSuite(useTestServer({ engine, env: NO_RATE_LIMIT }));
});

describeS3('bulk delete with delete_datasourceFiles', (s3Env) => {
  keepBytesSuite(useTestServer(() => ({ engine: 'sqlite', env: { ...NO_RATE_LIMIT, ...s3Env() } })));
});
