// Deletions that never stall the server and survive a crash (issue 23, item 6; services/files/deletions.ts).
// - blob_deletions: the storage keys of deleted file records whose bytes are still to be removed. A trigger writes
//   them in the transaction that deletes the records, whichever code deletes them, so that a crash between the commit
//   and the removal of the bytes leaves a note instead of an orphan; services/files/blob-deletions.ts removes the bytes and
//   the notes.
// - user_deletions: a user being deleted. The row is written in one short transaction, and from then on the user (and,
//   with their content, their files and short URLs) is hidden; the rows go afterwards in short batches, resumed on
//   the next start after a crash.
// - file_deletions: the file ids of a bulk delete in progress, resumed the same way.
// New tables and triggers only: nothing is rewritten, whatever the number of files.
import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../search-index.js';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('blob_deletions')
    .addColumn('storage_key', 'text', (c) => c.primaryKey())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('user_deletions')
    .addColumn('user_id', 'text', (c) => c.primaryKey())
    .addColumn('with_content', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('file_deletions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('file_ids', 'text', (c) => c.notNull())
    .addColumn('instance_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  if (isPostgres(db)) {
    // A statement-level trigger: a batch of deleted records writes its keys in one insert.
    await sql`create or replace function chute_files_blob_deletions() returns trigger language plpgsql as $$
      begin
        insert into blob_deletions (storage_key, created_at)
          select storage_key, (extract(epoch from clock_timestamp()) * 1000)::bigint from old_rows
          on conflict (storage_key) do nothing;
        return null;
      end $$`.execute(db);
    await sql`create trigger files_blob_deletions after delete on files referencing old table as old_rows
      for each statement execute function chute_files_blob_deletions()`.execute(db);
  } else {
    await sql`create trigger files_blob_deletions after delete on files begin
      insert or ignore into blob_deletions (storage_key, created_at)
        values (old.storage_key, cast(unixepoch('subsec') * 1000 as integer));
    end`.execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (isPostgres(db)) {
    await sql`drop trigger if exists files_blob_deletions on files`.execute(db);
    await sql`drop function if exists chute_files_blob_deletions()`.execute(db);
  } else {
    await sql`drop trigger if exists files_blob_deletions`.execute(db);
  }
  await db.schema.dropTable('file_deletions').execute();
  await db.schema.dropTable('user_deletions').execute();
  await db.schema.dropTable('blob_deletions').execute();
}
