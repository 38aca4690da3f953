// The file list at a million files (issue 23): every sort order read from an index within the owner's files with
// the id as tie-breaker (keyset paging walks these), a folder's files by date, tags looked up from the tag side,
// and the substring-search index (db/schema/search-index.ts), filled from the files already there.
import type { Kysely } from 'kysely';
import type { MigrationStepReport } from '../migration-steps.js';
import {
  createSqliteSearchIndex,
  createTrigramIndexes,
  dropSqliteSearchIndex,
  dropTrigramIndexes,
  isPostgres,
} from '../search-index.js';

const NEW_INDEXES: Array<[string, string, string[]]> = [
  ['files_user_name_id', 'files', ['user_id', 'name', 'id']],
  ['files_user_original_name', 'files', ['user_id', 'original_name', 'id']],
  ['files_user_deletes_at', 'files', ['user_id', 'deletes_at', 'id']],
  ['files_user_favorite_id', 'files', ['user_id', 'favorite', 'id']],
  ['files_folder_created', 'files', ['folder_id', 'created_at', 'id']],
  ['file_tags_tag_file', 'file_tags', ['tag_id', 'file_id']],
];
// Replaced by the ones above that begin with the same columns.
const REPLACED: Array<[string, string, string[]]> = [
  ['files_user_name', 'files', ['user_id', 'name']],
  ['files_folder', 'files', ['folder_id']],
  ['file_tags_tag', 'file_tags', ['tag_id']],
];

export async function up(db: Kysely<unknown>, report: MigrationStepReport = () => undefined): Promise<void> {
  for (const [i, [name, table, columns]] of NEW_INDEXES.entries()) {
    report(`index ${name}`, { done: i, total: NEW_INDEXES.length });
    await db.schema.createIndex(name).ifNotExists().on(table).columns(columns).execute();
  }
  for (const [name] of REPLACED) await db.schema.dropIndex(name).ifExists().execute();
  // Without pg_trgm (a role that may not create it) searches scan; the server says so at start-up (server.ts).
  if (isPostgres(db)) await createTrigramIndexes(db, true, report);
  else await createSqliteSearchIndex(db, report);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (isPostgres(db)) await dropTrigramIndexes(db);
  else await dropSqliteSearchIndex(db);
  for (const [name, table, columns] of REPLACED) await db.schema.createIndex(name).on(table).columns(columns).execute();
  for (const [name] of NEW_INDEXES) await db.schema.dropIndex(name).execute();
}
