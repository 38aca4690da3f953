// The central directory of a large zip (services/serving/zip-entry-list.ts): the records of written entries go to a temp file
// that is unlinked as soon as it is open, and come back where the directory starts. Checked with Debian's unzip on a
// zip of more entries than a classic end record can count (zip64), made by storedZipStream from real files and empty
// folders; and a zip given up mid-way leaves no open temp file and nothing in DATA_DIR/tmp. No database is involved
// (SQLite only).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdtemp, readdir, readlink, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { after, before, describe, it } from 'node:test';
import yazl from 'yazl';
import { storedZipStream, type ZipEntry } from '../../src/services/serving/zips.js';
import { compactEntryList } from '../../src/services/serving/zip-entry-list.js';
import { storageTempDir } from '../../src/storage/index.js';
import { useTestServer } from '../support/server.js';

/** The open files of this process that are zip record files (unlinked ones show as `... (deleted)`). */
async function openRecordFiles(): Promise<string[]> {
  const links = await Promise.all(
    (await readdir('/proc/self/fd')).map((fd) => readlink(`/proc/self/fd/${fd}`).catch(() => '')),
  );
  return links.filter((l) => /\/zip-[0-9a-f]+\.records/.test(l));
}

describe('zip central directory records in a temp file', () => {
  const server = useTestServer({ engine: 'sqlite' });
  let dir: string;
  let source: string;
  before(async () => {
    await server().setup();
    dir = await mkdtemp(path.join(os.tmpdir(), 'chute-zip-records-'));
    source = path.join(dir, 'source.txt');
    await writeFile(source, 'bytes of every entry');
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const entries = function* (count: number): Generator<ZipEntry> {
    for (let i = 0; i < count; i++)
      yield { path: `entry-${i}.txt`, localFile: source, mtime: new Date(1_700_000_000_000) };
  };

  it('writes a whole zip64 archive of 66,000 entries, in order, and leaves nothing behind', async () => {
    const ctx = server().ctx;
    // Mostly empty folders (cheap to write), a file after every 1,000 of them: when a file starts, the entries written
    // before it go to the temp file (so yazl's list stays short).
    const count = 66_000;
    const expected = Array.from({ length: count }, (_, i) => (i % 1000 === 999 ? `entry-${i}.txt` : `folder-${i}/`));
    const mtime = new Date(1_700_000_000_000);
    const zipEntries = expected.map((name): ZipEntry =>
      name.endsWith('/') ? { path: name, directory: true, mtime } : { path: name, localFile: source, mtime },
    );
    const file = path.join(dir, 'many.zip');
    await pipeline(storedZipStream(ctx, zipEntries, {}), createWriteStream(file));
    execFileSync('unzip', ['-tq', file]);
    const names = execFileSync('unzip', ['-Z1', file], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
      .split('\n')
      .filter(Boolean);
    assert.equal(names.length, expected.length);
    assert.ok(
      names.every((n, i) => n === expected[i]),
      'every entry, in order',
    );
    assert.equal(execFileSync('unzip', ['-p', file, 'entry-54999.txt'], { encoding: 'utf8' }), 'bytes of every entry');
    assert.deepEqual(await openRecordFiles(), []);
    assert.deepEqual(await readdir(storageTempDir(ctx.config)).catch(() => []), []);
  });

  it('opens no temp file for records set aside after it was given up', async () => {
    const zip = new yazl.ZipFile();
    const list = compactEntryList(zip, path.join(dir, 'records'));
    zip.outputStream.resume();
    // 1,500 entries written, then one that never starts: setting them aside would fill and write a block.
    for (let i = 0; i < 1500; i++) zip.addBuffer(Buffer.from('x'), `b-${i}.txt`, { compress: false });
    zip.addReadStreamLazy('never.txt', () => undefined);
    await new Promise((resolve) => setImmediate(resolve));
    list.close();
    list.setAside();
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.deepEqual(await openRecordFiles(), []);
  });

  it('closes its temp file when the reader goes away mid-way', async () => {
    const ctx = server().ctx;
    const zip = storedZipStream(ctx, entries(20_000), {});
    // Read until the records have gone to the temp file (after the first 1,000 entries), then give up.
    let read = 0;
    let seen: string[] = [];
    for await (const chunk of zip as AsyncIterable<Buffer>) {
      read += chunk.length;
      if (read > 400_000) {
        seen = await openRecordFiles();
        if (seen.length > 0) break;
      }
    }
    assert.equal(seen.length, 1, 'the zip writes its records to one temp file');
    assert.match(seen[0]!, /\(deleted\)$/, 'unlinked while open');
    for (let i = 0; i < 50 && (await openRecordFiles()).length > 0; i++) await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(await openRecordFiles(), []);
    assert.deepEqual(await readdir(storageTempDir(ctx.config)).catch(() => []), []);
  });
});
