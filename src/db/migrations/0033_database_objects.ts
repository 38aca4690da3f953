// The bytes of small uploads kept in the database (storage/database-objects.ts): an upload whose request is at most
// UPLOADS_INLINE_MAX bytes stores its file here, in the same transaction and commit as the file's record, instead of
// writing, fsyncing and renaming a file and fsyncing its folder (issue 14, row 3). The table starts empty: files
// already stored stay where they are.
import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../search-index.js';

export async function up(db: Kysely<unknown>): Promise<void> {
  const bytes = isPostgres(db) ? sql`bytea` : sql`blob`;
  await sql`create table if not exists database_objects (
    storage_key text primary key,
    bytes ${bytes} not null,
    created_at bigint not null
  )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table if exists database_objects`.execute(db);
}
