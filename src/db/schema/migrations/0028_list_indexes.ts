// The other lists at scale (issue 23, item 5): each read in its order from an index, with the id as tie-breaker, so
// that a page (from either end, or after a cursor) costs the same at any length. Short URLs newest first (ties by id
// ascending: the date descending in the index); users oldest first; a user's folders by name, all of them or one
// parent's (the top level is parent_id null). Small tables only (no index on files): cheap on a large database.
// And the stored file counts of folders and tags with the triggers that keep them (db/schema/list-counters.ts), filled by
// one index count per folder and tag.
import { sql, type Kysely } from 'kysely';
import { createCountTriggers, dropCountTriggers, fillCounts } from '../list-counters.js';

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
  // A run stopped half-way (SQLite migrates outside a transaction) starts the counts over.
  await dropCountTriggers(db);
  const tables = await db.introspection.getTables();
  for (const table of ['folders', 'tags']) {
    const columns = tables.find((t) => t.name === table)?.columns ?? [];
    // A constant default: no table rewrite.
    if (!columns.some((c) => c.name === 'file_count'))
      await sql.raw(`alter table ${table} add column file_count integer not null default 0`).execute(db);
  }
  await createCountTriggers(db);
  await fillCounts(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await dropCountTriggers(db);
  for (const table of ['folders', 'tags']) await sql.raw(`alter table ${table} drop column file_count`).execute(db);
  for (const [name, table, columns] of REPLACED)
    await db.schema.createIndex(name).ifNotExists().on(table).columns(columns).execute();
  for (const [name] of NEW_INDEXES) await db.schema.dropIndex(name).ifExists().execute();
}
