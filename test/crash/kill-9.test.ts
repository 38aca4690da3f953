// Crash tests (issue 15, item 22): kill -9 of the real server process during a single upload, during a chunked upload
// and during the assembly of one, then a restart on the same DATA_DIR and database: no record without bytes, no bytes
// without a record, no temp file left (after the start-up sweep), every acknowledged upload byte-exact.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { it } from 'node:test';
import type { Engine } from '../../src/db/index.js';
import { httpClientOf, killChuteProcess, startChuteProcess, type ChuteProcess } from '../support/chute-process.js';
import { sendChunk, uploadInChunks } from '../support/chunked-uploads.js';
import { requestHead } from '../support/raw-http.js';
import { forEachDatabase, startTestServer, withSharedState, type TestServer } from '../support/server.js';
import { databaseObjectKeys, filesUnder } from '../support/stored.js';
import { upload } from '../support/uploads.js';

const KiB = 1024;
const MiB = 1024 * KiB;

/** Uploads acknowledged before the crash: served name -> bytes. */
type Acknowledged = Map<string, Buffer>;

async function acknowledgedUploads(client: TestServer, token: string): Promise<Acknowledged> {
  const acknowledged: Acknowledged = new Map();
  const requests = [
    [randomBytes(3 * KiB), randomBytes(700 * KiB), randomBytes(1)],
    // A small request: its files' bytes are kept in the database with their records (storage/database-objects.ts).
    [randomBytes(3 * KiB), randomBytes(1)],
  ];
  for (const [r, parts] of requests.entries()) {
    const res = await upload(
      client,
      token,
      parts.map((content, i) => ({ name: `before-${r}-${i}.bin`, content })),
    );
    assert.equal(res.status, 200, JSON.stringify(res.body));
    (res.body.files as Array<{ name: string }>).forEach((f, i) => acknowledged.set(f.name, parts[i]!));
  }
  return acknowledged;
}

/** Starts a multipart upload of the given file parts, of which only `sentOf` bytes are sent; never finished. */
function startUpload(url: string, token: string, parts: Array<{ size: number; sent: number }>): net.Socket {
  const boundary = 'crash-boundary';
  const heads = parts.map((_, i) =>
    Buffer.from(
      `--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="cut-${i}.bin"\r\n` +
        'content-type: application/octet-stream\r\n\r\n',
    ),
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const length = parts.reduce((sum, p, i) => sum + heads[i]!.length + p.size + 2, 0) + tail.length;
  const socket = net.connect({ host: '127.0.0.1', port: Number(new URL(url).port) });
  socket.on('error', () => undefined);
  socket.write(
    requestHead('POST', '/api/upload', {
      authorization: token,
      'content-type': `multipart/form-data; boundary=${boundary}`,
      'content-length': length,
    }),
  );
  for (const [i, part] of parts.entries()) {
    socket.write(heads[i]!);
    socket.write(randomBytes(part.sent));
    if (part.sent < part.size) break;
    socket.write('\r\n');
  }
  return socket;
}

/**
 * Restarts on the same data and checks what the crash left: every file record has its bytes (same size) and every
 * stored object a record, no temp file, and each acknowledged upload is served byte-exact.
 */
async function assertConsistentAfterRestart(
  engine: Engine,
  shared: { dataDir: string; databaseUrl: string | undefined },
  acknowledged: Acknowledged,
): Promise<TestServer> {
  const again = await startTestServer({ engine, ...shared });
  const rows = await again.ctx.db.selectFrom('files').select(['storage_key', 'size', 'name']).execute();
  const uploadsDir = path.join(shared.dataDir, 'uploads');
  const objects = [...(await filesUnder(uploadsDir)), ...(await databaseObjectKeys(again))];
  assert.deepEqual(
    [...objects].sort(),
    rows.map((r) => r.storage_key).sort(),
    'every stored object has a record and every record its bytes',
  );
  assert.deepEqual(await filesUnder(path.join(shared.dataDir, 'tmp')), [], 'no temp file is left');
  for (const [name, bytes] of acknowledged) {
    const res = await again.fetch(`/raw/${name}`);
    assert.equal(res.status, 200, name);
    assert.ok(Buffer.from(await res.arrayBuffer()).equals(bytes), `${name} is byte-exact`);
  }
  return again;
}

async function crashScenario(
  engine: Engine,
  run: (chute: ChuteProcess, client: TestServer, token: string, acknowledged: Acknowledged) => Promise<void>,
  after?: (again: TestServer, token: string) => Promise<void>,
): Promise<void> {
  await withSharedState(engine, async (shared) => {
    let chute: ChuteProcess | undefined;
    try {
      chute = await startChuteProcess({ ...shared, env: { RATELIMIT_ENABLED: 'false' } });
      const client = httpClientOf(chute.url);
      const user = await client.setup('crash', 'crash-password');
      const acknowledged = await acknowledgedUploads(client, user.token);
      await run(chute, client, user.token, acknowledged);
      chute.child.kill('SIGKILL');
      assert.deepEqual(await chute.exited, { code: null, signal: 'SIGKILL' });
      const again = await assertConsistentAfterRestart(engine, shared, acknowledged);
      try {
        await after?.(again, user.token);
      } finally {
        await again.close();
      }
    } finally {
      await killChuteProcess(chute);
    }
  });
}

forEachDatabase('kill -9', (engine) => {
  it('right after small uploads were answered: each one is there, bytes and record (kept in the database)', async () => {
    await crashScenario(engine, async (_chute, client, token, acknowledged) => {
      // 24 at once: they share group commits; the kill comes as soon as the last answer is read.
      const contents = Array.from({ length: 24 }, (_, i) => randomBytes(1 + i * 300));
      const answers = await Promise.all(
        contents.map((content, i) => upload(client, token, [{ name: `burst-${i}.bin`, content }])),
      );
      answers.forEach((res, i) => {
        assert.equal(res.status, 200, JSON.stringify(res.body));
        acknowledged.set((res.body.files as Array<{ name: string }>)[0]!.name, contents[i]!);
      });
    });
  });

  it('during single uploads: one mid-file, one after its first file was stored, mid-second', async () => {
    await crashScenario(engine, async (chute, _client, token) => {
      startUpload(chute.url, token, [{ size: 4 * MiB, sent: 300 * KiB }]);
      startUpload(chute.url, token, [
        { size: 200 * KiB, sent: 200 * KiB },
        { size: 4 * MiB, sent: 100 * KiB },
      ]);
      // Long enough for the first file of the second upload to be stored (fsynced and renamed into place).
      await sleep(1_000);
    });
  });

  it('during a chunked upload: acknowledged chunks, one chunk mid-way; the upload is FAILED after the restart', async () => {
    let incompleteId = '';
    await crashScenario(
      engine,
      async (chute, client, token, acknowledged) => {
        const whole = randomBytes(3 * MiB);
        const done = await uploadInChunks(client, token, whole, [MiB, MiB]);
        assert.equal(done.status, 200);
        // Wait for its assembly, so that it is acknowledged as a file.
        for (let i = 0; i < 500; i++) {
          const res = await client.json('GET', '/api/user/files/incomplete', { auth: token });
          if (res.body.every((r: { status: string }) => r.status === 'COMPLETE')) break;
          await sleep(10);
        }
        acknowledged.set(done.body.files[0].name, whole);

        const file = randomBytes(4 * MiB);
        const first = await sendChunk(client, token, { file, start: 0, end: MiB - 1 });
        assert.equal(first.status, 200);
        const second = await sendChunk(client, token, {
          file,
          start: MiB,
          end: 2 * MiB - 1,
          token: first.body.partialToken,
        });
        assert.equal(second.status, 200);
        // The third chunk stops half-way.
        const socket = net.connect({ host: '127.0.0.1', port: Number(new URL(chute.url).port) });
        socket.on('error', () => undefined);
        const boundary = 'chunk-boundary';
        const head = Buffer.from(
          `--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="data.bin"\r\n\r\n`,
        );
        socket.write(
          requestHead('POST', '/api/upload/partial', {
            authorization: token,
            'content-type': `multipart/form-data; boundary=${boundary}`,
            'content-length': head.length + MiB + boundary.length + 8,
            'content-range': `bytes ${2 * MiB}-${3 * MiB - 1}/${file.length}`,
            'x-service-p-content-length': file.length,
            'x-service-p-lastchunk': 'false',
            'x-service-p-token': second.body.partialToken,
          }),
        );
        socket.write(head);
        socket.write(file.subarray(2 * MiB, 2 * MiB + 300 * KiB));
        await sleep(500);
        const listed = await client.json('GET', '/api/user/files/incomplete', { auth: token });
        incompleteId = listed.body.find((r: { status: string }) => r.status !== 'COMPLETE')?.id ?? '';
      },
      async (again, token) => {
        const listed = await again.json('GET', '/api/user/files/incomplete', { auth: token });
        const record = listed.body.find((r: { id: string }) => r.id === incompleteId);
        if (record) assert.equal(record.status, 'FAILED');
        assert.equal((await again.ctx.db.selectFrom('upload_sessions').select('id').execute()).length, 0);
      },
    );
  });

  it('during the assembly after the last chunk: the file is whole and recorded, or FAILED with nothing kept', async () => {
    let lastAnswer: { incompleteFileId: string; files: Array<{ name: string }> } | undefined;
    let file = Buffer.alloc(0);
    await crashScenario(
      engine,
      async (_chute, client, token) => {
        file = randomBytes(24 * MiB);
        const res = await uploadInChunks(client, token, file, [8 * MiB, 8 * MiB]);
        assert.equal(res.status, 200, JSON.stringify(res.body));
        lastAnswer = res.body;
        // No wait: the kill lands while the background assembly runs (or just after).
      },
      async (again, token) => {
        const listed = await again.json('GET', '/api/user/files/incomplete', { auth: token });
        const record = listed.body.find((r: { id: string }) => r.id === lastAnswer!.incompleteFileId);
        assert.ok(record, 'the incomplete file is listed');
        if (record.status === 'COMPLETE') {
          const res = await again.fetch(`/raw/${lastAnswer!.files[0]!.name}`);
          assert.ok(Buffer.from(await res.arrayBuffer()).equals(file), 'the assembled file is byte-exact');
        } else {
          assert.equal(record.status, 'FAILED');
          const res = await again.fetch(`/raw/${lastAnswer!.files[0]!.name}`);
          assert.equal(res.status, 404);
        }
      },
    );
  });
});
