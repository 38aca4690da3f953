// POST /api/upload/partial on local storage: every row of the spec's partial-upload states table, every rule and
// every refusal, byte-exact round trips (including a property test over random files and chunkings).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { before, describe, it } from 'node:test';
import fc from 'fast-check';
import { sql } from 'kysely';
import { ManualClock } from '../../../src/lib/clock.js';
import { setUserQuota } from '../../../src/services/accounts/quotas.js';
import type { ApiErrorBody } from '../../support/api-errors.js';
import { createTestUser, insertTestFolder } from '../../support/content.js';
import { forEachDatabase, useTestServer, type TestUser } from '../../support/server.js';
import { appendTempFiles, uploadSessionCount } from '../../support/stored.js';
import { holdFlushes } from '../../support/wal.js';
import {
  chunkHeaders,
  sendChunk,
  uploadAndVerify,
  uploadInChunks,
  waitForAllAssemblies,
  waitForAssembly,
} from '../../support/chunked-uploads.js';

const THIRTY_MINUTES = 30 * 60_000;

/** `promise`, or a failure when it has not settled within `seconds`. */
function withinSeconds<T>(seconds: number, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`not answered within ${seconds} s`)), seconds * 1000);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

forEachDatabase('chunked uploads', (engine) => {
  const clock = new ManualClock();
  const server = useTestServer({ engine, clock, env: { FILES_MAX_FILE_SIZE: '1mb', RATELIMIT_MAX: '3' } });
  let admin: TestUser;
  let bob: TestUser;
  before(async () => {
    admin = await server().setup('ann', 'ann-password');
    bob = await createTestUser(server(), 'bob');
  });

  /** Sends the first chunk of `file` and returns its token. */
  async function openUpload(
    auth: string,
    file: Buffer,
    end: number,
    headers?: Record<string, string>,
  ): Promise<string> {
    const res = await sendChunk(server(), auth, { file, start: 0, end, headers });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body.partialToken;
  }

  async function assertRefused(
    res: { status: number; body: ApiErrorBody },
    status: number,
    code: number,
    message?: RegExp,
  ): Promise<void> {
    assert.equal(res.status, status, JSON.stringify(res.body));
    assert.equal(res.body.code, code, JSON.stringify(res.body));
    assert.equal(res.body.statusCode, status);
    if (message) assert.match(res.body.error, message);
  }

  describe('byte-exact uploads', () => {
    it('a 1-byte file in one chunk (the first chunk is also the last)', async () => {
      const { answer, record } = await uploadAndVerify(server(), admin.token, Buffer.from([0x2a]), [1]);
      assert.equal(answer.files.length, 1);
      const [file] = answer.files;
      assert.equal(file.size, 1);
      assert.equal(file.pending, true);
      assert.equal(file.url, `${server().url}/u/${encodeURIComponent(file.name)}`);
      assert.equal(record.chunksTotal, 1);
      assert.equal(record.chunksComplete, 1);
      assert.equal(record.metadata.name, file.name);
      assert.equal(record.metadata.url, file.url);
      // The file shows in the owner's listing once COMPLETE.
      const listed = await server().json('GET', `/api/user/files/${record.fileId}`, { auth: admin.token });
      assert.equal(listed.status, 200);
      assert.equal(listed.body.name, file.name);
      assert.equal(listed.body.size, 1);
    });

    it('exactly one chunk of a larger file', async () => {
      const file = randomBytes(70_000);
      await uploadAndVerify(server(), admin.token, file, [file.length]);
    });

    it('many chunks: each non-final answer is {files: [], partialSuccess: true, partialToken}, the file comes back exact', async () => {
      const file = randomBytes(300_001);
      const { record } = await uploadAndVerify(server(), admin.token, file, [1, 2, 65_536, 100_000, 3, 70_000]);
      assert.equal(record.chunksTotal, 7);
      assert.equal(record.chunksComplete, 7);
      assert.equal(record.metadata.size, file.length);
      assert.equal(await uploadSessionCount(server()), 0);
      assert.deepEqual(await appendTempFiles(server().dataDir), []);
    });

    it('property: random files cut into random chunkings come back byte-exact', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.uint8Array({ minLength: 1, maxLength: 40_000 }),
          fc.array(fc.integer({ min: 1, max: 12_000 }), { maxLength: 8 }),
          async (bytes, sizes) => {
            await uploadAndVerify(server(), admin.token, Buffer.from(bytes), sizes);
          },
        ),
        { numRuns: 15 },
      );
      assert.deepEqual(await appendTempFiles(server().dataDir), []);
    });

    it('two interleaved uploads by one user both come back exact', async () => {
      const a = randomBytes(50_000);
      const b = randomBytes(33_333);
      let tokenA = await openUpload(admin.token, a, 9_999);
      let tokenB = await openUpload(admin.token, b, 10_000);
      let res = await sendChunk(server(), admin.token, { file: a, start: 10_000, end: 29_999, token: tokenA });
      tokenA = res.body.partialToken;
      res = await sendChunk(server(), admin.token, { file: b, start: 10_001, end: 20_000, token: tokenB });
      tokenB = res.body.partialToken;
      // Each token belongs to its own upload: B's token with A's next chunk is refused by A's position rule.
      const crossed = await sendChunk(server(), admin.token, { file: a, start: 30_000, end: 49_999, token: tokenB });
      await assertRefused(crossed, 400, 1002);
      const finalB = await sendChunk(server(), admin.token, { file: b, start: 20_001, end: 33_332, token: tokenB });
      const finalA = await sendChunk(server(), admin.token, { file: a, start: 30_000, end: 49_999, token: tokenA });
      for (const [final, bytes] of [
        [finalA, a],
        [finalB, b],
      ] as const) {
        assert.equal(final.status, 200, JSON.stringify(final.body));
        assert.equal((await waitForAssembly(server(), admin.token, final.body.incompleteFileId)).status, 'COMPLETE');
        const served = Buffer.from(await (await fetch(final.body.files[0].rawUrl)).arrayBuffer());
        assert.ok(served.equals(bytes));
      }
    });

    it('takes the upload options from the first chunk (name, original name, password)', async () => {
      const file = Buffer.from('hello chunked world');
      const res = await uploadInChunks(server(), admin.token, file, [5, 5], {
        headers: { 'x-service-filename': 'chunky', 'x-service-original-name': 'true', 'x-service-password': 'pw' },
        fileName: 'greeting.txt',
        type: 'text/plain',
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.files[0].name, 'chunky.txt');
      assert.equal(res.body.files[0].originalName, 'greeting.txt');
      assert.equal(res.body.files[0].type, 'text/plain');
      const record = await waitForAssembly(server(), admin.token, res.body.incompleteFileId);
      assert.equal(record.status, 'COMPLETE');
      const row = await server()
        .ctx.db.selectFrom('files')
        .selectAll()
        .where('id', '=', record.fileId)
        .executeTakeFirstOrThrow();
      assert.equal(row.name, 'chunky.txt');
      assert.equal(row.original_name, 'greeting.txt');
      assert.notEqual(row.password, null);
      assert.notEqual(row.password, 'pw');
      // The password never sat in the session in clear text: the session is gone, and it was encrypted (checked in
      // the sessions table while open below).
      const token = await openUpload(admin.token, file, 4, { 'x-service-password': 'secret-pw' });
      const session = await server().ctx.db.selectFrom('upload_sessions').select('options').executeTakeFirstOrThrow();
      assert.ok(!session.options.includes('secret-pw'));
      const done = await sendChunk(server(), admin.token, { file, start: 5, end: file.length - 1, token });
      await waitForAssembly(server(), admin.token, done.body.incompleteFileId);
    });

    it('x-service-no-json on the first chunk: the last answer is the bare link', async () => {
      const file = Buffer.from('plain answer');
      const token = await openUpload(admin.token, file, 3, { 'x-service-no-json': 'true' });
      const res = await server().fetch('/api/upload/partial', {
        method: 'POST',
        headers: { authorization: admin.token, ...chunkHeaders({ file, start: 4, end: file.length - 1, token }) },
        body: (() => {
          const form = new FormData();
          form.append('file', new Blob([file.subarray(4)]), 'data.bin');
          return form;
        })(),
      });
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type') ?? '', /text\/plain/);
      const link = (await res.text()).trim();
      assert.match(link, new RegExp(`^${server().url}/u/`));
      await waitForAllAssemblies(server(), admin.token);
      const served = await fetch(link.replace('/u/', '/raw/'));
      assert.ok(Buffer.from(await served.arrayBuffer()).equals(file));
    });
  });

  describe('the states table', () => {
    it('none -> open: the first chunk answers a token that is valid for 30 minutes', async () => {
      const file = randomBytes(3000);
      const token = await openUpload(admin.token, file, 999);
      clock.advance(THIRTY_MINUTES - 1);
      const res = await sendChunk(server(), admin.token, { file, start: 1000, end: 1999, token });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const next = res.body.partialToken;
      clock.advance(THIRTY_MINUTES);
      await assertRefused(
        await sendChunk(server(), admin.token, { file, start: 2000, end: 2999, token: next }),
        400,
        1003,
        /restart|byte 0/,
      );
      await server().chute.jobs.runNow('discard-idle-upload-sessions');
      assert.equal(await uploadSessionCount(server()), 0);
    });

    it('open -> open: the presented token is consumed, a new one returned; reusing it -> 1003', async () => {
      const file = randomBytes(3000);
      const token = await openUpload(admin.token, file, 999);
      const second = await sendChunk(server(), admin.token, { file, start: 1000, end: 1999, token });
      assert.equal(second.status, 200);
      const reused = await sendChunk(server(), admin.token, { file, start: 2000, end: 2999, token });
      await assertRefused(reused, 400, 1003);
      // The refusal did not disturb the upload: the new token finishes it.
      const last = await sendChunk(server(), admin.token, {
        file,
        start: 2000,
        end: 2999,
        token: second.body.partialToken,
      });
      assert.equal(last.status, 200);
      assert.equal((await waitForAssembly(server(), admin.token, last.body.incompleteFileId)).status, 'COMPLETE');
    });

    it('open -> assembling: the last chunk consumes the token; the answer carries the future link', async () => {
      const file = randomBytes(2000);
      const described = { fileName: 'report.pdf', type: 'application/pdf' };
      const first = await sendChunk(server(), admin.token, { file, start: 0, end: 999, ...described });
      const token = first.body.partialToken;
      const last = await sendChunk(server(), admin.token, { file, start: 1000, end: 1999, token, ...described });
      assert.equal(last.status, 200);
      assert.equal(last.body.files[0].type, 'application/pdf');
      assert.match(last.body.files[0].name, /\.pdf$/);
      assert.equal(last.body.partialSuccess, false);
      assert.equal(typeof last.body.incompleteFileId, 'string');
      assert.deepEqual(last.body.assumedMimetypes, [false]);
      const again = await sendChunk(server(), admin.token, { file, start: 1000, end: 1999, token });
      await assertRefused(again, 400, 1003);
      const record = await waitForAssembly(server(), admin.token, last.body.incompleteFileId);
      assert.equal(record.status, 'COMPLETE');
      const served = await fetch(last.body.files[0].url);
      assert.equal(served.status, 200);
    });

    it('open -> discarded after 30 minutes without a request: no rows, no temp files', async () => {
      const file = randomBytes(5000);
      const token = await openUpload(admin.token, file, 2999);
      assert.equal(await uploadSessionCount(server()), 1);
      assert.equal((await appendTempFiles(server().dataDir)).length, 1);
      clock.advance(THIRTY_MINUTES - 1);
      await server().chute.jobs.runNow('discard-idle-upload-sessions');
      assert.equal(await uploadSessionCount(server()), 1, 'not yet idle for 30 minutes');
      clock.advance(1);
      await server().chute.jobs.runNow('discard-idle-upload-sessions');
      assert.equal(await uploadSessionCount(server()), 0);
      assert.deepEqual(await appendTempFiles(server().dataDir), []);
      await assertRefused(await sendChunk(server(), admin.token, { file, start: 3000, end: 4999, token }), 400, 1003);
      const listed = await server().json('GET', '/api/user/files/incomplete', { auth: admin.token });
      assert.ok(
        listed.body.every((r: { status: string }) => r.status === 'COMPLETE'),
        'an abandoned upload leaves no record',
      );
    });

    it('open -> discarded by a failed continuation (too many bytes): the token is spent, nothing is published', async () => {
      const file = randomBytes(3000);
      const token = await openUpload(admin.token, file, 999);
      const before = await server().ctx.db.selectFrom('files').select('id').execute();
      const bad = await sendChunk(server(), admin.token, {
        file,
        start: 1000,
        end: 1999,
        token,
        body: randomBytes(1001),
      });
      await assertRefused(bad, 400, 1002, /more than the 1000 bytes/);
      assert.equal(await uploadSessionCount(server()), 0);
      assert.deepEqual(await appendTempFiles(server().dataDir), []);
      const retry = await sendChunk(server(), admin.token, { file, start: 1000, end: 1999, token });
      await assertRefused(retry, 400, 1003);
      assert.equal((await server().ctx.db.selectFrom('files').select('id').execute()).length, before.length);
    });

    it('a connection dropped mid-chunk discards the upload and its temp data (first chunk and later chunk)', async () => {
      const file = randomBytes(400_000);
      const token = await openUpload(admin.token, file, 99_999);
      // The first chunk of another upload (the open one stays), then the open upload's next chunk (nothing stays).
      for (const [start, end, withToken, remaining] of [
        [0, 199_999, false, 1],
        [100_000, 299_999, true, 0],
      ] as const) {
        const boundary = `chute${randomBytes(8).toString('hex')}`;
        const head =
          `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="x.bin"\r\n` +
          'Content-Type: application/octet-stream\r\n\r\n';
        const tail = `\r\n--${boundary}--\r\n`;
        const request = http.request(`${server().url}/api/upload/partial`, {
          method: 'POST',
          headers: {
            authorization: admin.token,
            'content-type': `multipart/form-data; boundary=${boundary}`,
            'content-length': String(head.length + (end - start + 1) + tail.length),
            ...chunkHeaders({ file, start, end, ...(withToken ? { token } : {}) }),
          },
        });
        request.on('error', () => undefined);
        request.write(head);
        request.write(file.subarray(start, start + 50_000));
        // Wait until the server is receiving this chunk, then drop the connection.
        for (let i = 0; i < 2000; i++) {
          const receiving = await server()
            .ctx.db.selectFrom('upload_sessions')
            .select('id')
            .where('state', '=', 'receiving')
            .execute();
          if (receiving.length === 1) break;
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
        request.destroy();
        // The session's row goes first (its deletion is visible before the commit's flush ends), then its temp data.
        for (
          let i = 0;
          i < 2000 &&
          ((await uploadSessionCount(server())) > remaining ||
            (await appendTempFiles(server().dataDir)).length > remaining);
          i++
        )
          await new Promise((resolve) => setTimeout(resolve, 5));
        assert.equal(await uploadSessionCount(server()), remaining);
        assert.equal((await appendTempFiles(server().dataDir)).length, remaining);
      }
      await assertRefused(
        await sendChunk(server(), admin.token, { file, start: 100_000, end: 199_999, token }),
        400,
        1003,
      );
    });

    it('a chunk with too few bytes -> 1002 and the session is discarded', async () => {
      const file = randomBytes(3000);
      const token = await openUpload(admin.token, file, 999);
      const bad = await sendChunk(server(), admin.token, {
        file,
        start: 1000,
        end: 2999,
        token,
        body: randomBytes(1999),
      });
      await assertRefused(bad, 400, 1002, /1999 bytes/);
      assert.equal(await uploadSessionCount(server()), 0);
      assert.deepEqual(await appendTempFiles(server().dataDir), []);
    });

    it('a first chunk with too many or too few bytes -> 1002, nothing kept', async () => {
      const file = randomBytes(3000);
      for (const body of [randomBytes(1001), randomBytes(999), Buffer.alloc(0)]) {
        const res = await sendChunk(server(), admin.token, { file, start: 0, end: 999, body });
        await assertRefused(res, 400, 1002);
      }
      assert.equal(await uploadSessionCount(server()), 0);
      assert.deepEqual(await appendTempFiles(server().dataDir), []);
    });

    it("unknown, expired, used or another user's token -> 1003 (restart from byte 0); another user cannot spend it", async () => {
      const file = randomBytes(2000);
      await assertRefused(
        await sendChunk(server(), admin.token, { file, start: 1000, end: 1999, token: 'not-a-token' }),
        400,
        1003,
      );
      const token = await openUpload(admin.token, file, 999);
      await assertRefused(await sendChunk(server(), bob.token, { file, start: 1000, end: 1999, token }), 400, 1003);
      const own = await sendChunk(server(), admin.token, { file, start: 1000, end: 1999, token });
      assert.equal(own.status, 200, 'the owner still holds a valid token');
      await waitForAssembly(server(), admin.token, own.body.incompleteFileId);
    });
  });

  describe('rules and refusals', () => {
    const file = randomBytes(3000);

    it('a request without any partial header -> 1004', async () => {
      const form = new FormData();
      form.append('file', new Blob([Buffer.from('x')]), 'x.bin');
      const res = await server().fetch('/api/upload/partial', {
        method: 'POST',
        headers: { authorization: admin.token },
        body: form,
      });
      const body = (await res.json()) as { code: number };
      assert.equal(res.status, 400);
      assert.equal(body.code, 1004);
    });

    it('the retired identifier scheme is refused with a pointer to the token flow', async () => {
      const res = await sendChunk(server(), admin.token, {
        file,
        start: 0,
        end: 999,
        headers: { 'x-service-p-identifier': 'abc' },
      });
      await assertRefused(res, 400, 1003, /x-service-p-token/);
      assert.match(res.body.error, /retired/);
    });

    it('malformed or inconsistent headers -> 1002', async () => {
      const cases: Array<[string, Record<string, string | undefined>, number, number]> = [
        ['no Content-Range', { 'content-range': undefined }, 0, 999],
        ['Content-Range without "bytes"', { 'content-range': '0-999/3000' }, 0, 999],
        ['Content-Range with a star', { 'content-range': 'bytes */3000' }, 0, 999],
        ['negative numbers', { 'content-range': 'bytes -1-999/3000' }, 0, 999],
        ['end before start', { 'content-range': 'bytes 10-5/3000' }, 0, 999],
        ['end past the total', { 'content-range': 'bytes 0-3000/3000', 'x-service-p-lastchunk': 'true' }, 0, 999],
        ['total differs from x-service-p-content-length', { 'x-service-p-content-length': '3001' }, 0, 999],
        ['no x-service-p-content-length', { 'x-service-p-content-length': undefined }, 0, 999],
        ['a non-numeric x-service-p-content-length', { 'x-service-p-content-length': '3kb' }, 0, 999],
        ['no x-service-p-lastchunk', { 'x-service-p-lastchunk': undefined }, 0, 999],
        ['x-service-p-lastchunk not true or false', { 'x-service-p-lastchunk': 'yes' }, 0, 999],
        ['lastchunk true before the end', { 'x-service-p-lastchunk': 'true' }, 0, 999],
        ['lastchunk false at the end', { 'x-service-p-lastchunk': 'false' }, 0, 2999],
        ['a first chunk not starting at 0', {}, 1, 999],
      ];
      for (const [label, headers, start, end] of cases) {
        const res = await sendChunk(server(), admin.token, { file, start, end, headers });
        await assertRefused(res, 400, 1002);
        assert.ok(res.body.error.length > 'E1002: invalid partial upload'.length, `${label}: the error says why`);
      }
      assert.equal(await uploadSessionCount(server()), 0);
    });

    it('an empty file (no Content-Range can describe it) is refused with a clear error', async () => {
      const res = await sendChunk(server(), admin.token, {
        file: Buffer.alloc(0),
        start: 0,
        end: 0,
        body: Buffer.alloc(0),
        headers: { 'content-range': 'bytes 0-0/0', 'x-service-p-lastchunk': 'true' },
      });
      await assertRefused(res, 400, 1002, /empty file/);
    });

    it('a next chunk must start right after the previous one: gaps and overlaps -> 1002, the token stays valid', async () => {
      const token = await openUpload(admin.token, file, 999);
      for (const [start, end] of [
        [1001, 1999],
        [999, 1999],
        [0, 999],
      ] as const) {
        await assertRefused(
          await sendChunk(server(), admin.token, { file, start, end, token }),
          400,
          1002,
          /start at byte 1000/,
        );
      }
      const ok = await sendChunk(server(), admin.token, { file, start: 1000, end: 2999, token });
      assert.equal(ok.status, 200);
      assert.equal((await waitForAssembly(server(), admin.token, ok.body.incompleteFileId)).status, 'COMPLETE');
    });

    it('the total size cannot change, and x-service-folder must stay the same -> 1002', async () => {
      const token = await openUpload(admin.token, file, 999);
      const bigger = Buffer.concat([file, Buffer.from('more')]);
      await assertRefused(
        await sendChunk(server(), admin.token, { file: bigger, start: 1000, end: 1999, token }),
        400,
        1002,
        /total size/,
      );
      const folder = await insertTestFolder(server(), admin.id, 'chunks');
      const moved = await sendChunk(server(), admin.token, {
        file,
        start: 1000,
        end: 1999,
        token,
        headers: { 'x-service-folder': folder },
      });
      await assertRefused(moved, 400, 1002, /x-service-folder/);
      const ok = await sendChunk(server(), admin.token, { file, start: 1000, end: 2999, token });
      assert.equal(ok.status, 200);
      await waitForAssembly(server(), admin.token, ok.body.incompleteFileId);
    });

    it('uploads into a folder given on every chunk; an unknown folder -> 4001 before anything is stored', async () => {
      const folder = await insertTestFolder(server(), admin.id, 'target');
      const headers = { 'x-service-folder': folder };
      const res = await uploadInChunks(server(), admin.token, file, [1000], { headers });
      const record = await waitForAssembly(server(), admin.token, res.body.incompleteFileId);
      const row = await server()
        .ctx.db.selectFrom('files')
        .select('folder_id')
        .where('id', '=', record.fileId)
        .executeTakeFirstOrThrow();
      assert.equal(row.folder_id, folder);
      const unknown = await sendChunk(server(), admin.token, {
        file,
        start: 0,
        end: 999,
        headers: { 'x-service-folder': 'nofolder' },
      });
      await assertRefused(unknown, 404, 4001);
      assert.equal(await uploadSessionCount(server()), 0);
    });

    it('more than one file part -> 1005 (first chunk: nothing kept; later chunk: the session is discarded)', async () => {
      const first = await sendChunk(server(), admin.token, { file, start: 0, end: 999, extraFileParts: 1 });
      await assertRefused(first, 400, 1005);
      assert.equal(await uploadSessionCount(server()), 0);
      assert.deepEqual(await appendTempFiles(server().dataDir), []);
      const token = await openUpload(admin.token, file, 999);
      const later = await sendChunk(server(), admin.token, { file, start: 1000, end: 1999, token, extraFileParts: 2 });
      await assertRefused(later, 400, 1005);
      assert.equal(await uploadSessionCount(server()), 0);
      assert.deepEqual(await appendTempFiles(server().dataDir), []);
    });

    it('no file part -> 1062; a part named otherwise -> 1062', async () => {
      const form = new FormData();
      form.append('note', 'just a field');
      const res = await server().fetch('/api/upload/partial', {
        method: 'POST',
        headers: { authorization: admin.token, ...chunkHeaders({ file, start: 0, end: 999 }) },
        body: form,
      });
      assert.equal(res.status, 400);
      assert.equal(((await res.json()) as { code: number }).code, 1062);
      await assertRefused(
        await sendChunk(server(), admin.token, { file, start: 0, end: 999, partName: 'upload' }),
        400,
        1062,
        /named "file"/,
      );
      assert.equal(await uploadSessionCount(server()), 0);
    });

    it('not multipart -> 1061', async () => {
      const res = await server().fetch('/api/upload/partial', {
        method: 'POST',
        headers: {
          authorization: admin.token,
          'content-type': 'application/json',
          ...chunkHeaders({ file, start: 0, end: 999 }),
        },
        body: JSON.stringify({ file: 'x' }),
      });
      assert.equal(res.status, 400);
      assert.equal(((await res.json()) as { code: number }).code, 1061);
    });

    it('a whole file over the size limit -> 413 / 5001 at the first chunk, before a byte is stored', async () => {
      const big = Buffer.alloc(1024 * 1024 + 1);
      const res = await sendChunk(server(), admin.token, { file: big, start: 0, end: 9, body: big.subarray(0, 10) });
      await assertRefused(res, 413, 5001);
      assert.equal(await uploadSessionCount(server()), 0);
      assert.deepEqual(await appendTempFiles(server().dataDir), []);
    });

    it('a size no file can have -> 413 / 5001', async () => {
      const res = await sendChunk(server(), admin.token, {
        file,
        start: 0,
        end: 999,
        headers: {
          'x-service-p-content-length': '99999999999999999999',
          'content-range': 'bytes 0-999/99999999999999999999',
        },
      });
      await assertRefused(res, 413, 5001);
    });

    it('over the byte quota -> 413 / 5002 at the first chunk; a quota used up meanwhile -> 5002 at a later chunk', async () => {
      const carol = await createTestUser(server(), 'carol');
      await setUserQuota(server().ctx, server().ctx.db, carol.id, {
        filesQuota: 'BY_BYTES',
        maxBytes: 2500,
        maxFiles: null,
        maxUrls: null,
      });
      await assertRefused(await sendChunk(server(), carol.token, { file, start: 0, end: 999 }), 413, 5002);
      assert.equal(await uploadSessionCount(server()), 0);

      const small = randomBytes(2000);
      const token = await openUpload(carol.token, small, 999);
      // Meanwhile a normal upload uses most of the quota.
      const form = new FormData();
      form.append('file', new Blob([randomBytes(1000)]), 'other.bin');
      const normal = await server().fetch('/api/upload', {
        method: 'POST',
        headers: { authorization: carol.token },
        body: form,
      });
      assert.equal(normal.status, 200);
      const res = await sendChunk(server(), carol.token, { file: small, start: 1000, end: 1999, token });
      await assertRefused(res, 413, 5002);
      assert.equal(await uploadSessionCount(server()), 0);
      assert.deepEqual(await appendTempFiles(server().dataDir), []);
    });

    it('a full file-count quota -> 413 / 5002', async () => {
      const dave = await createTestUser(server(), 'dave');
      await setUserQuota(server().ctx, server().ctx.db, dave.id, {
        filesQuota: 'BY_FILES',
        maxBytes: null,
        maxFiles: 0,
        maxUrls: null,
      });
      await assertRefused(await sendChunk(server(), dave.token, { file, start: 0, end: 999 }), 413, 5002);
    });

    it('authentication is required on every request, with or without a token', async () => {
      const token = await openUpload(admin.token, file, 999);
      const res = await sendChunk(server(), '', {
        file,
        start: 1000,
        end: 1999,
        token,
        headers: { authorization: undefined },
      });
      await assertRefused(res, 401, 2002);
      const first = await sendChunk(server(), 'not-a-token', { file, start: 0, end: 999 });
      await assertRefused(first, 401, 2001);
      const cookie = await server().login('ann', 'ann-password');
      const viaCookie = await sendChunk(server(), cookie, { file, start: 1000, end: 2999, token });
      assert.equal(viaCookie.status, 200, 'the session cookie works like the token');
      await waitForAssembly(server(), admin.token, viaCookie.body.incompleteFileId);
    });

    it('two requests racing with one token: exactly one wins', async () => {
      const big = randomBytes(4000);
      const token = await openUpload(admin.token, big, 999);
      const [a, b] = await Promise.all([
        sendChunk(server(), admin.token, { file: big, start: 1000, end: 1999, token }),
        sendChunk(server(), admin.token, { file: big, start: 1000, end: 1999, token }),
      ]);
      const winners = [a, b].filter((r) => r.status === 200);
      const losers = [a, b].filter((r) => r.status !== 200);
      assert.equal(winners.length, 1, JSON.stringify([a.body, b.body]));
      assert.equal(losers[0]!.status, 400);
      assert.equal(losers[0]!.body.code, 1003);
      const last = await sendChunk(server(), admin.token, {
        file: big,
        start: 2000,
        end: 3999,
        token: winners[0]!.body.partialToken,
      });
      assert.equal(last.status, 200);
      await waitForAssembly(server(), admin.token, last.body.incompleteFileId);
      const served = Buffer.from(await (await fetch(last.body.files[0].rawUrl)).arrayBuffer());
      assert.ok(served.equals(big));
    });

    it('rate limit: the first chunk consumes the upload limit, continuations with a valid token do not', async () => {
      const erin = await createTestUser(server(), 'erin');
      const data = randomBytes(6000);
      // RATELIMIT_MAX=3: three uploads of six chunks each go through; only their first chunks count.
      for (let i = 0; i < 3; i++) {
        const res = await uploadInChunks(server(), erin.token, data, [1000, 1000, 1000, 1000, 1000]);
        assert.equal(res.status, 200, JSON.stringify(res.body));
        await waitForAssembly(server(), erin.token, res.body.incompleteFileId);
      }
      const fourth = await sendChunk(server(), erin.token, { file: data, start: 0, end: 999 });
      assert.equal(fourth.status, 429);
      assert.equal(fourth.body.code, 9000);
      // An invalid token does not get around the limit.
      const forged = await sendChunk(server(), erin.token, { file: data, start: 1000, end: 1999, token: 'forged' });
      assert.equal(forged.status, 429);
    });
  });

  describe("the session's commits between chunks", () => {
    // A chunk's claim of its token and its next token are not waited on to reach the disk (src/db/commits.ts); the
    // last chunk's commit is durable.
    it('on SQLite, a middle chunk is answered while no flush of the log can end; the last one waits for it', async (t) => {
      if (engine !== 'sqlite') return t.skip('the PostgreSQL case is the next test');
      const user = await createTestUser(server(), 'fay');
      const data = randomBytes(3000);
      const token = await openUpload(user.token, data, 999);
      const held = holdFlushes(server().chute.database.walSync!);
      try {
        const middle = await withinSeconds(
          5,
          sendChunk(server(), user.token, { file: data, start: 1000, end: 1999, token }),
        );
        assert.equal(middle.status, 200, JSON.stringify(middle.body));
        let lastAnswered = false;
        const last = sendChunk(server(), user.token, {
          file: data,
          start: 2000,
          end: 2999,
          token: middle.body.partialToken,
        }).then((res) => ((lastAnswered = true), res));
        await new Promise((resolve) => setTimeout(resolve, 300));
        assert.equal(lastAnswered, false, "the last chunk's answer waits for the flush of its commit");
        held.release();
        const answer = await last;
        assert.equal(answer.status, 200, JSON.stringify(answer.body));
        assert.equal((await waitForAssembly(server(), user.token, answer.body.incompleteFileId)).status, 'COMPLETE');
      } finally {
        held.release();
      }
    });

    it('on PostgreSQL, the claims and next tokens commit with synchronous_commit off, the last chunk with it on', async (t) => {
      if (engine !== 'postgres') return t.skip('the SQLite case is the test before');
      const db = server().ctx.db;
      // What each update of a session ran with, seen by the database itself.
      await sql`create table test_commit_modes (n serial, state text, mode text)`.execute(db);
      await sql`create function test_commit_mode() returns trigger language plpgsql as $$
        begin insert into test_commit_modes (state, mode) values (new.state, current_setting('synchronous_commit'));
        return new; end $$`.execute(db);
      await sql`create trigger test_commit_mode after update on upload_sessions for each row
        execute function test_commit_mode()`.execute(db);
      try {
        const user = await createTestUser(server(), 'gil');
        const res = await uploadInChunks(server(), user.token, randomBytes(3000), [1000, 1000, 1000]);
        assert.equal(res.status, 200, JSON.stringify(res.body));
        await waitForAssembly(server(), user.token, res.body.incompleteFileId);
        const modes = await sql<{ state: string; mode: string }>`select state, mode from test_commit_modes order by n`
          .execute(db)
          .then((r) => r.rows);
        const assembling = modes.findIndex((m) => m.state === 'assembling');
        assert.deepEqual(modes.slice(0, assembling + 1), [
          { state: 'open', mode: 'off' }, // the first chunk's next token
          { state: 'receiving', mode: 'off' }, // the second chunk claims it
          { state: 'open', mode: 'off' },
          { state: 'receiving', mode: 'off' }, // the last chunk claims its token
          { state: 'assembling', mode: 'on' }, // and reserves the file, durably
        ]);
      } finally {
        await sql`drop trigger test_commit_mode on upload_sessions`.execute(db);
        await sql`drop function test_commit_mode()`.execute(db);
        await sql`drop table test_commit_modes`.execute(db);
      }
    });
  });
});
