// Stored bytes that no file record owns yet: a row is written before an upload's bytes are stored and deleted in the
// transaction that records the file (or when the upload fails and its bytes are removed). A row left by a process
// that died (kill -9, power loss) names bytes without a record: the instance's next start removes them.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('pending_objects')
    .addColumn('storage_key', 'text', (c) => c.primaryKey())
    .addColumn('instance_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('pending_objects_instance_id').on('pending_objects').column('instance_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('pending_objects').execute();
}
