// Snapshots of the instance's statistics (services/statistics/snapshots.ts), one per interval slot: the unique slot lets only one
// of several instances sharing the database keep the snapshot of a slot.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('metrics')
    .addColumn('id', 'text', (c) => c.primaryKey())
    // Start of the interval the snapshot belongs to (epoch ms, a multiple of metricsInterval).
    .addColumn('slot', 'bigint', (c) => c.notNull().unique())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    // JSON, Zipline's Metric data: {users, files, fileViews, urls, urlViews, storage, filesUsers, urlsUsers, types}.
    .addColumn('data', 'text', (c) => c.notNull())
    .execute();
  // GET /api/stats reads a time range.
  await db.schema.createIndex('metrics_created_at').on('metrics').column('created_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('metrics').execute();
}
