// The other lists at scale (issue 23, item 5): each read in its order from an index, with the id as tie-breaker, so
// that a page (from either end, or after a cursor) costs the same at any length. Short URLs newest first (ties by id
// ascending: the date descending in the index); users oldest first; a user's folders by name, all of them or one
// parent's (the top level is parent_id null). Small tables only (no index on files): cheap on a large database.
import type { Kysely } from 'kysely';

const NEW_INDEXES: Array<[string, string, string[]]> = [
  ['urls_user_created_id', 'urls', ['user_id', 'created_at desc', 'id']],
  ['users_created_id', 'users', ['created_at', 'id']],
  ['folders_user_name_id', 'folders', ['user_id', 'name', 'id']],
  ['folders_user_parent_name', 'folders', ['user_id', 'parent_id', 'name', 'id']],
];
// Replaced by the ones above that begin with the same columns.
const REPLACED: Array<[string, string, string[]]> = [
  ['urls_user_created', 'urls', ['user_id', 'created_at']],
  ['folders_user_parent', 'folders', ['user_id', 'parent_id']],
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const [name, table, columns] of NEW_INDEXES)
    await db.schema.createIndex(name).ifNotExists().on(table).columns(columns).execute();
  for (const [name] of REPLACED) await db.schema.dropIndex(name).ifExists().execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const [name, table, columns] of REPLACED)
    await db.schema.createIndex(name).ifNotExists().on(table).columns(columns).execute();
  for (const [name] of NEW_INDEXES) await db.schema.dropIndex(name).ifExists().execute();
}
