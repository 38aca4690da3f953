// tus uploads keep their offset in the database: they survive a restart of the server and go on at another instance
// sharing the database and the storage (local folder and S3), with tus-js-client resuming by URL. Unlike chunked
// uploads, the start-up clean-up leaves them alone; once expired, the clean-up job removes them with their bytes.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { it } from 'node:test';
import type { Engine } from '../../../src/db/index.js';
import { ManualClock } from '../../../src/lib/clock.js';
import { discardIdleUploadSessions, TUS_UPLOAD_TTL_MS } from '../../../src/services/uploads/assembly.js';
import { describeS3 } from '../../support/s3.js';
import {
  authHeaders,
  forEachDatabase,
  readJsonResponse,
  startTestServer,
  withSharedState,
  type TestServer,
} from '../../support/server.js';
import { appendTempFiles, uploadSessionCount } from '../../support/stored.js';
import { TusStopped, tusUpload } from '../../support/tus.js';

const MiB = 1024 * 1024;

/** The same upload URL at another server (the path is what names the upload). */
function at(server: TestServer, url: string): string {
  return `${server.url}${new URL(url).pathname}`;
}

async function stopAt(server: TestServer, token: string, data: Buffer, acknowledged: number, uploadUrl?: string) {
  const err = await tusUpload(server, token, data, {
    chunkSize: MiB,
    stopAfterAcknowledged: acknowledged,
    ...(uploadUrl ? { uploadUrl } : {}),
  }).catch((e: unknown) => e);
  assert.ok(err instanceof TusStopped, String(err));
  return err.url;
}

async function rawBytes(fileUrl: string): Promise<Buffer> {
  const res = await fetch(fileUrl.replace('/u/', '/raw/'));
  assert.equal(res.status, 200);
  return Buffer.from(await res.arrayBuffer());
}

async function resumeAcrossInstances(engine: Engine, env: Record<string, string>): Promise<void> {
  await withSharedState(engine, async ({ dataDir, databaseUrl }) => {
    const shared = { engine, dataDir, databaseUrl, env };
    const first = await startTestServer(shared);
    const admin = await first.setup();
    const data = randomBytes(7 * MiB + 99);
    const url = await stopAt(first, admin.token, data, 2 * MiB);

    // A second instance on the same database and storage takes it on while the first still runs ...
    const second = await startTestServer(shared);
    const movedOn = await stopAt(second, admin.token, data, 4 * MiB, at(second, url));
    assert.equal(new URL(movedOn).pathname, new URL(url).pathname);
    await second.close();
    await first.close();

    // ... and after a restart of both, a new process finishes it.
    const third = await startTestServer(shared);
    try {
      assert.equal(await uploadSessionCount(third), 1, 'the start-up clean-up keeps tus uploads');
      const head = await third.fetch(new URL(url).pathname, {
        method: 'HEAD',
        headers: { 'tus-resumable': '1.0.0', ...authHeaders(admin.token) },
      });
      assert.ok(Number(head.headers.get('upload-offset')) >= 4 * MiB);
      const run = await tusUpload(third, admin.token, data, { chunkSize: MiB, uploadUrl: at(third, url) });
      // The links name the host of the creation request (the first instance's port here).
      assert.ok((await rawBytes(at(third, run.fileUrl!))).equals(data));
      assert.equal(await uploadSessionCount(third), 0);
      assert.deepEqual(await appendTempFiles(dataDir), []);
    } finally {
      await third.close();
    }
  });
}

forEachDatabase('tus uploads across restarts and instances', (engine) => {
  it('resume at another instance and after a restart, byte-exact (local storage)', async () => {
    await resumeAcrossInstances(engine, { FILES_MAX_FILE_SIZE: '64mb' });
  });

  it('an expired upload is removed by the clean-up job with its bytes; its URL then answers 404', async () => {
    const clock = new ManualClock();
    const server = await startTestServer({ engine, clock });
    try {
      const admin = await server.setup();
      const url = await stopAt(server, admin.token, randomBytes(2 * MiB), MiB);
      assert.equal((await appendTempFiles(server.dataDir)).length, 1);
      clock.advance(TUS_UPLOAD_TTL_MS + 1);
      const expired = await server.fetch(new URL(url).pathname, {
        method: 'HEAD',
        headers: { 'tus-resumable': '1.0.0', ...authHeaders(admin.token) },
      });
      assert.equal(expired.status, 410);
      assert.equal(await discardIdleUploadSessions(server.ctx), 1);
      assert.deepEqual(await appendTempFiles(server.dataDir), []);
      const gone = await server.fetch(new URL(url).pathname, {
        method: 'HEAD',
        headers: { 'tus-resumable': '1.0.0', ...authHeaders(admin.token) },
      });
      assert.equal(gone.status, 404);
    } finally {
      await server.close();
    }
  });

  describeS3(`tus uploads [${engine}]`, (s3Env) => {
    it('resume at another instance and after a restart, across part boundaries, byte-exact (S3)', async () => {
      await resumeAcrossInstances(engine, { ...s3Env(), FILES_MAX_FILE_SIZE: '64mb', S3_PART_SIZE: '5mb' });
    });

    it('a wrong checksum on S3 discards the PATCH, also across a part boundary', async () => {
      const server = await startTestServer({ engine, env: { ...s3Env(), S3_PART_SIZE: '5mb' } });
      try {
        const admin = await server.setup();
        const data = randomBytes(8 * MiB);
        const created = await server.fetch('/api/upload/tus', {
          method: 'POST',
          headers: { 'tus-resumable': '1.0.0', ...authHeaders(admin.token), 'upload-length': String(data.length) },
        });
        const where = new URL(created.headers.get('location')!).pathname;
        const send = (offset: number, body: Buffer, checksum: string) =>
          server
            .fetch(where, {
              method: 'PATCH',
              headers: {
                'tus-resumable': '1.0.0',
                ...authHeaders(admin.token),
                'content-type': 'application/offset+octet-stream',
                'upload-offset': String(offset),
                'upload-checksum': checksum,
              },
              body,
            })
            .then(readJsonResponse);
        const sha1 = (b: Buffer) => `sha1 ${createHash('sha1').update(b).digest('base64')}`;
        assert.equal((await send(0, data.subarray(0, 3 * MiB), sha1(data.subarray(0, 3 * MiB)))).status, 204);
        const wrong = await send(3 * MiB, data.subarray(3 * MiB), sha1(Buffer.from('x')));
        assert.equal(wrong.status, 460);
        const done = await send(3 * MiB, data.subarray(3 * MiB), sha1(data.subarray(3 * MiB)));
        assert.equal(done.status, 204);
        assert.ok((await rawBytes(done.headers.get('chute-file-url')!)).equals(data));
      } finally {
        await server.close();
      }
    });
  });
});
