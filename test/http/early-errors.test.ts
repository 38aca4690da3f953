// Answers given before the request body has been read (a bad header, the size limit, the quota, a bad chunk token)
// reach every client whole: Node's fetch (undici) and tus-js-client, which keep sending while the answer arrives,
// read the JSON error every time instead of failing with EPIPE or ECONNRESET (src/http/uploads/cut-off-body.ts).
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { createTestUser, setFileQuota } from '../support/content.js';
import { forEachDatabase, useTestServer, type TestServer, type TestUser } from '../support/server.js';
import { tusPatchFromChild } from '../support/tus.js';

const MiB = 1024 * 1024;

/** A multipart body of `size` bytes in one file part, produced as it is sent. */
function multipartBody(size: number): { body: ReadableStream<Uint8Array>; contentType: string; length: number } {
  const boundary = '----chute-early-error';
  const head = Buffer.from(
    `--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="big.bin"\r\n` +
      'content-type: application/octet-stream\r\n\r\n',
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const chunk = Buffer.alloc(256 * 1024, 7);
  let sent = 0;
  let stage: 'head' | 'bytes' | 'tail' | 'done' = 'head';
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (stage === 'head') {
        controller.enqueue(head);
        stage = 'bytes';
      } else if (stage === 'bytes') {
        const n = Math.min(chunk.length, size - sent);
        controller.enqueue(chunk.subarray(0, n));
        sent += n;
        if (sent >= size) stage = 'tail';
      } else if (stage === 'tail') {
        controller.enqueue(tail);
        stage = 'done';
      } else {
        controller.close();
      }
    },
  });
  return { body, contentType: `multipart/form-data; boundary=${boundary}`, length: head.length + size + tail.length };
}

async function sendWhileAnswered(
  server: TestServer,
  pathname: string,
  headers: Record<string, string>,
  size: number,
): Promise<{ status: number; code: number }> {
  const { body, contentType, length } = multipartBody(size);
  const res = await fetch(`${server.url}${pathname}`, {
    method: 'POST',
    headers: { ...headers, 'content-type': contentType, 'content-length': String(length) },
    body,
    duplex: 'half',
  } as RequestInit).catch((err: unknown) => {
    throw new Error(`sending: ${String((err as Error).cause ?? err)}`);
  });
  const json = (await res.json().catch((err: unknown) => {
    throw new Error(`reading the answer: ${String((err as Error).cause ?? err)}`);
  })) as { code: number };
  return { status: res.status, code: json.code };
}

forEachDatabase('early errors reach fetch', (engine) => {
  const server = useTestServer({ engine, env: { FILES_MAX_FILE_SIZE: '8mb' } });
  let user: TestUser;
  before(async () => {
    user = await server().setup('early', 'early-password');
  });

  const cases: Array<{
    name: string;
    path: string;
    headers: () => Record<string, string>;
    size: number;
    code: number;
  }> = [
    {
      name: 'an invalid x-service-max-views on a 50 MiB upload',
      path: '/api/upload',
      headers: () => ({ authorization: user.token, 'x-service-max-views': 'lots' }),
      size: 50 * MiB,
      code: 1001,
    },
    {
      name: 'a file over the size limit',
      path: '/api/upload',
      headers: () => ({ authorization: user.token }),
      size: 40 * MiB,
      code: 5001,
    },
    {
      name: 'no credentials',
      path: '/api/upload',
      headers: () => ({}),
      size: 20 * MiB,
      code: 2002,
    },
    {
      name: 'a chunk with a token that is not valid',
      path: '/api/upload/partial',
      headers: () => ({
        authorization: user.token,
        'content-range': `bytes 0-${4 * MiB - 1}/${8 * MiB}`,
        'x-service-p-content-length': String(8 * MiB),
        'x-service-p-lastchunk': 'false',
        'x-service-p-token': 'not-a-token',
      }),
      size: 4 * MiB,
      code: 1003,
    },
    {
      name: 'a chunk whose headers are malformed',
      path: '/api/upload/partial',
      headers: () => ({
        authorization: user.token,
        'content-range': 'bytes 0-0/0',
        'x-service-p-content-length': '0',
        'x-service-p-lastchunk': 'true',
      }),
      size: 4 * MiB,
      code: 1002,
    },
  ];

  for (const c of cases) {
    it(`${c.name}: the JSON error, 10 times out of 10`, async () => {
      for (let i = 0; i < 10; i++) {
        const answer = await sendWhileAnswered(server(), c.path, c.headers(), c.size);
        assert.equal(answer.code, c.code, `try ${i + 1}`);
      }
    });
  }
});

forEachDatabase('early errors reach tus-js-client', (engine) => {
  const server = useTestServer({ engine, env: { FILES_MAX_FILE_SIZE: '64mb', RATELIMIT_ENABLED: 'false' } });

  it('a tus PATCH of 4 MiB over the quota: the 413 / 5002, 10 times out of 10', async () => {
    const size = 4 * MiB;
    const user = await createTestUser(server(), 'early-tus');
    // The uploads are created while the quota is free (an open upload reserves none of it); then it shrinks, so
    // that each one's single PATCH is refused before a byte of its body is read.
    const uploads: string[] = [];
    for (let i = 0; i < 10; i++) {
      const res = await server().fetch('/api/upload/tus', {
        method: 'POST',
        headers: { 'tus-resumable': '1.0.0', authorization: user.token, 'upload-length': String(size) },
      });
      assert.equal(res.status, 201, await res.text());
      uploads.push(res.headers.get('location')!);
    }
    await setFileQuota(server(), user.id, { maxBytes: MiB });
    for (const [i, uploadUrl] of uploads.entries()) {
      const answer = await tusPatchFromChild(uploadUrl, user.token, size);
      assert.ok('status' in answer, `try ${i + 1}: no answer reached tus-js-client: ${JSON.stringify(answer)}`);
      assert.equal(answer.status, 413, `try ${i + 1}`);
      const body = JSON.parse(answer.body) as { code: number; statusCode: number };
      assert.equal(body.code, 5002, `try ${i + 1}`);
      assert.equal(body.statusCode, 413, `try ${i + 1}`);
    }
  });
});
