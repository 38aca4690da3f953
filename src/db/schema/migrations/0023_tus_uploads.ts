// tus uploads (POST /api/upload/tus, services/uploads/tus.ts) are kept in partial_uploads beside the chunked ones,
// with the same options, file description and append state. Unlike chunked sessions they survive a restart and
// carry no continuation token: the protocol tells them apart, and the raw Upload-Metadata is kept for HEAD.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('partial_uploads')
    .addColumn('protocol', 'text', (c) =>
      c
        .notNull()
        .defaultTo('chunked')
        .check(sql`protocol in ('chunked', 'tus')`),
    )
    .execute();
  await db.schema.alterTable('partial_uploads').addColumn('upload_metadata', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('partial_uploads').dropColumn('upload_metadata').execute();
  await db.schema.alterTable('partial_uploads').dropColumn('protocol').execute();
}
