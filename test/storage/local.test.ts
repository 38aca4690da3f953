// What only the local datasource does: its folders, the start-up sweep of dead puts, crash leftovers of appends,
// forged append states, the fsync switch, how get() reads (and hands over) a file, and the storage configuration's
// error messages.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, stat, truncate, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.js';
import { createDatasource, type Datasource } from '../../src/storage/index.js';
import type { LocalDatasource } from '../../src/storage/local.js';
import { FileShrankError, LocalFileStream } from '../../src/storage/local-file-stream.js';
import { DirectorySyncer } from '../../src/storage/temp.js';
import { openDescriptorsOf, waitFor } from '../support/open-files.js';
import { forEachDatabase, startTestServer } from '../support/server.js';

const text = (s: string) => Readable.from([Buffer.from(s)]);

async function readAll(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString();
}

const otherFilesystem = await otherFilesystemThanTmp();

describe('local datasource', () => {
  let dataDir: string;
  before(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'chute-local-'));
  });
  after(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('keeps objects as files under DATA_DIR/uploads, sub-folders for keys with /', async () => {
    const storage = await createDatasource(loadConfig({ DATA_DIR: dataDir }));
    await storage.put('a/b/c.txt', text('nested'), { contentType: 'text/plain' });
    assert.equal(await readFile(path.join(dataDir, 'uploads', 'a', 'b', 'c.txt'), 'utf8'), 'nested');
    await storage.delete('a/b/c.txt');
    await assert.rejects(stat(path.join(dataDir, 'uploads', 'a', 'b', 'c.txt')), { code: 'ENOENT' });
    // A key that names a folder (a/b holds the objects under it) is no object: deleting it removes nothing.
    await storage.delete('a/b');
    assert.ok((await stat(path.join(dataDir, 'uploads', 'a', 'b'))).isDirectory());
  });

  it('uses UPLOADS_DIR when set, and works with UPLOADS_FSYNC=false', async () => {
    const uploads = path.join(dataDir, 'elsewhere', 'files');
    const storage = await createDatasource(
      loadConfig({ DATA_DIR: dataDir, UPLOADS_DIR: uploads, UPLOADS_FSYNC: 'false' }),
    );
    await storage.put('x.bin', text('fast'), { contentType: 'text/plain' });
    assert.equal(await readFile(path.join(uploads, 'x.bin'), 'utf8'), 'fast');
    let state = await storage.beginAppend('y.bin', { contentType: 'text/plain' });
    state = await storage.append(state, text('ab'));
    state = await storage.append(state, text('cd'));
    await storage.completeAppend(state);
    assert.equal(await readFile(path.join(uploads, 'y.bin'), 'utf8'), 'abcd');
  });

  it('removes the temp files of puts a dead process left behind at start-up, and keeps append uploads', async () => {
    const storage = await createDatasource(loadConfig({ DATA_DIR: dataDir }));
    let state = await storage.beginAppend('kept.bin', { contentType: 'text/plain' });
    state = await storage.append(state, text('still going'));
    const tmp = path.join(dataDir, 'tmp');
    const stale = `put-${'a'.repeat(26)}.tmp`;
    await writeFile(path.join(tmp, stale), randomBytes(1000));
    await writeFile(path.join(tmp, 'someone-elses-file'), 'not ours');
    await createDatasource(loadConfig({ DATA_DIR: dataDir }));
    const left = await readdir(tmp);
    assert.ok(!left.includes(stale), 'the stale put temp file is removed');
    assert.ok(left.includes('someone-elses-file'), 'files that are not put temp files are kept');
    // The append-style upload survives the restart and still completes.
    const restarted = await createDatasource(loadConfig({ DATA_DIR: dataDir }));
    state = await restarted.append(JSON.parse(JSON.stringify(state)), text('!'));
    await restarted.completeAppend(state);
    assert.equal(await readAll(await restarted.get('kept.bin')), 'still going!');
    await rm(path.join(tmp, 'someone-elses-file'));
  });

  it("an instance starting up sweeps only its own dead puts; another instance's put in progress carries on", async () => {
    const shared = await mkdtemp(path.join(os.tmpdir(), 'chute-shared-tmp-'));
    try {
      const config = loadConfig({ DATA_DIR: shared });
      const beta = await createDatasource(config, { instanceId: 'beta' });
      const body = new PassThrough();
      const writing = beta.put('beta.bin', body, { contentType: 'application/octet-stream' });
      body.write(Buffer.from('first half, '));
      const tmp = path.join(shared, 'tmp');
      await waitFor(async () => (await readdir(tmp)).some((n) => n.startsWith('put-beta.')), "beta's put temp file");
      const staleOwn = `put-alpha.${'b'.repeat(26)}.tmp`;
      const staleUntagged = `put-${'c'.repeat(26)}.tmp`;
      await writeFile(path.join(tmp, staleOwn), 'dead');
      await writeFile(path.join(tmp, staleUntagged), 'dead');

      await createDatasource(config, { instanceId: 'alpha' });
      const left = await readdir(tmp);
      assert.ok(!left.includes(staleOwn), "alpha's own dead put is removed");
      assert.ok(!left.includes(staleUntagged), 'an untagged (older) dead put is removed');
      assert.equal(left.filter((n) => n.startsWith('put-beta.')).length, 1, "beta's put in progress is left alone");

      body.end(Buffer.from('second half'));
      await writing;
      assert.equal(await readAll(await beta.get('beta.bin')), 'first half, second half');
    } finally {
      await rm(shared, { recursive: true, force: true });
    }
  });

  it('keeps the chunks of an append in the uploads folder, so that another instance sharing it continues the upload', async () => {
    const shared = await mkdtemp(path.join(os.tmpdir(), 'chute-local-shared-'));
    try {
      const uploads = path.join(shared, 'uploads');
      const one = await createDatasource(loadConfig({ DATA_DIR: path.join(shared, 'one'), UPLOADS_DIR: uploads }), {
        instanceId: 'one',
      });
      const two = await createDatasource(loadConfig({ DATA_DIR: path.join(shared, 'two'), UPLOADS_DIR: uploads }), {
        instanceId: 'two',
      });
      let state = await one.beginAppend('hop.bin', { contentType: 'text/plain' });
      state = await one.append(state, text('first chunk, '));
      state = await two.append(state, text('second chunk, '));
      state = await one.append(state, text('third chunk'));
      await two.completeAppend(state);
      assert.equal(await readAll(await one.get('hop.bin')), 'first chunk, second chunk, third chunk');
      assert.deepEqual(await readdir(path.join(uploads, '.chute-tmp')), [], 'no chunk data is left behind');
      assert.deepEqual(await readdir(path.join(shared, 'one', 'tmp')), []);
    } finally {
      await rm(shared, { recursive: true, force: true });
    }
  });

  it('never publishes bytes past the recorded size (a crash mid-append), and refuses a truncated upload', async () => {
    const storage = (await createDatasource(loadConfig({ DATA_DIR: dataDir }))) as LocalDatasource;
    let state = await storage.beginAppend('crash.bin', { contentType: 'text/plain' });
    state = await storage.append(state, text('good'));
    const file = path.join(storage.appendDir, String(state.file));
    await writeFile(file, 'goodGARBAGE');
    state = await storage.append(state, text('+more'));
    await storage.completeAppend(state);
    assert.equal(await readAll(await storage.get('crash.bin')), 'good+more');

    let lost = await storage.beginAppend('lost.bin', { contentType: 'text/plain' });
    lost = await storage.append(lost, text('0123456789'));
    await writeFile(path.join(storage.appendDir, String(lost.file)), '01234');
    await assert.rejects(storage.append(lost, text('x')), /has 5 of its 10 bytes/);
    await assert.rejects(storage.completeAppend(lost), /has 5 of its 10 bytes/);
    await storage.abortAppend(lost);
  });

  it('refuses append states that point outside the temp folder or belong to another datasource', async () => {
    const storage: Datasource = await createDatasource(loadConfig({ DATA_DIR: dataDir }));
    const state = await storage.beginAppend('forged.bin', { contentType: 'text/plain' });
    for (const forged of [
      { ...state, file: '../uploads/forged.bin' },
      { ...state, file: '/etc/passwd' },
      { ...state, kind: 's3' },
      { ...state, key: '../x' },
      { ...state, size: -1 },
    ]) {
      await assert.rejects(storage.append(forged, text('x')), Error, JSON.stringify(forged));
      await assert.rejects(storage.completeAppend(forged), Error, JSON.stringify(forged));
      await assert.rejects(storage.abortAppend(forged), Error, JSON.stringify(forged));
    }
    await storage.abortAppend(state);
  });

  it(
    'keeps temp files inside UPLOADS_DIR when it is on another filesystem',
    { skip: !otherFilesystem && 'no /dev/shm on another filesystem than the temp folder' },
    async () => {
      const uploads = await mkdtemp(path.join('/dev/shm', 'chute-uploads-'));
      try {
        const storage = (await createDatasource(
          loadConfig({ DATA_DIR: dataDir, UPLOADS_DIR: uploads }),
        )) as LocalDatasource;
        assert.equal(storage.tmpDir, path.join(uploads, '.chute-tmp'));
        await storage.put('across.txt', text('renamed within one filesystem'), { contentType: 'text/plain' });
        assert.equal(await readFile(path.join(uploads, 'across.txt'), 'utf8'), 'renamed within one filesystem');
      } finally {
        await rm(uploads, { recursive: true, force: true });
      }
    },
  );

  it('get() streams a file in 1 MiB reads and closes it at the end, or when the stream is destroyed early', async () => {
    const storage = await createDatasource(loadConfig({ DATA_DIR: dataDir }));
    const bytes = randomBytes(3 * 1024 * 1024 + 5);
    await storage.put('streamed.bin', Readable.from([bytes]), { contentType: 'application/octet-stream' });
    const file = path.join(dataDir, 'uploads', 'streamed.bin');
    const chunks: Buffer[] = [];
    for await (const chunk of await storage.get('streamed.bin')) chunks.push(chunk as Buffer);
    assert.deepEqual(
      chunks.map((c) => c.length),
      [1048576, 1048576, 1048576, 5],
    );
    assert.ok(Buffer.concat(chunks).equals(bytes));
    assert.equal(await openDescriptorsOf(file), 0);

    const early = await storage.get('streamed.bin', { start: 10, end: 3 * 1024 * 1024 });
    assert.equal(await openDescriptorsOf(file), 1);
    for await (const chunk of early) {
      assert.ok((chunk as Buffer).equals(bytes.subarray(10, 10 + 1024 * 1024)));
      break;
    }
    await waitFor(
      async () => (await openDescriptorsOf(file)) === 0,
      'the file is closed after the stream was destroyed',
    );
  });

  it('get() fails the stream when the file shrinks while it is read, rather than ending it short', async () => {
    const storage = await createDatasource(loadConfig({ DATA_DIR: dataDir }));
    await storage.put('shrinks.bin', Readable.from([randomBytes(3 * 1024 * 1024)]), {
      contentType: 'application/octet-stream',
    });
    const stream = await storage.get('shrinks.bin');
    await truncate(path.join(dataDir, 'uploads', 'shrinks.bin'), 1024 * 1024 + 1);
    let received = 0;
    await assert.rejects(async () => {
      for await (const chunk of stream) received += (chunk as Buffer).length;
    }, FileShrankError);
    assert.equal(received, 1024 * 1024 + 1);
  });

  it('the stream of get() hands its open file over before the first read (for the file sender), and not after', async () => {
    const storage = await createDatasource(loadConfig({ DATA_DIR: dataDir }));
    const bytes = randomBytes(1000);
    await storage.put('handed.bin', Readable.from([bytes]), { contentType: 'application/octet-stream' });
    const file = path.join(dataDir, 'uploads', 'handed.bin');

    const stream = await storage.get('handed.bin', { start: 100, end: 5000 });
    assert.ok(stream instanceof LocalFileStream);
    const taken = stream.takeFile();
    assert.ok(taken);
    assert.equal(taken.start, 100);
    assert.equal(taken.end, 999, 'an end past the last byte is clamped');
    assert.ok(stream.destroyed);
    assert.equal(stream.takeFile(), null, 'only once');
    await new Promise((resolve) => setImmediate(resolve));
    // Destroying the stream left the handle open: it is the taker's now.
    const { bytesRead, buffer } = await taken.handle.read(Buffer.alloc(10), 0, 10, 100);
    assert.equal(bytesRead, 10);
    assert.ok(buffer.equals(bytes.subarray(100, 110)));
    await taken.handle.close();
    assert.equal(await openDescriptorsOf(file), 0);

    const reading = (await storage.get('handed.bin')) as LocalFileStream;
    const first = await new Promise<Buffer>((resolve) => reading.once('data', resolve));
    assert.equal(reading.takeFile(), null, 'not once reading started');
    reading.destroy();
    assert.ok(first.equals(bytes));
    await waitFor(async () => (await openDescriptorsOf(file)) === 0, 'the file is closed');

    const lastByte = await storage.get('handed.bin', { start: 999, end: 999 });
    assert.deepEqual(await readAll(lastByte), bytes.subarray(999).toString());
  });
});

async function otherFilesystemThanTmp(): Promise<boolean> {
  try {
    return (await stat('/dev/shm')).isDirectory() && (await stat('/dev/shm')).dev !== (await stat(os.tmpdir())).dev;
  } catch {
    return false;
  }
}

describe('storage configuration', () => {
  const problems = (env: Record<string, string>) => {
    try {
      loadConfig(env);
    } catch (err) {
      assert.ok(err instanceof ConfigError);
      return err.problems;
    }
    assert.fail('the configuration was accepted');
  };

  it('defaults to a local folder with fsync on', () => {
    const config = loadConfig({});
    assert.equal(config.DATASOURCE, 'local');
    assert.equal(config.UPLOADS_FSYNC, true);
    assert.equal(config.S3_PART_SIZE, 8 * 1024 * 1024);
  });

  it('names each bad value', () => {
    assert.match(problems({ DATASOURCE: 'ftp' })[0]!, /^DATASOURCE="ftp": .*local.*s3/);
    assert.deepEqual(problems({ DATASOURCE: 's3' }), ['S3_BUCKET="": is required when DATASOURCE=s3']);
    assert.deepEqual(problems({ DATASOURCE: 's3', S3_BUCKET: 'files', S3_ACCESS_KEY_ID: 'AK' }), [
      'S3_SECRET_ACCESS_KEY="": is required with the other S3 key (set both or neither)',
    ]);
    assert.match(problems({ UPLOADS_FSYNC: 'maybe' })[0]!, /^UPLOADS_FSYNC="maybe": /);
    assert.match(problems({ S3_ENDPOINT: 'not a url' })[0]!, /^S3_ENDPOINT="not a url": /);
    assert.match(problems({ S3_FORCE_PATH_STYLE: 'sure' })[0]!, /^S3_FORCE_PATH_STYLE="sure": /);
    assert.match(problems({ S3_PREFIX: '../up' })[0]!, /^S3_PREFIX="..\/up": must be a relative path/);
    assert.match(problems({ S3_PART_SIZE: '1mb' })[0]!, /^S3_PART_SIZE="1mb": must be between 5 MiB and 5 GiB/);
    assert.equal(loadConfig({ S3_PREFIX: 'chute' }).S3_PREFIX, 'chute/');
  });
});

forEachDatabase('storage in the running app', (engine) => {
  it('ctx.storage is the configured local datasource, created at start-up', async () => {
    const server = await startTestServer({ engine });
    try {
      assert.equal(server.ctx.storage.kind, 'local');
      await server.ctx.storage.put('ctx.txt', text('via ctx'), { contentType: 'text/plain' });
      assert.equal(await readFile(path.join(server.dataDir, 'uploads', 'ctx.txt'), 'utf8'), 'via ctx');
    } finally {
      await server.close();
    }
  });
});

describe('directory fsyncs shared by concurrent publishes', () => {
  it('gives every caller an fsync that started after it asked, and shares one among those that wait', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'chute-dirsync-'));
    try {
      const syncer = new DirectorySyncer();
      await Promise.all(Array.from({ length: 20 }, () => syncer.sync(dir)));
      assert.ok(syncer.syncs <= 2, `20 callers at once: ${syncer.syncs} fsyncs`);
      const before = syncer.syncs;
      await syncer.sync(dir);
      assert.equal(syncer.syncs, before + 1, 'a caller after they all ended gets a new one');
      // One caller while an fsync runs waits for the next one, not the running one.
      const first = syncer.sync(dir);
      const second = syncer.sync(dir);
      await Promise.all([first, second]);
      assert.equal(syncer.syncs, before + 3);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
