// DATA_DIR is the service account's alone, whoever touches it: `chute doctor` creates nothing, every `chute` command
// creates its files 0600 and its folders 0700 under any umask, and a server started on a folder others can read makes
// it private and says so in its log. Real commands (bin/chute.mjs) and a real server (src/main.ts) in child processes.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readdir, realpath, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { killChuteProcess, startChuteProcess, type ChuteProcess } from '../support/chute-process.js';
import { forEachDatabase, withSharedState } from '../support/server.js';

const BIN = fileURLToPath(new URL('../../bin/chute.mjs', import.meta.url));

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `chute <args>` under umask 000 (only Chute's own modes keep anything private), in `cwd`, with exactly `env`. */
function chute(args: string[], options: { env: Record<string, string>; cwd: string; input?: string }): Promise<Run> {
  const child = spawn('sh', ['-c', 'umask 000 && exec "$0" "$@"', process.execPath, BIN, ...args], {
    cwd: options.cwd,
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  child.stdin.end(options.input ?? '');
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

function assertOk(run: Run): void {
  assert.equal(run.code, 0, `exit ${run.code}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`);
}

async function modeOf(file: string): Promise<string> {
  return ((await stat(file)).mode & 0o777).toString(8);
}

/** Every entry under `dir` (and `dir`) that is not 0600 (files) or 0700 (folders), as "path mode". */
async function notPrivate(dir: string): Promise<string[]> {
  const wrong: string[] = [];
  if ((await modeOf(dir)) !== '700') wrong.push(`${dir} ${await modeOf(dir)}`);
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    const full = path.join(entry.parentPath, entry.name);
    const mode = await modeOf(full).catch(() => null); // a temp file gone meanwhile
    if (mode !== null && mode !== (entry.isDirectory() ? '700' : '600')) wrong.push(`${full} ${mode}`);
  }
  return wrong;
}

forEachDatabase('chute doctor without a data folder', (engine) => {
  it('says where it looked and that nothing is there, exits 1 and creates nothing', async () => {
    await withSharedState(engine, async (shared) => {
      const cwd = await mkdtemp(path.join(os.tmpdir(), 'chute-doctor-cwd-'));
      try {
        // No DATA_DIR: the default ./data of the current folder, which does not exist.
        const env = shared.databaseUrl ? { DATABASE_URL: shared.databaseUrl } : ({} as Record<string, string>);
        const run = await chute(['doctor'], { env, cwd });
        assert.equal(run.code, 1, run.stdout + run.stderr);
        const dataDir = path.join(await realpath(cwd), 'data');
        assert.match(
          run.stdout,
          new RegExp(`^FAIL {2}data folder: there is no data folder at ${escape(dataDir)} \\(DATA_DIR is not set`, 'm'),
        );
        if (engine === 'sqlite') {
          assert.match(
            run.stdout,
            new RegExp(`^FAIL {2}database: there is no database at ${escape(dataDir)}/chute\\.db`, 'm'),
          );
        } else {
          assert.match(run.stdout, /^ok {4}database: PostgreSQL at .* answers$/m);
        }
        assert.match(run.stdout, new RegExp(`^nothing is set up in ${escape(dataDir)} yet: `, 'm'));
        assert.doesNotMatch(run.stdout, /everything Chute needs works/);
        assert.deepEqual(await readdir(cwd), [], 'nothing was created in the current folder');
      } finally {
        await rm(cwd, { recursive: true, force: true });
      }
    });
  });
});

forEachDatabase('DATA_DIR modes', (engine) => {
  it('commands create it private under umask 000; a server makes an opened-up folder private again and logs it', async () => {
    await withSharedState(engine, async (shared) => {
      const cwd = await mkdtemp(path.join(os.tmpdir(), 'chute-modes-cwd-'));
      const dataDir = path.join(shared.dataDir, 'nested', 'data');
      const env = { DATA_DIR: dataDir, ...(shared.databaseUrl ? { DATABASE_URL: shared.databaseUrl } : {}) };
      let server: ChuteProcess | undefined;
      try {
        assertOk(await chute(['migrate'], { env, cwd }));
        assertOk(await chute(['user', 'create', 'owner', '--password-stdin'], { env, cwd, input: 'owner-password\n' }));
        const folder = path.join(cwd, 'to-import');
        await mkdir(folder);
        await writeFile(path.join(folder, 'a.txt'), 'private bytes');
        assertOk(await chute(['import', folder, '--user', 'owner'], { env, cwd }));
        const exportFile = path.join(cwd, 'export.json');
        assertOk(await chute(['export', '--output', exportFile], { env, cwd }));

        const expected = ['secret', 'instance-id', 'uploads', 'tmp', ...(engine === 'sqlite' ? ['chute.db'] : [])];
        const names = await readdir(dataDir);
        for (const name of expected) assert.ok(names.includes(name), `${name} in ${names.join(', ')}`);
        assert.deepEqual(await notPrivate(dataDir), []);
        assert.equal(await modeOf(path.join(shared.dataDir, 'nested')), '700', 'the parents it made too');
        assert.equal(await modeOf(exportFile), '600', 'the export holds password hashes');

        // Someone opens it up (a copy, a restore, an earlier version's doctor): doctor reports it, changing nothing.
        const opened = ['.', 'secret', 'uploads', ...(engine === 'sqlite' ? ['chute.db'] : [])];
        for (const name of opened) {
          const full = path.join(dataDir, name);
          await chmod(full, (await stat(full)).isDirectory() ? 0o755 : 0o644);
        }
        const doctor = await chute(['doctor'], { env, cwd });
        assert.match(
          doctor.stdout,
          /^warn {2}data folder: .*: open to other accounts: \. \(0755\), .*secret \(0644\)/m,
        );
        assert.equal(await modeOf(path.join(dataDir, 'secret')), '644', 'doctor changed nothing');

        server = await startChuteProcess({ dataDir, databaseUrl: shared.databaseUrl });
        for (const name of opened) {
          assert.match(
            server.log(),
            new RegExp(
              `"level":40.*${escape(path.join(dataDir, name).replace(/\/\.$/, ''))} was open to other accounts`,
            ),
            name,
          );
        }
        const setup = await fetch(`${server.url}/api/setup`);
        assert.equal(setup.status, 200);
        // While it runs: SQLite's -wal and -shm exist, with the database file's mode.
        if (engine === 'sqlite') {
          const running = await readdir(dataDir);
          assert.ok(running.includes('chute.db-wal') && running.includes('chute.db-shm'), running.join(', '));
        }
        assert.deepEqual(await notPrivate(dataDir), []);
      } finally {
        await killChuteProcess(server);
        await rm(cwd, { recursive: true, force: true });
      }
    });
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
