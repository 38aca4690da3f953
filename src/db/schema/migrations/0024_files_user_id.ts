// Zipline's sortBy=id on the file list (GET /api/user/files): the owner's files in id order, read from an index like
// every other order (services/lists/files.ts), instead of sorting all of a user's files.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('files_user_id').ifNotExists().on('files').columns(['user_id', 'id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('files_user_id').ifExists().execute();
}
