// The durable job queue (services/operations/jobs.ts) and where a file's thumbnail is stored (services/media/thumbnails.ts).
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('jobs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('max_attempts', 'integer', (c) => c.notNull())
    .addColumn('last_error', 'text')
    .addColumn('run_after', 'bigint', (c) => c.notNull())
    .addColumn('lease_owner', 'text')
    .addColumn('lease_expires_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  // The claim reads queued jobs by run_after and running ones by lease expiry.
  await db.schema.createIndex('jobs_state_run_after').on('jobs').columns(['state', 'run_after']).execute();
  await db.schema.createIndex('jobs_state_lease').on('jobs').columns(['state', 'lease_expires_at']).execute();
  await db.schema.alterTable('files').addColumn('thumbnail_key', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('files').dropColumn('thumbnail_key').execute();
  await db.schema.dropTable('jobs').execute();
}
