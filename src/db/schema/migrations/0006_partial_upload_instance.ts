// Which instance holds a chunked upload (received its latest chunk, so holds its temp data or runs its assembly).
// At start-up an instance discards only its own unfinished uploads: restarting one instance behind a load balancer
// must not break the uploads other instances are carrying. Null (rows from before) counts as anyone's.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('partial_uploads').addColumn('instance_id', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('partial_uploads').dropColumn('instance_id').execute();
}
