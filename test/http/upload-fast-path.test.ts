// The fast path of uploads (src/http/uploads/fast-path.ts) takes plain POST /api/upload requests before Fastify and
// hands them to the code the route runs (http/uploads/send-upload.ts). These tests check what it takes and what it
// leaves to the route (a caller with an upload limit, errors before the body), and that either way the answer is the
// same (the route answers the same request with a query added, which the fast path leaves to it).
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { authHeaders, forEachDatabase, useTestServer, type TestUser } from '../support/server.js';
import { createTestUser } from '../support/content.js';

type Body = NonNullable<RequestInit['body']>;

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/** Status, headers (but the date and length) and body of an answer, with file names, ids and links made alike. */
async function answerOf(res: Response): Promise<Answer> {
  const headers: Record<string, string> = {};
  res.headers.forEach((value, name) => {
    // The request's own moment and count: its date, and what is left of a limit after it.
    if (name !== 'date' && name !== 'content-length' && name !== 'x-ratelimit-remaining') headers[name] = value;
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // a text answer (x-service-no-json)
  }
  const names = new Set<string>();
  if (typeof body === 'object' && body !== null && 'files' in body) {
    for (const file of (body as { files: Array<Record<string, unknown>> }).files) {
      names.add(String(file.name));
      file.id = '<id>';
    }
  }
  let shown = JSON.stringify(body).replace(/"deletesAt":"[^"]+"/g, '"deletesAt":"<date>"');
  for (const name of names) shown = shown.split(name).join('<name>');
  if (typeof body === 'string') shown = JSON.stringify(body.replace(/\/u\/[^,]+/g, '/u/<name>'));
  return { status: res.status, headers, body: JSON.parse(shown) };
}

forEachDatabase('the fast path for uploads', (engine) => {
  const server = useTestServer({ engine });
  let admin: TestUser;
  before(async () => {
    admin = await server().setup('uploader', 'uploader-password');
  });

  const fastAnswers = () => server().ctx.metrics.fastPathAnswers.value;

  const post = (path: string, token: string, body: Body, headers: Record<string, string> = {}) =>
    server().fetch(path, { method: 'POST', headers: { ...authHeaders(token), ...headers }, body });

  const form = (...parts: Array<{ field?: string; name: string; content: string; type?: string }>) => {
    const data = new FormData();
    for (const part of parts) {
      data.append(part.field ?? 'file', new Blob([part.content], part.type ? { type: part.type } : {}), part.name);
    }
    return data;
  };

  /**
   * The same upload through the fast path and (with a query added) through the route; asserts both answer alike and
   * whether the fast path took the first.
   */
  const sameAsRoute = async (
    make: () => Body,
    options: { headers?: Record<string, string>; token?: string; fast?: boolean } = {},
  ): Promise<Answer> => {
    const token = options.token ?? admin.token;
    const before = fastAnswers();
    const fast = await answerOf(await post('/api/upload', token, make(), options.headers));
    const tookIt = fastAnswers() === before + 1;
    const routed = await answerOf(await post('/api/upload?compare=1', token, make(), options.headers));
    assert.equal(fastAnswers(), before + (tookIt ? 1 : 0), 'the route answered /api/upload?compare=1');
    assert.deepEqual(fast, routed);
    if (options.fast !== undefined) assert.equal(tookIt, options.fast, `the fast path took it: ${tookIt}`);
    return fast;
  };

  it('a plain upload: the route’s answer, headers and metrics', async () => {
    const answer = await sameAsRoute(
      () => form({ name: 'hello.txt', content: 'hello fast path', type: 'text/plain' }),
      {
        fast: true,
      },
    );
    assert.equal(answer.status, 200);
    assert.equal(answer.headers['content-type'], 'application/json; charset=utf-8');
    assert.equal(answer.headers['cache-control'], 'no-store');
    assert.equal(answer.headers['x-content-type-options'], 'nosniff');
    const { files } = answer.body as { files: Array<{ size: number; type: string }> };
    assert.equal(files.length, 1);
    assert.equal(files[0]!.size, 'hello fast path'.length);
    const { text } = await server().ctx.metrics.exposition();
    assert.match(text, /chute_http_requests_total\{method="POST",route="\/api\/upload",status_code="200"\} [2-9]\b/);
  });

  it('several files, other fields and file parts, options from headers, links as text', async () => {
    const answer = await sameAsRoute(
      () =>
        form(
          { name: 'a.png', content: 'not really a png', type: 'image/png' },
          { field: 'other', name: 'skipped.txt', content: 'skipped' },
          { name: 'b', content: 'no type, no extension' },
        ),
      { headers: { 'x-service-original-name': 'true', 'x-service-deletes-at': '1d' }, fast: true },
    );
    assert.equal(answer.status, 200);
    const body = answer.body as { files: Array<{ originalName: string }>; assumedMimetypes: boolean[] };
    assert.deepEqual(
      body.files.map((f) => f.originalName),
      ['a.png', 'b'],
    );
    assert.deepEqual(body.assumedMimetypes, [false, false]);
    const text = await sameAsRoute(() => form({ name: 'c.txt', content: 'c' }, { name: 'd.txt', content: 'd' }), {
      headers: { 'x-service-no-json': 'true' },
      fast: true,
    });
    assert.equal(text.headers['content-type'], 'text/plain; charset=utf-8');
    assert.match(String(text.body), /^http:\/\/[^,]+\/u\/<name>,http:\/\/[^,]+\/u\/<name>$/);
  });

  it('refusals once the body is read: the route’s errors, nothing kept', async () => {
    const count = async () =>
      Number(
        (
          await server()
            .ctx.db.selectFrom('files')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const before = await count();
    // No file part.
    let answer = await sameAsRoute(() => form({ field: 'note', name: 'x.txt', content: 'x' }), { fast: true });
    assert.equal(answer.status, 400);
    assert.equal((answer.body as { code: number }).code, 1062);
    // One file part too many.
    answer = await sameAsRoute(
      () => form(...Array.from({ length: 101 }, (_, i) => ({ name: `${i}.txt`, content: String(i) }))),
      { fast: true },
    );
    assert.equal(answer.status, 413);
    // A field named after an Object property.
    answer = await sameAsRoute(
      () => form({ field: '__proto__', name: 'p.txt', content: 'p' }, { name: 'q', content: 'q' }),
      {
        fast: true,
      },
    );
    assert.equal((answer.body as { code: number }).code, 1061);
    // A body cut off before its closing boundary.
    const boundary = 'cut-off-boundary';
    const broken = `--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="a.txt"\r\n\r\nabc`;
    answer = await sameAsRoute(() => broken, {
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      fast: true,
    });
    assert.equal((answer.body as { code: number }).code, 1061);
    // A boundary the parser cannot use.
    answer = await sameAsRoute(() => broken, {
      headers: { 'content-type': 'multipart/form-data; boundary=' },
      fast: true,
    });
    assert.equal((answer.body as { code: number }).code, 1061);
    // A disabled extension, found when its part arrives.
    const settings = await server().json('PATCH', '/api/server/settings', {
      auth: admin.token,
      body: { filesDisabledExtensions: ['exe'] },
    });
    assert.equal(settings.status, 200);
    answer = await sameAsRoute(() => form({ name: 'ok.txt', content: 'ok' }, { name: 'bad.exe', content: 'MZ' }), {
      fast: true,
    });
    assert.equal((answer.body as { code: number }).code, 1006);
    await server().json('PATCH', '/api/server/settings', { auth: admin.token, body: { filesDisabledExtensions: [] } });
    assert.equal(await count(), before, 'no refused upload kept a file');
  });

  it('leaves to the route what it refuses before the body, and callers with an upload limit', async () => {
    // A bad token, a bad option header, a body that is not multipart: the route's answers (and Fastify's).
    let answer = await sameAsRoute(() => form({ name: 'a.txt', content: 'a' }), { token: 'not-a-token', fast: false });
    assert.equal((answer.body as { code: number }).code, 2001);
    answer = await sameAsRoute(() => form({ name: 'a.txt', content: 'a' }), {
      headers: { 'x-service-max-views': 'many' },
      fast: false,
    });
    assert.equal(answer.status, 400);
    answer = await sameAsRoute(() => 'plain text', { headers: { 'content-type': 'text/plain' }, fast: false });
    assert.equal((answer.body as { code: number }).code, 1061);
    // A USER's uploads count against the upload limit, which the route keeps.
    const user = await createTestUser(server(), 'limited-uploader');
    answer = await sameAsRoute(() => form({ name: 'u.txt', content: 'u' }), { token: user.token, fast: false });
    assert.equal(answer.status, 200);
  });

  it('an anonymous upload into a public folder goes to the route', async () => {
    const before = fastAnswers();
    const res = await server().fetch('/api/upload', {
      method: 'POST',
      headers: { 'x-service-folder': 'no-such-folder' },
      body: form({ name: 'a.txt', content: 'a' }),
    });
    assert.equal(res.status, 404);
    assert.equal(fastAnswers(), before);
  });
});
