// Private files and share links. files.private: 1 when the file is served only to its owner and through its share
// links (never under /u, /raw or /view to anyone else). file_shares: a file's share links, each with its own random
// id (the link), optional password (argon2id), view limit and expiry; revoking deletes the row.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('files')
    .addColumn('private', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createTable('file_shares')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('file_id', 'text', (c) => c.notNull().references('files.id').onDelete('cascade'))
    .addColumn('password', 'text')
    .addColumn('max_views', 'integer')
    .addColumn('views', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('expires_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('file_shares_file_id').on('file_shares').column('file_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('file_shares').execute();
  await db.schema.alterTable('files').dropColumn('private').execute();
}
