// Indexes for the file list (GET /api/user/files) at 100,000 files per user: each sortable column, within the
// owner's files, with the id as the tie-breaker the query orders by, so that a page is read from an index instead
// of sorting every file of the user. Also favourites by date.
import type { Kysely } from 'kysely';

const SORT_INDEXES: Array<[string, string[]]> = [
  ['files_user_created_id', ['user_id', 'created_at', 'id']],
  ['files_user_updated', ['user_id', 'updated_at', 'id']],
  ['files_user_name', ['user_id', 'name']],
  ['files_user_size', ['user_id', 'size', 'id']],
  ['files_user_views', ['user_id', 'views', 'id']],
  ['files_user_type', ['user_id', 'type', 'id']],
  ['files_user_favorite_created', ['user_id', 'favorite', 'created_at', 'id']],
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const [name, columns] of SORT_INDEXES) {
    await db.schema.createIndex(name).on('files').columns(columns).execute();
  }
  // Replaced by files_user_created_id, which also covers the tie-breaker.
  await db.schema.dropIndex('files_user_created').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('files_user_created').on('files').columns(['user_id', 'created_at']).execute();
  for (const [name] of SORT_INDEXES) await db.schema.dropIndex(name).execute();
}
