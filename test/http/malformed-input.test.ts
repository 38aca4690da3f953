// Input that is not what HTTP, JSON or multipart promise gets a 400 family answer in the spec's error shape, with
// nothing saved: lone UTF-16 surrogates in names (issue 15, item 17), malformed multipart bodies, and what Fastify and
// Node's HTTP parser refuse before routing (item 20: bad percent-escapes, over-long path parameters, oversized
// headers, garbage request lines).
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { assertError, type ApiErrorBody } from '../support/api-errors.js';
import { rawRequest, requestHead, type RawAnswer } from '../support/raw-http.js';
import { forEachDatabase, useTestServer, type TestUser } from '../support/server.js';
import { fileRowCount, storedFiles } from '../support/stored.js';
import { uploadOne } from '../support/uploads.js';

function assertRawError(answer: RawAnswer, status: number, code: number): void {
  assert.equal(answer.status, status, `expected ${status}, got ${answer.status} ${answer.body}`);
  const body = JSON.parse(answer.body) as ApiErrorBody;
  assert.equal(body.code, code, answer.body);
  assert.equal(body.statusCode, status);
  assert.match(body.error, new RegExp(`^E${code}: `));
  assert.match(answer.headers['content-type'] ?? '', /^application\/json/);
}

forEachDatabase('malformed input', (engine) => {
  const server = useTestServer({ engine });
  let user: TestUser;
  before(async () => {
    user = await server().setup('malformed', 'malformed-password');
  });

  /** A JSON body with a lone surrogate, as JSON can only carry it: the escape "\ud800". */
  const loneSurrogateJson = (json: string) => json.replace('LONE', '\\ud800');

  it('a folder name with a lone surrogate -> 400 / 1000, no folder saved', async () => {
    const res = await server().fetch('/api/user/folders', {
      method: 'POST',
      headers: { authorization: user.token, 'content-type': 'application/json' },
      body: loneSurrogateJson('{"name":"a LONE b"}'),
    });
    const body = (await res.json()) as ApiErrorBody;
    assertError({ status: res.status, headers: res.headers, body }, 400, 1000);
    assert.match(body.error, /body\.name/);
    const folders = await server().json('GET', '/api/user/folders', { auth: user.token });
    assert.deepEqual(folders.body, []);
  });

  it('a file rename with a lone surrogate -> 400 / 1000, the name unchanged', async () => {
    const file = await uploadOne(server(), user.token, 'hello', { name: 'a.txt' });
    const res = await server().fetch(`/api/user/files/${file.id}`, {
      method: 'PATCH',
      headers: { authorization: user.token, 'content-type': 'application/json' },
      body: loneSurrogateJson('{"name":"x LONE.txt"}'),
    });
    assert.equal(res.status, 400);
    assert.equal(((await res.json()) as ApiErrorBody).code, 1000);
    const after = await server().json('GET', `/api/user/files/${file.id}`, { auth: user.token });
    assert.equal(after.body.name, file.name);
  });

  it('NUL in a name, a path or a query -> 400 / 1000 (PostgreSQL cannot hold it: it was a 500 there)', async () => {
    const created = await server().json('POST', '/api/user/folders', { auth: user.token, body: { name: 'a\u0000b' } });
    assertError(created, 400, 1000);
    for (const target of ['/api/user/folders/a%00b', '/raw/a%00b', '/api/user/files?id=a%00b']) {
      const res = await server().json('GET', target, { auth: user.token });
      assert.equal(res.status, 400, target);
      assert.equal(res.body.code, 1000, target);
    }
  });

  it('a well-formed pair (an emoji) is a name like any other', async () => {
    const res = await server().fetch('/api/user/folders', {
      method: 'POST',
      headers: { authorization: user.token, 'content-type': 'application/json' },
      body: '{"name":"\\ud83d\\ude00 photos"}',
    });
    assert.equal(res.status, 200);
    assert.equal(((await res.json()) as { name: string }).name, '\u{1F600} photos');
  });

  const multipartCases: Array<{ name: string; contentType: string; body: string }> = [
    {
      name: 'a boundary with a space, unquoted',
      contentType: 'multipart/form-data; boundary=a b',
      body: '--a b\r\ncontent-disposition: form-data; name="file"; filename="x.txt"\r\n\r\nhello\r\n--a b--\r\n',
    },
    { name: 'no boundary', contentType: 'multipart/form-data', body: 'hello' },
    { name: 'no part at all', contentType: 'multipart/form-data; boundary=abc', body: 'hello there' },
    {
      name: 'a body that ends inside a part header',
      contentType: 'multipart/form-data; boundary=abc',
      body: '--abc\r\ncontent-disposition: form-data; name="file"; filen',
    },
    {
      name: 'a body that ends inside the file',
      contentType: 'multipart/form-data; boundary=abc',
      body: '--abc\r\ncontent-disposition: form-data; name="file"; filename="x.txt"\r\n\r\nhello',
    },
  ];
  for (const c of multipartCases) {
    it(`multipart with ${c.name} -> 400 / 1061, nothing stored`, async () => {
      const filesBefore = await fileRowCount(server());
      const storedBefore = await storedFiles(server());
      for (const path of ['/api/upload', '/api/upload/partial']) {
        const answer = await rawRequest(
          server().url,
          requestHead('POST', path, {
            authorization: user.token,
            'content-type': c.contentType,
            'content-length': Buffer.byteLength(c.body),
            'x-service-p-content-length': 5,
            'content-range': 'bytes 0-4/5',
            'x-service-p-lastchunk': 'true',
            connection: 'close',
          }) + c.body,
        );
        assertRawError(answer, 400, 1061);
      }
      assert.equal(await fileRowCount(server()), filesBefore);
      assert.deepEqual(await storedFiles(server()), storedBefore);
    });
  }

  it('a bad percent-escape in the path -> 400 / 9000', async () => {
    for (const target of ['/api/user/files/%zz', '/raw/%E0%A4%A', '/u/%']) {
      assertRawError(await rawRequest(server().url, requestHead('GET', target, { connection: 'close' })), 400, 9000);
    }
  });

  it('a path parameter over the length limit -> 414 / 9000', async () => {
    const target = `/api/user/files/${'a'.repeat(500)}`;
    const answer = await rawRequest(server().url, requestHead('GET', target, { connection: 'close' }));
    assertRawError(answer, 414, 9000);
  });

  it('oversized headers -> 431 / 9000', async () => {
    const answer = await rawRequest(
      server().url,
      requestHead('GET', '/api/healthcheck', { 'x-big': 'a'.repeat(32 * 1024), connection: 'close' }),
    );
    assertRawError(answer, 431, 9000);
  });

  it('a request that is not HTTP -> 400 / 9000', async () => {
    assertRawError(await rawRequest(server().url, 'GARBAGE\r\n\r\n'), 400, 9000);
    assertRawError(await rawRequest(server().url, 'GET / HTTP/1.1\r\nHost: x\r\nbad header\r\n\r\n'), 400, 9000);
  });

  it('the server still answers afterwards', async () => {
    const res = await server().json('GET', '/api/healthcheck');
    assert.equal(res.status, 200);
  });
});
