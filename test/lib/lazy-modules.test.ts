// Libraries that only some requests need (src/lib/lazy-modules.ts) are not loaded by a server that has not served such
// a request: started as admins start it, serving its pages and uploads, it has not loaded sharp, the passkey and
// OpenID libraries or Redis's client; the first request that needs one loads it, and it works.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, it } from 'node:test';
import { killChuteProcess, startChuteProcess, type ChuteProcess } from '../support/chute-process.js';

const HOOK = new URL('./fixtures/record-packages.mjs', import.meta.url).href;
const LAZY = ['sharp', '@simplewebauthn/server', 'openid-client', 'ioredis'];

let dir: string;
let chute: ChuteProcess | undefined;
before(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'chute-lazy-'));
});
after(async () => {
  await killChuteProcess(chute);
  await rm(dir, { recursive: true, force: true });
});

async function loaded(): Promise<Set<string>> {
  return new Set((await readFile(path.join(dir, 'packages.txt'), 'utf8')).split('\n').filter(Boolean));
}

it('a server that served no image, passkey or OpenID request has not loaded their libraries; the first one does', async () => {
  chute = await startChuteProcess({
    dataDir: path.join(dir, 'data'),
    env: { RECORD_PACKAGES_TO: path.join(dir, 'packages.txt') },
    imports: [HOOK],
  });
  const setup = await fetch(`${chute.url}/api/setup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'lazy', password: 'lazy-password-1' }),
  });
  assert.equal(setup.status, 200);
  const cookie = setup.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  const form = new FormData();
  form.append('file', new Blob(['plain text']), 'a.txt');
  const up = await fetch(`${chute.url}/api/upload`, { method: 'POST', headers: { cookie }, body: form });
  assert.equal(up.status, 200);
  assert.equal((await fetch(`${chute.url}/dashboard`)).status, 200);
  const before = await loaded();
  assert.ok(before.has('fastify'), 'the hook records what the server loads');
  for (const name of LAZY) assert.equal(before.has(name), false, `${name} is loaded before it is needed`);

  const icon = await fetch(`${chute.url}/favicon.ico`);
  assert.equal(icon.status, 200);
  assert.ok((await icon.arrayBuffer()).byteLength > 0);
  const options = await fetch(`${chute.url}/api/user/mfa/passkey/options`, { headers: { cookie } });
  assert.equal(options.status, 200);
  assert.equal(typeof ((await options.json()) as { challenge?: unknown }).challenge, 'string');
  const after = await loaded();
  assert.ok(after.has('sharp'), 'the favicon loaded sharp');
  assert.ok(after.has('@simplewebauthn/server'), 'the passkey options loaded the passkey library');
});
