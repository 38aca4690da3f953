// The local datasource's durability order, observed on the real system calls with strace: the file is fsynced before
// it is renamed into place, and the folder that received it is fsynced after; with UPLOADS_FSYNC=false no fsync.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const fixture = fileURLToPath(new URL('./fixtures/put-once.ts', import.meta.url));
const straceWorks = spawnSync('strace', ['-o', '/dev/null', 'true']).status === 0;
if (!straceWorks) console.log('# NOTICE: strace is not available: the fsync-order test of the local datasource is SKIPPED');

interface Event {
  call: 'openat' | 'fsync' | 'rename';
  path: string;
  to?: string;
}

/** Runs the fixture under strace and returns its openat/fsync/rename calls on paths in `dataDir`, in order. */
async function traceFixture(dataDir: string, fsync: boolean): Promise<Event[]> {
  const log = path.join(dataDir, 'strace.log');
  const run = spawnSync(
    'strace',
    ['-f', '-qq', '-e', 'trace=openat,fsync,fdatasync,rename', '-o', log, process.execPath, '--import', 'tsx', fixture, dataDir, String(fsync)],
    { encoding: 'utf8' },
  );
  assert.equal(run.status, 0, run.stderr);
  const fdPaths = new Map<string, string>();
  const events: Event[] = [];
  for (const line of (await readFile(log, 'utf8')).split('\n')) {
    const open = /^\d+\s+openat\(AT_FDCWD, "([^"]+)".*\) = (\d+)$/.exec(line);
    if (open) {
      fdPaths.set(open[2]!, open[1]!);
      if (open[1]!.startsWith(dataDir)) events.push({ call: 'openat', path: open[1]! });
      continue;
    }
    const sync = /^\d+\s+f(?:data)?sync\((\d+)\)\s+= 0$/.exec(line);
    if (sync) {
      const file = fdPaths.get(sync[1]!) ?? '?';
      if (file.startsWith(dataDir)) events.push({ call: 'fsync', path: file });
      continue;
    }
    const moved = /^\d+\s+rename\("([^"]+)", "([^"]+)"\)\s+= 0$/.exec(line);
    if (moved && moved[1]!.startsWith(dataDir)) events.push({ call: 'rename', path: moved[1]!, to: moved[2]! });
  }
  return events;
}

function indexOf(events: Event[], predicate: (e: Event) => boolean, after = -1): number {
  return events.findIndex((e, i) => i > after && predicate(e));
}

describe('local datasource durability (strace)', { skip: !straceWorks && 'strace is not available' }, () => {
  it('fsyncs the file, renames it into place, then fsyncs its folder (put and completeAppend)', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'chute-durable-'));
    try {
      const events = await traceFixture(dataDir, true);
      for (const [target, folder] of [
        [path.join(dataDir, 'uploads/a/b/c.txt'), path.join(dataDir, 'uploads/a/b')],
        [path.join(dataDir, 'uploads/d/e.txt'), path.join(dataDir, 'uploads/d')],
      ] as const) {
        const renamed = indexOf(events, (e) => e.call === 'rename' && e.to === target);
        assert.ok(renamed >= 0, `${target} is published by a rename`);
        const temp = events[renamed]!.path;
        const fileSynced = events.findLastIndex((e, i) => i < renamed && e.call === 'fsync' && e.path === temp);
        assert.ok(fileSynced >= 0, `the temp file of ${target} is fsynced before the rename`);
        assert.ok(indexOf(events, (e) => e.call === 'fsync' && e.path === folder, renamed) > renamed, `${folder} is fsynced after the rename`);
        // New folders are made durable too: their parent is fsynced.
        assert.ok(indexOf(events, (e) => e.call === 'fsync' && e.path === path.dirname(folder)) >= 0, `${path.dirname(folder)} is fsynced`);
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('does not fsync with UPLOADS_FSYNC=false', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'chute-durable-'));
    try {
      const events = await traceFixture(dataDir, false);
      assert.ok(events.some((e) => e.call === 'rename'), 'the trace saw the put');
      assert.deepEqual(events.filter((e) => e.call === 'fsync'), []);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
