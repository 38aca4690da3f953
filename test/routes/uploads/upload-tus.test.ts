// /api/upload/tus with the real tus-js-client: whole uploads, stopped and resumed ones (a PATCH cut off keeps what
// arrived), checksums, quota and size limits, termination, options from Upload-Metadata, scoped tokens, and the raw
// protocol with curl (OPTIONS, HEAD).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { stat } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { promisify } from 'node:util';
import { before, describe, it } from 'node:test';
import * as tus from 'tus-js-client';
import { assertError } from '../../support/api-errors.js';
import { createTestUser, setFileQuota } from '../../support/content.js';
import {
  authHeaders,
  forEachDatabase,
  readJsonResponse,
  useTestServer,
  type TestServer,
  type TestUser,
} from '../../support/server.js';
import { appendTempFiles } from '../../support/stored.js';
import { TusStopped, tusErrorOf, tusUpload } from '../../support/tus.js';
import { upload } from '../../support/uploads.js';

const MiB = 1024 * 1024;
const TUS = { 'tus-resumable': '1.0.0' };

/** POST: creates an upload of `length` bytes; returns its path. */
async function createUpload(
  server: TestServer,
  auth: string,
  length: number,
  metadata = 'filename ZGF0YS5iaW4=',
): Promise<string> {
  const res = await server.fetch('/api/upload/tus', {
    method: 'POST',
    headers: { ...TUS, ...authHeaders(auth), 'upload-length': String(length), 'upload-metadata': metadata },
  });
  assert.equal(res.status, 201, await res.text());
  return new URL(res.headers.get('location')!).pathname;
}

function patch(server: TestServer, auth: string, where: string, offset: number, body: Buffer, extra = {}) {
  return server
    .fetch(where, {
      method: 'PATCH',
      headers: {
        ...TUS,
        ...authHeaders(auth),
        'content-type': 'application/offset+octet-stream',
        'upload-offset': String(offset),
        ...extra,
      },
      body,
    })
    .then(readJsonResponse);
}

async function offsetOf(server: TestServer, auth: string, where: string): Promise<number> {
  const res = await server.fetch(where, { method: 'HEAD', headers: { ...TUS, ...authHeaders(auth) } });
  assert.equal(res.status, 200);
  return Number(res.headers.get('upload-offset'));
}

/** The sizes of the uploads' temp data (local: the append-* files, in the uploads folder's .chute-tmp). */
async function appendedBytes(server: TestServer): Promise<number[]> {
  const names = await appendTempFiles(server.dataDir);
  const folder = path.join(server.dataDir, 'uploads', '.chute-tmp');
  return Promise.all(names.map(async (n) => (await stat(path.join(folder, n))).size));
}

async function rawBytes(fileUrl: string): Promise<Buffer> {
  const res = await fetch(fileUrl.replace('/u/', '/raw/'));
  assert.equal(res.status, 200);
  return Buffer.from(await res.arrayBuffer());
}

/** curl, answering the status line and headers (lower-case names). */
async function curlHead(args: string[]): Promise<{ status: number; headers: Record<string, string> }> {
  const { stdout } = await promisify(execFile)('curl', ['-s', '-o', '/dev/null', '-D', '-', ...args]);
  const lines = stdout.split('\r\n').filter(Boolean);
  const status = Number(lines[0]!.split(' ')[1]);
  const headers: Record<string, string> = {};
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status, headers };
}

forEachDatabase('tus uploads', (engine) => {
  const server = useTestServer({ engine, env: { FILES_MAX_FILE_SIZE: '64mb' } });
  let admin: TestUser;
  before(async () => {
    admin = await server().setup();
  });

  it('uploads a file byte-exact and names it in the last answer and in HEAD afterwards', async () => {
    const data = randomBytes(3 * MiB + 17);
    const run = await tusUpload(server(), admin.token, data, {
      metadata: { filename: 'a.bin', filetype: 'application/x-test' },
    });
    assert.ok(run.fileUrl && run.fileId);
    assert.ok((await rawBytes(run.fileUrl)).equals(data));
    // Like a chunked upload's, its record is COMPLETE, under the upload's id.
    const uploadId = new URL(run.url).pathname.split('/').pop();
    const records = await server().json('GET', '/api/user/files/incomplete', { auth: admin.token });
    const record = records.body.find((r: { id: string }) => r.id === uploadId);
    assert.equal(record.status, 'COMPLETE');
    assert.equal(record.fileId, run.fileId);
    assert.equal(record.chunksTotal, 1);
    const file = await server().json('GET', `/api/user/files/${run.fileId}`, { auth: admin.token });
    assert.equal(file.body.type, 'application/x-test');
    assert.equal(file.body.size, data.length);
    const head = await server().fetch(new URL(run.url).pathname, {
      method: 'HEAD',
      headers: { ...TUS, ...authHeaders(admin.token) },
    });
    assert.equal(head.status, 200);
    assert.equal(head.headers.get('upload-offset'), String(data.length));
    assert.equal(head.headers.get('chute-file-url'), run.fileUrl);
    assert.equal(head.headers.get('chute-file-id'), run.fileId);
    assert.equal(head.headers.get('cache-control'), 'no-store');
  });

  it('an empty file is a file as soon as it is created', async () => {
    const run = await tusUpload(server(), admin.token, Buffer.alloc(0), { metadata: { filename: 'empty.txt' } });
    assert.ok(run.fileUrl, 'the creation answer names the file');
    assert.equal((await rawBytes(run.fileUrl)).length, 0);
  });

  it('creation-with-upload and chunks: the first bytes come with the POST', async () => {
    const data = randomBytes(2 * MiB + 5);
    const run = await tusUpload(server(), admin.token, data, { chunkSize: MiB, uploadDataDuringCreation: true });
    assert.ok((await rawBytes(run.fileUrl!)).equals(data));
  });

  it('stopped in the middle and resumed by URL: byte-exact, nothing sent twice', async () => {
    const data = randomBytes(5 * MiB + 3);
    const stopped = await tusUpload(server(), admin.token, data, { chunkSize: MiB, stopAfterAcknowledged: 2 * MiB })
      .then(() => assert.fail('should stop'))
      .catch((err: unknown) => {
        assert.ok(err instanceof TusStopped, String(err));
        return err;
      });
    const where = new URL(stopped.url).pathname;
    const offset = await offsetOf(server(), admin.token, where);
    assert.ok(offset >= 2 * MiB && offset < data.length, `offset ${offset}`);
    const run = await tusUpload(server(), admin.token, data, { chunkSize: MiB, uploadUrl: stopped.url });
    assert.equal(run.url, stopped.url);
    assert.ok((await rawBytes(run.fileUrl!)).equals(data));
  });

  it('a PATCH whose connection drops keeps the bytes that arrived', async () => {
    const data = randomBytes(3 * MiB);
    const where = await createUpload(server(), admin.token, data.length);
    const arrived = MiB + 1234;
    const url = new URL(server().url);
    await new Promise<void>((resolve) => {
      const req = http.request({
        host: url.hostname,
        port: url.port,
        path: where,
        method: 'PATCH',
        headers: {
          ...TUS,
          ...authHeaders(admin.token),
          'content-type': 'application/offset+octet-stream',
          'upload-offset': '0',
          'content-length': String(data.length),
        },
      });
      req.on('error', () => resolve());
      req.write(data.subarray(0, arrived), () => {
        req.destroy();
        resolve();
      });
    });
    // HEAD waits for the cut-off PATCH to let go of the upload, then answers what it recorded.
    let offset = await offsetOf(server(), admin.token, where);
    // The server may not have seen the end of the connection yet when HEAD came: ask until it has.
    while (offset === 0) offset = await offsetOf(server(), admin.token, where);
    assert.equal(offset, arrived);
    const rest = await patch(server(), admin.token, where, arrived, data.subarray(arrived));
    assert.equal(rest.status, 204);
    assert.ok((await rawBytes(rest.headers.get('chute-file-url')!)).equals(data));
  });

  it('Upload-Checksum (sha1, sha256): a match is kept, a mismatch -> 460 and its bytes are discarded', async () => {
    const data = randomBytes(2 * MiB);
    const where = await createUpload(server(), admin.token, data.length);
    const first = data.subarray(0, MiB);
    const wrong = await patch(server(), admin.token, where, 0, first, {
      'upload-checksum': `sha1 ${createHash('sha1').update('other').digest('base64')}`,
    });
    assertError(wrong, 460, 9000);
    assert.equal(await offsetOf(server(), admin.token, where), 0);
    const unknown = await patch(server(), admin.token, where, 0, first, { 'upload-checksum': 'md5 AAAA' });
    assertError(unknown, 400, 9000);
    const right = await patch(server(), admin.token, where, 0, first, {
      'upload-checksum': `sha1 ${createHash('sha1').update(first).digest('base64')}`,
    });
    assert.equal(right.status, 204);
    const last = data.subarray(MiB);
    const done = await patch(server(), admin.token, where, MiB, last, {
      'upload-checksum': `sha256 ${createHash('sha256').update(last).digest('base64')}`,
    });
    assert.equal(done.status, 204);
    assert.ok((await rawBytes(done.headers.get('chute-file-url')!)).equals(data));
  });

  it('tus-js-client with a wrong Upload-Checksum: 460 in the spec shape, nothing kept', async () => {
    const data = randomBytes(MiB);
    const bad = `sha256 ${createHash('sha256').update('not the data').digest('base64')}`;
    let url = '';
    const err = await new Promise<unknown>((resolve) => {
      const upload = new tus.Upload(data, {
        endpoint: `${server().url}/api/upload/tus`,
        headers: authHeaders(admin.token),
        retryDelays: [],
        onBeforeRequest: (req) => {
          if (req.getMethod() === 'PATCH') req.setHeader('Upload-Checksum', bad);
        },
        onUploadUrlAvailable: () => {
          url = upload.url!;
        },
        onError: resolve,
        onSuccess: () => resolve(new Error('accepted a wrong checksum')),
      });
      upload.start();
    });
    const { status, body } = tusErrorOf(err);
    assert.equal(status, 460);
    assert.equal(body.code, 9000);
    assert.equal(await offsetOf(server(), admin.token, new URL(url).pathname), 0);
  });

  it('a quota used up mid-upload: 413 / 5002, the offset stays and nothing is stored past it', async () => {
    const user = await createTestUser(server(), 'quota-tus');
    await setFileQuota(server(), user.id, { maxBytes: 6 * MiB });
    const data = randomBytes(4 * MiB);
    const stopped = (await tusUpload(server(), user.token, data, {
      chunkSize: MiB,
      stopAfterAcknowledged: MiB,
    }).catch((err: unknown) => err)) as TusStopped;
    assert.ok(stopped instanceof TusStopped);
    const where = new URL(stopped.url).pathname;
    const offset = await offsetOf(server(), user.token, where);
    // Another upload takes 3 MiB of the quota meanwhile: the 4 MiB can no longer fit.
    assert.equal((await upload(server(), user.token, [{ name: 'x.bin', content: randomBytes(3 * MiB) }])).status, 200);
    const err = await tusUpload(server(), user.token, data, { chunkSize: MiB, uploadUrl: stopped.url }).catch(
      (e: unknown) => e,
    );
    const { status, body } = tusErrorOf(err);
    assert.equal(status, 413);
    assert.equal(body.code, 5002);
    assert.equal(body.statusCode, 413);
    assert.equal(await offsetOf(server(), user.token, where), offset);
    assert.ok((await appendedBytes(server())).every((size) => size <= offset));
    const files = await server().ctx.db.selectFrom('files').select('id').where('user_id', '=', user.id).execute();
    assert.equal(files.length, 1);
  });

  it('over the size limit at creation: 413 / 5001; a deferred length or a concatenation: 400 naming what is served', async () => {
    const res = await server().fetch('/api/upload/tus', {
      method: 'POST',
      headers: { ...TUS, ...authHeaders(admin.token), 'upload-length': String(65 * MiB) },
    });
    assertError(await readJsonResponse(res), 413, 5001);
    const unserved: Array<Record<string, string>> = [
      { 'upload-defer-length': '1' },
      { 'upload-concat': 'partial', 'upload-length': '5' },
    ];
    for (const header of unserved) {
      const refused = await server().fetch('/api/upload/tus', {
        method: 'POST',
        headers: { ...TUS, ...authHeaders(admin.token), ...header },
      });
      const body = await readJsonResponse(refused);
      assertError(body, 400, 9000);
      assert.match(body.body.error, /served: creation/);
    }
  });

  it('termination: DELETE removes the upload and its bytes; a finished one cannot be terminated', async () => {
    const data = randomBytes(2 * MiB);
    const stopped = (await tusUpload(server(), admin.token, data, {
      chunkSize: MiB,
      stopAfterAcknowledged: MiB,
    }).catch((err: unknown) => err)) as TusStopped;
    assert.ok(stopped instanceof TusStopped);
    const before = (await appendTempFiles(server().dataDir)).length;
    await tus.Upload.terminate(stopped.url, { headers: authHeaders(admin.token), retryDelays: [] });
    assert.equal((await appendTempFiles(server().dataDir)).length, before - 1);
    const head = await server().fetch(new URL(stopped.url).pathname, {
      method: 'HEAD',
      headers: { ...TUS, ...authHeaders(admin.token) },
    });
    assert.equal(head.status, 404);
    const done = await tusUpload(server(), admin.token, randomBytes(100));
    const refused = await server().fetch(new URL(done.url).pathname, {
      method: 'DELETE',
      headers: { ...TUS, ...authHeaders(admin.token) },
    });
    assert.equal(refused.status, 400);
  });

  it('upload options from Upload-Metadata (x-service-* keys) and from the creation headers', async () => {
    const viaMetadata = await tusUpload(server(), admin.token, Buffer.from('hello'), {
      metadata: { filename: 'hello.txt', filetype: 'text/plain', 'x-service-filename': 'chosen-name' },
    });
    assert.match(viaMetadata.fileUrl!, /\/u\/chosen-name\.txt$/);
    const folder = await server().json('POST', '/api/user/folders', { auth: admin.token, body: { name: 'tus' } });
    const viaHeader = await tusUpload(server(), admin.token, Buffer.from('in a folder'), {
      headers: { 'x-service-folder': folder.body.id },
    });
    const file = await server().json('GET', `/api/user/files/${viaHeader.fileId}`, { auth: admin.token });
    assert.equal(file.body.folderId, folder.body.id);
    const bad = await tusUpload(server(), admin.token, Buffer.from('x'), {
      metadata: { filename: 'x.txt', 'x-service-max-views': 'many' },
    }).catch((e: unknown) => e);
    assert.equal(tusErrorOf(bad).body.code, 1001);
  });

  it('authenticated like the API: none -> 401, another user -> 404, upload-scoped token works, others 403', async () => {
    const where = await createUpload(server(), admin.token, 10);
    const anonymous = await server().fetch(where, { method: 'HEAD', headers: TUS });
    assert.equal(anonymous.status, 401);
    assert.equal(anonymous.headers.get('tus-resumable'), '1.0.0');
    const other = await createTestUser(server(), 'other-tus');
    const foreign = await server().fetch(where, { method: 'HEAD', headers: { ...TUS, ...authHeaders(other.token) } });
    assert.equal(foreign.status, 404);
    const scoped = async (scopes: string[]) =>
      (await server().json('POST', '/api/user/tokens', { auth: admin.token, body: { name: scopes[0], scopes } })).body
        .token as string;
    const uploadOnly = await scoped(['upload']);
    const run = await tusUpload(server(), uploadOnly, Buffer.from('scoped'));
    assert.ok(run.fileUrl);
    const readOnly = await scoped(['files:read']);
    const refused = await server().fetch(where, { method: 'HEAD', headers: { ...TUS, ...authHeaders(readOnly) } });
    assert.equal(refused.status, 403);
  });

  it('curl: OPTIONS without credentials tells the protocol; HEAD answers the offset, never cached', async () => {
    const options = await curlHead(['-X', 'OPTIONS', `${server().url}/api/upload/tus`]);
    assert.equal(options.status, 204);
    assert.equal(options.headers['tus-version'], '1.0.0');
    assert.deepEqual(options.headers['tus-extension']!.split(',').sort(), [
      'checksum',
      'creation',
      'creation-with-upload',
      'expiration',
      'termination',
    ]);
    assert.equal(options.headers['tus-checksum-algorithm'], 'sha1,sha256');
    assert.equal(options.headers['tus-max-size'], String(64 * MiB));
    const where = await createUpload(server(), admin.token, 1000);
    const first = await patch(server(), admin.token, where, 0, randomBytes(400));
    assert.match(first.headers.get('upload-expires') ?? '', /GMT$/);
    const head = await curlHead([
      '-I',
      '-H',
      'Tus-Resumable: 1.0.0',
      '-H',
      `Authorization: ${admin.token}`,
      `${server().url}${where}`,
    ]);
    assert.equal(head.status, 200);
    assert.equal(head.headers['upload-offset'], '400');
    assert.equal(head.headers['upload-length'], '1000');
    assert.equal(head.headers['cache-control'], 'no-store');
    assert.equal(head.headers['tus-resumable'], '1.0.0');
    const noVersion = await curlHead(['-I', '-H', `Authorization: ${admin.token}`, `${server().url}${where}`]);
    assert.equal(noVersion.status, 412);
  });
  describe('rate limit', () => {
    const limited = useTestServer({ engine, env: { RATELIMIT_MAX: '3' } });

    it('creating an upload counts against the upload limit; its PATCHes and HEADs do not', async () => {
      await limited().setup();
      const user = await createTestUser(limited(), 'limited-tus');
      const data = randomBytes(600 * 1024);
      for (let i = 0; i < 3; i++) {
        const run = await tusUpload(limited(), user.token, data, { chunkSize: 100 * 1024 });
        assert.ok(run.fileUrl, `upload ${i + 1} of 3 went through in six PATCHes`);
      }
      const fourth = await tusUpload(limited(), user.token, data).catch((e: unknown) => e);
      const { status, body } = tusErrorOf(fourth);
      assert.equal(status, 429);
      assert.equal(body.code, 9000);
    });
  });
});
