// Temp files of the datasources in one folder (DATA_DIR/tmp, same filesystem as the uploads so that publishing is a
// rename), named by what they hold, and the start-up sweep that removes what a dead process left behind.
import { mkdir, readdir, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { randomLowercase } from '../lib/security/ids.js';
import { FdFile } from '../lib/bytes/fd-file.js';

/**
 * put-*    a put() in progress: never survives its process (a crash before the rename leaves it unpublished), so
 *          every one of this instance's found at start-up is stale. Its name carries the instance id
 *          (`put-<instance>.<random>.tmp`) when the temp folder may be shared by several instances, so that one
 *          starting up never removes the puts another is still writing.
 * append-* the bytes of an append-style upload (local), kept across restarts until completed or aborted.
 * spool-*  the not-yet-sent tail of an S3 append-style upload, kept likewise.
 */
export type TempKind = 'put' | 'append' | 'spool';

const TEMP_NAME = /^(put|append|spool)-(?:([A-Za-z0-9_-]{1,64})\.)?[a-z0-9]{26}\.tmp$/;

/**
 * A fresh temp file name (26 random lowercase letters and digits, ~134 bits); `owner` (an instance id) marks whose
 * start-up sweep may remove it. From the pooled CSPRNG bytes of lib/security/ids.ts: a randomBytes() call of its own per upload
 * took ~25 us of the main thread under 32 concurrent uploads (2% of a 4 KiB upload's CPU in a profile).
 */
export function newTempName(kind: TempKind, owner?: string): string {
  return `${kind}-${owner ? `${owner}.` : ''}${randomLowercase(26)}.tmp`;
}

/** True for a name produced by newTempName(kind): what an AppendState may point at (no path tricks). */
export function isTempName(name: unknown, kind: TempKind): name is string {
  return typeof name === 'string' && TEMP_NAME.test(name) && name.startsWith(`${kind}-`);
}

/**
 * Removes the temp files of puts that were in progress when an earlier process of this instance (`owner`) died, and
 * untagged ones (from before names carried an owner, or when no owner is given). Other instances' puts are left to
 * them. Append and spool files are kept: they belong to chunked uploads that may still continue (aborting those is
 * the upload records' job). Call it once at start-up, before accepting uploads. Returns the names removed.
 */
export async function sweepTempFiles(tmpDir: string, owner?: string): Promise<string[]> {
  const names = await namesIn(tmpDir);
  const removed: string[] = [];
  for (const name of names) {
    if (!isTempName(name, 'put')) continue;
    const tag = TEMP_NAME.exec(name)?.[2];
    if (tag !== undefined && tag !== owner) continue;
    await unlinkIfPresent(path.join(tmpDir, name));
    removed.push(name);
  }
  return removed;
}

/** The entries of a folder, none when it does not exist. */
async function namesIn(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
}

/**
 * The admin's clear-temp (DELETE /api/server/clear_temp): removes the temp files that nothing uses any more, those
 * not written to since `staleBefore` (epoch ms) and not named in `inUse` (the temp files of chunked uploads that may
 * still continue). A put in progress writes its file all the time, so a stale one belongs to no request. Returns
 * the names removed.
 */
export async function clearStaleTempFiles(
  tmpDir: string,
  options: { staleBefore: number; inUse: (name: string) => boolean },
): Promise<string[]> {
  const names = await namesIn(tmpDir);
  const removed: string[] = [];
  for (const name of names) {
    if (!TEMP_NAME.test(name) || options.inUse(name)) continue;
    const file = path.join(tmpDir, name);
    const info = await stat(file).catch(() => undefined);
    if (!info || !info.isFile() || info.mtimeMs >= options.staleBefore) continue;
    await unlinkIfPresent(file);
    removed.push(name);
  }
  return removed;
}

export async function unlinkIfPresent(file: string): Promise<void> {
  try {
    await unlink(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}

/** fsync of a directory, which makes the creation, rename or removal of its entries durable. */
export async function fsyncDirectory(dir: string): Promise<void> {
  const handle = await FdFile.open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

interface DirectorySync {
  /** The fsync under way. */
  running: Promise<void> | null;
  /** The next one, which every caller that asks while one runs shares. */
  queued: Promise<void> | null;
}

/**
 * fsyncs of directories shared by concurrent callers (group commit for renames): a caller always gets an fsync that
 * started after it asked, so it covers the entries the caller changed before asking; all the callers that ask while
 * one runs share the next one, so N uploads renamed into one folder at once cost two fsyncs of it, not N.
 */
export class DirectorySyncer {
  private readonly entries = new Map<string, DirectorySync>();
  /** fsyncs made (for tests). */
  syncs = 0;

  sync(dir: string): Promise<void> {
    let entry = this.entries.get(dir);
    if (!entry) {
      entry = { running: null, queued: null };
      this.entries.set(dir, entry);
    }
    if (!entry.running) {
      const started = this.run(dir, entry);
      entry.running = started;
      return started;
    }
    let queued = entry.queued;
    if (!queued) {
      const current = entry;
      queued = entry.running
        .then(
          () => undefined,
          () => undefined,
        )
        .then(() => {
          current.queued = null;
          const started = this.run(dir, current);
          current.running = started;
          return started;
        });
      current.queued = queued;
    }
    return queued;
  }

  private run(dir: string, entry: DirectorySync): Promise<void> {
    this.syncs++;
    const sync: Promise<void> = fsyncDirectory(dir).finally(() => {
      if (entry.running !== sync) return;
      entry.running = null;
      if (!entry.queued) this.entries.delete(dir);
    });
    return sync;
  }
}

/**
 * mkdir -p of `dir`; when `durable`, also fsyncs the parent of every folder it created, so that the new folders
 * themselves survive a crash (the caller fsyncs `dir` after putting its entry in it).
 */
export async function ensureDirectory(dir: string, durable: boolean): Promise<void> {
  const firstCreated = await mkdir(dir, { recursive: true, mode: 0o700 });
  if (!durable || firstCreated === undefined) return;
  const created: string[] = [];
  for (let current = dir; ; current = path.dirname(current)) {
    created.push(current);
    if (current === firstCreated || path.dirname(current) === current) break;
  }
  for (const folder of created) await fsyncDirectory(path.dirname(folder));
}
