// Chunked-upload sessions (POST /api/upload/partial) live in the database, not in one process's memory, so that any
// instance behind a load balancer can take the next chunk. The current continuation token is stored only as a keyed
// hash; consuming it is one conditional UPDATE, so two requests racing with one token cannot both win.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('partial_uploads')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    // Null while a chunk is being received or the file assembled: no token is valid then.
    .addColumn('token_hash', 'text', (c) => c.unique())
    .addColumn('token_expires_at', 'bigint')
    .addColumn('state', 'text', (c) => c.notNull().check(sql`state in ('open', 'receiving', 'assembling')`))
    .addColumn('folder_id', 'text')
    .addColumn('total_size', 'bigint', (c) => c.notNull())
    .addColumn('received', 'bigint', (c) => c.notNull())
    .addColumn('chunks', 'integer', (c) => c.notNull())
    .addColumn('file', 'text', (c) => c.notNull())
    .addColumn('options', 'text', (c) => c.notNull())
    .addColumn('base_url', 'text', (c) => c.notNull())
    .addColumn('storage_key', 'text', (c) => c.notNull())
    .addColumn('append_state', 'text', (c) => c.notNull())
    // The served name promised by the last chunk's answer, held until the file record takes it.
    .addColumn('reserved_name', 'text', (c) => c.unique())
    .addColumn('incomplete_file_id', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('partial_uploads_state_updated')
    .on('partial_uploads')
    .columns(['state', 'updated_at'])
    .execute();
  await db.schema.createIndex('partial_uploads_user').on('partial_uploads').column('user_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('partial_uploads').ifExists().execute();
}
