// The server's side of the dashboard: index.html for every dashboard page (no cache, strict CSP), hashed assets with
// a year-long cache in the best encoding the client takes, unknown assets in the API's error shape, and a page that
// says how to build the dashboard when it is not built.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { useTestServer } from '../support/server.js';

const INDEX =
  '<!doctype html><html><head><script type="module" src="/assets/app-1234.js"></script></head><body></body></html>';
const SCRIPT = `console.log(${JSON.stringify('chute '.repeat(4000))});\n`;

describe('dashboard serving', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'chute-dashboard-'));
    await mkdir(path.join(dir, 'assets'));
    await writeFile(path.join(dir, 'index.html'), INDEX);
    await writeFile(path.join(dir, 'assets', 'app-1234.js'), SCRIPT);
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  const server = useTestServer(() => ({ engine: 'sqlite', env: { DASHBOARD_DIR: dir } }));

  it('sends / to the dashboard and index.html for every dashboard and sign-in page, never cached', async () => {
    const root = await server().fetch('/');
    assert.equal(root.status, 302);
    assert.equal(root.headers.get('location'), '/dashboard');
    for (const page of ['/dashboard', '/dashboard/files', '/dashboard/admin/users', '/auth/login', '/auth/setup']) {
      const res = await server().fetch(page);
      assert.equal(res.status, 200, page);
      assert.equal(await res.text(), INDEX);
      assert.equal(res.headers.get('cache-control'), 'no-cache');
      assert.match(res.headers.get('content-security-policy') ?? '', /script-src 'self'(;|$)/);
      assert.equal(res.headers.get('x-frame-options'), 'DENY');
    }
  });

  it('serves assets immutable, brotli or gzip when accepted, plain otherwise', async () => {
    const get = (encoding: string) =>
      server().fetch('/assets/app-1234.js', { headers: { 'accept-encoding': encoding } });
    const br = await get('gzip, deflate, br');
    assert.equal(br.headers.get('content-encoding'), 'br');
    assert.equal(br.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    assert.match(br.headers.get('content-type') ?? '', /^text\/javascript/);
    // fetch() would decode on its own; read the raw bytes through a second request without decoding.
    const raw = async (encoding: string) => {
      const { request } = await import('node:http');
      const url = new URL(`${server().url}/assets/app-1234.js`);
      return new Promise<Buffer>((resolve, reject) => {
        request(
          { host: url.hostname, port: url.port, path: url.pathname, headers: { 'accept-encoding': encoding } },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () => resolve(Buffer.concat(chunks)));
            res.on('error', reject);
          },
        ).end();
      });
    };
    assert.equal(brotliDecompressSync(await raw('br')).toString(), SCRIPT);
    assert.equal(gunzipSync(await raw('gzip')).toString(), SCRIPT);
    assert.ok((await raw('br')).length < SCRIPT.length / 10, 'compressed');
    assert.equal((await raw('identity')).toString(), SCRIPT);
    await br.arrayBuffer();
  });

  it('answers an unknown asset 404 in the API error shape', async () => {
    const res = await server().fetch('/assets/nope.js');
    assert.equal(res.status, 404);
    const body = (await res.json()) as { code: number; statusCode: number };
    assert.equal(body.code, 9002);
    assert.equal(body.statusCode, 404);
  });
});

describe('dashboard not built', () => {
  const server = useTestServer({
    engine: 'sqlite',
    env: { DASHBOARD_DIR: path.join(os.tmpdir(), 'chute-no-such-dashboard') },
  });

  it('says how to build it instead of failing, while the API works', async () => {
    const res = await server().fetch('/dashboard');
    assert.equal(res.status, 200);
    assert.match(await res.text(), /npm run build/);
    assert.equal((await server().fetch('/api/healthcheck')).status, 200);
  });
});
