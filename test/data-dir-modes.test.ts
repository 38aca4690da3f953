// The real entry point (src/main.ts, as `npm start` runs it) creates DATA_DIR private to its account: the database,
// uploads, the secret 0600 and their folders 0700, whatever the umask it was started with allowed.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { it } from 'node:test';

async function modeOf(file: string): Promise<string> {
  return ((await stat(file)).mode & 0o777).toString(8);
}

it('DATA_DIR: files 0600, folders 0700, with a permissive umask', async () => {
  const root = await mkdtemp(path.join(os.tmpdir(), 'chute-modes-'));
  const dataDir = path.join(root, 'data');
  // Started with umask 000: only Chute's own tightening keeps what it creates private.
  const child = spawn('sh', ['-c', 'umask 000 && exec "$0" --import tsx src/main.ts', process.execPath], {
    env: { ...process.env, DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', DATABASE_URL: '' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let seen = '';
      child.stdout.on('data', (chunk: Buffer) => {
        seen += chunk.toString('utf8');
        const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(seen);
        if (match) resolve(match[1]!);
      });
      child.once('exit', (code) => reject(new Error(`chute exited with ${code}: ${seen}`)));
    });
    const setup = await fetch(`${url}/api/setup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'root', password: 'root-password' }),
    });
    assert.equal(setup.status, 200);
    const cookie = setup.headers.getSetCookie()[0]!.split(';')[0]!;
    const token = ((await (await fetch(`${url}/api/user`, { headers: { cookie } })).json()) as { token: string }).token;
    const form = new FormData();
    form.append('file', new Blob(['private bytes'], { type: 'text/plain' }), 'a.txt');
    const uploaded = await fetch(`${url}/api/upload`, {
      method: 'POST',
      headers: { authorization: token },
      body: form,
    });
    assert.equal(uploaded.status, 200);

    assert.equal(await modeOf(dataDir), '700');
    assert.equal(await modeOf(path.join(dataDir, 'chute.db')), '600');
    assert.equal(await modeOf(path.join(dataDir, 'secret')), '600');
    const uploads = path.join(dataDir, 'uploads');
    assert.equal(await modeOf(uploads), '700');
    const entries = await readdir(uploads, { recursive: true, withFileTypes: true });
    assert.ok(entries.some((e) => e.isFile()));
    for (const entry of entries) {
      const full = path.join(entry.parentPath, entry.name);
      assert.equal(await modeOf(full), entry.isDirectory() ? '700' : '600', full);
    }
    for (const name of await readdir(dataDir)) {
      const full = path.join(dataDir, name);
      const isDir = (await stat(full)).isDirectory();
      assert.equal(await modeOf(full), isDir ? '700' : '600', full);
    }
  } finally {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    await rm(root, { recursive: true, force: true });
  }
});
