// Users' exports (POST /api/user/export, services/exports/user-exports.ts): a zip of the user's files and records, made by a
// job of the queue and kept in the datasource under storage_key until expires_at. No foreign key to users: an export
// of a deleted user keeps its row until the sweep has removed the stored zip too (else the zip would be orphaned).
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('exports')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('completed', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('storage_key', 'text', (c) => c.notNull())
    .addColumn('files', 'integer', (c) => c.notNull())
    .addColumn('size', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('exports_user_created').on('exports').columns(['user_id', 'created_at']).execute();
  await db.schema.createIndex('exports_expires_at').on('exports').column('expires_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('exports').execute();
}
