// Size limits and quotas of POST /api/upload: cut off while streaming, nothing left behind (no bytes in DATA_DIR,
// no record), and concurrent uploads that cannot together overshoot a quota.
import assert from 'node:assert/strict';
import http from 'node:http';
import { before, it } from 'node:test';
import type { ApiErrorBody } from '../../support/api-errors.js';
import { createTestUser, setFileQuota } from '../../support/content.js';
import { forEachDatabase, useTestServer, type TestServer, type TestUser } from '../../support/server.js';
import { fileRowCount, storedFiles } from '../../support/stored.js';
import { upload } from '../../support/uploads.js';

const MiB = 1024 * 1024;

/**
 * Streams a multipart upload of `total` bytes with Node's http client and resolves with the answer and how many
 * bytes had been written when it arrived (the server answers without waiting for the rest).
 */
function streamUpload(
  server: TestServer,
  token: string,
  total: number,
): Promise<{ status: number; body: ApiErrorBody; sentAtAnswer: number }> {
  const url = new URL(server.url);
  const boundary = 'chute-test-boundary';
  return new Promise((resolve, reject) => {
    let sent = 0;
    let answered = false;
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        method: 'POST',
        path: '/api/upload',
        headers: { authorization: token, 'content-type': `multipart/form-data; boundary=${boundary}` },
      },
      (res) => {
        answered = true;
        const sentAtAnswer = sent;
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text), sentAtAnswer }));
        res.on('error', reject);
      },
    );
    req.on('error', (err) => {
      if (!answered) reject(err);
    });
    req.write(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
    );
    const chunk = Buffer.alloc(64 * 1024, 7);
    const pump = (): void => {
      while (!answered && sent < total) {
        sent += chunk.length;
        if (!req.write(chunk)) {
          req.once('drain', pump);
          return;
        }
      }
      if (!answered) req.end(`\r\n--${boundary}--\r\n`);
    };
    pump();
  });
}

forEachDatabase('upload size limit', (engine) => {
  const server = useTestServer({ engine, env: { FILES_MAX_FILE_SIZE: '1mb' } });
  let user: TestUser;
  before(async () => {
    await server().setup();
    user = await createTestUser(server(), 'sizes');
  });

  it('accepts a file of exactly the limit', async () => {
    const res = await upload(server(), user.token, [{ name: 'exact.bin', content: Buffer.alloc(MiB, 1) }]);
    assert.equal(res.status, 200);
    assert.equal(res.body.files[0].size, MiB);
  });

  it('cuts a larger one off while it streams: 413 / 5001, nothing left in DATA_DIR or the database', async () => {
    const before = await storedFiles(server());
    const rows = await fileRowCount(server());
    const res = await streamUpload(server(), user.token, 256 * MiB);
    assert.equal(res.status, 413);
    assert.equal(res.body.code, 5001);
    // Answered long before the client could send everything.
    assert.ok(res.sentAtAnswer < 64 * MiB, `answered after ${res.sentAtAnswer} bytes`);
    assert.deepEqual(await storedFiles(server()), before);
    assert.equal(await fileRowCount(server()), rows);
  });

  it('takes nothing of a multi-file request when one file is too large', async () => {
    const before = await storedFiles(server());
    const rows = await fileRowCount(server());
    const res = await upload(server(), user.token, [
      { name: 'small.txt', content: 'fits' },
      { name: 'big.bin', content: Buffer.alloc(MiB + 1, 2) },
    ]);
    assert.equal(res.status, 413);
    assert.equal(res.body.code, 5001);
    assert.deepEqual(await storedFiles(server()), before);
    assert.equal(await fileRowCount(server()), rows);
  });

  it('leaves nothing behind when the client goes away mid-file', async () => {
    const before = await storedFiles(server());
    const rows = await fileRowCount(server());
    const url = new URL(server().url);
    await new Promise<void>((resolve) => {
      const boundary = 'cut-boundary';
      const req = http.request({
        host: url.hostname,
        port: url.port,
        method: 'POST',
        path: '/api/upload',
        headers: {
          authorization: user.token,
          'content-type': `multipart/form-data; boundary=${boundary}`,
          'content-length': String(900 * 1024),
        },
      });
      req.on('error', () => resolve());
      req.on('close', () => resolve());
      req.write(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="cut.bin"\r\n\r\n`);
      req.write(Buffer.alloc(512 * 1024, 3), () => setTimeout(() => req.destroy(), 100));
    });
    // The server notices the broken request on its own time: wait (bounded) for its clean-up.
    for (let i = 0; i < 100 && (await storedFiles(server())).length !== before.length; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.deepEqual(await storedFiles(server()), before);
    assert.equal(await fileRowCount(server()), rows);
  });

  it('still serves the connection for the next request after a refusal', async () => {
    const refused = await upload(server(), user.token, [{ name: 'refused.bin', content: Buffer.alloc(MiB + 1, 4) }]);
    assert.equal(refused.status, 413);
    const res = await upload(server(), user.token, [{ name: 'again.txt', content: 'after' }]);
    assert.equal(res.status, 200);
  });
});

forEachDatabase('upload quotas', (engine) => {
  const server = useTestServer({ engine });

  it('BY_BYTES: an upload past maxBytes -> 413 / 5002, cut off, nothing kept', async () => {
    await server().setup();
    const user = await createTestUser(server(), 'bytes');
    await setFileQuota(server(), user.id, { maxBytes: 10_000 });
    assert.equal((await upload(server(), user.token, [{ name: 'a.bin', content: Buffer.alloc(6_000) }])).status, 200);
    const before = await storedFiles(server());
    const over = await upload(server(), user.token, [{ name: 'b.bin', content: Buffer.alloc(6_000) }]);
    assert.equal(over.status, 413);
    assert.equal(over.body.code, 5002);
    const streamed = await streamUpload(server(), user.token, 64 * MiB);
    assert.equal(streamed.body.code, 5002);
    assert.deepEqual(await storedFiles(server()), before);
    assert.equal((await upload(server(), user.token, [{ name: 'c.bin', content: Buffer.alloc(4_000) }])).status, 200);
  });

  it('BY_FILES: the file past maxFiles -> 413 / 5002, also within one request', async () => {
    const user = await createTestUser(server(), 'count');
    await setFileQuota(server(), user.id, { maxFiles: 2 });
    const three = await upload(
      server(),
      user.token,
      [1, 2, 3].map((i) => ({ name: `${i}.txt`, content: String(i) })),
    );
    assert.equal(three.status, 413);
    assert.equal(three.body.code, 5002);
    assert.equal(
      (
        await upload(server(), user.token, [
          { name: 'a.txt', content: 'a' },
          { name: 'b.txt', content: 'b' },
        ])
      ).status,
      200,
    );
    const third = await upload(server(), user.token, [{ name: 'c.txt', content: 'c' }]);
    assert.equal(third.body.code, 5002);
    const owned = await server().ctx.db.selectFrom('files').select('id').where('user_id', '=', user.id).execute();
    assert.equal(owned.length, 2);
  });

  it('concurrent uploads racing a file quota: exactly maxFiles succeed, the others leave nothing', async () => {
    const user = await createTestUser(server(), 'racer');
    await setFileQuota(server(), user.id, { maxFiles: 3 });
    const before = (await storedFiles(server())).length;
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        upload(server(), user.token, [{ name: `${i}.bin`, content: Buffer.alloc(20_000, i) }]),
      ),
    );
    const statuses = results.map((r) => r.status).sort();
    assert.equal(statuses.filter((s) => s === 200).length, 3, JSON.stringify(statuses));
    for (const r of results.filter((r) => r.status !== 200)) assert.equal(r.body.code, 5002);
    const owned = await server().ctx.db.selectFrom('files').select('id').where('user_id', '=', user.id).execute();
    assert.equal(owned.length, 3);
    assert.equal((await storedFiles(server())).length, before + 3);
  });

  it('concurrent uploads racing a byte quota never store more than maxBytes', async () => {
    const user = await createTestUser(server(), 'byteracer');
    await setFileQuota(server(), user.id, { maxBytes: 50_000 });
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        upload(server(), user.token, [{ name: `${i}.bin`, content: Buffer.alloc(10_000, i) }]),
      ),
    );
    assert.equal(results.filter((r) => r.status === 200).length, 5);
    for (const r of results.filter((r) => r.status !== 200)) assert.equal(r.body.code, 5002);
    const used = await server().ctx.db.selectFrom('files').select('size').where('user_id', '=', user.id).execute();
    assert.equal(
      used.reduce((sum, r) => sum + r.size, 0),
      50_000,
    );
  });
});
