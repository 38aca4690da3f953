// Incomplete files: the assembly of a finished chunked upload (PENDING -> PROCESSING -> COMPLETE | FAILED), what is
// served meanwhile, and GET / DELETE /api/user/files/incomplete.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { before, it } from 'node:test';
import { newId } from '../../../src/lib/security/ids.js';
import { assembleUpload } from '../../../src/services/uploads/assembly.js';
import type { IncompleteFileDto } from '../../../src/schemas/chunked-upload.js';
import { createTestUser, insertTestFile } from '../../support/content.js';
import { uniqueName } from '../../support/factory.js';
import { forEachDatabase, useTestServer, type TestServer, type TestUser } from '../../support/server.js';
import { appendTempFiles, uploadSessionCount } from '../../support/stored.js';
import { sendChunk, uploadAndVerify } from '../../support/chunked-uploads.js';

/**
 * A session as it is right after its last chunk was accepted and before its background assembly started: the
 * first `received` bytes of `file` sent for real, then the session moved to `assembling` with a PENDING record.
 */
async function assemblingSession(
  server: TestServer,
  user: TestUser,
  file: Buffer,
  received: number,
  options: { name?: string; totalSize?: number } = {},
): Promise<{ sessionId: string; incompleteId: string; name: string; storageKey: string }> {
  // Sent as the first chunk of a longer file, so that it is not the last one (no assembly starts).
  const res = await sendChunk(server, user.token, {
    file: Buffer.concat([file, Buffer.alloc(1)]),
    start: 0,
    end: received - 1,
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const session = await server.ctx.db
    .selectFrom('upload_sessions')
    .selectAll()
    .where('token_hash', '=', server.ctx.secrets.hash(res.body.partialToken))
    .executeTakeFirstOrThrow();
  const incompleteId = newId();
  const name = options.name ?? `${newId()}.bin`;
  const now = server.ctx.clock.now();
  await server.ctx.db
    .updateTable('upload_sessions')
    .set({
      state: 'assembling',
      token_hash: null,
      token_expires_at: null,
      reserved_name: name,
      incomplete_file_id: incompleteId,
      chunks: 1,
      total_size: options.totalSize ?? received,
    })
    .where('id', '=', session.id)
    .execute();
  await server.ctx.db
    .insertInto('incomplete_files')
    .values({
      id: incompleteId,
      user_id: user.id,
      file_id: null,
      status: 'PENDING',
      chunks_total: 1,
      chunks_complete: 0,
      metadata: JSON.stringify({ name, type: 'application/octet-stream', size: received, url: null }),
      created_at: now,
      updated_at: now,
    })
    .execute();
  return { sessionId: session.id, incompleteId, name, storageKey: session.storage_key };
}

forEachDatabase('incomplete files', (engine) => {
  const server = useTestServer({ engine });
  let admin: TestUser;
  let bob: TestUser;
  before(async () => {
    admin = await server().setup('ann', 'ann-password');
    bob = await createTestUser(server(), 'bob');
  });

  const list = async (user: TestUser) => {
    const res = await server().json<IncompleteFileDto[]>('GET', '/api/user/files/incomplete', { auth: user.token });
    assert.equal(res.status, 200);
    return res.body;
  };

  it('PENDING -> PROCESSING -> COMPLETE: nothing is served or listed before the file is complete', async () => {
    const file = randomBytes(4000);
    const s = await assemblingSession(server(), admin, file, 4000);
    const pending = (await list(admin)).find((r) => r.id === s.incompleteId)!;
    assert.equal(pending.status, 'PENDING');
    assert.equal(pending.fileId, null);
    assert.equal(pending.chunksComplete, 0);
    assert.equal((await server().fetch(`/raw/${s.name}`)).status, 404);
    const files = await server().ctx.db.selectFrom('files').select('id').where('name', '=', s.name).execute();
    assert.equal(files.length, 0);

    await assembleUpload(server().ctx, s.sessionId);
    const done = (await list(admin)).find((r) => r.id === s.incompleteId)!;
    assert.equal(done.status, 'COMPLETE');
    assert.equal(done.chunksComplete, 1);
    assert.equal(typeof done.fileId, 'string');
    const served = await server().fetch(`/raw/${s.name}`);
    assert.equal(served.status, 200);
    assert.ok(Buffer.from(await served.arrayBuffer()).equals(file));
    assert.equal(await uploadSessionCount(server()), 0);
    assert.deepEqual(await appendTempFiles(server().dataDir), []);
  });

  it('-> FAILED when the reserved name was taken meanwhile: no file, no bytes, no temp data', async () => {
    const taken = await insertTestFile(server(), admin.id, { bytes: 'already here' });
    const s = await assemblingSession(server(), admin, randomBytes(3000), 3000, { name: taken.name });
    await assembleUpload(server().ctx, s.sessionId);
    const failed = (await list(admin)).find((r) => r.id === s.incompleteId)!;
    assert.equal(failed.status, 'FAILED');
    assert.match(failed.metadata.error ?? '', /E1009/);
    assert.equal(failed.fileId, null);
    assert.equal(await server().ctx.storage.stat(s.storageKey), null);
    assert.equal(await uploadSessionCount(server()), 0);
    assert.deepEqual(await appendTempFiles(server().dataDir), []);
    // The file that held the name is untouched.
    assert.equal((await server().fetch(`/raw/${taken.name}`)).status, 200);
  });

  it('-> FAILED when the assembled size is not the announced one; the published bytes are removed', async () => {
    const s = await assemblingSession(server(), admin, randomBytes(3000), 1000, { totalSize: 3000 });
    await assembleUpload(server().ctx, s.sessionId);
    const failed = (await list(admin)).find((r) => r.id === s.incompleteId)!;
    assert.equal(failed.status, 'FAILED');
    assert.equal(typeof failed.metadata.error, 'string');
    assert.equal(await server().ctx.storage.stat(s.storageKey), null);
    assert.equal((await server().fetch(`/raw/${s.name}`)).status, 404);
    assert.equal(await uploadSessionCount(server()), 0);
    assert.deepEqual(await appendTempFiles(server().dataDir), []);
  });

  it("GET lists only the caller's records, with status, progress and file id", async () => {
    const { record } = await uploadAndVerify(server(), bob.token, randomBytes(2500), [1000, 1000]);
    const bobs = await list(bob);
    assert.deepEqual(
      bobs.map((r) => r.id),
      [record.id],
    );
    assert.deepEqual(Object.keys(bobs[0]!).sort(), [
      'chunksComplete',
      'chunksTotal',
      'createdAt',
      'fileId',
      'id',
      'metadata',
      'status',
      'updatedAt',
      'userId',
    ]);
    assert.equal(bobs[0]!.chunksTotal, 3);
    assert.equal(bobs[0]!.userId, bob.id);
    assert.ok(!(await list(admin)).some((r) => r.id === record.id));
    const anonymous = await server().json('GET', '/api/user/files/incomplete');
    assert.equal(anonymous.status, 401);
  });

  it("DELETE removes finished records (the listed ones, or all), never PENDING ones or other users'", async () => {
    const owner = await createTestUser(server(), uniqueName('owner'));
    const other = await createTestUser(server(), uniqueName('other'));
    // The owner's records: one COMPLETE, one FAILED (assembled short of its announced size), one still PENDING.
    await uploadAndVerify(server(), owner.token, randomBytes(1500), [1000]);
    const short = await assemblingSession(server(), owner, randomBytes(3000), 1000, { totalSize: 3000 });
    await assembleUpload(server().ctx, short.sessionId);
    const pending = await assemblingSession(server(), owner, randomBytes(1000), 1000);
    // Another user's finished record.
    await uploadAndVerify(server(), other.token, randomBytes(1200), [1000]);
    const before = await list(owner);
    const finished = before.filter((r) => r.status === 'COMPLETE' || r.status === 'FAILED');
    assert.ok(finished.length >= 2);

    const one = await server().json('DELETE', '/api/user/files/incomplete', {
      auth: owner.token,
      body: { id: [finished[0]!.id, pending.incompleteId] },
    });
    assert.equal(one.status, 200);
    assert.equal(one.body.count, 1);
    const othersBefore = await list(other);
    assert.equal(othersBefore.length, 1);
    const all = await server().json('DELETE', '/api/user/files/incomplete', { auth: owner.token });
    assert.equal(all.status, 200);
    assert.equal(all.body.count, finished.length - 1);
    assert.deepEqual(
      (await list(owner)).map((r) => r.id),
      [pending.incompleteId],
    );
    assert.deepEqual(await list(other), othersBefore);

    await assembleUpload(server().ctx, pending.sessionId);
  });
});
