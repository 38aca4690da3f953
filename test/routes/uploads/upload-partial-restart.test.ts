// Chunked uploads do not survive a restart (the spec's states table): at start-up the temp data of unfinished
// sessions is removed, their tokens stop working, and assemblies left PENDING or PROCESSING become FAILED. And since
// sessions live in the database, two instances sharing it (and the storage) can take turns with the chunks, and a
// restart of one discards only the uploads it holds.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { it } from 'node:test';
import { ManualClock } from '../../../src/lib/clock.js';
import { newId } from '../../../src/lib/security/ids.js';
import { STALE_BUSY_MS } from '../../../src/services/uploads/assembly.js';
import { forEachDatabase, startTestServer, withSharedState, type TestServer } from '../../support/server.js';
import { appendTempFiles, uploadSessionCount } from '../../support/stored.js';
import { sendChunk, uploadAndVerify, waitForAssembly } from '../../support/chunked-uploads.js';

/** Instances that share a database share its SECRET (tokens and sessions are keyed by it). */
const SHARED_SECRET = 'one secret for every instance of the database';

async function insertIncomplete(
  server: TestServer,
  userId: string,
  status: 'PENDING' | 'PROCESSING' | 'COMPLETE',
): Promise<string> {
  const id = newId();
  const now = server.ctx.clock.now();
  await server.ctx.db
    .insertInto('incomplete_files')
    .values({
      id,
      user_id: userId,
      file_id: null,
      status,
      chunks_total: 2,
      chunks_complete: 0,
      metadata: JSON.stringify({ name: `${id}.bin`, type: 'application/octet-stream', size: 10, url: null }),
      created_at: now,
      updated_at: now,
    })
    .execute();
  return id;
}

forEachDatabase('chunked uploads across a restart', (engine) => {
  it('discards open and assembling sessions with their temp data; PENDING/PROCESSING records become FAILED', async () => {
    await withSharedState(engine, async ({ dataDir, databaseUrl }) => {
      const first = await startTestServer({ engine, dataDir, databaseUrl });
      const admin = await first.setup();
      const file = randomBytes(5000);
      const { record: completed } = await uploadAndVerify(first, admin.token, file, [2000]);

      const open = await sendChunk(first, admin.token, { file, start: 0, end: 999 });
      assert.equal(open.status, 200);
      // A second upload whose last chunk had been accepted and whose bytes were already published when the process
      // died, before the file record was written.
      const crashed = await sendChunk(first, admin.token, { file, start: 0, end: 999 });
      const crashedHash = first.ctx.secrets.hash(crashed.body.partialToken);
      const pendingId = await insertIncomplete(first, admin.id, 'PENDING');
      const session = await first.ctx.db
        .updateTable('upload_sessions')
        .set({ state: 'assembling', token_hash: null, reserved_name: 'crashed.bin', incomplete_file_id: pendingId })
        .where('token_hash', '=', crashedHash)
        .returning(['storage_key'])
        .executeTakeFirstOrThrow();
      await first.ctx.storage.put(session.storage_key, Readable.from([file]), {
        contentType: 'application/octet-stream',
      });
      const processingId = await insertIncomplete(first, admin.id, 'PROCESSING');
      assert.equal(await uploadSessionCount(first), 2);
      assert.equal((await appendTempFiles(dataDir)).length, 2);
      await first.close();

      const second = await startTestServer({ engine, dataDir, databaseUrl });
      try {
        assert.equal(await uploadSessionCount(second), 0);
        assert.deepEqual(await appendTempFiles(dataDir), []);
        assert.equal(
          await second.ctx.storage.stat(session.storage_key),
          null,
          'unrecorded published bytes are removed',
        );
        const refused = await sendChunk(second, admin.token, {
          file,
          start: 1000,
          end: 1999,
          token: open.body.partialToken,
        });
        assert.equal(refused.status, 400);
        assert.equal(refused.body.code, 1003);

        const records = await second.json('GET', '/api/user/files/incomplete', { auth: admin.token });
        const status = (id: string) => records.body.find((r: { id: string }) => r.id === id)?.status;
        assert.equal(status(pendingId), 'FAILED');
        assert.equal(status(processingId), 'FAILED');
        assert.equal(status(completed.id), 'COMPLETE', 'finished records are left alone');
        // The completed file is still served.
        assert.equal(
          (await second.fetch(`/api/user/files/${completed.fileId}`, { headers: { authorization: admin.token } }))
            .status,
          200,
        );
        // And chunked uploads work again from byte 0.
        await uploadAndVerify(second, admin.token, file, [1000, 1000]);
      } finally {
        await second.close();
      }
    });
  });

  it('any instance sharing the database and storage can take the next chunk', async () => {
    await withSharedState(engine, async ({ dataDir, databaseUrl }) => {
      const a = await startTestServer({ engine, dataDir, databaseUrl });
      const b = await startTestServer({ engine, dataDir, databaseUrl });
      try {
        const admin = await a.setup();
        const file = randomBytes(90_000);
        let token: string | undefined;
        const instances = [a, b, a, b, a];
        for (const [i, instance] of instances.entries()) {
          const start = i * 18_000;
          const res = await sendChunk(instance, admin.token, { file, start, end: start + 17_999, token });
          assert.equal(res.status, 200, JSON.stringify(res.body));
          token = res.body.partialToken;
          if (i === instances.length - 1) {
            const record = await waitForAssembly(b, admin.token, res.body.incompleteFileId);
            assert.equal(record.status, 'COMPLETE');
            const served = await b.fetch(`/raw/${res.body.files[0].name}`);
            assert.ok(Buffer.from(await served.arrayBuffer()).equals(file));
          }
        }
      } finally {
        await a.close();
        await b.close();
      }
    });
  });

  it('instances with data folders of their own take turns with the chunks when they share the uploads folder', async (t) => {
    if (engine !== 'postgres') return t.skip('separate data folders share a database only on PostgreSQL');
    await withSharedState(engine, async ({ dataDir, databaseUrl }) => {
      const uploads = path.join(dataDir, 'shared-uploads');
      const env = { UPLOADS_DIR: uploads, SECRET: SHARED_SECRET };
      const a = await startTestServer({ engine, databaseUrl, env });
      const b = await startTestServer({ engine, databaseUrl, env });
      try {
        assert.notEqual(a.ctx.instanceId, b.ctx.instanceId);
        const admin = await a.setup();
        const file = randomBytes(100_000);
        let token: string | undefined;
        for (const [i, instance] of [a, b, a, b, b].entries()) {
          const start = i * 20_000;
          const res = await sendChunk(instance, admin.token, { file, start, end: start + 19_999, token });
          assert.equal(res.status, 200, JSON.stringify(res.body));
          token = res.body.partialToken;
          if (i === 4) {
            const record = await waitForAssembly(a, admin.token, res.body.incompleteFileId);
            assert.equal(record.status, 'COMPLETE');
            const served = await a.fetch(`/raw/${res.body.files[0].name}`);
            assert.ok(Buffer.from(await served.arrayBuffer()).equals(file), 'byte-exact');
          }
        }
        assert.deepEqual(await appendTempFiles(a.dataDir), []);
        assert.deepEqual(await readdir(path.join(uploads, '.chute-tmp')), []);
      } finally {
        await a.close();
        await b.close();
      }
    });
  });

  it('instances that do not share their storage answer a chunk for the other one with an error naming the cause', async (t) => {
    if (engine !== 'postgres') return t.skip('separate data folders share a database only on PostgreSQL');
    await withSharedState(engine, async ({ databaseUrl }) => {
      const a = await startTestServer({ engine, databaseUrl, env: { SECRET: SHARED_SECRET } });
      const b = await startTestServer({ engine, databaseUrl, env: { SECRET: SHARED_SECRET } });
      try {
        const admin = await a.setup();
        const file = randomBytes(30_000);
        const first = await sendChunk(a, admin.token, { file, start: 0, end: 9_999 });
        assert.equal(first.status, 200);
        const second = await sendChunk(b, admin.token, {
          file,
          start: 10_000,
          end: 19_999,
          token: first.body.partialToken,
        });
        assert.equal(second.status, 400, JSON.stringify(second.body));
        assert.equal(second.body.code, 1003);
        assert.match(second.body.error, /do not share one storage \(UPLOADS_DIR or bucket\)/);
        assert.equal(await uploadSessionCount(a), 0, 'the upload is discarded, nothing half-written is kept');
        // The instance also said so at start: its storage does not carry the marker of the database's storage.
        assert.equal(b.ctx.storageShared, false);
        assert.equal(a.ctx.storageShared, true);
      } finally {
        await a.close();
        await b.close();
      }
    });
  });

  it('a session left receiving or assembling by a process that died is discarded by the idle sweep after two minutes', async () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 26));
    await withSharedState(engine, async ({ dataDir, databaseUrl }) => {
      const server = await startTestServer({ engine, dataDir, databaseUrl, clock });
      try {
        const admin = await server.setup();
        const file = randomBytes(3000);
        const first = await sendChunk(server, admin.token, { file, start: 0, end: 999 });
        assert.equal(first.status, 200);
        // As a process killed mid-chunk leaves it: receiving, and no heartbeat any more.
        await server.ctx.db.updateTable('upload_sessions').set({ state: 'receiving', token_hash: null }).execute();
        clock.advance(STALE_BUSY_MS - 1000);
        await server.chute.jobs.runNow('discard-idle-upload-sessions');
        assert.equal(await uploadSessionCount(server), 1, 'a busy session with a recent heartbeat stays');
        clock.advance(2000);
        await server.chute.jobs.runNow('discard-idle-upload-sessions');
        assert.equal(await uploadSessionCount(server), 0, 'without a heartbeat for two minutes it is discarded');
        assert.deepEqual(await appendTempFiles(dataDir), [], 'with its temp data');
      } finally {
        await server.close();
      }
    });
  });

  it('restarting one instance discards only its own unfinished uploads; the others carry on', async () => {
    await withSharedState(engine, async ({ dataDir, databaseUrl }) => {
      // Both share one DATA_DIR here (and so one SQLite file), which is why they need INSTANCE_ID to tell them apart.
      const start = (id: string) => startTestServer({ engine, dataDir, databaseUrl, env: { INSTANCE_ID: id } });
      const a = await start('alpha');
      let b = await start('beta');
      try {
        const admin = await a.setup();
        const kept = randomBytes(30_000);
        const lost = randomBytes(30_000);
        const first = await sendChunk(a, admin.token, { file: kept, start: 0, end: 9_999 });
        assert.equal(first.status, 200, JSON.stringify(first.body));
        const other = await sendChunk(b, admin.token, { file: lost, start: 0, end: 9_999 });
        assert.equal(other.status, 200, JSON.stringify(other.body));
        assert.equal((await appendTempFiles(dataDir)).length, 2);

        await b.close();
        b = await start('beta');

        // beta's upload is gone with its temp data ...
        assert.equal((await appendTempFiles(dataDir)).length, 1);
        const refused = await sendChunk(b, admin.token, {
          file: lost,
          start: 10_000,
          end: 19_999,
          token: other.body.partialToken,
        });
        assert.equal(refused.status, 400);
        assert.equal(refused.body.code, 1003);
        // ... alpha's carries on (its next chunk may even go to the restarted beta) and arrives byte for byte.
        const second = await sendChunk(b, admin.token, {
          file: kept,
          start: 10_000,
          end: 19_999,
          token: first.body.partialToken,
        });
        assert.equal(second.status, 200, JSON.stringify(second.body));
        const last = await sendChunk(a, admin.token, {
          file: kept,
          start: 20_000,
          end: 29_999,
          token: second.body.partialToken,
        });
        assert.equal(last.status, 200, JSON.stringify(last.body));
        const record = await waitForAssembly(a, admin.token, last.body.incompleteFileId);
        assert.equal(record.status, 'COMPLETE');
        const served = await a.fetch(`/raw/${last.body.files[0].name}`);
        assert.ok(Buffer.from(await served.arrayBuffer()).equals(kept));
      } finally {
        await a.close();
        await b.close();
      }
    });
  });

  it('keeps its instance id in DATA_DIR across restarts unless INSTANCE_ID names one', async () => {
    await withSharedState(engine, async ({ dataDir, databaseUrl }) => {
      const first = await startTestServer({ engine, dataDir, databaseUrl });
      const generated = first.ctx.instanceId;
      await first.close();
      assert.match(generated, /^[a-z0-9]{12}$/);
      const again = await startTestServer({ engine, dataDir, databaseUrl });
      assert.equal(again.ctx.instanceId, generated);
      await again.close();
      const named = await startTestServer({
        engine,
        dataDir,
        databaseUrl,
        env: { INSTANCE_ID: 'web-2' },
      });
      assert.equal(named.ctx.instanceId, 'web-2');
      await named.close();
    });
  });
});
