// The fuzzer of Chute's HTTP surface (issue 15, item 21), shared by the CI suite (test/fuzz/*.test.ts, a fixed seed
// and a few runs) and the longer run (npm run fuzz, scripts/fuzz.ts). Every route (from the OpenAPI document, plus the
// pages and raw routes) gets random and malformed bodies, headers (Content-Range variants, huge values, NUL and
// unicode in names), paths with bad escapes and long segments, query strings and multipart shapes, written byte for
// byte to a socket. The property: no 5xx, every 4xx of the API in the spec's error shape, the server still healthy.
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { rawRequest, type RawAnswer } from '../support/raw-http.js';

export interface FuzzTarget {
  url: string;
  /** An API token and a session cookie of a SUPERADMIN, and names that exist (a file, a folder). */
  token: string;
  cookie: string;
  fileName: string;
  fileId: string;
  folderId: string;
}

export interface Route {
  method: string;
  path: string;
}

/** Routes outside the OpenAPI document (pages, raw bytes, links). */
const PAGE_ROUTES: Route[] = [
  { method: 'GET', path: '/raw/{name}' },
  { method: 'HEAD', path: '/raw/{name}' },
  { method: 'GET', path: '/u/{name}' },
  { method: 'GET', path: '/view/{name}' },
  { method: 'POST', path: '/view/{name}' },
  { method: 'GET', path: '/go/{code}' },
  { method: 'GET', path: '/folder/{id}' },
  { method: 'POST', path: '/folder/{id}' },
  { method: 'GET', path: '/' },
  { method: 'GET', path: '/dashboard/files' },
];

/** Every route of the running server: its OpenAPI document's operations and the page routes. */
export async function routesOf(url: string): Promise<Route[]> {
  const doc = (await (await fetch(`${url}/api/openapi.json`)).json()) as { paths: Record<string, object> };
  const routes: Route[] = [];
  for (const [path, operations] of Object.entries(doc.paths)) {
    for (const method of Object.keys(operations)) {
      if (['get', 'post', 'put', 'patch', 'delete', 'head'].includes(method)) {
        routes.push({ method: method.toUpperCase(), path });
      }
    }
  }
  return [...routes, ...PAGE_ROUTES];
}

/** Routes the fuzzer leaves alone: they end the caller's own access, which would only make the rest of a run 401s. */
const SPARED = new Set(['DELETE /api/user', 'PATCH /api/user/token', 'POST /api/auth/logout', 'GET /api/auth/logout']);

/** Percent-encodes any text (lone surrogates, which encodeURIComponent refuses, are dropped). */
const enc = (s: string) => encodeURIComponent(s.replace(/\p{Cs}/gu, ''));

const text = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom('', ' ', '..', '../etc/passwd', 'a/b', 'C:x', 'NUL\u0000x', '\u202eevil', '%', '\ud800', '\udfff'),
  fc.string({ minLength: 200, maxLength: 3000 }),
);

/** A path segment as sent: valid, random, percent-encoded, bad escapes, very long. */
const segment = (valid: string[]) =>
  fc.oneof(
    fc.constantFrom(...valid),
    text.map(enc),
    fc.constantFrom('%', '%zz', '%E0%A4%A', '%00', '%ED%A0%80', '%C0%AF', '%2e%2e', '%2F', 'a%20b'),
    fc.integer({ min: 101, max: 5000 }).map((n) => 'a'.repeat(n)),
    fc.string({ unit: 'grapheme', maxLength: 20 }).map(enc),
  );

const QUERY_NAMES = [
  'page',
  'perPage',
  'sort',
  'order',
  'search',
  'searchField',
  'searchQuery',
  'filter',
  'favorite',
  'id',
  'files',
  'pw',
  'cursor',
  'tags',
  'folder',
  'download',
  'take',
  'from',
  'to',
  'all',
  'format',
  'x',
];

const query = fc
  .array(
    fc.tuple(
      fc.oneof(fc.constantFrom(...QUERY_NAMES), text.map(enc)),
      fc.oneof(
        text.map(enc),
        fc.constantFrom('%', '%zz', '%ED%A0%80', '-1', '0', '1e309', 'NaN', 'true', '[]', '{}', '9'.repeat(40)),
      ),
    ),
    { maxLength: 4 },
  )
  .map((pairs) => (pairs.length === 0 ? '' : `?${pairs.map(([k, v]) => `${k}=${v}`).join('&')}`));

/** A header value as raw bytes may carry it: latin1, huge, NUL, UTF-8 of any text. */
const headerValue = fc.oneof(
  fc.string({ maxLength: 60 }).map((s) => s.replace(/[\r\n]/g, '')),
  fc.constantFrom('', '0', '-1', 'true', 'false', '1e400', 'null', 'x\u0000y', 'bytes=0-', '\u00ff\u00fe'),
  fc.integer({ min: 1000, max: 12_000 }).map((n) => 'v'.repeat(n)),
  fc.string({ unit: 'grapheme', maxLength: 30 }).map((s) => s.replace(/[\r\n]/g, '')),
);

const contentRange = fc.oneof(
  fc
    .tuple(
      fc.integer({ min: -5, max: 1 << 30 }),
      fc.integer({ min: -5, max: 1 << 30 }),
      fc.integer({ min: -5, max: 1 << 30 }),
    )
    .map(([a, b, c]) => `bytes ${a}-${b}/${c}`),
  fc.constantFrom(
    'bytes */10',
    'bytes 0-4/*',
    'bytes 5-1/10',
    'bytes 0-0/0',
    'items 0-1/2',
    'bytes',
    'bytes 0-99999999999999999999/1',
  ),
  headerValue,
);

const X_HEADERS = [
  'x-service-format',
  'x-service-deletes-at',
  'x-service-max-views',
  'x-service-password',
  'x-service-original-name',
  'x-service-folder',
  'x-service-file-name',
  'x-service-domain',
  'x-service-no-json',
  'x-service-file-extension',
  'x-service-image-compression-percent',
  'x-service-p-content-length',
  'x-service-p-filename',
  'x-service-p-content-type',
  'x-service-p-lastchunk',
  'x-service-p-token',
  'x-zipline-format',
  'range',
  'if-none-match',
  'if-modified-since',
  'origin',
  'sec-fetch-site',
  'accept',
];

interface Body {
  contentType: string | undefined;
  bytes: Buffer;
}

const jsonBody: fc.Arbitrary<Body> = fc
  .oneof(
    fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
    fc
      .dictionary(
        fc.constantFrom(
          'name',
          'password',
          'username',
          'id',
          'files',
          'vanity',
          'destination',
          'code',
          'maxViews',
          'public',
          'parentId',
          'role',
          'quota',
          'action',
          'tags',
          'color',
          'delete',
          'favorite',
        ),
        fc.jsonValue({ maxDepth: 2 }),
      )
      .map((v) => JSON.stringify(v)),
    fc.constantFrom(
      '{',
      '{"name":"\\ud800"}',
      '{"name":"a\\udfffb"}',
      '[1,2',
      '"\\u0000"',
      'null',
      '',
      '{"__proto__":{"x":1}}',
      '{"constructor":{"prototype":{"x":1}}}',
      '1'.repeat(400),
    ),
  )
  .map((json) => ({ contentType: 'application/json', bytes: Buffer.from(json) }));

const multipartBody: fc.Arbitrary<Body> = fc
  .record({
    boundary: fc.constantFrom('abc', 'a b', '"quoted"', '', '-'.repeat(80), 'x\u0000y'),
    parts: fc.array(
      fc.record({
        name: fc.oneof(fc.constant('file'), text),
        filename: fc.option(text, { nil: undefined }),
        type: fc.option(headerValue, { nil: undefined }),
        content: fc.uint8Array({ maxLength: 2000 }),
      }),
      { maxLength: 3 },
    ),
    cutAt: fc.option(fc.nat(), { nil: undefined }),
    closing: fc.boolean(),
  })
  .map(({ boundary, parts, cutAt, closing }) => {
    const b = boundary.replace(/"/g, '');
    const chunks: Buffer[] = [];
    for (const p of parts) {
      const disposition = `form-data; name="${p.name}"${p.filename === undefined ? '' : `; filename="${p.filename}"`}`;
      chunks.push(
        Buffer.from(
          `--${b}\r\ncontent-disposition: ${disposition}\r\n${p.type === undefined ? '' : `content-type: ${p.type}\r\n`}\r\n`,
        ),
        Buffer.from(p.content),
        Buffer.from('\r\n'),
      );
    }
    if (closing) chunks.push(Buffer.from(`--${b}--\r\n`));
    let bytes = Buffer.concat(chunks);
    if (cutAt !== undefined && bytes.length > 0) bytes = bytes.subarray(0, cutAt % bytes.length);
    return { contentType: `multipart/form-data; boundary=${boundary}`, bytes };
  });

const otherBody: fc.Arbitrary<Body> = fc.record({
  contentType: fc.option(
    fc.constantFrom(
      'text/plain',
      'application/xml',
      'application/x-www-form-urlencoded',
      'application/octet-stream',
      'multipart/form-data',
      'application/json; charset=latin1',
      '',
    ),
    { nil: undefined },
  ),
  bytes: fc.uint8Array({ maxLength: 3000 }).map((a) => Buffer.from(a)),
});

const body: fc.Arbitrary<Body | undefined> = fc.oneof(
  { weight: 1, arbitrary: fc.constant(undefined) },
  { weight: 3, arbitrary: jsonBody },
  { weight: 2, arbitrary: multipartBody },
  { weight: 1, arbitrary: otherBody },
);

export interface FuzzRequest {
  route: Route;
  target: string;
  method: string;
  headers: Array<[string, string]>;
  body: Body | undefined;
}

/** One random request against the routes, authenticated (token or cookie) or not. */
export function requestArbitrary(routes: Route[], t: FuzzTarget): fc.Arbitrary<FuzzRequest> {
  const usable = routes.filter((r) => !SPARED.has(`${r.method} ${r.path}`));
  const valid = [t.fileName, t.fileId, t.folderId, 'me', '1'];
  return fc
    .record({
      route: fc.constantFrom(...usable),
      otherMethod: fc.option(fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'), {
        freq: 8,
        nil: undefined,
      }),
      params: fc.array(segment(valid), { minLength: 4, maxLength: 4 }),
      query,
      auth: fc.constantFrom<Array<'token' | 'cookie' | 'none' | 'bad'>>('token', 'token', 'cookie', 'none', 'bad'),
      contentRange: fc.option(contentRange, { freq: 3, nil: undefined }),
      extra: fc.array(fc.tuple(fc.constantFrom(...X_HEADERS), headerValue), { maxLength: 4 }),
      body,
    })
    .map(({ route, otherMethod, params, query: q, auth, contentRange: range, extra, body: b }) => {
      let i = 0;
      const path = route.path.replace(/\{[^}]+\}/g, () => params[i++ % params.length]!);
      const headers: Array<[string, string]> = [];
      if (auth === 'token') headers.push(['authorization', t.token]);
      if (auth === 'cookie') headers.push(['cookie', t.cookie], ['sec-fetch-site', 'same-origin']);
      if (auth === 'bad') headers.push(['authorization', 'not-a-token']);
      if (range !== undefined) headers.push(['content-range', range]);
      headers.push(...extra);
      return { route, target: `${path}${q}`, method: otherMethod ?? route.method, headers, body: b };
    });
}

/** The request as bytes: the head (header values written as UTF-8, as a client may) and the body. */
export function requestBytes(request: FuzzRequest): Buffer {
  const lines = [`${request.method} ${request.target} HTTP/1.1`, 'Host: 127.0.0.1', 'Connection: close'];
  for (const [name, value] of request.headers) lines.push(`${name}: ${value}`);
  if (request.body) {
    if (request.body.contentType !== undefined) lines.push(`Content-Type: ${request.body.contentType}`);
    lines.push(`Content-Length: ${request.body.bytes.length}`);
  }
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`), request.body?.bytes ?? Buffer.alloc(0)]);
}

/** The property of one answer: no 5xx; a 4xx of the API (or any JSON error) in the spec's error shape. */
export function checkAnswer(request: FuzzRequest, answer: RawAnswer): void {
  const where = `${request.method} ${request.target.slice(0, 200)}`;
  assert.ok(answer.status > 0, `${where}: no answer`);
  assert.ok(answer.status < 500, `${where}: ${answer.status} ${answer.body.slice(0, 300)}`);
  if (answer.status < 400) return;
  const isApi = request.target.startsWith('/api/') || request.target === '/api';
  const isJson = (answer.headers['content-type'] ?? '').includes('json');
  if (!isApi && !isJson) return; // a page's own HTML error page, for browsers
  assert.ok(isJson, `${where}: a ${answer.status} that is not JSON: ${answer.headers['content-type']}`);
  if (request.method === 'HEAD') return;
  const error = JSON.parse(answer.body) as { error: unknown; code: unknown; statusCode: unknown };
  assert.ok(Number.isInteger(error.code), `${where}: code ${JSON.stringify(error.code)}`);
  assert.equal(error.statusCode, answer.status, where);
  assert.ok(typeof error.error === 'string' && error.error.startsWith(`E${String(error.code)}: `), where);
}

/** Runs the property `numRuns` times with `seed`, then checks that the server still answers its health check. */
export async function fuzzServer(target: FuzzTarget, options: { seed: number; numRuns: number }): Promise<void> {
  const routes = await routesOf(target.url);
  await fc.assert(
    fc.asyncProperty(requestArbitrary(routes, target), async (request) => {
      const answer = await rawRequest(target.url, requestBytes(request), { waitMs: 10_000 });
      checkAnswer(request, answer);
    }),
    { seed: options.seed, numRuns: options.numRuns, endOnFailure: true },
  );
  const health = await fetch(`${target.url}/api/healthcheck`);
  assert.equal(health.status, 200, 'the server is still healthy');
}
