// One suite, run against every datasource: the local folder always, S3 when a gateway is available
// (scripts/ceph-rgw.sh; otherwise the S3 run is skipped with a printed notice).
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/config.js';
import {
  createDatasource,
  InvalidStorageKeyError,
  StorageNotFoundError,
  type Datasource,
} from '../../src/storage/index.js';
import { randomString } from '../../src/lib/security/ids.js';
import { ListMultipartUploadsCommand } from '@aws-sdk/client-s3';
import { describeS3, s3Client } from '../support/s3.js';

const MiB = 1024 * 1024;

/** A body of the given buffers, sent in pieces of at most 64 KiB, like a socket would. */
function bodyOf(...buffers: Buffer[]): Readable {
  return Readable.from(
    (function* () {
      for (const buffer of buffers) {
        for (let i = 0; i < buffer.length; i += 64 * 1024) yield buffer.subarray(i, i + 64 * 1024);
      }
    })(),
  );
}

/** A body that sends `bytes` and then fails, like a client that goes away or a size limit cutting it off. */
function failingBody(bytes: Buffer, error = new Error('client went away')): Readable {
  return Readable.from(
    (async function* () {
      for (let i = 0; i < bytes.length; i += 64 * 1024) yield bytes.subarray(i, i + 64 * 1024);
      await new Promise((resolve) => setImmediate(resolve));
      throw error;
    })(),
  );
}

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function sha256(buffer: Buffer): string {
  return createHash('sha256').update(buffer).digest('hex');
}

interface Harness {
  storage: Datasource;
  dataDir: string;
}

/** Declares the shared suite for the datasource built from `env` (on top of a fresh DATA_DIR). */
function datasourceSuite(name: string, env: () => Record<string, string>): void {
  describe(name, () => {
    let h: Harness;
    let prefix: string;
    const key = (k: string) => `${prefix}/${k}`;
    const tmpFiles = async () => (await readdir(path.join(h.dataDir, 'tmp'))).sort();
    /** What a failed or aborted upload could leave behind besides temp files: unfinished S3 multipart uploads. */
    const unfinishedUploads = async (): Promise<string[]> => {
      const e = env();
      if (e.DATASOURCE !== 's3') return [];
      const client = s3Client({
        endpoint: e.S3_ENDPOINT!,
        accessKeyId: e.S3_ACCESS_KEY_ID!,
        secretAccessKey: e.S3_SECRET_ACCESS_KEY!,
      });
      try {
        const listed = await client.send(
          new ListMultipartUploadsCommand({ Bucket: e.S3_BUCKET!, Prefix: `${e.S3_PREFIX ?? ''}${prefix}/` }),
        );
        return (listed.Uploads ?? []).map((upload) => upload.Key!);
      } finally {
        client.destroy();
      }
    };

    before(async () => {
      const dataDir = await mkdtemp(path.join(os.tmpdir(), 'chute-storage-'));
      const storage = await createDatasource(loadConfig({ DATA_DIR: dataDir, ...env() }));
      h = { storage, dataDir };
      prefix = `t-${randomString(8, 'abcdefghijklmnopqrstuvwxyz')}`;
    });
    after(async () => {
      await h?.storage.close();
      if (h) await rm(h.dataDir, { recursive: true, force: true });
    });

    it('stores and returns exact bytes: a multi-MiB random payload, a small one and an empty object', async () => {
      const big = randomBytes(7 * MiB + 12345);
      const small = Buffer.from('hello, chute\n');
      assert.deepEqual(await h.storage.put(key('big.bin'), bodyOf(big), { contentType: 'application/octet-stream' }), {
        size: big.length,
      });
      await h.storage.put(key('sub/folder/small.txt'), bodyOf(small), { contentType: 'text/plain' });
      await h.storage.put(key('empty'), bodyOf(), { contentType: 'text/plain' });
      assert.equal(sha256(await readAll(await h.storage.get(key('big.bin')))), sha256(big));
      assert.deepEqual(await readAll(await h.storage.get(key('sub/folder/small.txt'))), small);
      assert.equal((await readAll(await h.storage.get(key('empty')))).length, 0);
      assert.deepEqual(await h.storage.stat(key('big.bin')), { size: big.length });
      assert.deepEqual(await h.storage.stat(key('empty')), { size: 0 });
      assert.deepEqual(await tmpFiles(), []);
      for (const k of ['big.bin', 'sub/folder/small.txt', 'empty']) await h.storage.delete(key(k));
    });

    it('overwrites an object put again under the same key', async () => {
      await h.storage.put(key('again'), bodyOf(Buffer.from('first version')), { contentType: 'text/plain' });
      await h.storage.put(key('again'), bodyOf(Buffer.from('second')), { contentType: 'text/plain' });
      assert.equal((await readAll(await h.storage.get(key('again')))).toString(), 'second');
      await h.storage.delete(key('again'));
    });

    it('serves inclusive byte ranges: first byte, last byte, middle, whole, and an end past the last byte', async () => {
      const bytes = randomBytes(300_001);
      await h.storage.put(key('ranged'), bodyOf(bytes), { contentType: 'application/octet-stream' });
      const range = async (start: number, end: number) => readAll(await h.storage.get(key('ranged'), { start, end }));
      assert.deepEqual(await range(0, 0), bytes.subarray(0, 1));
      assert.deepEqual(await range(300_000, 300_000), bytes.subarray(300_000));
      assert.deepEqual(await range(1000, 250_999), bytes.subarray(1000, 251_000));
      assert.deepEqual(await range(0, 300_000), bytes);
      assert.deepEqual(await range(299_990, 400_000), bytes.subarray(299_990));
      await assert.rejects(h.storage.get(key('ranged'), { start: 300_001, end: 300_001 }), RangeError);
      await assert.rejects(h.storage.get(key('ranged'), { start: 10, end: 9 }), RangeError);
      await assert.rejects(h.storage.get(key('ranged'), { start: -1, end: 9 }), RangeError);
      await h.storage.delete(key('ranged'));
    });

    it('reports a missing object: stat null, get StorageNotFoundError, delete idempotent', async () => {
      assert.equal(await h.storage.stat(key('nothing')), null);
      await assert.rejects(h.storage.get(key('nothing')), StorageNotFoundError);
      await assert.rejects(h.storage.get(key('nothing'), { start: 0, end: 0 }), StorageNotFoundError);
      await h.storage.put(key('gone'), bodyOf(Buffer.from('x')), { contentType: 'text/plain' });
      await h.storage.delete(key('gone'));
      await h.storage.delete(key('gone'));
      assert.equal(await h.storage.stat(key('gone')), null);
      await assert.rejects(h.storage.get(key('gone')), StorageNotFoundError);
      await h.storage.delete(key('never-was'));
    });

    it('a put whose body errors midway rejects with that error and leaves nothing behind', async () => {
      const failure = new Error('size limit reached');
      for (const sent of [0, 100_000, 6 * MiB]) {
        await assert.rejects(
          h.storage.put(key(`broken-${sent}`), failingBody(randomBytes(sent), failure), { contentType: 'text/plain' }),
          (err) => err === failure,
        );
        assert.equal(await h.storage.stat(key(`broken-${sent}`)), null);
      }
      // A body destroyed without an error (a client that disconnects) fails the put the same way.
      const destroyed = bodyOf(randomBytes(MiB));
      destroyed.once('data', () => destroyed.destroy());
      await assert.rejects(h.storage.put(key('destroyed'), destroyed, { contentType: 'text/plain' }));
      assert.equal(await h.storage.stat(key('destroyed')), null);
      assert.deepEqual(await tmpFiles(), []);
      assert.deepEqual(await unfinishedUploads(), []);
    });

    for (const [label, sizes] of [
      ['one chunk', [3 * MiB + 7]],
      ['chunks smaller than 5 MiB', [MiB, 2 * MiB + 1, 1, 700_000, 3 * MiB]],
      ['chunks larger than 5 MiB', [6 * MiB, 5 * MiB + 3, 11]],
      ['mixed chunks, exactly 5 MiB then small', [5 * MiB, 4 * MiB, 5 * MiB + 1, 2 * MiB, 0, 9]],
    ] as const) {
      it(`completes an append-style upload byte-exact: ${label}`, async () => {
        const chunks = sizes.map((size) => randomBytes(size));
        const k = key(`append/${label.replaceAll(' ', '-')}`);
        let state = await h.storage.beginAppend(k, { contentType: 'application/octet-stream' });
        assert.equal(await h.storage.stat(k), null);
        for (const chunk of chunks) {
          // The state goes through the database as JSON between calls.
          state = JSON.parse(JSON.stringify(await h.storage.append(state, bodyOf(chunk))));
        }
        const total = chunks.reduce((sum, c) => sum + c.length, 0);
        assert.equal(state.size, total);
        assert.equal(await h.storage.stat(k), null, 'nothing is visible before completion');
        assert.deepEqual(await h.storage.completeAppend(state), { size: total });
        assert.equal(sha256(await readAll(await h.storage.get(k))), sha256(Buffer.concat(chunks)));
        assert.deepEqual(await h.storage.stat(k), { size: total });
        assert.deepEqual(await tmpFiles(), []);
        assert.deepEqual(await unfinishedUploads(), []);
        await h.storage.delete(k);
      });
    }

    it('completes an append-style upload with no chunks as an empty object', async () => {
      const state = await h.storage.beginAppend(key('append/none'), { contentType: 'text/plain' });
      assert.deepEqual(await h.storage.completeAppend(state), { size: 0 });
      assert.deepEqual(await h.storage.stat(key('append/none')), { size: 0 });
      await h.storage.delete(key('append/none'));
    });

    it('a failed append leaves the upload as it was: completing publishes only the earlier bytes', async () => {
      // The larger failed chunk crosses a part boundary on S3 (5 MiB parts here): parts sent by the failed call
      // must not end up in the object.
      for (const failedSize of [100_000, 6 * MiB]) {
        const k = key(`append/failed-${failedSize}`);
        const first = randomBytes(MiB + 5);
        const last = randomBytes(2 * MiB);
        let state = await h.storage.beginAppend(k, { contentType: 'application/octet-stream' });
        state = await h.storage.append(state, bodyOf(first));
        const failure = new Error('chunk cut off');
        await assert.rejects(
          h.storage.append(state, failingBody(randomBytes(failedSize), failure)),
          (e) => e === failure,
        );
        // The caller retries the chunk from the state it had before the failed call.
        state = await h.storage.append(state, bodyOf(last));
        assert.deepEqual(await h.storage.completeAppend(state), { size: first.length + last.length });
        assert.equal(sha256(await readAll(await h.storage.get(k))), sha256(Buffer.concat([first, last])));
        await h.storage.delete(k);
      }
      assert.deepEqual(await tmpFiles(), []);
      assert.deepEqual(await unfinishedUploads(), []);
    });

    it('a failed append can be followed by complete() directly: only the earlier bytes are published', async () => {
      const k = key('append/failed-then-complete');
      const first = randomBytes(3 * MiB);
      let state = await h.storage.beginAppend(k, { contentType: 'application/octet-stream' });
      state = await h.storage.append(state, bodyOf(first));
      await assert.rejects(h.storage.append(state, failingBody(randomBytes(4 * MiB))), /client went away/);
      assert.deepEqual(await h.storage.completeAppend(state), { size: first.length });
      assert.equal(sha256(await readAll(await h.storage.get(k))), sha256(first));
      assert.deepEqual(await tmpFiles(), []);
      await h.storage.delete(k);
    });

    it('abort discards an unfinished append-style upload and its temp data; aborting twice is fine', async () => {
      const k = key('append/aborted');
      let state = await h.storage.beginAppend(k, { contentType: 'application/octet-stream' });
      state = await h.storage.append(state, bodyOf(randomBytes(MiB)));
      state = await h.storage.append(state, bodyOf(randomBytes(6 * MiB)));
      await h.storage.abortAppend(state);
      await h.storage.abortAppend(state);
      assert.equal(await h.storage.stat(k), null);
      assert.deepEqual(await tmpFiles(), []);
      assert.deepEqual(await unfinishedUploads(), []);
      await assert.rejects(h.storage.completeAppend(state));
    });

    it('refuses keys that could escape the storage folder or prefix', async () => {
      const bad = [
        '',
        '/etc/passwd',
        '../outside',
        'a/../../b',
        'a/./b',
        'a//b',
        'a/',
        'nul\0byte',
        'back\\slash',
        'line\nbreak',
        '..',
        '.chute-tmp/x',
        'x'.repeat(1025),
      ];
      for (const k of bad) {
        await assert.rejects(
          h.storage.put(k, bodyOf(Buffer.from('x')), { contentType: 'text/plain' }),
          InvalidStorageKeyError,
          k,
        );
        await assert.rejects(h.storage.get(k), InvalidStorageKeyError, k);
        await assert.rejects(h.storage.stat(k), InvalidStorageKeyError, k);
        await assert.rejects(h.storage.delete(k), InvalidStorageKeyError, k);
        await assert.rejects(h.storage.beginAppend(k, { contentType: 'text/plain' }), InvalidStorageKeyError, k);
      }
      // Names with dots, spaces and non-ASCII characters are fine.
      for (const k of ['.hidden', 'a..b', 'x y (1).tar.gz', 'ünïcødé/文件.txt']) {
        await h.storage.put(key(k), bodyOf(Buffer.from(k)), { contentType: 'text/plain' });
        assert.equal((await readAll(await h.storage.get(key(k)))).toString(), k);
        await h.storage.delete(key(k));
      }
      assert.deepEqual(await tmpFiles(), []);
    });
  });
}

datasourceSuite('local datasource', () => ({ DATASOURCE: 'local' }));
// 5 MiB parts (the S3 minimum) so that the chunk sizes above cross part boundaries in every way.
describeS3('s3 datasource', (env) => datasourceSuite('shared suite', () => ({ ...env(), S3_PART_SIZE: '5mb' })));
