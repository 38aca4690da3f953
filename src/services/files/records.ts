// The one writer of `files` (test/lint/table-owners.test.ts): every insert, update and delete of a file record, for
// the services that decide when (uploads, serving, editing, folders, deletions, the import). Imports only db/ and lib/.
import type { SelectQueryBuilder } from 'kysely';
import { precompiledWrite } from '../../db/precompiled.js';
import type { Database, Db, FileRow } from '../../db/schema/tables.js';

const FILE_COLUMNS = [
  'id',
  'name',
  'original_name',
  'type',
  'size',
  'views',
  'max_views',
  'favorite',
  'password',
  'deletes_at',
  'folder_id',
  'user_id',
  'storage_key',
  'private',
  'thumbnail_key',
  'extensionless_name',
  'created_at',
  'updated_at',
] as const satisfies ReadonlyArray<keyof FileRow>;

/**
 * A new file's record, unless its name or its extensionless name is taken (then no row is inserted: a conflict on any
 * unique index, as one statement cannot name both): one statement per upload, compiled once.
 */
export const insertFileRow = precompiledWrite<FileRow>(FILE_COLUMNS, (db, row) =>
  db
    .insertInto('files')
    .values(row)
    .onConflict((oc) => oc.doNothing()),
);

/** The records of an import, one statement per slice the import gives. */
export function insertImportedFiles(db: Db, rows: FileRow[]) {
  return db.insertInto('files').values(rows).execute();
}

/** Changes columns of one file (an edit by its owner). */
export function setFileColumns(db: Db, id: string, changes: Partial<FileRow>) {
  return db.updateTable('files').set(changes).where('id', '=', id).execute();
}

/** Sets one column of many files, touching (and counting) only those whose value differs. */
export function setColumnOfFiles(
  db: Db,
  ids: string[],
  change: { column: 'favorite' | 'folder_id'; value: number | string | null },
  now: number,
) {
  return db
    .updateTable('files')
    .set({ [change.column]: change.value, updated_at: now })
    .where('id', 'in', ids)
    .where(change.column, 'is distinct from', change.value)
    .executeTakeFirst();
}

/** The size the datasource reports for a file's bytes (maintenance). */
export function setFileSize(db: Db, id: string, size: number) {
  return db.updateTable('files').set({ size }).where('id', '=', id).execute();
}

/** Where a file's bytes and thumbnail are stored: its storage key and thumbnail key. */
export interface StoredLocation {
  storage_key: string;
  thumbnail_key: string | null;
}

/**
 * Points a file's record at its bytes' new place (chute storage inline, services/files/inline-storage.ts), when it is
 * still at `from` (a file deleted or changed meanwhile is left alone): 1 or 0 rows. Not an edit: updated_at stays.
 */
export function switchFileLocation(db: Db, id: string, from: StoredLocation, to: StoredLocation) {
  return db
    .updateTable('files')
    .set({ storage_key: to.storage_key, thumbnail_key: to.thumbnail_key })
    .where('id', '=', id)
    .where('storage_key', '=', from.storage_key)
    .where('thumbnail_key', 'is not distinct from', from.thumbnail_key)
    .executeTakeFirst();
}

/** Notes a file's thumbnail; no row is updated when the file was deleted meanwhile. */
export function setThumbnailKey(db: Db, id: string, key: string) {
  return db.updateTable('files').set({ thumbnail_key: key }).where('id', '=', id).executeTakeFirst();
}

// --- Views ----------------------------------------------------------------------------------------------------------

/**
 * Counts one view of a file with a view limit by one conditional UPDATE (concurrent downloads cannot go past the
 * limit): the counted row, or undefined when no view was left.
 */
export function countViewWithinLimit(db: Db, id: string) {
  return db
    .updateTable('files')
    .set((eb) => ({ views: eb('views', '+', 1) }))
    .where('id', '=', id)
    .where((eb) => eb.or([eb('max_views', 'is', null), eb('views', '<', eb.ref('max_views'))]))
    .returning(['views', 'max_views', 'user_id'])
    .executeTakeFirst();
}

/** Deletes a file only while it has no views left (its owner may have raised the limit meanwhile). */
export function deleteUsedUpFile(db: Db, id: string) {
  return db
    .deleteFrom('files')
    .where('id', '=', id)
    .where((eb) => eb('views', '>=', eb.ref('max_views')))
    .executeTakeFirst();
}

/** Deletes one file record (its last allowed view is being served). */
export function deleteFileRecord(db: Db, id: string) {
  return db.deleteFrom('files').where('id', '=', id).execute();
}

/** Adds batched views to a file (services/serving/view-counts.ts): its owner, or undefined when it is gone. */
export function addFileViews(db: Db, id: string, views: number) {
  return db
    .updateTable('files')
    .set((eb) => ({ views: eb('views', '+', views) }))
    .where('id', '=', id)
    .returning('user_id')
    .executeTakeFirst();
}

// --- Deleting and disowning in batches (statements for the caller to run, on the batch writer or not) --------------

/** The statement deleting the files of `ids` (a list, or a query of ids), answering their storage keys. */
export function fileRecordsDeletion(
  db: Db,
  ids: readonly string[] | SelectQueryBuilder<Database, 'files', { id: string }>,
) {
  return db.deleteFrom('files').where('id', 'in', ids).returning('storage_key');
}

/**
 * The statement that takes at most `size` of a user's files from them (owner and folder set null, what the foreign
 * keys would do to every row at once when the user row goes).
 */
export function disownFilesOf(db: Db, userId: string, size: number) {
  return db
    .updateTable('files')
    .set({ user_id: null, folder_id: null })
    .where('id', 'in', (eb) => eb.selectFrom('files').select('id').where('user_id', '=', userId).limit(size));
}

// --- Folders --------------------------------------------------------------------------------------------------------

/** Moves the user's files of `fileIds` into a folder; the result counts those that are the user's. */
export function moveOwnFilesIntoFolder(db: Db, userId: string, fileIds: string[], folderId: string, now: number) {
  return db
    .updateTable('files')
    .set({ folder_id: folderId, updated_at: now })
    .where('id', 'in', fileIds)
    .where('user_id', '=', userId)
    .executeTakeFirst();
}

/** Puts a file into a folder (out of any other). */
export function putFileIntoFolder(db: Db, fileId: string, folderId: string, now: number) {
  return db.updateTable('files').set({ folder_id: folderId, updated_at: now }).where('id', '=', fileId).execute();
}

/** Takes a file out of a folder, if it is still in it. */
export function takeFileOutOfFolder(db: Db, fileId: string, folderId: string, now: number) {
  return db
    .updateTable('files')
    .set({ folder_id: null, updated_at: now })
    .where('id', '=', fileId)
    .where('folder_id', '=', folderId)
    .execute();
}

/** Moves every file of one folder into another (a deleted folder's). */
export function moveFilesOfFolder(db: Db, fromFolderId: string, intoFolderId: string, now: number) {
  return db
    .updateTable('files')
    .set({ folder_id: intoFolderId, updated_at: now })
    .where('folder_id', '=', fromFolderId)
    .executeTakeFirst();
}

/** Leaves every file of the folders unfiled (deleted folders whose files stay). */
export function unfileFilesOfFolders(db: Db, folderIds: string[], now: number) {
  return db
    .updateTable('files')
    .set({ folder_id: null, updated_at: now })
    .where('folder_id', 'in', folderIds)
    .executeTakeFirst();
}

/** Deletes the user's own files in the folders, answering their storage keys. */
export function deleteOwnFilesInFolders(db: Db, userId: string, folderIds: string[]) {
  return db
    .deleteFrom('files')
    .where('folder_id', 'in', folderIds)
    .where('user_id', '=', userId)
    .returning('storage_key')
    .execute();
}
