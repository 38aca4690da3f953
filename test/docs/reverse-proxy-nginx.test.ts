// The nginx configuration of docs/operations.md, run by a real nginx in front of a real Chute (only the ports, the
// certificate and Chute's address changed) and asked with curl: over HTTPS every answer carries
// Strict-Transport-Security, errors included, while the plain-HTTP server only redirects to HTTPS (a browser ignores
// HSTS sent over HTTP); and with the doc's TRUST_PROXY and its https:// PUBLIC_URL, Chute's links are https:// and the
// session cookie is Secure. Without nginx the test is skipped with a notice (failing under CI=true).
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { freePort } from '../support/cluster.js';
import { useTestServer } from '../support/server.js';

const run = promisify(execFile);
const NGINX = ['/usr/sbin/nginx', '/usr/bin/nginx'].find((p) => existsSync(p));
const HOST = 'files.example.com';

/** The first ```nginx block of the doc's "Behind a reverse proxy" section. */
async function documentedNginxConfig(): Promise<string> {
  const doc = await readFile(new URL('../../docs/operations.md', import.meta.url), 'utf8');
  const section = doc.slice(doc.indexOf('## Behind a reverse proxy'));
  const block = /```nginx\n([\s\S]*?)```/.exec(section);
  assert.ok(block, 'docs/operations.md has no nginx block under "Behind a reverse proxy"');
  return block[1]!;
}

/** Replaces one line the test must change; fails when the doc no longer has it (then this test must follow). */
function replaceOnce(text: string, from: RegExp, to: string): string {
  assert.equal(text.match(new RegExp(from.source, 'g'))?.length, 1, `expected one ${from} in the doc's nginx block`);
  return text.replace(from, to);
}

interface CurlAnswer {
  status: number;
  headers: Map<string, string[]>;
  body: string;
}

/** One request with curl, the host resolved to loopback (as DNS would send it to the proxy). */
async function curl(
  port: number,
  scheme: 'http' | 'https',
  pathname: string,
  args: string[] = [],
): Promise<CurlAnswer> {
  const { stdout } = await run('curl', [
    '-sS',
    '--insecure', // the test's own self-signed certificate
    '--resolve',
    `${HOST}:${port}:127.0.0.1`,
    '-D',
    '-',
    ...args,
    `${scheme}://${HOST}:${port}${pathname}`,
  ]);
  const end = stdout.indexOf('\r\n\r\n');
  const [statusLine, ...lines] = stdout.slice(0, end).split('\r\n');
  const headers = new Map<string, string[]>();
  for (const line of lines) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).trim().toLowerCase();
    headers.set(name, [...(headers.get(name) ?? []), line.slice(colon + 1).trim()]);
  }
  return { status: Number(statusLine!.split(' ')[1]), headers, body: stdout.slice(end + 4) };
}

const MISSING = NGINX === undefined ? 'nginx is missing (apt-get install nginx)' : null;
if (MISSING && process.env.CI === 'true') throw new Error(`the nginx test cannot run: ${MISSING}`);
if (MISSING) console.log(`# NOTICE: nginx test SKIPPED: ${MISSING}`);

describe('docs/operations.md: the nginx configuration in front of Chute', { skip: MISSING ?? false }, () => {
  const server = useTestServer({
    engine: 'sqlite',
    env: { TRUST_PROXY: '127.0.0.1', PUBLIC_URL: `https://${HOST}` },
  });
  let root: string;
  let nginx: ChildProcess | undefined;
  let nginxLog = '';
  let tlsPort: number;
  let plainPort: number;

  before(async () => {
    assert.ok(NGINX, MISSING ?? undefined);
    root = await mkdtemp(path.join(os.tmpdir(), 'chute-nginx-'));
    await run('openssl', [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      `/CN=${HOST}`,
      '-keyout',
      path.join(root, 'key.pem'),
      '-out',
      path.join(root, 'cert.pem'),
    ]);
    tlsPort = await freePort();
    plainPort = await freePort();
    const chute = new URL(server().url);
    let site = await documentedNginxConfig();
    site = replaceOnce(site, /listen 443 ssl http2;/, `listen 127.0.0.1:${tlsPort} ssl http2;`);
    site = replaceOnce(site, /listen 80;/, `listen 127.0.0.1:${plainPort};`);
    site = replaceOnce(site, /ssl_certificate\s+\S+;/, `ssl_certificate ${path.join(root, 'cert.pem')};`);
    site = replaceOnce(site, /ssl_certificate_key\s+\S+;/, `ssl_certificate_key ${path.join(root, 'key.pem')};`);
    site = replaceOnce(site, /proxy_pass http:\/\/127\.0\.0\.1:3000;/, `proxy_pass http://${chute.host};`);
    // The packaged defaults (temp folders under /var/lib/nginx, logs under /var/log/nginx) moved into the test's own.
    await mkdir(path.join(root, 'temp'));
    const temp = (name: string) => `${name}_temp_path ${path.join(root, 'temp', name)};`;
    const conf = [
      'daemon off;',
      'worker_processes 1;',
      ...(process.getuid?.() === 0 ? ['user root;'] : []),
      `pid ${path.join(root, 'nginx.pid')};`,
      `error_log ${path.join(root, 'error.log')} warn;`,
      'events { worker_connections 64; }',
      'http {',
      'access_log off;',
      ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(temp),
      site,
      '}',
    ].join('\n');
    await writeFile(path.join(root, 'nginx.conf'), conf);
    nginx = spawn(NGINX, ['-p', root, '-c', path.join(root, 'nginx.conf'), '-e', path.join(root, 'error.log')], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    nginx.stderr!.on('data', (chunk: Buffer) => (nginxLog += chunk.toString('utf8')));
    // Ready once it answers over HTTPS.
    for (let attempt = 0; ; attempt++) {
      if (nginx.exitCode !== null) throw new Error(`nginx exited: ${nginxLog}`);
      try {
        if ((await curl(tlsPort, 'https', '/api/healthcheck')).status === 200) break;
      } catch {
        // not listening yet
      }
      if (attempt > 200) throw new Error(`nginx did not come up: ${nginxLog}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  });

  after(async () => {
    if (nginx && nginx.exitCode === null && nginx.signalCode === null) {
      const exited = new Promise((resolve) => nginx!.once('exit', resolve));
      nginx.kill('SIGTERM');
      await exited;
    }
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('sends Strict-Transport-Security with every HTTPS answer, errors included', async () => {
    for (const [pathname, status] of [
      ['/api/healthcheck', 200],
      ['/api/user', 401],
      ['/raw/no-such-file.txt', 404],
    ] as const) {
      const res = await curl(tlsPort, 'https', pathname);
      assert.equal(res.status, status, pathname);
      const hsts = res.headers.get('strict-transport-security') ?? [];
      assert.equal(hsts.length, 1, `${pathname}: one Strict-Transport-Security, got ${JSON.stringify(hsts)}`);
      assert.match(hsts[0]!, /^max-age=(\d+)/, pathname);
      assert.ok(Number(/max-age=(\d+)/.exec(hsts[0]!)![1]) >= 15_552_000, `${pathname}: max-age of at least 180 days`);
    }
  });

  it('plain HTTP only redirects to HTTPS, without HSTS (browsers ignore it there)', async () => {
    const res = await curl(plainPort, 'http', '/u/some-file.png?x=1');
    assert.equal(res.status, 301);
    assert.deepEqual(res.headers.get('location'), [`https://${HOST}/u/some-file.png?x=1`]);
    assert.equal(res.headers.get('strict-transport-security'), undefined);
  });

  it("with the doc's TRUST_PROXY and https:// PUBLIC_URL: https links and a Secure session cookie", async () => {
    const owner = await server().setup();
    const login = await curl(tlsPort, 'https', '/api/auth/login', [
      '-H',
      'content-type: application/json',
      '--data',
      JSON.stringify({ username: owner.username, password: owner.password }),
    ]);
    assert.equal(login.status, 200, login.body);
    const cookie = (login.headers.get('set-cookie') ?? []).find((c) => c.startsWith('chute_session='));
    assert.ok(cookie, JSON.stringify([...login.headers]));
    assert.match(cookie, /;\s*Secure/i);
    const shortened = await curl(tlsPort, 'https', '/api/user/urls', [
      '-H',
      `authorization: ${owner.token}`,
      '-H',
      'content-type: application/json',
      '--data',
      JSON.stringify({ destination: 'https://example.com/behind-nginx' }),
    ]);
    assert.equal(shortened.status, 200, shortened.body);
    assert.match((JSON.parse(shortened.body) as { url: string }).url, new RegExp(`^https://${HOST}/go/`));
  });
});
