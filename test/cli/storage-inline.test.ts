// chute storage inline --out | --in (src/cli/commands/storage.ts, services/files/inline-storage.ts): bin/chute.mjs in
// a child process, moving small files' bytes between the database and the uploads folder while a real server on the
// same data serves them, killed mid-way and run again.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { isDatabaseKey } from '../../src/storage/database-objects.js';
import { openFileBytes } from '../../src/services/serving/files.js';
import { setThumbnailKey } from '../../src/services/files/records.js';
import { thumbnailKeyOf } from '../../src/services/media/thumbnail-names.js';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { describeS3, s3Client, s3Gateway } from '../support/s3.js';
import { forEachDatabase, startTestServer, withSharedState, type TestServer } from '../support/server.js';
import { uploadOne } from '../support/uploads.js';

const BIN = fileURLToPath(new URL('../../bin/chute.mjs', import.meta.url));

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

function chute(args: string[], env: Record<string, string>): Promise<Run> {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: os.tmpdir(),
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  return new Promise((resolve) => child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
}

function assertOk(run: Run): void {
  assert.equal(run.code, 0, `exit ${run.code} ${run.signal}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`);
}

type Shared = { dataDir: string; databaseUrl: string | undefined };

const envOf = (shared: Shared): Record<string, string> => ({
  DATA_DIR: shared.dataDir,
  ...(shared.databaseUrl ? { DATABASE_URL: shared.databaseUrl } : {}),
});

interface Uploaded {
  id: string;
  name: string;
  bytes: Buffer;
}

/** Uploads `count` small files (kept in the database: their requests are under UPLOADS_INLINE_MAX), one empty. */
async function uploadSmall(server: TestServer, token: string, count: number): Promise<Uploaded[]> {
  const files: Uploaded[] = [];
  for (let i = 0; i < count; i++) {
    const bytes = i === 0 ? Buffer.alloc(0) : randomBytes(100 + i * 97);
    const file = await uploadOne(server, token, bytes, { name: `small-${i}.bin` });
    files.push({ id: file.id, name: file.name, bytes });
  }
  return files;
}

/** The rows of the records' storage, and of the tables the move writes. */
async function storageState(server: TestServer) {
  const files = await server.ctx.db.selectFrom('files').select(['id', 'storage_key', 'thumbnail_key']).execute();
  const objects = await server.ctx.db.selectFrom('database_objects').select('storage_key').execute();
  const pending = await server.ctx.db.selectFrom('pending_objects').select('storage_key').execute();
  return {
    files: new Map(files.map((f) => [f.id, f])),
    objects: objects.map((o) => o.storage_key).sort(),
    pending: pending.map((p) => p.storage_key),
  };
}

/** Every object in the uploads folder but the storage marker. */
async function uploadsFolder(dataDir: string): Promise<string[]> {
  const root = path.join(dataDir, 'uploads');
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => path.relative(root, path.join(e.parentPath, e.name)).split(path.sep).join('/'))
    .filter((key) => !key.startsWith('.chute-storage/') && !key.startsWith('.chute-tmp/'))
    .sort();
}

/** What the uploads folder should hold: the keys (and thumbnails) of the records kept there, nothing else. */
function expectedFolder(state: Awaited<ReturnType<typeof storageState>>): string[] {
  const keys: string[] = [];
  for (const f of state.files.values()) {
    if (!isDatabaseKey(f.storage_key)) keys.push(f.storage_key);
    if (f.thumbnail_key !== null) keys.push(f.thumbnail_key);
  }
  return keys.sort();
}

async function assertServed(server: TestServer, file: Uploaded): Promise<void> {
  const raw = await server.fetch(`/raw/${encodeURIComponent(file.name)}`);
  assert.equal(raw.status, 200, `${file.name}: ${raw.status}`);
  assert.deepEqual(Buffer.from(await raw.arrayBuffer()), file.bytes, `${file.name} byte-exact`);
  if (file.bytes.length < 4) return;
  const part = await server.fetch(`/raw/${encodeURIComponent(file.name)}`, { headers: { range: 'bytes=1-3' } });
  assert.equal(part.status, 206);
  assert.deepEqual(Buffer.from(await part.arrayBuffer()), file.bytes.subarray(1, 4), `${file.name} bytes 1-3`);
}

/** Fetches every file over and over until `until` settles; answers what went wrong and how many were fetched. */
async function serveMeanwhile(server: TestServer, files: Uploaded[], until: Promise<unknown>) {
  let done = false;
  void until.finally(() => (done = true));
  const failures: string[] = [];
  let fetched = 0;
  while (!done) {
    for (const file of files) {
      const raw = await server.fetch(`/raw/${encodeURIComponent(file.name)}`);
      const body = Buffer.from(await raw.arrayBuffer());
      fetched++;
      if (raw.status !== 200 || !body.equals(file.bytes)) failures.push(`${file.name}: ${raw.status}, ${body.length}`);
    }
  }
  return { failures, fetched };
}

forEachDatabase('chute storage inline', (engine) => {
  it('moves every file out and the small ones back in, served byte-exact throughout by a running server', async () => {
    await withSharedState(engine, async (shared) => {
      const env = envOf(shared);
      const server = await startTestServer({ engine, ...shared });
      try {
        const { token } = await server.setup();
        const small = await uploadSmall(server, token, 24);
        const largeBytes = [randomBytes(20 * 1024), randomBytes(100 * 1024)];
        const large: Uploaded[] = [];
        for (const [i, bytes] of largeBytes.entries()) {
          const file = await uploadOne(server, token, bytes, { name: `large-${i}.bin` });
          large.push({ id: file.id, name: file.name, bytes });
        }
        // A thumbnail next to one small file's bytes, as the thumbnail job leaves it.
        const pictured = small[3]!;
        let state = await storageState(server);
        const thumbnail = thumbnailKeyOf(state.files.get(pictured.id)!.storage_key);
        const thumbnailBytes = randomBytes(300);
        await server.ctx.storage.put(thumbnail, Readable.from([thumbnailBytes]), { contentType: 'image/webp' });
        await setThumbnailKey(server.ctx.db, pictured.id, thumbnail);
        state = await storageState(server);
        assert.equal(state.objects.length, small.length, 'the small files are kept in the database');
        for (const f of large) assert.ok(!isDatabaseKey(state.files.get(f.id)!.storage_key));

        const out = chute(['storage', 'inline', '--out', '--batch', '5'], env);
        const served = await serveMeanwhile(server, [...small, ...large], out);
        const outRun = await out;
        assertOk(outRun);
        assert.equal(outRun.stdout, `moved ${small.length} of ${small.length} file(s) out of the database\n`);
        assert.match(outRun.stderr, /^batch 1: moved 5 file\(s\) out of the database \(5 so far\)$/m);
        assert.deepEqual(served.failures, [], `every answer while moving was right (${served.fetched} fetched)`);

        state = await storageState(server);
        assert.deepEqual(state.objects, [], 'no bytes left in the database');
        assert.deepEqual(state.pending, []);
        for (const f of small) assert.ok(!isDatabaseKey(state.files.get(f.id)!.storage_key), `${f.name} moved`);
        assert.deepEqual(await uploadsFolder(shared.dataDir), expectedFolder(state), 'no object left behind');
        for (const f of [...small, ...large]) await assertServed(server, f);
        const thumb = await server.fetch(`/raw/.thumbnail.${pictured.id}.webp`);
        assert.equal(thumb.status, 200);
        assert.deepEqual(Buffer.from(await thumb.arrayBuffer()), thumbnailBytes, 'the thumbnail moved along');

        const again = await chute(['storage', 'inline', '--out'], env);
        assertOk(again);
        assert.equal(again.stdout, 'moved 0 of 0 file(s) out of the database\n');

        const into = chute(['storage', 'inline', '--in', '--batch', '7'], env);
        const servedIn = await serveMeanwhile(server, [...small, ...large], into);
        const inRun = await into;
        assertOk(inRun);
        assert.equal(
          inRun.stdout,
          `moved ${small.length} of ${small.length} file(s) into the database (UPLOADS_INLINE_MAX 16.0 KiB)\n`,
        );
        assert.deepEqual(servedIn.failures, [], `every answer while moving in was right (${servedIn.fetched} fetched)`);
        state = await storageState(server);
        assert.equal(state.objects.length, small.length);
        for (const f of small) assert.ok(isDatabaseKey(state.files.get(f.id)!.storage_key), `${f.name} moved in`);
        for (const f of large) assert.ok(!isDatabaseKey(state.files.get(f.id)!.storage_key), `${f.name} stayed`);
        assert.deepEqual(state.pending, []);
        assert.deepEqual(await uploadsFolder(shared.dataDir), expectedFolder(state), 'no object left behind');
        for (const f of [...small, ...large]) await assertServed(server, f);
        const thumbIn = await server.fetch(`/raw/.thumbnail.${pictured.id}.webp`);
        assert.deepEqual(Buffer.from(await thumbIn.arrayBuffer()), thumbnailBytes);
        const inAgain = await chute(['storage', 'inline', '--in'], env);
        assertOk(inAgain);
        assert.match(inAgain.stdout, /^moved 0 of 0 file\(s\) into the database/);
      } finally {
        await server.close();
      }
    });
  });

  it('a run killed after a batch is written, or after its commit, is finished by the next: nothing lost or left', async () => {
    await withSharedState(engine, async (shared) => {
      const env = envOf(shared);
      const server = await startTestServer({ engine, ...shared });
      try {
        const { token } = await server.setup();
        const small = await uploadSmall(server, token, 10);

        // Killed once batch 2's bytes are in the uploads folder, before their records point at them.
        const killed = await chute(['storage', 'inline', '--out', '--batch', '3'], {
          ...env,
          CHUTE_TEST_KILL_AT: 'written:2',
        });
        assert.equal(killed.signal, 'SIGKILL', killed.stderr);
        assert.match(killed.stderr, /^batch 1: moved 3 file/m);
        let state = await storageState(server);
        assert.equal(state.objects.length, small.length - 3, 'batch 1 was committed, batch 2 not');
        assert.equal(state.pending.length, 3, "batch 2's written bytes are marked");
        const folder = await uploadsFolder(shared.dataDir);
        assert.equal(folder.length, expectedFolder(state).length + 3, 'three objects no record names');
        for (const f of small) await assertServed(server, f);

        const resumed = await chute(['storage', 'inline', '--out', '--batch', '3'], env);
        assertOk(resumed);
        assert.match(resumed.stderr, /^removed 3 object\(s\) an interrupted run left$/m);
        assert.equal(resumed.stdout, `moved ${small.length - 3} of ${small.length - 3} file(s) out of the database\n`);
        state = await storageState(server);
        assert.deepEqual(state.objects, []);
        assert.deepEqual(state.pending, []);
        assert.deepEqual(await uploadsFolder(shared.dataDir), expectedFolder(state));
        for (const f of small) await assertServed(server, f);

        // Killed right after batch 1's commit, before the old objects it left in the folder are removed.
        const killedIn = await chute(['storage', 'inline', '--in', '--batch', '4'], {
          ...env,
          CHUTE_TEST_KILL_AT: 'committed:1',
        });
        assert.equal(killedIn.signal, 'SIGKILL', killedIn.stderr);
        state = await storageState(server);
        assert.equal(state.objects.length, 4);
        assert.equal(state.pending.length, 4, 'the old objects are marked for removal');
        assert.equal((await uploadsFolder(shared.dataDir)).length, expectedFolder(state).length + 4);
        for (const f of small) await assertServed(server, f);
        const resumedIn = await chute(['storage', 'inline', '--in', '--batch', '4'], env);
        assertOk(resumedIn);
        assert.match(resumedIn.stderr, /^removed 4 object\(s\) an interrupted run left$/m);
        state = await storageState(server);
        assert.equal(state.objects.length, small.length);
        assert.deepEqual(state.pending, []);
        assert.deepEqual(await uploadsFolder(shared.dataDir), []);
        for (const f of small) await assertServed(server, f);
      } finally {
        await server.close();
      }
    });
  });

  it('serving a record read before its bytes moved finds them at their new place', async () => {
    await withSharedState(engine, async (shared) => {
      const server = await startTestServer({ engine, ...shared });
      try {
        const { token } = await server.setup();
        const [file] = await uploadSmall(server, token, 2).then((f) => f.slice(1));
        const before = await server.ctx.db
          .selectFrom('files')
          .select(['id', 'storage_key', 'size'])
          .where('id', '=', file!.id)
          .executeTakeFirstOrThrow();
        assertOk(await chute(['storage', 'inline', '--out'], envOf(shared)));
        // The record as a request had read it just before the switch: its key names bytes that are gone now.
        const bytes = await openFileBytes(server.ctx, before, { start: 0, end: before.size - 1 });
        assert.deepEqual(Buffer.isBuffer(bytes) ? bytes : Buffer.concat(await bytes.toArray()), file!.bytes);
      } finally {
        await server.close();
      }
    });
  });
});

/** Every object under the bucket's prefix but the storage marker, as keys. */
async function bucketKeys(env: Record<string, string>): Promise<string[]> {
  const client = s3Client(s3Gateway()!);
  const keys: string[] = [];
  let token: string | undefined;
  do {
    const page = await client.send(
      new ListObjectsV2Command({ Bucket: env.S3_BUCKET, Prefix: env.S3_PREFIX, ContinuationToken: token }),
    );
    for (const o of page.Contents ?? []) keys.push(o.Key!.slice(env.S3_PREFIX!.length));
    token = page.NextContinuationToken;
  } while (token);
  client.destroy();
  return keys.filter((k) => !k.startsWith('.chute-storage/')).sort();
}

describeS3('chute storage inline', (s3Env) => {
  it('moves the bytes out into the bucket and back, byte-exact, nothing left behind', async () => {
    await withSharedState('sqlite', async (shared) => {
      const env = { ...envOf(shared), ...s3Env() };
      const server = await startTestServer({ engine: 'sqlite', ...shared, env: s3Env() });
      try {
        const { token } = await server.setup();
        const small = await uploadSmall(server, token, 8);
        const bytes = randomBytes(40 * 1024);
        const large = await uploadOne(server, token, bytes, { name: 'large.bin' });
        const files = [...small, { id: large.id, name: large.name, bytes }];
        assert.equal((await storageState(server)).objects.length, small.length);

        const out = chute(['storage', 'inline', '--out', '--batch', '3'], env);
        const served = await serveMeanwhile(server, files, out);
        assertOk(await out);
        assert.deepEqual(served.failures, []);
        let state = await storageState(server);
        assert.deepEqual(state.objects, []);
        assert.deepEqual(state.pending, []);
        assert.deepEqual(await bucketKeys(s3Env()), expectedFolder(state));
        for (const f of files) await assertServed(server, f);

        assertOk(await chute(['storage', 'inline', '--in'], env));
        state = await storageState(server);
        assert.equal(state.objects.length, small.length);
        assert.deepEqual(await bucketKeys(s3Env()), expectedFolder(state));
        for (const f of files) await assertServed(server, f);
      } finally {
        await server.close();
      }
    });
  });
});

describe('chute storage inline: usage', () => {
  it('needs exactly one of --out and --in, and a sensible batch size (exit code 2)', async () => {
    for (const [args, message] of [
      [['storage', 'inline'], /give one of --out and --in/],
      [['storage', 'inline', '--out', '--in'], /give one of --out and --in, not both/],
      [['storage'], /expected `storage inline --out` or `storage inline --in`/],
      [['storage', 'inline', '--out', '--batch', '0'], /--batch 0: expected a whole number from 1 to 5000/],
      [['storage', 'inline', '--sideways'], /Unknown option '--sideways'/],
    ] as const) {
      const run = await chute([...args], {});
      assert.equal(run.code, 2, `${args.join(' ')}: ${run.stderr}`);
      assert.match(run.stderr, message);
      assert.match(run.stderr, /Usage: chute storage inline --out \| --in/);
    }
    const help = await chute(['storage', '--help'], {});
    assertOk(help);
    assert.match(help.stdout, /--out/);
    assert.match((await chute(['--help'], {})).stdout, /^ {2}storage inline --out \| --in$/m);
  });
});
