// Bytes kept on purpose after their records went (issue 50, item 3.5): Zipline's bulk delete with
// delete_datasourceFiles false removes the records and leaves the bytes. Their notes in blob_deletions stay, marked
// kept, so that the drain leaves them alone and the admin's maintenance action (orphaned files) finds and removes
// them. A new column with a default: nothing is rewritten.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table blob_deletions add column kept integer not null default 0`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table blob_deletions drop column kept`.execute(db);
}
