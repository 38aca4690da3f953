// The local datasource's file writer (src/storage/file-writer.ts) on real files: exact bytes at any offset whatever
// the sizes of the pieces, and every failure (a write, an early flush, the producer) reported with the file closed.
// Its batching and early flushes as system calls are observed in durability.test.ts.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, open, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { after, before, describe, it } from 'node:test';
import { FdFile, renameFile } from '../../src/lib/bytes/fd-file.js';
import { BackgroundFlusher, EARLY_FLUSH_EVERY, FileWriter, WRITE_BATCH } from '../../src/storage/file-writer.js';
import { openDescriptorsOf, waitFor } from '../support/open-files.js';

/** `total` bytes of `source` cut into pieces of the given sizes, in turn (the last piece takes what is left). */
function piecesOf(source: Buffer, sizes: number[]): Buffer[] {
  const pieces: Buffer[] = [];
  for (let at = 0, i = 0; at < source.length; i++) {
    const size = Math.min(sizes[i % sizes.length]!, source.length - at);
    pieces.push(source.subarray(at, at + size));
    at += size;
  }
  return pieces;
}

describe('FileWriter', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'chute-file-writer-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('writes exactly the bytes it is given, at its start offset, whatever the sizes of the pieces', async () => {
    const cases: Array<{
      name: string;
      sizes: number[];
      total: number;
      options: { flushEarly: boolean; fsyncAtEnd: boolean };
    }> = [
      {
        name: 'tiny and odd pieces',
        sizes: [1, 7, 4093, 65_536, 3],
        total: 3 * WRITE_BATCH + 12_345,
        options: { flushEarly: false, fsyncAtEnd: false },
      },
      {
        name: 'pieces larger than a batch',
        sizes: [WRITE_BATCH + 1, 2 * WRITE_BATCH + 17, 5],
        total: 7 * WRITE_BATCH + 1,
        options: { flushEarly: false, fsyncAtEnd: true },
      },
      {
        name: 'exact batches',
        sizes: [WRITE_BATCH],
        total: 4 * WRITE_BATCH,
        options: { flushEarly: true, fsyncAtEnd: true },
      },
      {
        name: 'past the early flush distance',
        sizes: [32 * 1024, 65_535],
        total: EARLY_FLUSH_EVERY * 2 + 999,
        options: { flushEarly: true, fsyncAtEnd: true },
      },
      { name: 'less than one batch', sizes: [100], total: 1000, options: { flushEarly: true, fsyncAtEnd: true } },
      { name: 'nothing', sizes: [1], total: 0, options: { flushEarly: true, fsyncAtEnd: true } },
    ];
    // Through a FileHandle and through an FdFile (what the local datasource's puts use).
    for (const [c, opener] of cases.flatMap((c) => [[c, 'FileHandle'] as const, [c, 'FdFile'] as const])) {
      const file = path.join(dir, `${c.name.replaceAll(' ', '-')}.bin`);
      const before = randomBytes(777);
      await writeFile(file, before);
      const source = randomBytes(c.total);
      const handle = opener === 'FdFile' ? await FdFile.open(file, 'r+') : await open(file, 'r+');
      const writer = new FileWriter(handle, { start: before.length, ...c.options });
      await pipeline(Readable.from(piecesOf(source, c.sizes)), writer);
      assert.equal(writer.bytesWritten, c.total, c.name);
      assert.ok(
        (await readFile(file)).equals(Buffer.concat([before, source])),
        `${c.name}: the file holds the bytes before the start, then the source`,
      );
      assert.equal(await openDescriptorsOf(file), 0, `${c.name}: the file is closed`);
    }
  });

  it('fails with the error of a write, and closes the file', async () => {
    const file = path.join(dir, 'read-only.bin');
    await writeFile(file, '');
    for (const opened of [() => open(file, 'r'), () => FdFile.open(file, 'r')]) {
      const writer = new FileWriter(await opened(), { flushEarly: false, fsyncAtEnd: false });
      await assert.rejects(pipeline(Readable.from(piecesOf(randomBytes(3 * WRITE_BATCH), [64 * 1024])), writer), {
        code: 'EBADF',
      });
      await waitFor(async () => (await openDescriptorsOf(file)) === 0, 'the file is closed');
    }
  });

  it('fails when an early flush failed, even with no fsync at the end', async () => {
    // /dev/null takes writes but refuses fdatasync (EINVAL): the early flush fails, nothing else does.
    const source = () => Readable.from(piecesOf(Buffer.alloc(EARLY_FLUSH_EVERY + 2 * WRITE_BATCH), [64 * 1024]));
    const quiet = new FileWriter(await open('/dev/null', 'w'), { flushEarly: false, fsyncAtEnd: false });
    await pipeline(source(), quiet);
    assert.equal(quiet.bytesWritten, EARLY_FLUSH_EVERY + 2 * WRITE_BATCH);
    const flushing = new FileWriter(await open('/dev/null', 'w'), { flushEarly: true, fsyncAtEnd: false });
    await assert.rejects(pipeline(source(), flushing), { code: 'EINVAL', syscall: 'fdatasync' });
  });

  it('with a background flusher, finishes without waiting for its flushes; the flusher keeps their failure', async () => {
    const source = () => Readable.from(piecesOf(Buffer.alloc(3 * EARLY_FLUSH_EVERY), [64 * 1024]));
    // /dev/null refuses fdatasync: the detached flushes fail, the stream does not (its finish does not wait for them).
    const failing = new BackgroundFlusher('/dev/null');
    const detached = new FileWriter(await open('/dev/null', 'w'), {
      flushEarly: true,
      fsyncAtEnd: false,
      flusher: failing,
    });
    await pipeline(source(), detached);
    assert.equal(detached.bytesWritten, 3 * EARLY_FLUSH_EVERY);
    await assert.rejects(failing.settle(), { code: 'EINVAL', syscall: 'fdatasync' });
    assert.equal(failing.failed?.message.includes('EINVAL'), true);
    // On a real file the flushes succeed and the bytes are exact; with an fsync at the end the flusher is not used.
    const file = path.join(dir, 'detached.bin');
    await writeFile(file, '');
    const bytes = randomBytes(3 * EARLY_FLUSH_EVERY + 5);
    const flusher = new BackgroundFlusher(file);
    const writer = new FileWriter(await open(file, 'r+'), { flushEarly: true, fsyncAtEnd: false, flusher });
    await pipeline(Readable.from(piecesOf(bytes, [64 * 1024])), writer);
    await flusher.settle();
    assert.equal(flusher.failed, null);
    assert.ok((await readFile(file)).equals(bytes));
    const unused = new BackgroundFlusher('/dev/null');
    const synced = new FileWriter(await open(file, 'r+'), { flushEarly: true, fsyncAtEnd: true, flusher: unused });
    await pipeline(Readable.from(piecesOf(bytes, [64 * 1024])), synced);
    await unused.settle();
    assert.equal(unused.failed, null, 'the writer flushed through its own descriptor');
  });

  it('closes the file when the producer fails midway', async () => {
    const file = path.join(dir, 'broken-producer.bin');
    await writeFile(file, '');
    async function* failing(): AsyncGenerator<Buffer> {
      yield randomBytes(WRITE_BATCH + 10);
      yield randomBytes(100);
      throw new Error('the client went away');
    }
    const writer = new FileWriter(await open(file, 'r+'), { flushEarly: true, fsyncAtEnd: true });
    await assert.rejects(pipeline(Readable.from(failing()), writer), /the client went away/);
    await waitFor(async () => (await openDescriptorsOf(file)) === 0, 'the file is closed');
  });
});

describe('FdFile', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'chute-fd-file-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('once closed, never touches its descriptor number again (another file may have it by then)', async () => {
    const first = await FdFile.open(path.join(dir, 'first.bin'), 'wx');
    await first.writev([Buffer.from('first')], 0);
    await first.close();
    // The lowest free number: most likely the one the first file had.
    const secondFile = path.join(dir, 'second.bin');
    const second = await FdFile.open(secondFile, 'wx');
    await first.close();
    await assert.rejects(first.writev([Buffer.from('stray')], 0), { code: 'EBADF' });
    await assert.rejects(first.sync(), { code: 'EBADF' });
    await assert.rejects(first.datasync(), { code: 'EBADF' });
    await second.writev([Buffer.from('second'), Buffer.from(' file')], 0);
    await second.sync();
    await second.close();
    assert.equal(await readFile(secondFile, 'utf8'), 'second file');
    assert.equal(await readFile(path.join(dir, 'first.bin'), 'utf8'), 'first');
  });

  it('reports the errors of the system calls (an open that finds the file, a rename to a missing folder)', async () => {
    const file = path.join(dir, 'exists.bin');
    await writeFile(file, 'x');
    await assert.rejects(FdFile.open(file, 'wx'), { code: 'EEXIST' });
    await assert.rejects(renameFile(file, path.join(dir, 'missing', 'x.bin')), { code: 'ENOENT' });
    await renameFile(file, path.join(dir, 'renamed.bin'));
    assert.equal(await readFile(path.join(dir, 'renamed.bin'), 'utf8'), 'x');
  });
});
