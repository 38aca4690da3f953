// Folders: a user's tree of folders (parentId), the files in them, deleting a folder with a choice of what happens to
// its files and child folders, and the public view of a folder its owner opened to anonymous visitors.
import type { AppContext } from '../../context.js';
import { lockUser } from '../../db/locks.js';
import type { Db, FileRow, FolderRow, NewFolder, UserRow } from '../../db/schema/tables.js';
import { ApiError } from '../../lib/errors.js';
import { newId } from '../../lib/security/ids.js';
import { isAdmin, managesFilesOf } from '../files/manage.js';
import { pageOfRows, type ReadRows } from '../lists/pages.js';
import { decodeListCursor, encodeListCursor, listKey, type ListPosition } from '../lists/cursors.js';
import { removeBlobs } from '../files/blob-deletions.js';
import {
  deleteOwnFilesInFolders,
  moveFilesOfFolder,
  moveOwnFilesIntoFolder,
  putFileIntoFolder,
  takeFileOutOfFolder,
  unfileFilesOfFolders,
} from '../files/records.js';
import { ownerNotDeleted, userNotDeleted } from '../accounts/deleted-owners.js';
import type { FolderWithCounts } from './dto.js';

/** Folder trees deeper than this are refused (and a cycle, were one ever stored, cannot loop forever). */
export const MAX_FOLDER_DEPTH = 64;

/** Folders with their stored file count (db/schema/list-counters.ts) and their children counted from folders_parent. */
function foldersWithCounts(db: Db) {
  return db
    .selectFrom('folders')
    .selectAll('folders')
    .select((eb) => [
      eb
        .selectFrom('folders as child')
        .select((e) => e.fn.countAll<number | string>().as('n'))
        .whereRef('child.parent_id', '=', 'folders.id')
        .as('child_count'),
    ]);
}

const withCounts = (row: FolderRow & { child_count: number | string | null }): FolderWithCounts => ({
  ...row,
  file_count: Number(row.file_count),
  child_count: Number(row.child_count ?? 0),
});

/**
 * The caller's folders by name: all of them (`parentId` undefined), the top level (null) or one folder's children; an
 * answer as long as the list. Read in order from folders_user_name_id or folders_user_parent_name; each folder's
 * file count stored, its children counted from folders_parent.
 */
export async function listFolders(
  ctx: AppContext,
  userId: string,
  parentId?: string | null,
): Promise<FolderWithCounts[]> {
  const rows = await folderList(ctx.db, userId, parentId).execute();
  return rows.map(withCounts);
}

function folderList(db: Db, userId: string, parentId: string | null | undefined) {
  let query = foldersWithCounts(db).where('folders.user_id', '=', userId);
  if (parentId === null) query = query.where('folders.parent_id', 'is', null);
  else if (parentId !== undefined) query = query.where('folders.parent_id', '=', parentId);
  return query.orderBy('folders.name').orderBy('folders.id');
}

export interface FolderPageQuery {
  page: number;
  perPage: number;
  /** A `nextCursor` of an earlier page of the same listing: the page after it (then `page` is not used). */
  cursor?: string | undefined;
}

/**
 * One page of the folders listFolders would answer, the number of them and the cursor of the next page: by number
 * from the nearer end of the order's index, or after a cursor's position (name, id).
 */
export async function listFolderPage(
  ctx: AppContext,
  userId: string,
  parentId: string | null | undefined,
  query: FolderPageQuery,
): Promise<{ rows: FolderWithCounts[]; total: number; nextCursor: string | null }> {
  const key = listKey(['folders', userId, parentId === undefined ? 'all' : parentId]);
  const after = query.cursor === undefined ? undefined : decodeListCursor(ctx, key, query.cursor, 'string');
  const { total } = await folderScope(ctx.db, userId, parentId)
    .select((eb) => eb.fn.countAll<number | string>().as('total'))
    .executeTakeFirstOrThrow();
  const count = Number(total);
  const read: ReadRows<FolderRow & { child_count: number | string | null }> = (direction, offset, limit) =>
    folderPageRead(ctx.db, userId, parentId, direction, undefined).limit(limit).offset(offset).execute();
  const { rows, hasNext } = await pageOfRows(
    { page: query.page, perPage: query.perPage, after },
    count,
    (position, limit) => folderPageRead(ctx.db, userId, parentId, 'forward', position).limit(limit).execute(),
    read,
  );
  const last = rows.at(-1);
  const nextCursor = hasNext && last ? encodeListCursor(ctx, key, { value: last.name, id: last.id }) : null;
  return { rows: rows.map(withCounts), total: count, nextCursor };
}

/** The user's folders: all, the top level (null) or one folder's children. */
function folderScope(db: Db, userId: string, parentId: string | null | undefined) {
  let query = db.selectFrom('folders').where('folders.user_id', '=', userId);
  if (parentId === null) query = query.where('folders.parent_id', 'is', null);
  else if (parentId !== undefined) query = query.where('folders.parent_id', '=', parentId);
  return query;
}

function folderPageRead(
  db: Db,
  userId: string,
  parentId: string | null | undefined,
  direction: 'forward' | 'backward',
  after: ListPosition | undefined,
) {
  const order = direction === 'forward' ? 'asc' : 'desc';
  return foldersWithCounts(db)
    .where('folders.user_id', '=', userId)
    .$if(parentId === null, (q) => q.where('folders.parent_id', 'is', null))
    .$if(typeof parentId === 'string', (q) => q.where('folders.parent_id', '=', parentId!))
    .$if(after !== undefined, (q) =>
      q.where((eb) => eb(eb.refTuple('folders.name', 'folders.id'), '>', eb.tuple(String(after!.value), after!.id))),
    )
    .orderBy('folders.name', order)
    .orderBy('folders.id', order);
}

/** The statements of listFolders and listFolderPage, compiled (for the tests of their query plans). */
export function folderListStatements(ctx: AppContext, userId: string) {
  const after = { value: 'm', id: 'm' };
  return {
    all: folderList(ctx.db, userId, undefined).compile(),
    top: folderList(ctx.db, userId, null).compile(),
    children: folderList(ctx.db, userId, 'm').compile(),
    allBackward: folderPageRead(ctx.db, userId, undefined, 'backward', undefined).limit(50).compile(),
    allAfter: folderPageRead(ctx.db, userId, undefined, 'forward', after).limit(50).compile(),
    childrenAfter: folderPageRead(ctx.db, userId, 'm', 'forward', after).limit(50).compile(),
    count: folderScope(ctx.db, userId, undefined)
      .select((eb) => eb.fn.countAll().as('n'))
      .compile(),
  };
}

/**
 * Zipline's `GET /api/user/folders?user=<id>`: the folders of another user, for an admin who manages that user (as
 * the file list's `id`): an unknown user -> 4009, a user the caller does not manage (or a non-admin) -> 3000.
 */
export async function listFoldersOf(
  ctx: AppContext,
  caller: Pick<UserRow, 'id' | 'role'>,
  ownerId: string,
  parentId?: string | null,
): Promise<FolderWithCounts[]> {
  await assertFoldersReadable(ctx, caller, ownerId);
  return listFolders(ctx, ownerId, parentId);
}

/** listFolderPage of another user's folders, for an admin who manages that user (as listFoldersOf). */
export async function listFolderPageOf(
  ctx: AppContext,
  caller: Pick<UserRow, 'id' | 'role'>,
  ownerId: string,
  parentId: string | null | undefined,
  query: FolderPageQuery,
): Promise<{ rows: FolderWithCounts[]; total: number; nextCursor: string | null }> {
  await assertFoldersReadable(ctx, caller, ownerId);
  return listFolderPage(ctx, ownerId, parentId, query);
}

async function assertFoldersReadable(ctx: AppContext, caller: Pick<UserRow, 'id' | 'role'>, ownerId: string) {
  if (ownerId !== caller.id && isAdmin(caller)) {
    const owner = await ctx.db
      .selectFrom('users')
      .select('id')
      .where('id', '=', ownerId)
      .where(userNotDeleted('users.id'))
      .executeTakeFirst();
    if (!owner) throw new ApiError(4009, ownerId);
  }
  if (!(await managesFilesOf(ctx, caller, [ownerId]))) throw new ApiError(3000);
}

/** The caller's folder; another user's is answered exactly like a missing one (4001). */
export async function getOwnFolder(ctx: AppContext, userId: string, id: string): Promise<FolderWithCounts> {
  const row = await foldersWithCounts(ctx.db)
    .where('folders.id', '=', id)
    .where('folders.user_id', '=', userId)
    .executeTakeFirst();
  if (!row) throw new ApiError(4001);
  return withCounts(row);
}

export interface FolderDetail {
  folder: FolderWithCounts;
  /** One page of the folder's files, newest first (folderFilesPage). */
  files: FileRow[];
  /** The cursor of the page of older files, null when there is none. */
  nextCursor: string | null;
  children: FolderWithCounts[];
  parents: Array<{ id: string; name: string }>;
}

/** The owner's view of a folder: missing or another user's -> 4001; its files one page at a time. */
export async function getFolderDetail(
  ctx: AppContext,
  userId: string,
  id: string,
  page: FolderFilesPage,
): Promise<FolderDetail> {
  const folder = await getOwnFolder(ctx, userId, id);
  const [files, children, parents] = await Promise.all([
    folderFilesPage(ctx, id, 'owner', page),
    listFolders(ctx, userId, id),
    ancestorsOf(ctx.db, folder.parent_id),
  ]);
  return {
    folder,
    files: files.rows,
    nextCursor: files.nextCursor,
    children,
    parents: parents.reverse().map((p) => ({ id: p.id, name: p.name })),
  };
}

/** The folder `startId` and its ancestors, nearest first. */
async function ancestorsOf(
  db: Db,
  startId: string | null,
): Promise<Array<Pick<FolderRow, 'id' | 'name' | 'parent_id' | 'public'>>> {
  const chain: Array<Pick<FolderRow, 'id' | 'name' | 'parent_id' | 'public'>> = [];
  let next = startId;
  while (next !== null && chain.length <= MAX_FOLDER_DEPTH) {
    const row = await db
      .selectFrom('folders')
      .select(['id', 'name', 'parent_id', 'public'])
      .where('id', '=', next)
      .executeTakeFirst();
    if (!row) break;
    chain.push(row);
    next = row.parent_id;
  }
  return chain;
}

/** The ids of `rootId` and every folder below it (breadth first, root first). */
export async function subtreeIds(db: Db, rootId: string, filter: { publicOnly?: boolean } = {}): Promise<string[]> {
  const all = [rootId];
  let level = [rootId];
  for (let depth = 0; level.length > 0 && depth <= MAX_FOLDER_DEPTH; depth++) {
    let query = db.selectFrom('folders').select('id').where('parent_id', 'in', level);
    if (filter.publicOnly) query = query.where('public', '=', 1);
    level = (await query.execute()).map((r) => r.id);
    all.push(...level);
  }
  return all;
}

/**
 * Checks a new parent for folder `selfId` (null for a folder being created): missing -> 4007, another user's -> 3003,
 * itself -> 1015, one of its own descendants -> 1016, too deep -> 1000.
 */
async function checkParent(db: Db, userId: string, parentId: string, selfId: string | null): Promise<void> {
  if (parentId === selfId) throw new ApiError(1015);
  const parent = await db.selectFrom('folders').select(['id', 'user_id']).where('id', '=', parentId).executeTakeFirst();
  if (!parent) throw new ApiError(4007);
  if (parent.user_id !== userId) throw new ApiError(3003);
  const ancestors = await ancestorsOf(db, parentId);
  if (selfId !== null && ancestors.some((a) => a.id === selfId)) throw new ApiError(1016);
  if (ancestors.length >= MAX_FOLDER_DEPTH) throw new ApiError(1000, `folders nest at most ${MAX_FOLDER_DEPTH} deep`);
}

export interface FolderInput {
  name: string;
  public?: boolean | undefined;
  allowUploads?: boolean | undefined;
  parentId?: string | null | undefined;
  /** Files of the user to put into the new folder (Zipline's `files`); one that is not theirs -> 4000. */
  fileIds?: string[] | undefined;
}

export async function createFolder(ctx: AppContext, userId: string, input: FolderInput): Promise<FolderWithCounts> {
  const now = ctx.clock.now();
  const row: NewFolder = {
    id: newId(),
    user_id: userId,
    parent_id: input.parentId ?? null,
    name: input.name,
    public: input.public ? 1 : 0,
    allow_uploads: input.allowUploads ? 1 : 0,
    created_at: now,
    updated_at: now,
  };
  await ctx.db.transaction().execute(async (trx) => {
    // Tree changes of one user are serialised, so that two concurrent moves cannot together make a cycle.
    await lockUser(trx, ctx.engine, userId);
    if (row.parent_id !== null) await checkParent(trx, userId, row.parent_id, null);
    await trx.insertInto('folders').values(row).execute();
    const fileIds = [...new Set(input.fileIds ?? [])];
    if (fileIds.length > 0) {
      const moved = await moveOwnFilesIntoFolder(trx, userId, fileIds, row.id, now);
      if (Number(moved.numUpdatedRows) !== fileIds.length) throw new ApiError(4000, 'a file is not yours');
    }
  });
  return { ...row, file_count: new Set(input.fileIds ?? []).size, child_count: 0 };
}

export type FolderPatch = Partial<FolderInput>;

export async function updateFolder(
  ctx: AppContext,
  userId: string,
  id: string,
  patch: FolderPatch,
): Promise<FolderWithCounts> {
  await ctx.db.transaction().execute(async (trx) => {
    await lockUser(trx, ctx.engine, userId);
    await ownFolderToChange(trx, userId, id);
    if (patch.parentId !== undefined && patch.parentId !== null) await checkParent(trx, userId, patch.parentId, id);
    await trx
      .updateTable('folders')
      .set({
        ...(patch.name !== undefined && { name: patch.name }),
        ...(patch.public !== undefined && { public: patch.public ? 1 : 0 }),
        ...(patch.allowUploads !== undefined && { allow_uploads: patch.allowUploads ? 1 : 0 }),
        ...(patch.parentId !== undefined && { parent_id: patch.parentId }),
        updated_at: ctx.clock.now(),
      })
      .where('id', '=', id)
      .execute();
  });
  return getOwnFolder(ctx, userId, id);
}

/** One of the user's folders, read in the transaction that changes it (the user is locked); missing -> 4001. */
async function ownFolderToChange(db: Db, userId: string, id: string): Promise<Pick<FolderRow, 'id' | 'parent_id'>> {
  const folder = await db
    .selectFrom('folders')
    .select(['id', 'parent_id'])
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  if (!folder) throw new ApiError(4001);
  return folder;
}

async function ownFileInFolder(db: Db, userId: string, fileId: string): Promise<Pick<FileRow, 'id' | 'folder_id'>> {
  const file = await db
    .selectFrom('files')
    .select(['id', 'folder_id'])
    .where('id', '=', fileId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  if (!file) throw new ApiError(4000);
  return file;
}

/** Puts one of the caller's files into the folder (out of any other): 1011 when it is there already. */
export async function addFileToFolder(
  ctx: AppContext,
  userId: string,
  folderId: string,
  fileId: string,
): Promise<FolderWithCounts> {
  // One transaction under the owner's lock: a folder deleted at the same moment is either gone before the check
  // (4003) or after the move (the file then goes with it), never in between (a foreign-key failure).
  await ctx.db.transaction().execute(async (trx) => {
    await lockUser(trx, ctx.engine, userId);
    await ownFolderToChange(trx, userId, folderId);
    const file = await ownFileInFolder(trx, userId, fileId);
    if (file.folder_id === folderId) throw new ApiError(1011);
    await putFileIntoFolder(trx, fileId, folderId, ctx.clock.now());
  });
  return getOwnFolder(ctx, userId, folderId);
}

/** Takes one of the caller's files out of the folder (it stays, unfiled): 1012 when it is not in it. */
export async function removeFileFromFolder(
  ctx: AppContext,
  userId: string,
  folderId: string,
  fileId: string,
): Promise<FolderWithCounts> {
  await getOwnFolder(ctx, userId, folderId);
  const file = await ownFileInFolder(ctx.db, userId, fileId);
  if (file.folder_id !== folderId) throw new ApiError(1012);
  await takeFileOutOfFolder(ctx.db, fileId, folderId, ctx.clock.now());
  return getOwnFolder(ctx, userId, folderId);
}

export interface FolderDeleteOptions {
  /** delete: the files of every deleted folder are deleted with their bytes; keep: they stay, unfiled. */
  files: 'delete' | 'keep';
  /**
   * delete: child folders go too (with the same choice for their files); lift: they move up to the parent; root:
   * they become top-level folders; { into }: they move into that folder of the caller's, and so do the deleted
   * folder's own files (missing or another user's -> 4008; the folder itself or one below it -> 1016).
   */
  children: 'delete' | 'lift' | 'root' | { into: string };
}
/** The folder that the children and files of a deleted folder move into: the caller's (4008), not below it (1016). */
async function moveTarget(db: Db, userId: string, deletedId: string, children: { into: string }): Promise<string> {
  const target = await db
    .selectFrom('folders')
    .select('id')
    .where('id', '=', children.into)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  if (!target) throw new ApiError(4008, children.into);
  if ((await subtreeIds(db, deletedId)).includes(target.id)) throw new ApiError(1016);
  return target.id;
}

export interface FolderDeleteResult {
  folders: number;
  deletedFiles: number;
  keptFiles: number;
}

/** deleteFolder(), answering the folder as it was (Zipline's answer to its delete=folder). */
export async function deleteFolderReturningIt(
  ctx: AppContext,
  userId: string,
  id: string,
  options: FolderDeleteOptions,
): Promise<FolderWithCounts> {
  const folder = await getOwnFolder(ctx, userId, id);
  await deleteFolder(ctx, userId, id, options);
  return folder;
}

export async function deleteFolder(
  ctx: AppContext,
  userId: string,
  id: string,
  options: FolderDeleteOptions,
): Promise<FolderDeleteResult> {
  const { result, storageKeys } = await ctx.db.transaction().execute(async (trx) => {
    await lockUser(trx, ctx.engine, userId);
    const folder = await ownFolderToChange(trx, userId, id);
    const { children } = options;
    const now = ctx.clock.now();
    let doomed = [id];
    let movedFiles = 0;
    if (children === 'delete') {
      doomed = await subtreeIds(trx, id);
    } else {
      const newParent =
        children === 'lift'
          ? folder.parent_id
          : children === 'root'
            ? null
            : await moveTarget(trx, userId, id, children);
      await trx
        .updateTable('folders')
        .set({ parent_id: newParent, updated_at: now })
        .where('parent_id', '=', id)
        .execute();
      if (typeof children === 'object') {
        const moved = await moveFilesOfFolder(trx, id, children.into, now);
        movedFiles = Number(moved.numUpdatedRows);
      }
    }
    let storageKeys: string[] = [];
    let keptFiles = movedFiles;
    if (options.files === 'delete') {
      // Only the owner's own files; anything else in the folders is left unfiled by the database.
      const deleted = await deleteOwnFilesInFolders(trx, userId, doomed);
      storageKeys = deleted.map((d) => d.storage_key);
    } else {
      const kept = await unfileFilesOfFolders(trx, doomed, now);
      keptFiles += Number(kept.numUpdatedRows);
    }
    // The database cascades the delete to every folder below (those that were not lifted out first).
    const gone = await trx.deleteFrom('folders').where('id', '=', id).executeTakeFirst();
    if (Number(gone.numDeletedRows) !== 1) throw new ApiError(4003);
    return { result: { folders: doomed.length, deletedFiles: storageKeys.length, keptFiles }, storageKeys };
  });
  // The records are gone (their bytes noted in the same commit); now the bytes.
  await removeBlobs(ctx, storageKeys);
  return result;
}

export interface PublicFolderView {
  folder: FolderRow;
  parent: { id: string; name: string } | null;
  /** One page of the files, newest first. */
  files: FileRow[];
  children: Array<{ id: string; name: string }>;
  /** The cursor of the page of older files, null when there is none. */
  nextCursor: string | null;
}

/** One page of a folder's files: at most `size`, after `cursor` (the nextCursor of the page before). */
export interface FolderFilesPage {
  size: number;
  cursor?: string | undefined;
}

/**
 * A folder as anonymous visitors see it (GET /api/folders/:id and the page /folder/:id): missing -> 4001, not public
 * -> 3002. One page of its files (expired and private ones left out).
 */
export async function getPublicFolder(ctx: AppContext, id: string, page: FolderFilesPage): Promise<PublicFolderView> {
  const folder = await findPublicFolder(ctx, id);
  const [files, children, parent] = await Promise.all([
    folderFilesPage(ctx, id, 'public', page),
    ctx.db
      .selectFrom('folders')
      .select(['id', 'name'])
      .where('parent_id', '=', id)
      .where('public', '=', 1)
      .orderBy('name')
      .execute(),
    folder.parent_id === null
      ? undefined
      : ctx.db
          .selectFrom('folders')
          .select(['id', 'name'])
          .where('id', '=', folder.parent_id)
          .where('public', '=', 1)
          .executeTakeFirst(),
  ]);
  return { folder, parent: parent ?? null, files: files.rows, children, nextCursor: files.nextCursor };
}

/** Whose view of a folder's files: the owner sees all of them, visitors neither private nor expired ones. */
type FolderAudience = 'owner' | 'public';

/**
 * One page of a folder's files, newest first (ties by id, greatest first), read in that order from
 * files_folder_created backwards: the same cost at any depth. A cursor is bound to the folder and the audience; one of
 * another folder (or of the other audience) -> 1000.
 */
async function folderFilesPage(
  ctx: AppContext,
  folderId: string,
  audience: FolderAudience,
  page: FolderFilesPage,
): Promise<{ rows: FileRow[]; nextCursor: string | null }> {
  // The public key is the one the folder page's links were made with before the owner's view paged too.
  const key = listKey(audience === 'public' ? ['public-folder', folderId] : ['folder-files', folderId]);
  const after = page.cursor === undefined ? undefined : decodeListCursor(ctx, key, page.cursor, 'number');
  const found = await folderFiles(ctx, folderId, audience, after)
    .limit(page.size + 1)
    .execute();
  const rows = found.slice(0, page.size);
  const last = rows.at(-1);
  const nextCursor =
    found.length > rows.length && last ? encodeListCursor(ctx, key, { value: last.created_at, id: last.id }) : null;
  return { rows, nextCursor };
}

function folderFiles(ctx: AppContext, id: string, audience: FolderAudience, after: ListPosition | undefined) {
  return (
    ctx.db
      .selectFrom('files')
      .selectAll()
      .where('folder_id', '=', id)
      // Private files are reached only through their share links, never from a public folder.
      .$if(audience === 'public', (q) =>
        q
          .where('private', '=', 0)
          .where((eb) => eb.or([eb('deletes_at', 'is', null), eb('deletes_at', '>', ctx.clock.now())])),
      )
      .$if(after !== undefined, (q) =>
        q.where((eb) => eb(eb.refTuple('created_at', 'id'), '<', eb.tuple(Number(after!.value), after!.id))),
      )
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
  );
}

/** A page of a folder's files, from the start and after a position, compiled (for the tests of their query plans). */
export const folderFilesStatements = (ctx: AppContext, id: string, audience: FolderAudience) => ({
  first: folderFiles(ctx, id, audience, undefined).limit(100).compile(),
  after: folderFiles(ctx, id, audience, { value: 1, id: 'm' }).limit(100).compile(),
});

export async function findPublicFolder(ctx: AppContext, id: string): Promise<FolderRow> {
  // The folders of a user being deleted with their content are gone already (services/files/deletions.ts).
  const folder = await ctx.db
    .selectFrom('folders')
    .selectAll()
    .where('id', '=', id)
    .where(ownerNotDeleted('folders.user_id'))
    .executeTakeFirst();
  if (!folder) throw new ApiError(4001);
  if (folder.public !== 1) throw new ApiError(3002);
  return folder;
}

/**
 * A folder anonymous visitors may upload into: missing -> 4001, not public or uploads not allowed by its owner ->
 * 3002 (allowUploads on a private folder opens nothing: only public folders take anonymous uploads).
 */
export async function findUploadFolder(ctx: AppContext, id: string): Promise<Pick<FolderRow, 'id' | 'user_id'>> {
  const folder = await ctx.db
    .selectFrom('folders')
    .select(['id', 'user_id', 'allow_uploads', 'public'])
    .where('id', '=', id)
    .where(ownerNotDeleted('folders.user_id'))
    .executeTakeFirst();
  if (!folder) throw new ApiError(4001);
  if (folder.public !== 1 || folder.allow_uploads !== 1) throw new ApiError(3002, 'the folder does not accept uploads');
  return folder;
}

/** Imported folders (parents before their children), one statement per slice the import gives. */
export async function insertImportedFolders(db: Db, rows: NewFolder[]): Promise<void> {
  await db.insertInto('folders').values(rows).execute();
}
