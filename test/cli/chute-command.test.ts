// The chute command as an admin runs it: bin/chute.mjs in a child process, with the configuration in its environment
// or a .env file, against a data folder and a database that a real server then opens.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { PNG_1X1 } from '../support/fixtures.js';
import { forEachDatabase, startTestServer, withSharedState, type TestServer } from '../support/server.js';

const BIN = fileURLToPath(new URL('../../bin/chute.mjs', import.meta.url));
const REDIS_URL = process.env.TEST_REDIS_URL;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `chute <args>` in `cwd` with exactly `env` (and PATH), `input` on its standard input. */
function chute(args: string[], options: { env: Record<string, string>; input?: string; cwd?: string }): Promise<Run> {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: options.cwd ?? os.tmpdir(),
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

/** A TCP port on which nothing listens (it was free a moment ago). */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The environment of a command on the shared state of a test. */
function envOf(shared: { dataDir: string; databaseUrl: string | undefined }): Record<string, string> {
  return { DATA_DIR: shared.dataDir, ...(shared.databaseUrl ? { DATABASE_URL: shared.databaseUrl } : {}) };
}

/** Starts a real server on the same state, runs `fn`, closes it (leaving the state). */
async function withServer<T>(
  engine: 'sqlite' | 'postgres',
  shared: { dataDir: string; databaseUrl: string | undefined },
  fn: (server: TestServer) => Promise<T>,
): Promise<T> {
  const server = await startTestServer({ engine, dataDir: shared.dataDir, databaseUrl: shared.databaseUrl });
  try {
    return await fn(server);
  } finally {
    await server.close();
  }
}

describe('chute --help', () => {
  it('lists the commands, and chute user --help the user commands', async () => {
    const help = await chute(['--help'], { env: {} });
    assertOk(help);
    for (const command of ['user create', 'user reset-password', 'user list', 'user set-role', 'import', 'export']) {
      assert.ok(help.stdout.includes(command), `${command} in ${help.stdout}`);
    }
    for (const command of ['doctor', 'migrate']) assert.match(help.stdout, new RegExp(`^  ${command} `, 'm'));
    const user = await chute(['user', '--help'], { env: {} });
    assertOk(user);
    for (const sub of ['create', 'reset-password', 'list', 'set-role'])
      assert.match(user.stdout, new RegExp(`^  ${sub}`, 'm'));
    const unknown = await chute(['frobnicate'], { env: {} });
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /unknown command "frobnicate"/);
  });

  it('refuses a bad configuration with the variable named', async () => {
    const run = await chute(['user', 'list'], { env: { PORT: 'eighty' } });
    assert.equal(run.code, 1);
    assert.match(run.stderr, /PORT="eighty"/);
  });
});

forEachDatabase('chute user', (engine) => {
  it('migrate, then create, list, set-role and reset-password, as a server on the same database sees them', async () => {
    await withSharedState(engine, async (shared) => {
      const env = envOf(shared);
      const early = await chute(['user', 'list'], { env });
      assert.equal(early.code, 1);
      assert.match(early.stderr, /run `chute migrate` first/);

      const migrate = await chute(['migrate'], { env });
      assertOk(migrate);
      assert.match(migrate.stdout, /^applied 0001_core$/m);
      assert.equal((await chute(['migrate'], { env })).stdout, 'the database is up to date\n');

      assertOk(
        await chute(['user', 'create', 'root', '--role', 'superadmin', '--password-stdin'], {
          env,
          input: 'root-password\n',
        }),
      );
      assertOk(await chute(['user', 'create', 'bob', '--password-stdin'], { env, input: 'bob-password\n' }));
      const taken = await chute(['user', 'create', 'BOB', '--password-stdin'], { env, input: 'another-password\n' });
      assert.equal(taken.code, 1);
      assert.match(taken.stderr, /E1040/);
      const noPassword = await chute(['user', 'create', 'carol'], { env });
      assert.equal(noPassword.code, 1);
      assert.match(noPassword.stderr, /--password-stdin/);

      assert.equal((await chute(['user', 'list'], { env })).stdout, 'root SUPERADMIN\nbob USER\n');
      assertOk(await chute(['user', 'set-role', 'bob', 'ADMIN'], { env }));
      const lastSuperadmin = await chute(['user', 'set-role', 'root', 'USER'], { env });
      assert.equal(lastSuperadmin.code, 1);
      assert.match(lastSuperadmin.stderr, /last SUPERADMIN/);
      const unknownRole = await chute(['user', 'set-role', 'bob', 'KING'], { env });
      assert.equal(unknownRole.code, 1);
      assert.match(unknownRole.stderr, /unknown role "KING"/);
      const unknownUser = await chute(['user', 'reset-password', 'nobody', '--password-stdin'], { env, input: 'x\n' });
      assert.equal(unknownUser.code, 1);
      assert.match(unknownUser.stderr, /E4009: user not found: nobody/);
      assert.equal((await chute(['user', 'list'], { env })).stdout, 'root SUPERADMIN\nbob ADMIN\n');

      let oldCookie = '';
      await withServer(engine, shared, async (server) => {
        // The SUPERADMIN made by the command ended first-time setup: nobody claims the instance any more.
        assert.deepEqual((await server.json('GET', '/api/setup')).body, { firstSetup: false });
        oldCookie = await server.login('bob', 'bob-password');
        const me = await server.json('GET', '/api/user', { auth: oldCookie });
        assert.equal(me.body.user.role, 'ADMIN');
      });
      assertOk(
        await chute(['user', 'reset-password', 'bob', '--password-stdin'], { env, input: 'new-bob-password\n' }),
      );
      await withServer(engine, shared, async (server) => {
        assert.equal((await server.json('GET', '/api/user', { auth: oldCookie })).status, 401, 'the sessions ended');
        await assert.rejects(server.login('bob', 'bob-password'));
        await server.login('bob', 'new-bob-password');
        await server.login('root', 'root-password');
      });
    });
  });
});

forEachDatabase('chute user and the password rules', (engine) => {
  it('create and reset-password refuse short and common passwords, with passwordMinLength from the environment', async () => {
    await withSharedState(engine, async (shared) => {
      const env = envOf(shared);
      assertOk(await chute(['migrate'], { env }));
      const short = await chute(['user', 'create', 'dora', '--password-stdin'], { env, input: 'abc\n' });
      assert.equal(short.code, 1);
      assert.match(short.stderr, /E1000: invalid request schema: password must be at least 8 characters long/);
      const common = await chute(['user', 'create', 'dora', '--password-stdin'], { env, input: 'Qwerty123\n' });
      assert.equal(common.code, 1);
      assert.match(common.stderr, /password is one of the 10,000 most common passwords/);
      assert.equal((await chute(['user', 'list'], { env })).stdout, '', 'no account was made');

      const unicode = 'дора 🦊 пароль';
      assertOk(await chute(['user', 'create', 'dora', '--password-stdin'], { env, input: `${unicode}\n` }));
      const resetShort = await chute(['user', 'reset-password', 'dora', '--password-stdin'], { env, input: 'short\n' });
      assert.equal(resetShort.code, 1);
      assert.match(resetShort.stderr, /at least 8 characters/);
      const resetCommon = await chute(['user', 'reset-password', 'dora', '--password-stdin'], {
        env,
        input: 'iloveyou\n',
      });
      assert.equal(resetCommon.code, 1);
      assert.match(resetCommon.stderr, /most common passwords/);
      const longer = { ...env, PASSWORD_MIN_LENGTH: '16' };
      const underSixteen = await chute(['user', 'reset-password', 'dora', '--password-stdin'], {
        env: longer,
        input: 'fifteen chars!!\n',
      });
      assert.equal(underSixteen.code, 1);
      assert.match(underSixteen.stderr, /at least 16 characters/);
      assertOk(
        await chute(['user', 'reset-password', 'dora', '--password-stdin'], {
          env: longer,
          input: 'sixteen chars!!!\n',
        }),
      );
      await withServer(engine, shared, async (server) => {
        await assert.rejects(server.login('dora', unicode));
        await server.login('dora', 'sixteen chars!!!');
      });
    });
  });
});

forEachDatabase('chute import', (engine) => {
  it('uploads every file of a folder as the user: served byte-exact, thumbnail jobs queued, refusals reported', async () => {
    await withSharedState(engine, async (shared) => {
      const env = { ...envOf(shared), FILES_MAX_FILE_SIZE: '1mb' };
      const folder = await mkdtemp(path.join(os.tmpdir(), 'chute-import-'));
      try {
        const contents: Record<string, Buffer> = {
          'notes.txt': Buffer.from('plain text, imported\n'),
          'random.bin': randomBytes(700_000),
          'picture.png': Buffer.from(PNG_1X1, 'base64'),
          'nested/deeper/data.json': Buffer.from('{"imported":true}'),
          'nested/empty.dat': Buffer.alloc(0),
        };
        for (const [name, bytes] of Object.entries(contents)) {
          await mkdir(path.dirname(path.join(folder, name)), { recursive: true });
          await writeFile(path.join(folder, name), bytes);
        }
        await writeFile(path.join(folder, '.hidden'), 'skipped');
        await writeFile(path.join(folder, 'too-large.bin'), randomBytes(1024 * 1024 + 1));

        assertOk(await chute(['migrate'], { env }));
        assertOk(
          await chute(['user', 'create', 'importer', '--password-stdin'], { env, input: 'importer-password\n' }),
        );
        const unknown = await chute(['import', folder, '--user', 'nobody'], { env });
        assert.equal(unknown.code, 1);
        assert.match(unknown.stderr, /no user named "nobody"/);
        const noFolder = await chute(['import', folder, '--user', 'importer', '--folder', 'nope'], { env });
        assert.equal(noFolder.code, 1);
        assert.match(noFolder.stderr, /E4001: folder not found: nope/);

        const run = await chute(['import', folder, '--user', 'importer', '--keep-original-name'], { env });
        // One file over the size limit: reported and skipped, so the command ends with 1.
        assert.equal(run.code, 1, run.stderr);
        assert.match(run.stderr, /^\[\d\/6\] too-large\.bin: not imported: E5001/m);
        assert.match(run.stderr, /^imported 5 of 6 file\(s\)$/m);
        for (const name of Object.keys(contents))
          assert.match(run.stderr, new RegExp(`^\\[\\d/6\\] ${name} -> http`, 'm'));

        await withServer(engine, shared, async (server) => {
          const token = await server.login('importer', 'importer-password');
          const list = await server.json('GET', '/api/user/files?perpage=100', { auth: token });
          assert.equal(list.status, 200);
          const files = list.body.page as Array<{ name: string; originalName: string; size: number }>;
          assert.equal(files.length, 5);
          for (const [name, bytes] of Object.entries(contents)) {
            const file = files.find((f) => f.originalName === path.basename(name));
            assert.ok(file, `${name} was imported`);
            const raw = await server.fetch(`/raw/${encodeURIComponent(file.name)}`);
            assert.equal(raw.status, 200);
            assert.deepEqual(Buffer.from(await raw.arrayBuffer()), bytes, `${name} is served byte-exact`);
          }
          // The usage counters and the thumbnail queue saw the imports as uploads.
          const usage = await server.json('GET', '/api/user/stats', { auth: token });
          assert.equal(usage.body.filesUploaded, 5);
          const jobs = await server.ctx.db.selectFrom('jobs').select('kind').execute();
          assert.ok(
            jobs.some((j) => j.kind === 'thumbnail'),
            'the picture has its thumbnail job',
          );
          const pending = await server.ctx.db.selectFrom('pending_objects').selectAll().execute();
          assert.deepEqual(pending, []);
        });
      } finally {
        await rm(folder, { recursive: true, force: true });
      }
    });
  });
});

forEachDatabase('chute export', (engine) => {
  it('writes the records as JSON (the server export, Zipline v4 format), to standard output or a file', async () => {
    await withSharedState(engine, async (shared) => {
      const env = envOf(shared);
      assertOk(await chute(['migrate'], { env }));
      assertOk(await chute(['user', 'create', 'exporter', '--password-stdin'], { env, input: 'exporter-password\n' }));
      const folder = await mkdtemp(path.join(os.tmpdir(), 'chute-export-'));
      try {
        await writeFile(path.join(folder, 'one.txt'), 'one');
        await writeFile(path.join(folder, 'two.txt'), 'two');
        assertOk(await chute(['import', folder, '--user', 'exporter'], { env }));
        const out = await chute(['export'], { env });
        assertOk(out);
        const doc = JSON.parse(out.stdout);
        assert.equal(doc.versions.export, '4');
        assert.deepEqual(
          doc.data.users.map((u: any) => [u.username, u.role]),
          [['exporter', 'USER']],
        );
        assert.equal(doc.data.files.length, 2);
        assert.deepEqual(doc.data.files.map((f: any) => f.size).sort(), [3, 3]);
        assert.ok(!out.stdout.includes('token_hash'), 'API tokens are not exported');
        const file = path.join(folder, 'export.json');
        const toFile = await chute(['export', '--output', file], { env });
        assertOk(toFile);
        assert.match(toFile.stderr, /wrote .*export\.json: .*2 files/);
        const written = JSON.parse(await readFile(file, 'utf8'));
        assert.deepEqual(written.data, doc.data);
      } finally {
        await rm(folder, { recursive: true, force: true });
      }
    });
  });
});

forEachDatabase('chute doctor', (engine) => {
  it('checks a working installation, configured in a .env file, and exits 0', async () => {
    await withSharedState(engine, async (shared) => {
      const cwd = await mkdtemp(path.join(os.tmpdir(), 'chute-doctor-'));
      try {
        const lines = Object.entries({ ...envOf(shared), ...(REDIS_URL ? { REDIS_URL } : {}) }).map(
          ([k, v]) => `${k}=${v}`,
        );
        await writeFile(path.join(cwd, '.env'), `${lines.join('\n')}\n`);
        const run = await chute(['doctor'], { env: {}, cwd });
        if (engine === 'sqlite') {
          // Never started: no database file, and doctor does not make one.
          assert.equal(run.code, 1, run.stdout);
          assert.match(run.stdout, /^FAIL {2}database: there is no database at .*chute\.db: nothing was created$/m);
          assert.match(run.stdout, /^nothing is set up in .* yet: /m);
        } else {
          assertOk(run);
          assert.match(run.stdout, /^ok {4}database: /m);
          // Never started: the schema is behind, which the next start fixes (a warning, not a failure).
          assert.match(run.stdout, /^warn {2}schema: \d+ migration\(s\) to run/m);
          assert.match(run.stdout, /everything Chute needs works/);
        }
        assert.match(run.stdout, /^warn {2}storage: folder .*: not checked: .* not exist yet/m);
        assert.match(run.stdout, /^warn {2}secret: no secret in /m);
        if (REDIS_URL) assert.match(run.stdout, /^ok {4}redis: Redis at .* answers \(PONG\)$/m);
        assert.deepEqual(await readdir(shared.dataDir), [], 'doctor created nothing in the data folder');
        assertOk(await chute(['migrate'], { env: {}, cwd }));
        const migrated = await chute(['doctor'], { env: {}, cwd });
        assertOk(migrated);
        assert.match(migrated.stdout, /^ok {4}schema: up to date$/m);
        assert.match(migrated.stdout, /^ok {4}counters: the usage counters match a fresh count$/m);
        assert.match(migrated.stdout, /everything Chute needs works/);

        // A counter changed by hand: a warning, and --fix-counters recounts it.
        await withServer(engine, shared, (server) =>
          server.ctx.db.updateTable('usage_counters').set({ files: 99 }).execute(),
        );
        const drifted = await chute(['doctor'], { env: {}, cwd });
        assertOk(drifted);
        // The server made the storage's folders: now the probe runs.
        assert.match(drifted.stdout, /^ok {4}storage: folder .*: wrote, read and deleted a probe object$/m);
        assert.match(drifted.stdout, /^warn {2}counters: \d+ usage counter\(s\) differ from a fresh count/m);
        assert.match(
          (await chute(['doctor', '--fix-counters'], { env: {}, cwd })).stdout,
          /^ok {4}counters: .*recounted$/m,
        );
        assert.match((await chute(['doctor'], { env: {}, cwd })).stdout, /^ok {4}counters: the usage counters match/m);

        // Another uploads folder than the one the database's instances use: doctor says so, import refuses.
        const elsewhere = { UPLOADS_DIR: path.join(cwd, 'elsewhere') };
        await mkdir(elsewhere.UPLOADS_DIR);
        const unshared = await chute(['doctor'], { env: elsewhere, cwd });
        assert.equal(unshared.code, 1);
        assert.match(
          unshared.stdout,
          /^FAIL {2}shared storage: this instance's uploads folder \(UPLOADS_DIR\) is not the storage/m,
        );
        assertOk(
          await chute(['user', 'create', 'someone', '--password-stdin'], { env: {}, cwd, input: 'someone-password\n' }),
        );
        const refused = await chute(['import', cwd, '--user', 'someone'], { env: elsewhere, cwd });
        assert.equal(refused.code, 1);
        assert.match(refused.stderr, /is not the storage the other instances of this database use/);
      } finally {
        await rm(cwd, { recursive: true, force: true });
      }
    });
  });
});

describe('chute doctor on broken parts', () => {
  it('names a database on a closed port and a Redis on a closed port, and exits 1', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'chute-doctor-'));
    try {
      const port = await closedPort();
      const run = await chute(['doctor'], {
        env: {
          DATA_DIR: dataDir,
          DATABASE_URL: `postgres://chute:secret@127.0.0.1:${port}/chute`,
          REDIS_URL: `redis://127.0.0.1:${port}`,
        },
      });
      assert.equal(run.code, 1, run.stdout + run.stderr);
      assert.match(
        run.stdout,
        new RegExp(
          `^FAIL {2}database: nothing listens at PostgreSQL at 127\\.0\\.0\\.1:${port} \\(connection refused\\)$`,
          'm',
        ),
      );
      assert.match(
        run.stdout,
        new RegExp(
          `^FAIL {2}redis: nothing listens at Redis at 127\\.0\\.0\\.1:${port} \\(connection refused\\)$`,
          'm',
        ),
      );
      assert.ok(!run.stdout.includes('secret@'), 'the password is not printed');
      assert.match(run.stdout, /^2 problem\(s\) to fix before Chute can run$/m);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('names a storage folder it cannot write', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'chute-doctor-'));
    try {
      const blocked = path.join(dataDir, 'not-a-folder');
      await writeFile(blocked, 'a file where the uploads folder should be');
      // A data folder a server has used: its temp folder exists (doctor checks storage only then).
      await mkdir(path.join(dataDir, 'tmp'));
      const run = await chute(['doctor'], { env: { DATA_DIR: dataDir, UPLOADS_DIR: blocked } });
      assert.equal(run.code, 1);
      assert.match(run.stdout, /^FAIL {2}storage: /m);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
