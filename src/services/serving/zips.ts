// Zips of stored files, streamed (storedZipStream: yazl asks for each file's bytes only when it reaches that entry,
// stores them without recompressing, and writes as it goes, so memory stays flat whatever the files weigh): a folder
// and the folders below it (folderZipStream), and a user's export (services/exports/user-exports.ts).
import { createReadStream } from 'node:fs';
import { PassThrough, Readable } from 'node:stream';
import yazl from 'yazl';
import type { AppContext } from '../../context.js';
import type { FolderRow } from '../../db/schema/tables.js';
import { storageTempDir } from '../../storage/index.js';
import { findPublicFolder, getOwnFolder } from '../organise/folders.js';
import { compactEntryList } from './zip-entry-list.js';

export interface FolderZipOptions {
  /**
   * public: only public child folders, and no password-protected files (their password guards the bytes) nor files
   * with max views (a zip counts no view).
   */
  audience: 'owner' | 'public';
}

/**
 * A name safe as one path segment of a zip entry whatever the input, on every unzipper: no separators, no characters
 * Windows refuses in names (`:` would also make `C:x` an absolute path), no control or format characters, no lone
 * surrogates, no dot-only names, at most 255 characters.
 */
export function zipSegment(name: string): string {
  const cleaned = name
    // eslint-disable-next-line no-control-regex
    .replace(/[/\\:*?"<>|\x00-\x1f\x7f-\x9f\p{Cf}\p{Cs}]/gu, '_')
    .trim();
  if (cleaned === '' || /^\.+$/.test(cleaned)) return '_';
  return Array.from(cleaned).slice(0, 255).join('');
}

/** `name`, or `name (2).ext`, `name (3).ext` ... when the folder already has an entry of that name. */
function uniqueIn(taken: Set<string>, name: string): string {
  let candidate = name;
  const dot = name.lastIndexOf('.');
  const [stem, ext] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ''];
  for (let n = 2; taken.has(candidate.toLowerCase()); n++) candidate = `${stem} (${n})${ext}`;
  taken.add(candidate.toLowerCase());
  return candidate;
}

/** Files of one folder read per statement: each read is short, and the zip asks for the next batch as it goes. */
const FILE_BATCH = 500;

/**
 * Every entry of the zip, produced as the zip is written: the folders breadth first, each folder's child folders,
 * then its files by date in keyset batches (files_folder_created), and a folder holding nothing as an empty entry.
 */
async function* folderEntries(ctx: AppContext, root: FolderRow, options: FolderZipOptions): AsyncGenerator<ZipEntry> {
  let level: Array<{ id: string; prefix: string }> = [{ id: root.id, prefix: '' }];
  const now = ctx.clock.now();
  for (let depth = 0; level.length > 0 && depth <= 64; depth++) {
    const next: typeof level = [];
    for (const folder of level) {
      // Entry names taken in this folder (its zip path), lower-cased: the only state that grows with its files.
      const taken = new Set<string>();
      let childQuery = ctx.db.selectFrom('folders').select(['id', 'name']).where('parent_id', '=', folder.id);
      if (options.audience === 'public') childQuery = childQuery.where('public', '=', 1);
      const subfolders = await childQuery.orderBy('name').orderBy('id').execute();
      for (const sub of subfolders)
        next.push({ id: sub.id, prefix: `${folder.prefix}${uniqueIn(taken, zipSegment(sub.name))}/` });
      let files = 0;
      for await (const file of folderFiles(ctx, folder.id, options, now)) {
        files += 1;
        const path = folder.prefix + uniqueIn(taken, zipSegment(file.original_name ?? file.name));
        yield { path, storageKey: file.storage_key, mtime: new Date(file.created_at) };
      }
      if (folder.prefix !== '' && files === 0 && subfolders.length === 0)
        yield { path: folder.prefix, directory: true, mtime: new Date(root.updated_at) };
    }
    level = next;
  }
}

/** The files of one folder that go in the zip, oldest first (ties by id), FILE_BATCH per statement. */
async function* folderFiles(ctx: AppContext, folderId: string, options: FolderZipOptions, now: number) {
  let after: { created_at: number; id: string } | undefined;
  for (;;) {
    const batch = await folderFileBatch(ctx, folderId, options, now, after).execute();
    yield* batch;
    if (batch.length < FILE_BATCH) return;
    after = batch.at(-1)!;
  }
}

function folderFileBatch(
  ctx: AppContext,
  folderId: string,
  options: FolderZipOptions,
  now: number,
  after: { created_at: number; id: string } | undefined,
) {
  let query = ctx.db
    .selectFrom('files')
    .select(['id', 'name', 'original_name', 'storage_key', 'created_at'])
    .where('folder_id', '=', folderId)
    .where((eb) => eb.or([eb('deletes_at', 'is', null), eb('deletes_at', '>', now)]));
  if (options.audience === 'public')
    query = query.where('password', 'is', null).where('max_views', 'is', null).where('private', '=', 0);
  if (after)
    query = query.where((eb) => eb(eb.refTuple('created_at', 'id'), '>', eb.tuple(after.created_at, after.id)));
  return query.orderBy('created_at').orderBy('id').limit(FILE_BATCH);
}

/** A batch of a folder's zip after a position, compiled (for the tests of its query plan). */
export function folderZipStatement(ctx: AppContext, folderId: string, audience: FolderZipOptions['audience']) {
  return folderFileBatch(ctx, folderId, { audience }, 0, { created_at: 1, id: 'm' }).compile();
}

/** How many entries with bytes storedZipStream takes from its source before the zip has reached them. */
const ENTRIES_AHEAD = 64;

/** One entry of a zip made by storedZipStream. */
export type ZipEntry =
  /** The bytes of a stored object (read from the datasource when the zip reaches the entry). */
  | { path: string; storageKey: string; mtime: Date }
  /** A file on this machine's disk (a temp file the caller removes once the zip has ended). */
  | { path: string; localFile: string; mtime: Date }
  /** An empty folder (the path ends in /). */
  | { path: string; directory: true; mtime: Date };

/**
 * A zip of `entries` as a stream, written as it is read: yazl asks for each entry's bytes only when it reaches it
 * and stores them without recompressing, so memory stays flat whatever the objects weigh; the central directory's
 * records wait in a temp file until the end (zip-entry-list.ts). `entries` may be produced lazily (pages of database
 * rows). A storage failure or an error of `entries` mid-way destroys the stream; so does destroying the stream (a
 * client gone away), which also closes the stored object being read.
 */
export function storedZipStream(
  ctx: AppContext,
  entries: Iterable<ZipEntry> | AsyncIterable<ZipEntry>,
  logFields: Record<string, unknown>,
): Readable {
  const zip = new yazl.ZipFile();
  const written = compactEntryList(zip, storageTempDir(ctx.config));
  const zipped = zip.outputStream as Readable;
  const assembled = Readable.from(written.assemble(zipped), { objectMode: false });
  const output = new PassThrough();
  /** The stored object being read into the zip right now (one at a time). */
  let reading: Readable | undefined;
  const fail = (err: Error) => {
    ctx.log.error({ err, ...logFields }, 'zip failed while streaming');
    output.destroy(err);
  };
  zip.on('error', fail);
  // The records' temp file could not be written or read back.
  assembled.on('error', fail);
  // A reader that goes away mid-way must not leave a stored object open and paused.
  output.on('close', () => {
    if (assembled.readableEnded) return;
    reading?.destroy();
    zipped.destroy();
    assembled.destroy();
    written.close();
  });
  // Entries are taken from `entries` only a little ahead of the entry being written, so that a lazy source (pages of
  // database rows) is read as the zip goes rather than all at once.
  let added = 0;
  let reached = 0;
  let wake: (() => void) | undefined;
  const nudge = () => {
    const resume = wake;
    wake = undefined;
    resume?.();
  };
  output.on('close', nudge);
  const open = (entry: { storageKey: string } | { localFile: string }) =>
    'storageKey' in entry ? ctx.storage.get(entry.storageKey) : Promise.resolve(createReadStream(entry.localFile));
  const add = (entry: ZipEntry) => {
    if ('directory' in entry) return zip.addEmptyDirectory(entry.path, { mtime: entry.mtime });
    added += 1;
    zip.addReadStreamLazy(entry.path, { compress: false, mtime: entry.mtime }, (callback) => {
      reached += 1;
      written.setAside();
      nudge();
      open(entry).then(
        (stream) => {
          if (output.destroyed) return void stream.destroy();
          reading = stream;
          callback(null, stream);
        },
        (err: unknown) => callback(err, undefined as unknown as Readable),
      );
    });
  };
  void (async () => {
    for await (const entry of entries) {
      while (added - reached >= ENTRIES_AHEAD && !output.destroyed)
        await new Promise<void>((resolve) => (wake = resolve));
      if (output.destroyed) return;
      add(entry);
    }
    written.restore();
    zip.end();
  })().catch((err: unknown) => {
    ctx.log.error({ err, ...logFields }, 'zip entries could not be listed');
    output.destroy(err as Error);
  });
  assembled.pipe(output);
  return output;
}

/** The zip of `folder` as a stream. A storage failure mid-way destroys the stream (the client sees a cut download). */
export function folderZipStream(ctx: AppContext, folder: FolderRow, options: FolderZipOptions): Readable {
  return storedZipStream(ctx, folderEntries(ctx, folder, options), { folderId: folder.id });
}

/** A folder and the stream of its zip. */
export interface FolderZip {
  folder: FolderRow;
  stream: Readable;
}

/** The zip of one of `userId`'s folders, for its owner (4001 when it is not theirs). */
export async function ownFolderZip(ctx: AppContext, userId: string, id: string): Promise<FolderZip> {
  const folder = await getOwnFolder(ctx, userId, id);
  return { folder, stream: folderZipStream(ctx, folder, { audience: 'owner' }) };
}

/** The zip of a public folder, for anyone (4001 missing, 3002 not public). */
export async function publicFolderZip(ctx: AppContext, id: string): Promise<FolderZip> {
  const folder = await findPublicFolder(ctx, id);
  return { folder, stream: folderZipStream(ctx, folder, { audience: 'public' }) };
}
