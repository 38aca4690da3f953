// One namespace for /go/<x>: every short URL's random code and its vanity (when it has one) are rows of url_slugs,
// whose primary key makes a vanity equal to another URL's code (or a code equal to a vanity) impossible, even under
// concurrent inserts. The redirect resolves <x> with one primary-key lookup joined to urls by primary key.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('url_slugs')
    .addColumn('slug', 'text', (c) => c.primaryKey())
    .addColumn('url_id', 'text', (c) => c.notNull().references('urls.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('code', 'vanity')`))
    .execute();
  await db.schema.createIndex('url_slugs_url').on('url_slugs').column('url_id').execute();
  // URLs created before this migration (none in a fresh install) get their slugs.
  await sql`insert into url_slugs (slug, url_id, kind) select code, id, 'code' from urls`.execute(db);
  await sql`insert into url_slugs (slug, url_id, kind) select vanity, id, 'vanity' from urls where vanity is not null`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('url_slugs').ifExists().execute();
}
