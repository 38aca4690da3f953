// Zips of stored files, streamed (storedZipStream: yazl asks for each file's bytes only when it reaches that entry,
// stores them without recompressing, and writes as it goes, so memory stays flat whatever the files weigh): a folder
// and the folders below it (folderZipStream), and a user's export (services/user-exports.ts).
import { createReadStream } from 'node:fs';
import { PassThrough, type Readable } from 'node:stream';
import yazl from 'yazl';
import type { AppContext } from '../context.js';
import type { FileRow, FolderRow } from '../db/types.js';

export interface FolderZipOptions {
  /**
   * public: only public child folders, and no password-protected files (their password guards the bytes) nor files
   * with max views (a zip counts no view).
   */
  audience: 'owner' | 'public';
}

interface ZipFileEntry {
  path: string;
  file: Pick<FileRow, 'storage_key' | 'created_at'>;
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

type ZipFileRow = Pick<FileRow, 'folder_id' | 'name' | 'original_name' | 'storage_key' | 'created_at' | 'id'>;

/** Files read per statement, so that a folder of 100,000 files never holds up other requests for long. */
const FILES_PAGE = 1000;

/** The files of one folder to put in its zip, oldest first, read in pages of files_folder_created. */
async function filesOfFolder(
  ctx: AppContext,
  folderId: string,
  options: FolderZipOptions,
  now: number,
): Promise<ZipFileRow[]> {
  const rows: ZipFileRow[] = [];
  let last: ZipFileRow | undefined;
  for (;;) {
    let query = ctx.db
      .selectFrom('files')
      .select(['folder_id', 'name', 'original_name', 'storage_key', 'created_at', 'id'])
      .where('folder_id', '=', folderId)
      .where((eb) => eb.or([eb('deletes_at', 'is', null), eb('deletes_at', '>', now)]));
    if (options.audience === 'public')
      query = query.where('password', 'is', null).where('max_views', 'is', null).where('private', '=', 0);
    if (last) {
      const after = last;
      query = query.where((eb) => eb(eb.refTuple('created_at', 'id'), '>', eb.tuple(after.created_at, after.id)));
    }
    const page = await query.orderBy('created_at').orderBy('id').limit(FILES_PAGE).execute();
    rows.push(...page);
    if (page.length < FILES_PAGE) return rows;
    last = page.at(-1);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** Every file to put in the zip with its path, and the folders (paths ending in /) that hold nothing. */
async function collectEntries(
  ctx: AppContext,
  root: FolderRow,
  options: FolderZipOptions,
): Promise<{ files: ZipFileEntry[]; emptyFolders: string[] }> {
  const files: ZipFileEntry[] = [];
  const emptyFolders: string[] = [];
  let level: Array<{ id: string; prefix: string }> = [{ id: root.id, prefix: '' }];
  const now = ctx.clock.now();
  for (let depth = 0; level.length > 0 && depth <= 64; depth++) {
    const ids = level.map((l) => l.id);
    let childQuery = ctx.db.selectFrom('folders').select(['id', 'name', 'parent_id']).where('parent_id', 'in', ids);
    if (options.audience === 'public') childQuery = childQuery.where('public', '=', 1);
    const children = await childQuery.orderBy('name').orderBy('id').execute();
    const levelFiles: ZipFileRow[] = [];
    for (const id of ids) levelFiles.push(...(await filesOfFolder(ctx, id, options, now)));
    const next: typeof level = [];
    for (const folder of level) {
      const taken = new Set<string>();
      const mine = levelFiles.filter((f) => f.folder_id === folder.id);
      const subfolders = children.filter((c) => c.parent_id === folder.id);
      for (const sub of subfolders)
        next.push({ id: sub.id, prefix: `${folder.prefix}${uniqueIn(taken, zipSegment(sub.name))}/` });
      for (const file of mine) {
        files.push({ path: folder.prefix + uniqueIn(taken, zipSegment(file.original_name ?? file.name)), file });
      }
      if (folder.prefix !== '' && mine.length === 0 && subfolders.length === 0) emptyFolders.push(folder.prefix);
    }
    level = next;
  }
  return { files, emptyFolders };
}

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
 * and stores them without recompressing, so memory stays flat whatever the objects weigh (yazl keeps one small record
 * per entry for the central directory). `entries` may be produced lazily (pages of database rows). A storage failure
 * or an error of `entries` mid-way destroys the stream; so does destroying the stream (a client gone away), which also
 * closes the stored object being read.
 */
export function storedZipStream(
  ctx: AppContext,
  entries: Iterable<ZipEntry> | AsyncIterable<ZipEntry>,
  logFields: Record<string, unknown>,
): Readable {
  const zip = new yazl.ZipFile();
  const zipped = zip.outputStream as Readable;
  const output = new PassThrough();
  /** The stored object being read into the zip right now (one at a time). */
  let reading: Readable | undefined;
  zip.on('error', (err: Error) => {
    ctx.log.error({ err, ...logFields }, 'zip failed while streaming');
    output.destroy(err);
  });
  // A reader that goes away mid-way must not leave a stored object open and paused.
  output.on('close', () => {
    if (zipped.readableEnded) return;
    reading?.destroy();
    zipped.destroy();
  });
  const open = (entry: { storageKey: string } | { localFile: string }) =>
    'storageKey' in entry ? ctx.storage.get(entry.storageKey) : Promise.resolve(createReadStream(entry.localFile));
  const add = (entry: ZipEntry) => {
    if ('directory' in entry) return zip.addEmptyDirectory(entry.path, { mtime: entry.mtime });
    zip.addReadStreamLazy(entry.path, { compress: false, mtime: entry.mtime }, (callback) => {
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
      if (output.destroyed) return;
      add(entry);
    }
    zip.end();
  })().catch((err: unknown) => {
    ctx.log.error({ err, ...logFields }, 'zip entries could not be listed');
    output.destroy(err as Error);
  });
  zipped.pipe(output);
  return output;
}

/** The zip of `folder` as a stream. A storage failure mid-way destroys the stream (the client sees a cut download). */
export async function folderZipStream(
  ctx: AppContext,
  folder: FolderRow,
  options: FolderZipOptions,
): Promise<Readable> {
  const { files, emptyFolders } = await collectEntries(ctx, folder, options);
  const entries: ZipEntry[] = [
    ...files.map(({ path, file }) => ({ path, storageKey: file.storage_key, mtime: new Date(file.created_at) })),
    ...emptyFolders.map((path) => ({ path, directory: true as const, mtime: new Date(folder.updated_at) })),
  ];
  return storedZipStream(ctx, entries, { folderId: folder.id });
}
