// Serving a file to whoever has its link (/u/<name>, /raw/<name>, /view/<name>): one indexed look-up by name (and,
// only when no file has that name, one by the extensionless name of a link without the extension), expiry (an
// expired file is removed on access), passwords (unlocked by short-lived signed tokens) and max views (counted by one
// conditional UPDATE, so that concurrent downloads cannot go past the limit).
import type { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import type { AppContext } from '../../context.js';
import { NOT_NOW, precompiledByKey } from '../../db/precompiled.js';
import type { Db, FileRow, UserRow } from '../../db/schema/tables.js';
import { ApiError } from '../../lib/errors.js';
import { mediaKind } from '../../lib/formats/media-types.js';
import { passwordVersion, verifyPassword } from '../../lib/security/passwords.js';
import { StorageNotFoundError } from '../../storage/datasource.js';
import { then, type Eventually } from '../../lib/eventually.js';
import { planBytes, type BeforeLastByte, type BytesPlan, type BytesRequest } from './bytes-plan.js';
import { parseView } from '../accounts/dto.js';
import type { UserViewSettings } from '../../schemas/user.js';
import { deleteFiles, fileByIdOrName, findManagedFile, managesFilesOf } from '../files/manage.js';
import { removeBlobs } from '../files/blob-deletions.js';
import { countViewWithinLimit, deleteFileRecord, deleteUsedUpFile } from '../files/records.js';
import { ownerNotDeleted } from '../accounts/deleted-owners.js';

/** How long a token handed out for a right password opens the file. */
export const FILE_ACCESS_TOKEN_TTL_MS = 30 * 60_000;
const ACCESS_PURPOSE = 'file-access';

/** The columns serving needs (not the password hash's value, only whether there is one). */
export type ServedFile = Pick<
  FileRow,
  | 'id'
  | 'name'
  | 'original_name'
  | 'type'
  | 'size'
  | 'views'
  | 'max_views'
  | 'password'
  | 'deletes_at'
  | 'user_id'
  | 'storage_key'
  | 'created_at'
  | 'folder_id'
  | 'private'
>;

/** The columns of ServedFile, as every look-up of a file to serve reads them. */
const SERVED_COLUMNS = [
  'id',
  'name',
  'original_name',
  'type',
  'size',
  'views',
  'max_views',
  'password',
  'deletes_at',
  'user_id',
  'storage_key',
  'created_at',
  'folder_id',
  'private',
] as const;

/** What the fast path reads: the view count is not among them (kept copies would hold it stale). */
const PLAIN_COLUMNS = SERVED_COLUMNS.filter(
  (c): c is Exclude<(typeof SERVED_COLUMNS)[number], 'views'> => c !== 'views',
);

/** A file by the name it is served under, unless its owner is being deleted: the files.name index. */
const byServedName = (db: Db, name: string) =>
  db.selectFrom('files').where('name', '=', name).where(ownerNotDeleted('files.user_id'));

/**
 * A file by the extensionless name of its link (abc for abc.png, migration 0036), unless its owner is being deleted:
 * the files_extensionless_name index. Asked only when no file has the name.
 */
const byExtensionlessName = (db: Db, name: string) =>
  db.selectFrom('files').where('extensionless_name', '=', name).where(ownerNotDeleted('files.user_id'));

/** The look-up of every /raw, /u and /view request. */
const servedFileByName = precompiledByKey((db, name) => byServedName(db, name).select(SERVED_COLUMNS));
/** The look-up after a miss of servedFileByName. */
const servedFileByExtensionlessName = precompiledByKey((db, name) =>
  byExtensionlessName(db, name).select(SERVED_COLUMNS),
);

/** Cache-Control of a file's bytes under its public links. */
export function servedCacheControl(file: Pick<ServedFile, 'password' | 'max_views' | 'private'>): string {
  // Views of these must reach us to be counted or checked; a private file's answer is for its owner alone.
  return file.password !== null || file.max_views !== null || file.private === 1
    ? 'private, no-store'
    : 'public, max-age=3600';
}

/** A file whose public answer needs nothing but its record and its bytes in memory (the fast path's). */
export type PlainPublicFile = Readonly<Omit<ServedFile, 'views'>>;

/**
 * For the fast path (http/serving/fast-path.ts): the file served under `name` when answering needs nothing but its
 * record and its bytes in memory: not expired, public, no password, no view limit, small and already in memory.
 * Otherwise undefined (the route then answers; nothing was counted). A name no file has is looked up as an
 * extensionless link's. The record is shared between requests while it is current (plainFileByName): never changed.
 * Synchronous when the database can answer at once (SQLite).
 */
export function plainPublicFile(ctx: AppContext, name: string): Eventually<PlainPublicFile | undefined> {
  const plain = (file: PlainPublicFile | undefined): PlainPublicFile | undefined => {
    if (
      file === undefined ||
      (file.deletes_at !== null && file.deletes_at <= ctx.clock.now()) ||
      file.private !== 0 ||
      file.password !== null ||
      file.max_views !== null ||
      file.size === 0 ||
      file.size > ctx.smallFiles.maxEntryBytes
    )
      return undefined;
    const bytes = ctx.smallFiles.peek(file.storage_key);
    return bytes !== undefined && bytes.length === file.size ? file : undefined;
  };
  const lookUp = (query: typeof plainFileByName): Eventually<PlainPublicFile | undefined> => {
    const now = query.now(ctx.db, name);
    return now === NOT_NOW ? query(ctx.db, name) : now;
  };
  return then(
    then(lookUp(plainFileByName), (file) => file ?? lookUp(plainFileByExtensionlessName)),
    plain,
  );
}

/**
 * The look-up of the fast path: the served columns but the view count (which it does not need), kept in memory on
 * SQLite while none of them may have changed (db/sqlite/row-watch.ts watches these columns of files, and user_deletions).
 * The rows answered are shared: nothing may change them.
 */
const plainFileByName = precompiledByKey((db, name) => byServedName(db, name).select(PLAIN_COLUMNS), {
  cache: { tables: [{ table: 'files', columns: PLAIN_COLUMNS }, { table: 'user_deletions' }], entries: 10_000 },
});

/** The same by extensionless name, after a miss of plainFileByName, kept while the same columns and that one stay. */
const plainFileByExtensionlessName = precompiledByKey(
  (db, name) => byExtensionlessName(db, name).select(PLAIN_COLUMNS),
  {
    cache: {
      tables: [{ table: 'files', columns: [...PLAIN_COLUMNS, 'extensionless_name'] }, { table: 'user_deletions' }],
      entries: 10_000,
    },
  },
);

type ExpiredStatus = { expiredStatus?: 404 | 410 };

/**
 * The file served under `name`; missing or expired -> 4000 (an expired one is deleted on the way; its status is
 * `expiredStatus`, 410 for /view as Zipline answers it).
 */
export async function findServedFile(ctx: AppContext, name: string, options: ExpiredStatus = {}): Promise<ServedFile> {
  const row = (await servedFileByName(ctx.db, name)) ?? (await servedFileByExtensionlessName(ctx.db, name));
  return liveFile(ctx, row, options);
}

/** The same by id (a share link's file); missing or expired -> 4000. */
export async function findServedFileById(ctx: AppContext, id: string): Promise<ServedFile> {
  const row = await ctx.db
    .selectFrom('files')
    .select(SERVED_COLUMNS)
    .where('id', '=', id)
    .where(ownerNotDeleted('files.user_id'))
    .executeTakeFirst();
  return liveFile(ctx, row);
}

async function liveFile(
  ctx: AppContext,
  row: ServedFile | undefined,
  options: ExpiredStatus = {},
): Promise<ServedFile> {
  if (!row) throw new ApiError(4000);
  if (row.deletes_at !== null && row.deletes_at <= ctx.clock.now()) {
    await deleteFiles(ctx, [row]);
    throw new ApiError(4000, 'expired', { status: options.expiredStatus ?? 404 });
  }
  return row;
}

/**
 * A private file is served under its plain links to its owner only; anyone else (signed in or not) gets what a
 * missing file gets (4000), and reaches it only through a share link (services/serving/share-links.ts).
 */
export function assertVisibleTo(file: Pick<ServedFile, 'private' | 'user_id'>, viewerId: string | null): void {
  if (file.private === 1 && (viewerId === null || viewerId !== file.user_id)) throw new ApiError(4000);
}

/**
 * Whether the caller may read a password-protected file: no token -> 3004, a token that is forged, expired or for
 * another file -> 3018. Files without a password are always readable.
 */
export function assertUnlocked(
  ctx: AppContext,
  file: Pick<ServedFile, 'id' | 'password'>,
  token: string | undefined,
): void {
  if (file.password === null) return;
  if (token === undefined || token === '') throw new ApiError(3004);
  const claims = ctx.secrets.verify<{ f: string; v?: string }>(ACCESS_PURPOSE, token, ctx.clock.now());
  if (!claims || claims.f !== file.id || claims.v !== passwordVersion(ctx.secrets, file.password))
    throw new ApiError(3018);
}

export interface FileAccessToken {
  token: string;
  expiresAt: number;
}

function issueAccessToken(ctx: AppContext, file: Pick<FileRow, 'id' | 'password'>): FileAccessToken {
  const expiresAt = ctx.clock.now() + FILE_ACCESS_TOKEN_TTL_MS;
  const claims = { f: file.id, v: passwordVersion(ctx.secrets, file.password) };
  return { token: ctx.secrets.sign(ACCESS_PURPOSE, claims, expiresAt), expiresAt };
}

/**
 * POST /api/user/files/:id/password: the right password (or the owner, or an admin who manages the owner, asking) -> a short-lived token
 * for ?token=; a wrong password -> 3005. The file is found by id or served name; missing -> 4000.
 */
export async function unlockFile(
  ctx: AppContext,
  idOrName: string,
  password: string | undefined,
  caller: Pick<UserRow, 'id' | 'role'> | null,
  /** Counts one guess at this file's password (throws when there were too many): passwordGuessGuard. */
  countGuess: (fileId: string) => Promise<void>,
): Promise<FileAccessToken & { fileId: string; name: string }> {
  const row = await fileByIdOrName(ctx, idOrName);
  if (!row || (row.deletes_at !== null && row.deletes_at <= ctx.clock.now())) throw new ApiError(4000);
  const trusted = caller !== null && (await managesFilesOf(ctx, caller, [row.user_id]));
  if (row.private === 1 && !trusted) throw new ApiError(4000);
  if (row.password !== null && !trusted) {
    await countGuess(row.id);
    if (!(await verifyPassword(row.password, password ?? ''))) throw new ApiError(3005);
  }
  return { ...issueAccessToken(ctx, row), fileId: row.id, name: row.name };
}

export type ViewOutcome = { last: boolean };

/**
 * Counts one view: in memory (view-counts.ts) for a file without max views; with max views by a conditional UPDATE: when it had none left it is deleted and
 * the answer is 4000. `last` says this was its last allowed view: the caller serves it, then calls finishLastView.
 */
export function countView(ctx: AppContext, file: CountedFile): Eventually<ViewOutcome> {
  if (file.max_views === null) {
    ctx.views.add('files', file.id);
    return { last: false };
  }
  return countLimitedView(ctx, file);
}

/** The columns counting a view needs. */
type CountedFile = Pick<ServedFile, 'id' | 'max_views' | 'storage_key'>;

/** A view of a file with a view limit: one conditional UPDATE, exact across instances and crashes. */
async function countLimitedView(ctx: AppContext, file: CountedFile): Promise<ViewOutcome> {
  const counted = await countViewWithinLimit(ctx.db, file.id);
  // The owner's view total follows with the next flush of the batched views (no shared row written here).
  if (counted) ctx.views.written('files', file.id, counted.user_id);
  if (!counted) {
    // No views left. Whoever removes the record removes the bytes: not a request that lost the race against the
    // last view, whose bytes are still being sent.
    const removed = await deleteUsedUpFile(ctx.db, file.id);
    if (Number(removed.numDeletedRows) > 0) await removeBlobs(ctx, [file.storage_key]);
    throw new ApiError(4000);
  }
  const last = counted.max_views !== null && counted.views >= counted.max_views;
  if (last) {
    // Gone for everyone else at once; the bytes stay until this answer has been sent.
    await deleteFileRecord(ctx.db, file.id);
  }
  return { last };
}

/**
 * Counts the view that a GET of a file's bytes is, when it reads from the start (a ranged continuation is the same
 * view going on). A file with max views counts every GET, ranged or not: a view limit must not be read around with
 * `Range: bytes=1-` (so such a file is best fetched whole). For the last allowed view it returns what deletes the
 * bytes, to run before the client holds the last byte.
 */
export function countBytesView(
  ctx: AppContext,
  file: CountedFile,
  span: { start: number } | undefined,
): Eventually<BeforeLastByte | undefined> {
  if (span !== undefined && span.start !== 0 && file.max_views === null) return undefined;
  return then(countView(ctx, file), ({ last }) => (last ? () => finishLastView(ctx, file) : undefined));
}

/**
 * The answer to a request for a file's bytes under its public links (/raw/<name>, /u/<name>), once the caller may
 * see it: a password-protected file needs its access token (3004, 3018); a GET from the start counts a view.
 */
export function servedBytesPlan(
  ctx: AppContext,
  file: Omit<ServedFile, 'views'>,
  request: BytesRequest,
  token: string | undefined,
): BytesPlan {
  assertUnlocked(ctx, file, token);
  return planBytes(file, request, {
    cacheControl: servedCacheControl(file),
    open: (span) => openFileBytes(ctx, file, span),
    opened: (span) => countBytesView(ctx, file, span),
  });
}

/**
 * The answer to the request of whoever manages a file (its owner, an admin who manages the owner) for its bytes, by
 * id or served name (else 4000): previews and downloads, no view counted, no password asked.
 */
export async function ownBytesPlan(
  ctx: AppContext,
  caller: Pick<UserRow, 'id' | 'role'>,
  idOrName: string,
  request: BytesRequest,
): Promise<BytesPlan> {
  const file = await findManagedFile(ctx, caller, idOrName);
  return planBytes(file, request, {
    // The caller's own bytes: the browser may keep them, privately.
    cacheControl: 'private, max-age=3600',
    open: (span) => openFileBytes(ctx, file, span),
  });
}

/**
 * A stored file's bytes (all, or bytes start..end): a small file's from memory (ctx.smallFiles, filled on its first
 * read), a larger one's as a stream from the datasource. Bytes gone from the datasource -> 4000.
 */
export function openFileBytes(
  ctx: AppContext,
  file: Pick<FileRow, 'id' | 'storage_key' | 'size'>,
  span?: { start: number; end: number },
): Eventually<Readable | Buffer> {
  if (file.size > ctx.smallFiles.maxEntryBytes) return streamFileBytes(ctx, file, span);
  const inMemory = ctx.smallFiles.get(file.storage_key);
  if (inMemory !== undefined) return span ? inMemory.subarray(span.start, span.end + 1) : inMemory;
  return readSmallFile(ctx, file).then((bytes) => (span ? bytes.subarray(span.start, span.end + 1) : bytes));
}

/** A small file's bytes, read whole and kept in memory for the next reads. */
async function readSmallFile(ctx: AppContext, file: Pick<FileRow, 'id' | 'storage_key' | 'size'>): Promise<Buffer> {
  const bytes = await buffer(await streamFileBytes(ctx, file));
  // The bytes under a key never change (a key is never reused), so they may be kept as long as there is room.
  if (bytes.length === file.size) ctx.smallFiles.set(file.storage_key, bytes);
  return bytes;
}

async function streamFileBytes(
  ctx: AppContext,
  file: Pick<FileRow, 'id' | 'storage_key'>,
  span?: { start: number; end: number },
): Promise<Readable> {
  try {
    return await ctx.storage.get(file.storage_key, span);
  } catch (err) {
    if (!(err instanceof StorageNotFoundError)) throw err;
    // `chute storage inline` may have moved the bytes since the record was read (services/files/inline-storage.ts):
    // the record then names their new place, and the old one is gone.
    const now = await ctx.db.selectFrom('files').select('storage_key').where('id', '=', file.id).executeTakeFirst();
    if (now === undefined || now.storage_key === file.storage_key) throw new ApiError(4000, undefined, { cause: err });
    return streamFileBytes(ctx, { id: file.id, storage_key: now.storage_key }, span);
  }
}

/** After the last allowed view was sent (or failed): its bytes go. */
export async function finishLastView(ctx: AppContext, file: Pick<ServedFile, 'storage_key'>): Promise<void> {
  await removeBlobs(ctx, [file.storage_key]);
}

/** The owner's view settings (for /u/<name> in browsers and the view page). */
export async function ownerViewSettings(ctx: AppContext, userId: string | null): Promise<UserViewSettings> {
  if (userId === null) return {};
  const row = await ctx.db.selectFrom('users').select('view').where('id', '=', userId).executeTakeFirst();
  return row ? parseView(row.view) : {};
}

/** The first `maxBytes` of a file as text (for the view page), and whether there was more. */
export async function readTextPreview(
  ctx: AppContext,
  file: ServedFile,
  maxBytes: number,
): Promise<{ text: string; truncated: boolean }> {
  if (file.size === 0) return { text: '', truncated: false };
  const end = Math.min(file.size, maxBytes) - 1;
  const bytes = await openFileBytes(ctx, file, { start: 0, end });
  const text = (Buffer.isBuffer(bytes) ? bytes : await buffer(bytes)).toString('utf8');
  return { text, truncated: file.size > maxBytes };
}

/**
 * What the view page of an unlocked file shows: the owner's view settings, the tags and folder they show, and for a
 * text file its first `previewBytes`. Reading that text is a view: it is counted (after `alsoCount`, e.g. a share
 * link's own view), and a last allowed view removes the bytes once read.
 */
export async function viewPageContent(
  ctx: AppContext,
  file: ServedFile,
  previewBytes: number,
  alsoCount?: () => Promise<void>,
): Promise<{
  view: UserViewSettings;
  details: Awaited<ReturnType<typeof viewPageDetails>>;
  preview: { text: string; truncated: boolean } | undefined;
}> {
  const view = await ownerViewSettings(ctx, file.user_id);
  const details = await viewPageDetails(ctx, file, view);
  let preview: { text: string; truncated: boolean } | undefined;
  if (mediaKind(file.type) === 'text' && !view.disableTextFiles) {
    await alsoCount?.();
    const { last } = await countView(ctx, file);
    try {
      preview = await readTextPreview(ctx, file, previewBytes);
    } finally {
      if (last) await finishLastView(ctx, file);
    }
  }
  return { view, details, preview };
}

/** Whether a token opens this file (for pages, which show a password form rather than an error). */
export function isUnlocked(
  ctx: AppContext,
  file: Pick<ServedFile, 'id' | 'password'>,
  token: string | undefined,
): boolean {
  try {
    assertUnlocked(ctx, file, token);
    return true;
  } catch {
    return false;
  }
}

export interface ViewPageTag {
  name: string;
  color: string;
}

export interface ViewPageFolder {
  id: string;
  name: string;
  /** Public folders are linked to their page. */
  public: boolean;
}

/** The tags and folder the owner's view settings show on the page (nothing is read for settings that are off). */
export async function viewPageDetails(
  ctx: AppContext,
  file: Pick<ServedFile, 'id' | 'folder_id'>,
  view: UserViewSettings,
): Promise<{ tags?: ViewPageTag[]; folder?: ViewPageFolder }> {
  const [tags, folder] = await Promise.all([
    view.showTags
      ? ctx.db
          .selectFrom('file_tags')
          .innerJoin('tags', 'tags.id', 'file_tags.tag_id')
          .select(['tags.name', 'tags.color'])
          .where('file_tags.file_id', '=', file.id)
          .orderBy('tags.name')
          .execute()
      : undefined,
    view.showFolder && file.folder_id !== null
      ? ctx.db
          .selectFrom('folders')
          .select(['id', 'name', 'public'])
          .where('id', '=', file.folder_id)
          .executeTakeFirst()
      : undefined,
  ]);
  return {
    ...(tags ? { tags } : {}),
    ...(folder ? { folder: { id: folder.id, name: folder.name, public: folder.public === 1 } } : {}),
  };
}
