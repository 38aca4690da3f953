// Files as their owners manage them: reading, editing, deleting one or many, recent files and statistics (the File
// shape: files/dto.ts; listing: lists/files.ts). Another user's file is answered like a missing one (4000);
// ADMIN and SUPERADMIN may manage the files of the accounts they manage (managesFilesOf). Deleting a file deletes
// its bytes too.
import type { AppContext } from '../../context.js';
import { isUniqueViolation } from '../../db/errors.js';
import type { FileRow, UserRow } from '../../db/schema/tables.js';
import { ApiError } from '../../lib/errors.js';
import { MAX_EXPIRY_MS } from '../../lib/text/durations.js';
import { assertUsableFileName, assertUsableOriginalName, withoutExtension } from '../../lib/text/file-names.js';
import { managesRole } from '../../lib/security/roles.js';
import { typeCounts, usageOfOne } from '../statistics/usage.js';
import { thumbnailKeyOf } from '../media/thumbnail-names.js';
import { flushViews } from '../serving/view-counts.js';
import { deleteFilesById, deleteFilesKeepingBytes, deleteFilesWhere, yieldToRequests } from './deletions.js';
import { setColumnOfFiles, setFileColumns } from './records.js';
import { servedNamesTaken } from './link-names.js';
import { mimeEssence } from '../../lib/formats/media-types.js';
import { hashPassword } from '../../lib/security/passwords.js';
import { assertTagsOf, setFileTags } from '../organise/tags.js';

type Caller = Pick<UserRow, 'id' | 'role'>;

/** How many files of a bulk request one statement reads. */
const BULK_READ = 500;

export const isAdmin = (user: Pick<UserRow, 'role'>): boolean => user.role === 'ADMIN' || user.role === 'SUPERADMIN';

/**
 * Whether `caller` may manage files of these owners: their own always; others' as the account hierarchy allows (an
 * ADMIN a USER's, a SUPERADMIN a USER's or an ADMIN's, never another SUPERADMIN's). Files left without an owner
 * (null) are any admin's to manage.
 */
export async function managesFilesOf(
  ctx: AppContext,
  caller: Caller,
  ownerIds: ReadonlyArray<string | null>,
): Promise<boolean> {
  const others = [...new Set(ownerIds.filter((id): id is string => id !== null && id !== caller.id))];
  if (!ownerIds.every((id) => id === caller.id) && !isAdmin(caller)) return false;
  if (others.length === 0) return true;
  const owners = await ctx.db.selectFrom('users').select('role').where('id', 'in', others).execute();
  return owners.every((owner) => managesRole(caller.role, owner.role));
}

/**
 * Removes stored bytes that no record refers to (an upload that failed before its record), with their thumbnail; a
 * failure is logged, not thrown. Bytes of deleted records go through services/files/blob-deletions.ts instead.
 */
export async function deleteStoredBytes(ctx: AppContext, key: string): Promise<void> {
  ctx.smallFiles.delete(key);
  const keys = [key, thumbnailKeyOf(key)];
  await Promise.all(
    keys.map(async (k) => {
      try {
        await ctx.storage.delete(k);
      } catch (err) {
        ctx.log.error({ err, key: k }, 'could not delete the stored bytes of a file');
      }
    }),
  );
}

/**
 * Deletes file records, then their bytes: in short batches when there are many (services/files/deletions.ts), each record
 * with the note of its bytes (removed after the commit, or after a crash on the next start). Returns how many records
 * this call deleted: a record that another request deleted meanwhile is that request's.
 */
export async function deleteFiles(ctx: AppContext, rows: Array<Pick<FileRow, 'id'>>): Promise<number> {
  return deleteFilesById(
    ctx,
    rows.map((r) => r.id),
  );
}

/** Deletes every file whose deletesAt has passed (the periodic sweep), in short batches. Returns how many went. */
export async function deleteExpiredFiles(ctx: AppContext): Promise<number> {
  const now = ctx.clock.now();
  return deleteFilesWhere(ctx, (size) =>
    ctx.db.selectFrom('files').select('id').where('deletes_at', '<=', now).limit(size),
  );
}

/**
 * A file by id or by served name (the API takes either), or undefined; a name no file has is looked up as the
 * extensionless name of a link without the extension (abc for abc.png), as serving does.
 */
export async function fileByIdOrName(ctx: AppContext, idOrName: string): Promise<FileRow | undefined> {
  const row = await ctx.db
    .selectFrom('files')
    .selectAll()
    .where((eb) => eb.or([eb('id', '=', idOrName), eb('name', '=', idOrName)]))
    .executeTakeFirst();
  return row ?? ctx.db.selectFrom('files').selectAll().where('extensionless_name', '=', idOrName).executeTakeFirst();
}

/** A file the caller may manage, by id or by served name; missing or not theirs (unless admin) -> 4000. */
export async function findManagedFile(ctx: AppContext, caller: Caller, idOrName: string): Promise<FileRow> {
  const row = await fileByIdOrName(ctx, idOrName);
  if (!row || !(await managesFilesOf(ctx, caller, [row.user_id]))) throw new ApiError(4000);
  return row;
}

/**
 * The folder that files are put into (an upload's x-service-folder, a bulk move): missing -> `missingCode` (4001 for
 * an upload, 3006 for a move, as Zipline); when it is not the folder of every file's owner -> 3011.
 */
export async function folderForFiles(
  ctx: AppContext,
  folderId: string,
  files: Array<Pick<FileRow, 'user_id'>>,
  missingCode: 4001 | 3006 = 4001,
): Promise<{ name: string }> {
  const folder = await ctx.db
    .selectFrom('folders')
    .select(['user_id', 'name'])
    .where('id', '=', folderId)
    .executeTakeFirst();
  if (!folder) throw new ApiError(missingCode, folderId);
  if (files.some((f) => f.user_id !== folder.user_id)) throw new ApiError(3011);
  return folder;
}

export { FILE_SEARCH_FIELDS, FILE_SORT_FIELDS } from '../../lib/file-list.js';

/** The newest `take` files of the caller. */
export function recentFiles(ctx: AppContext, caller: Caller, take: number): Promise<FileRow[]> {
  return recentFilesQuery(ctx, caller, take).execute();
}

/** The newest files through files_user_created_id (read backwards: no sort). Exported for the plan tests. */
export function recentFilesQuery(ctx: AppContext, caller: Pick<Caller, 'id'>, take: number) {
  return ctx.db
    .selectFrom('files')
    .selectAll()
    .where('user_id', '=', caller.id)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(take);
}

export interface FileStats {
  filesUploaded: number;
  favoriteFiles: number;
  views: number;
  avgViews: number;
  storageUsed: number;
  avgStorageUsed: number;
  urlsCreated: number;
  urlViews: number;
  sortTypeCount: Record<string, number>;
}

/** The caller's totals: files, favourites, views, bytes stored, short URLs, and files by type (stored counters). */
export async function fileStats(ctx: AppContext, caller: Caller): Promise<FileStats> {
  // Totals of views include the ones this instance still holds in memory.
  await flushViews(ctx);
  const [usage, types] = await Promise.all([usageOfOne(ctx.db, caller.id), typeCounts(ctx.db, caller.id)]);
  const { files: count, bytes, fileViews: views } = usage;
  const sortTypeCount: Record<string, number> = {};
  for (const t of types) sortTypeCount[t.type] = t.files;
  return {
    filesUploaded: count,
    favoriteFiles: usage.favorites,
    views,
    avgViews: count === 0 ? 0 : views / count,
    storageUsed: bytes,
    avgStorageUsed: count === 0 ? 0 : bytes / count,
    urlsCreated: usage.urls,
    urlViews: usage.urlViews,
    sortTypeCount,
  };
}

export interface FilePatch {
  name?: string | undefined;
  originalName?: string | null | undefined;
  favorite?: boolean | undefined;
  password?: string | null | undefined;
  maxViews?: number | null | undefined;
  type?: string | undefined;
  /** When the file is deleted (epoch ms, in the future), or null to keep it. */
  deletesAt?: number | null | undefined;
  /** Served only to the owner and through share links. */
  private?: boolean | undefined;
}

/**
 * updateFile(), and with `tagIds` (Zipline's `tags` key) the file's tags set to exactly those. They are checked (1032
 * for one that is not the owner's) before anything changes, so that a bad one leaves the file as it was.
 */
export async function updateFileAndTags(
  ctx: AppContext,
  caller: Caller,
  idOrName: string,
  patch: FilePatch,
  tagIds: string[] | undefined,
): Promise<FileRow> {
  if (tagIds !== undefined) {
    const file = await findManagedFile(ctx, caller, idOrName);
    if (file.user_id !== null) await assertTagsOf(ctx, file.user_id, tagIds);
  }
  const row = await updateFile(ctx, caller, idOrName, patch);
  if (tagIds !== undefined && row.user_id !== null) await setFileTags(ctx, row.user_id, row.id, tagIds, 'replace');
  return row;
}

/**
 * PATCH /api/user/files/:id. A taken name (another file's name or extensionless link name) -> 1014, a bad one ->
 * 1007/1009, a bad originalName -> 1008, type -> 1065, an expiry that is not in the future -> 1000. A file with a link
 * without the extension keeps one, under its new name.
 */
export async function updateFile(
  ctx: AppContext,
  caller: Caller,
  idOrName: string,
  patch: FilePatch,
): Promise<FileRow> {
  const row = await findManagedFile(ctx, caller, idOrName);
  const changes: Partial<FileRow> = {};
  if (patch.name !== undefined && patch.name !== row.name) {
    assertUsableFileName(patch.name);
    changes.name = patch.name;
    // A file handed a link without the extension keeps such a link, under its new name: its old links stop working,
    // as the old link of any renamed file does.
    if (row.extensionless_name !== null) changes.extensionless_name = withoutExtension(patch.name);
    if (await servedNamesTaken(ctx.db, [patch.name, changes.extensionless_name ?? null], row.id))
      throw new ApiError(1014, patch.name);
  }
  if (patch.originalName !== undefined) {
    if (patch.originalName !== null) assertUsableOriginalName(patch.originalName);
    changes.original_name = patch.originalName;
  }
  if (patch.favorite !== undefined) changes.favorite = patch.favorite ? 1 : 0;
  if (patch.private !== undefined) changes.private = patch.private ? 1 : 0;
  if (patch.password !== undefined) {
    changes.password = patch.password === null || patch.password === '' ? null : await hashPassword(patch.password);
  }
  if (patch.maxViews !== undefined)
    changes.max_views = patch.maxViews === null || patch.maxViews === 0 ? null : patch.maxViews;
  if (patch.type !== undefined) {
    const type = mimeEssence(patch.type);
    if (type === null || patch.type.includes(';')) throw new ApiError(1065, JSON.stringify(patch.type));
    changes.type = type;
  }
  if (patch.deletesAt !== undefined) {
    if (patch.deletesAt !== null && patch.deletesAt <= ctx.clock.now())
      throw new ApiError(1000, 'deletesAt must be in the future');
    if (patch.deletesAt !== null && patch.deletesAt > MAX_EXPIRY_MS)
      throw new ApiError(1000, 'deletesAt is too far in the future');
    changes.deletes_at = patch.deletesAt;
  }
  if (Object.keys(changes).length === 0) return row;
  changes.updated_at = ctx.clock.now();
  try {
    await setFileColumns(ctx.db, row.id, changes);
  } catch (err) {
    if (isUniqueViolation(err, 'name')) throw new ApiError(1014, changes.name);
    throw err;
  }
  return { ...row, ...changes };
}

/** DELETE /api/user/files/:id: the record and its bytes. */
export async function deleteFile(ctx: AppContext, caller: Caller, idOrName: string): Promise<FileRow> {
  const row = await findManagedFile(ctx, caller, idOrName);
  if ((await deleteFiles(ctx, [row])) === 0) throw new ApiError(4000);
  return row;
}

/**
 * The files of a bulk request: none found -> 1026; any that is another user's (for a USER) -> `forbidden`
 * (3013 for deletes, 3014 for updates).
 */
async function filesForBulk(
  ctx: AppContext,
  caller: Caller,
  ids: string[],
  forbidden: 3013 | 3014,
): Promise<Array<Pick<FileRow, 'id' | 'user_id'>>> {
  const unique = [...new Set(ids)];
  // In short reads with a turn of the event loop between them: a request may name 10,000 files.
  const rows: Array<Pick<FileRow, 'id' | 'user_id'>> = [];
  for (let i = 0; i < unique.length; i += BULK_READ) {
    if (i > 0) await yieldToRequests();
    rows.push(
      ...(await ctx.db
        .selectFrom('files')
        .select(['id', 'user_id'])
        .where('id', 'in', unique.slice(i, i + BULK_READ))
        .execute()),
    );
  }
  if (rows.length === 0) throw new ApiError(1026);
  if (
    !(await managesFilesOf(
      ctx,
      caller,
      rows.map((r) => r.user_id),
    ))
  )
    throw new ApiError(forbidden);
  return rows;
}

export interface BulkUpdate {
  files: string[];
  favorite?: boolean | undefined;
  /** Move into this folder; null takes the files out of their folder. */
  folder?: string | null | undefined;
}

/**
 * PATCH /api/user/files/transaction: favourite/unfavourite or move many files. No action -> 1020; when no file
 * actually changes (all already in that state) -> 1028 for favourites, 4006 for a move. The target folder must exist
 * (3006) and belong to the files' owner (3011).
 */
export async function updateFilesInBulk(
  ctx: AppContext,
  caller: Caller,
  input: BulkUpdate,
): Promise<{ count: number; name?: string }> {
  if (input.favorite === undefined && input.folder === undefined) throw new ApiError(1020);
  const rows = await filesForBulk(ctx, caller, input.files, 3014);
  let change: { column: 'favorite' | 'folder_id'; value: number | string | null };
  let folderName: string | undefined;
  if (input.favorite !== undefined) {
    change = { column: 'favorite', value: input.favorite ? 1 : 0 };
  } else {
    const folderId = input.folder ?? null;
    if (folderId !== null) {
      folderName = (await folderForFiles(ctx, folderId, rows, 3006)).name;
    }
    change = { column: 'folder_id', value: folderId };
  }
  // Only the files whose value differs are touched (and counted).
  const result = await setColumnOfFiles(
    ctx.db,
    rows.map((r) => r.id),
    change,
    ctx.clock.now(),
  );
  const count = Number(result.numUpdatedRows);
  // Nothing changed: 4006 for a move and 1028 for favourites, as Zipline.
  if (count === 0) throw new ApiError(change.column === 'folder_id' ? 4006 : 1028);
  return folderName === undefined ? { count } : { count, name: folderName };
}

/** DELETE /api/user/files/transaction: the records and their bytes. None deleted (gone meanwhile) -> 1027. */
export async function deleteFilesInBulk(
  ctx: AppContext,
  caller: Caller,
  ids: string[],
  options: { keepBytes?: boolean } = {},
): Promise<{ count: number }> {
  const rows = await filesForBulk(ctx, caller, ids, 3013);
  const count = options.keepBytes
    ? await deleteFilesKeepingBytes(
        ctx,
        rows.map((r) => r.id),
      )
    : await deleteFiles(ctx, rows);
  if (count === 0) throw new ApiError(1027);
  return { count };
}
