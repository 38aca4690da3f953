// The bytes of small uploads kept in the database (storage/database-objects.ts): an upload whose request is at most
// UPLOADS_INLINE_MAX bytes stores its file here, in the same transaction and commit as the file's record, instead of
// writing, fsyncing and renaming a file and fsyncing its folder (issue 14, row 3). The table starts empty: files
// already stored stay where they are.
//
// Deleting a file's record deletes such bytes in the same transaction (a trigger): a batch that deletes many records
// (a user, a bulk delete, the expiry sweep) takes their bytes with it in the same statement, with no removal per key
// afterwards. The deleted records are still noted in blob_deletions (migration 0027) like every other, which removes
// these files' thumbnails from the datasource.
import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../search-index.js';

export async function up(db: Kysely<unknown>): Promise<void> {
  const bytes = isPostgres(db) ? sql`bytea` : sql`blob`;
  await sql`create table if not exists database_objects (
    storage_key text primary key,
    bytes ${bytes} not null,
    created_at bigint not null
  )`.execute(db);
  if (isPostgres(db)) {
    await sql`create or replace function chute_files_database_objects() returns trigger language plpgsql as $$
      begin
        delete from database_objects where storage_key in (
          select storage_key from old_rows where substr(storage_key, 1, 10) = '.chute-db/');
        return null;
      end $$`.execute(db);
    await sql`drop trigger if exists files_database_objects on files`.execute(db);
    await sql`create trigger files_database_objects after delete on files referencing old table as old_rows
      for each statement execute function chute_files_database_objects()`.execute(db);
  } else {
    await sql`drop trigger if exists files_database_objects`.execute(db);
    await sql`create trigger files_database_objects after delete on files
      when substr(old.storage_key, 1, 10) = '.chute-db/' begin
        delete from database_objects where storage_key = old.storage_key;
      end`.execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (isPostgres(db)) {
    await sql`drop trigger if exists files_database_objects on files`.execute(db);
    await sql`drop function if exists chute_files_database_objects()`.execute(db);
  } else {
    await sql`drop trigger if exists files_database_objects`.execute(db);
  }
  await sql`drop table if exists database_objects`.execute(db);
}
