// The local-folder datasource: each object is a file under the root (keys with '/' are sub-folders). Bytes are
// written to a temp file on the same filesystem, fsynced, renamed into place and the folder fsynced, so an object
// is either absent or complete and durable, never half-written, even across a crash.
import { open, stat, truncate } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  StorageNotFoundError,
  type AppendInfo,
  type AppendState,
  type ByteRange,
  type Datasource,
  type ObjectInfo,
  type PutInfo,
} from './datasource.js';
import { FdFile, renameFile } from '../lib/bytes/fd-file.js';
import { BackgroundFlusher, FileWriter } from './file-writer.js';
import { assertValidKey, assertValidRange, unsatisfiableRange } from './keys.js';
import { LocalFileStream } from './local-file-stream.js';
import { pipeIntoAsync } from '../lib/bytes/pipe-into.js';
import { DirectorySyncer, ensureDirectory, isTempName, newTempName, unlinkIfPresent } from './temp.js';

export interface LocalDatasourceOptions {
  /** Folder the objects live in. */
  root: string;
  /** Folder for temp files; must be on the same filesystem as `root` (publishing is a rename). */
  tmpDir: string;
  /** fsync files and folders before acknowledging (off trades crash safety for speed). */
  fsync: boolean;
  /** Instance id put into the names of put() temp files (see temp.ts), when the temp folder may be shared. */
  owner?: string;
  /**
   * Folder for the temp files of append-style uploads (chunked uploads), same filesystem as `root`; default
   * `tmpDir`. createDatasource() puts it inside the root, so that instances sharing the uploads folder share the
   * chunks too and any of them can take the next chunk.
   */
  appendDir?: string;
}

interface LocalAppendState extends AppendState {
  readonly kind: 'local';
  /** Name of the temp file in appendDir that holds the bytes appended so far. */
  readonly file: string;
}

export class LocalDatasource implements Datasource {
  readonly kind = 'local' as const;
  readonly root: string;
  readonly tmpDir: string;
  readonly appendDir: string;

  get tempDirs(): readonly string[] {
    return this.appendDir === this.tmpDir ? [this.tmpDir] : [this.tmpDir, this.appendDir];
  }
  private readonly fsync: boolean;
  /** Concurrent publishes into one folder share its fsyncs. */
  readonly directorySyncs = new DirectorySyncer();
  /** Folders that publish() made or found (see there). */
  private readonly knownFolders = new Set<string>();
  private readonly owner: string | undefined;
  /**
   * The early flushes of append temp files that may still run after their chunk was answered, or failed (kept until
   * completeAppend() or abortAppend() asks), by temp file path.
   */
  private readonly appendFlushers = new Map<string, BackgroundFlusher>();

  constructor(options: LocalDatasourceOptions) {
    this.root = path.resolve(options.root);
    this.tmpDir = path.resolve(options.tmpDir);
    this.appendDir = path.resolve(options.appendDir ?? options.tmpDir);
    this.fsync = options.fsync;
    this.owner = options.owner;
  }

  /** Creates the root and temp folders. */
  async init(): Promise<void> {
    await ensureDirectory(this.root, this.fsync);
    await ensureDirectory(this.tmpDir, this.fsync);
    if (this.appendDir !== this.tmpDir) await ensureDirectory(this.appendDir, this.fsync);
  }

  async put(key: string, body: Readable, info: PutInfo): Promise<ObjectInfo> {
    const target = this.pathOf(key);
    const temp = path.join(this.tmpDir, newTempName('put', this.owner));
    // The temp file is opened before any byte flows: with a lazily opened stream, a body that fails at once could be
    // cleaned up before the open completed, and the open would then leave an orphan temp file behind.
    let handle;
    try {
      handle = await FdFile.open(temp, 'wx');
    } catch (err) {
      body.destroy();
      throw err;
    }
    try {
      // The writer owns the handle. With fsync on, it fsyncs the file before it finishes; pipeIntoAsync resolves after
      // that, once the handle is closed.
      const out = new FileWriter(handle, { flushEarly: this.fsync, fsyncAtEnd: this.fsync });
      await pipeIntoAsync(body, out);
      await info.ready;
      await this.publish(temp, target);
      return { size: out.bytesWritten };
    } catch (err) {
      body.destroy();
      await unlinkIfPresent(temp);
      throw err;
    }
  }

  async get(key: string, range?: ByteRange): Promise<Readable> {
    const file = this.pathOf(key);
    if (range) assertValidRange(range);
    let handle;
    try {
      handle = await open(file, 'r');
    } catch (err) {
      if (isMissing(err)) throw new StorageNotFoundError(key);
      throw err;
    }
    let size: number;
    try {
      const info = await handle.stat();
      if (!info.isFile()) throw new StorageNotFoundError(key);
      size = info.size;
      if (range && range.start >= size) throw unsatisfiableRange(key, range, size);
    } catch (err) {
      await handle.close();
      throw err;
    }
    // The stream owns the handle from here and closes it when it ends or is destroyed (or hands it to the file
    // sender, which then closes it).
    const start = range?.start ?? 0;
    const end = range ? Math.min(range.end, size - 1) : size - 1;
    return new LocalFileStream({ handle, start, end });
  }

  async stat(key: string): Promise<ObjectInfo | null> {
    try {
      const info = await stat(this.pathOf(key));
      return info.isFile() ? { size: info.size } : null;
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    // One system call, no stat() first: a bulk deletion removes thousands of files (and looks for as many
    // thumbnails), and each call costs the event loop. A missing file is deleted already; a folder is no object.
    try {
      await unlinkIfPresent(this.pathOf(key));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EISDIR') throw err;
    }
  }

  async beginAppend(key: string, _info: { contentType: string }): Promise<AppendState> {
    assertValidKey(key);
    const file = newTempName('append');
    const handle = await open(path.join(this.appendDir, file), 'wx', 0o600);
    await handle.close();
    const state: LocalAppendState = { kind: 'local', key, size: 0, file };
    return state;
  }

  async append(state: AppendState, body: Readable, info?: AppendInfo): Promise<AppendState> {
    const current = this.appendStateOf(state);
    const file = path.join(this.appendDir, current.file);
    let found: number;
    try {
      found = await this.checkAppendFile(current, file);
    } catch (err) {
      body.destroy();
      throw err;
    }
    let out: FileWriter | undefined;
    try {
      // Writing at the recorded size (not in append mode) also overwrites any tail a crash mid-append left behind.
      // No fsync per append unless asked (`durable`, tus): chunked sessions do not survive a restart (they are
      // discarded at start-up), so their bytes need to be durable only when completeAppend() publishes them, and it
      // fsyncs before the rename. Early flushes while the chunks arrive leave that fsync little to write.
      const durable = this.fsync && info?.durable === true;
      // The temp file's own directory entry, made by beginAppend(), must survive too.
      if (durable && current.size === 0) await this.directorySyncs.sync(this.appendDir);
      // Not durable: the early flushes run detached from this append (its answer does not wait for them), and
      // completeAppend() waits for the last one before its fsync.
      const flusher = this.fsync && !durable ? this.appendFlusher(file) : undefined;
      out = new FileWriter(await open(file, 'r+'), {
        start: current.size,
        flushEarly: this.fsync,
        fsyncAtEnd: durable,
        ...(flusher ? { flusher } : {}),
        ...(info?.length === undefined ? {} : { expectedBytes: info.length }),
      });
      await pipeline(body, out);
      const size = current.size + out.bytesWritten;
      // Only what a crash left past this append's end is cut. A truncate to the size the file has anyway is no free
      // call: on ext4 it waits for the running early flush of the file, which put up to 370 ms into a chunk's answer
      // on a loaded machine (issue 50).
      if (found > size) await truncate(file, size);
      if (flusher && !flusher.busy && !flusher.failed) this.appendFlushers.delete(file);
      const next: LocalAppendState = { ...current, size };
      return next;
    } catch (err) {
      body.destroy();
      // pipeline() rejects as soon as a stream fails, while the writer may still have a write in flight; it closes
      // its descriptor only once that write landed. Cut only after that, or a late write could lengthen the file
      // past the cut, where complete() might then publish it.
      const writer = out;
      if (writer && !writer.closed) await new Promise((resolve) => writer.once('close', resolve));
      // Cut the failed append's bytes off so that complete() can never publish them.
      await truncate(file, current.size).catch(() => undefined);
      throw err;
    }
  }

  async completeAppend(state: AppendState): Promise<ObjectInfo> {
    const current = this.appendStateOf(state);
    const file = path.join(this.appendDir, current.file);
    await this.checkAppendFile(current, file);
    await this.settleAppendFlusher(file);
    const handle = await open(file, 'r+');
    try {
      await handle.truncate(current.size);
      if (this.fsync) await handle.sync();
    } finally {
      await handle.close();
    }
    await this.publish(file, this.pathOf(current.key));
    return { size: current.size };
  }

  async abortAppend(state: AppendState): Promise<void> {
    const current = this.appendStateOf(state);
    const file = path.join(this.appendDir, current.file);
    await this.settleAppendFlusher(file).catch(() => undefined);
    await unlinkIfPresent(file);
  }

  private appendFlusher(file: string): BackgroundFlusher {
    let flusher = this.appendFlushers.get(file);
    if (!flusher) {
      flusher = new BackgroundFlusher(file);
      this.appendFlushers.set(file, flusher);
    }
    return flusher;
  }

  /** Waits for an early flush of the temp file still running; throws when one failed (the bytes may not be on disk). */
  private async settleAppendFlusher(file: string): Promise<void> {
    const flusher = this.appendFlushers.get(file);
    if (!flusher) return;
    try {
      await flusher.settle();
    } finally {
      this.appendFlushers.delete(file);
    }
  }

  async close(): Promise<void> {
    // No handles are held between calls.
  }

  /** Renames a complete temp file over `target` and makes that durable. */
  private async publish(temp: string, target: string): Promise<void> {
    const folder = path.dirname(target);
    // A folder made (or found) once is not made again for every file: one mkdir call less per upload. Should it
    // have gone meanwhile, the rename says so and the folder is made again.
    if (!this.knownFolders.has(folder)) await ensureDirectory(folder, this.fsync);
    try {
      await renameFile(temp, target);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || !this.knownFolders.has(folder)) throw err;
      this.knownFolders.delete(folder);
      await ensureDirectory(folder, this.fsync);
      await renameFile(temp, target);
    }
    if (this.knownFolders.size < 10_000) this.knownFolders.add(folder);
    if (this.fsync) await this.directorySyncs.sync(folder);
  }

  private pathOf(key: string): string {
    assertValidKey(key);
    return path.join(this.root, ...key.split('/'));
  }

  private appendStateOf(state: AppendState): LocalAppendState {
    if (
      state.kind !== 'local' ||
      !isTempName(state.file, 'append') ||
      !Number.isSafeInteger(state.size) ||
      state.size < 0
    ) {
      throw new TypeError('not the state of a local append-style upload');
    }
    assertValidKey(state.key);
    return state as LocalAppendState;
  }

  /**
   * The temp file must exist and hold at least the recorded bytes (less means lost data: the upload is unusable).
   * Returns its size, more than the recorded one when a crash mid-append left bytes behind.
   */
  private async checkAppendFile(state: LocalAppendState, file: string): Promise<number> {
    let size: number;
    try {
      size = (await stat(file)).size;
    } catch (err) {
      if (isMissing(err)) throw new StorageNotFoundError(state.key);
      throw err;
    }
    if (size < state.size) {
      throw new Error(`append-style upload for ${state.key} has ${size} of its ${state.size} bytes; abort it`);
    }
    return size;
  }
}

function isMissing(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR';
}
