// What only the S3 datasource does, against the real gateway: start-up checks of the bucket and keys, the key
// prefix, streaming multipart puts, stored content types, and a Chute running on S3 (the helper other suites use).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { after, before, it } from 'node:test';
import { HeadObjectCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import { loadConfig } from '../../src/config.js';
import { createDatasource, InvalidStorageKeyError, type Datasource } from '../../src/storage/index.js';
import { describeS3, s3Client } from '../support/s3.js';
import { forEachDatabase, useTestServer } from '../support/server.js';

const MiB = 1024 * 1024;

function bodyOf(buffer: Buffer): Readable {
  return Readable.from(
    (function* () {
      for (let i = 0; i < buffer.length; i += 64 * 1024) yield buffer.subarray(i, i + 64 * 1024);
    })(),
  );
}

describeS3('s3 datasource specifics', (s3Env) => {
  let dataDir: string;
  let storage: Datasource;
  let client: S3Client;
  const env = () => ({ ...s3Env(), S3_PART_SIZE: '5mb', S3_PREFIX: 'files/v1' });
  const head = (key: string) => client.send(new HeadObjectCommand({ Bucket: s3Env().S3_BUCKET!, Key: key }));

  before(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'chute-s3-'));
    storage = await createDatasource(loadConfig({ DATA_DIR: dataDir, ...env() }));
    const e = s3Env();
    client = s3Client({
      endpoint: e.S3_ENDPOINT!,
      accessKeyId: e.S3_ACCESS_KEY_ID!,
      secretAccessKey: e.S3_SECRET_ACCESS_KEY!,
    });
  });
  after(async () => {
    await storage?.close();
    client?.destroy();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('stops start-up with a clear message when the bucket is missing or the keys are wrong', async () => {
    await assert.rejects(
      createDatasource(loadConfig({ DATA_DIR: dataDir, ...env(), S3_BUCKET: 'no-such-bucket-here' })),
      /^Error: S3 bucket no-such-bucket-here at http:\/\/127\.0\.0\.1:\d+ is not usable: .*does not exist/,
    );
    await assert.rejects(
      createDatasource(loadConfig({ DATA_DIR: dataDir, ...env(), S3_SECRET_ACCESS_KEY: 'wrong-secret' })),
      /is not usable: .*access denied \(check S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY\)/,
    );
  });

  it('keeps every object under S3_PREFIX, with the content type it was given', async () => {
    await storage.put('a/b.txt', bodyOf(Buffer.from('prefixed')), { contentType: 'text/plain; charset=utf-8' });
    let state = await storage.beginAppend('c.json', { contentType: 'application/json' });
    state = await storage.append(state, bodyOf(Buffer.from('{}')));
    await storage.completeAppend(state);
    const listed = await client.send(new ListObjectsV2Command({ Bucket: s3Env().S3_BUCKET! }));
    const keys = (listed.Contents ?? []).map((o) => o.Key).sort();
    assert.deepEqual(keys, ['files/v1/a/b.txt', 'files/v1/c.json']);
    assert.equal((await head('files/v1/a/b.txt')).ContentType, 'text/plain; charset=utf-8');
    assert.equal((await head('files/v1/c.json')).ContentType, 'application/json');
    await storage.delete('a/b.txt');
    await storage.delete('c.json');
    // S3 limits whole object keys to 1024 bytes: the prefix counts.
    await assert.rejects(storage.stat('k'.repeat(1020)), InvalidStorageKeyError);
  });

  it('streams a put larger than one part as a multipart upload, and an append upload likewise', async () => {
    await storage.put('multi.bin', bodyOf(randomBytes(12 * MiB)), { contentType: 'application/octet-stream' });
    assert.match((await head('files/v1/multi.bin')).ETag ?? '', /-3"$/, 'three 5 MiB parts');
    let state = await storage.beginAppend('appended.bin', { contentType: 'application/octet-stream' });
    for (const size of [2 * MiB, 2 * MiB, 2 * MiB, 5 * MiB])
      state = await storage.append(state, bodyOf(randomBytes(size)));
    await storage.completeAppend(state);
    assert.match((await head('files/v1/appended.bin')).ETag ?? '', /-3"$/, '5 + 5 MiB parts and a 1 MiB last part');
    assert.equal((await head('files/v1/appended.bin')).ContentLength, 11 * MiB);
    await storage.delete('multi.bin');
    await storage.delete('appended.bin');
  });

  it('continues an append on another instance (its own temp folder): the tail between chunks waits in the bucket', async () => {
    const otherDir = await mkdtemp(path.join(os.tmpdir(), 'chute-s3-other-'));
    const other = await createDatasource(loadConfig({ DATA_DIR: otherDir, ...env() }));
    try {
      const chunks = [3 * MiB, 3 * MiB, 1 * MiB, 4 * MiB, 2 * MiB].map((n) => randomBytes(n));
      let state = await storage.beginAppend('hopping.bin', {
        contentType: 'application/octet-stream',
        chunkSize: 3 * MiB,
        totalSize: 13 * MiB,
      });
      for (const [i, chunk] of chunks.entries()) {
        state = await (i % 2 === 0 ? storage : other).append(state, bodyOf(chunk));
        const listed = await client.send(new ListObjectsV2Command({ Bucket: s3Env().S3_BUCKET!, Prefix: 'files/v1/' }));
        const waiting = (listed.Contents ?? []).filter((o) => o.Key!.startsWith('files/v1/.chute-tmp/'));
        assert.equal(waiting.length, Number(state.spooled) > 0 ? 1 : 0, 'one tail object while bytes wait for a part');
        assert.deepEqual(await readdir(path.join(dataDir, 'tmp')), [], 'nothing stays on the first instance');
        assert.deepEqual(await readdir(path.join(otherDir, 'tmp')), [], 'nor on the second');
      }
      await other.completeAppend(state);
      const parts: Buffer[] = [];
      for await (const piece of await storage.get('hopping.bin')) parts.push(piece as Buffer);
      const stored = Buffer.concat(parts);
      assert.ok(stored.equals(Buffer.concat(chunks)), 'byte-exact');
      const listed = await client.send(new ListObjectsV2Command({ Bucket: s3Env().S3_BUCKET!, Prefix: 'files/v1/' }));
      assert.deepEqual(
        (listed.Contents ?? []).map((o) => o.Key),
        ['files/v1/hopping.bin'],
        'no tail object is left behind',
      );
      await storage.delete('hopping.bin');
    } finally {
      await other.close();
      await rm(otherDir, { recursive: true, force: true });
    }
  });

  it("takes the client's chunk size as the part size when S3 allows it, so that no tail waits between chunks", async () => {
    let state = await storage.beginAppend('aligned.bin', {
      contentType: 'application/octet-stream',
      chunkSize: 6 * MiB,
      totalSize: 15 * MiB,
    });
    for (const size of [6 * MiB, 6 * MiB]) {
      state = await storage.append(state, bodyOf(randomBytes(size)));
      assert.equal(state.spooled, 0);
    }
    state = await storage.append(state, bodyOf(randomBytes(3 * MiB)));
    await storage.completeAppend(state);
    assert.match((await head('files/v1/aligned.bin')).ETag ?? '', /-3"$/, '6 + 6 MiB parts and a 3 MiB last part');
    await storage.delete('aligned.bin');
    // A chunk below S3's smallest part keeps the configured part size.
    const small = await storage.beginAppend('small.bin', {
      contentType: 'text/plain',
      chunkSize: MiB,
      totalSize: 4 * MiB,
    });
    assert.equal(small.partSize, 5 * MiB);
    await storage.abortAppend(small);
  });

  it(
    'serves more than 50 open downloads at once (a slow reader does not block other requests)',
    { timeout: 120_000 },
    async () => {
      const payload = randomBytes(2 * MiB);
      await storage.put('popular.bin', bodyOf(payload), { contentType: 'application/octet-stream' });
      const open: Readable[] = [];
      try {
        // The SDK's default pool has 50 sockets: with it, the 61st get would wait for one of these to be read.
        for (let i = 0; i < 60; i++) open.push(await storage.get('popular.bin'));
        const last = await storage.get('popular.bin', { start: 0, end: 9 });
        const chunks: Buffer[] = [];
        for await (const chunk of last) chunks.push(chunk as Buffer);
        assert.deepEqual(Buffer.concat(chunks), payload.subarray(0, 10));
      } finally {
        for (const stream of open) stream.destroy();
        await storage.delete('popular.bin');
      }
    },
  );
});

forEachDatabase('a Chute on S3 storage', (engine) => {
  describeS3('test/support/s3.ts helper', (s3Env) => {
    const server = useTestServer(() => ({ engine, env: s3Env() }));

    it('starts with ctx.storage on the suite bucket', async () => {
      assert.equal(server().ctx.storage.kind, 's3');
      await server().ctx.storage.put('hello.txt', bodyOf(Buffer.from('hi')), { contentType: 'text/plain' });
      assert.deepEqual(await server().ctx.storage.stat('hello.txt'), { size: 2 });
      await server().ctx.storage.delete('hello.txt');
    });
  });
});
