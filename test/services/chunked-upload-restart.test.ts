// A chunked upload's assembly interrupted by the death of its process, in the window between the commit that records
// the file and the one that marks its incomplete file COMPLETE: the next start discards the session and, finding the
// file recorded, marks the incomplete file COMPLETE with its file (not FAILED next to a served file). The crash test
// (test/crash/kill-9.test.ts) lands in that window by chance; this builds the state it leaves.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { before, it } from 'node:test';
import { discardUnfinishedUploadSessions } from '../../src/services/uploads/assembly.js';
import { sendChunk, uploadInChunks, waitForAssembly } from '../support/chunked-uploads.js';
import { forEachDatabase, useTestServer, type TestUser } from '../support/server.js';
import { appendTempFiles } from '../support/stored.js';

forEachDatabase('a chunked upload whose process died after recording its file', (engine) => {
  const server = useTestServer({ engine });
  let admin: TestUser;
  before(async () => {
    admin = await server().setup('ann', 'ann-password');
  });

  it('is COMPLETE with its file after the next start, the file served whole, the temp data gone', async () => {
    const ctx = server().ctx;
    const file = randomBytes(3000);
    const last = await uploadInChunks(server(), admin.token, file, [1000, 1000]);
    assert.equal(last.status, 200, JSON.stringify(last.body));
    const incompleteId: string = last.body.incompleteFileId;
    const done = await waitForAssembly(server(), admin.token, incompleteId);
    assert.equal(done.status, 'COMPLETE');
    const recorded = await ctx.db
      .selectFrom('files')
      .select(['id', 'name', 'storage_key'])
      .where('id', '=', done.fileId!)
      .executeTakeFirstOrThrow();

    // The state the death leaves: the session still assembling (with temp data of its own), the file recorded under
    // the session's key, the incomplete file still PROCESSING.
    const first = await sendChunk(server(), admin.token, { file: randomBytes(2000), start: 0, end: 999 });
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.equal((await appendTempFiles(server().dataDir)).length, 1);
    await ctx.db
      .updateTable('upload_sessions')
      .set({ state: 'assembling', storage_key: recorded.storage_key, incomplete_file_id: incompleteId })
      .execute();
    await ctx.db
      .updateTable('incomplete_files')
      .set({ status: 'PROCESSING', file_id: null })
      .where('id', '=', incompleteId)
      .execute();

    assert.deepEqual(await discardUnfinishedUploadSessions(ctx), { sessions: 1, failed: 0 });
    const after = await waitForAssembly(server(), admin.token, incompleteId);
    assert.equal(after.status, 'COMPLETE');
    assert.equal(after.fileId, recorded.id);
    const served = await server().fetch(`/raw/${recorded.name}`);
    assert.equal(served.status, 200);
    assert.ok(Buffer.from(await served.arrayBuffer()).equals(file));
    assert.deepEqual(await appendTempFiles(server().dataDir), []);
  });
});
