// A tag's files in upload order straight from an index (issue 23): each row of file_tags also holds its file's
// created_at (files never change it), and file_tags_tag_created (tag, date, file) reads a tag's files newest or oldest
// first, a page from either end or after a cursor, at the same cost whatever the tag's size. A trigger fills the date
// of every row added (no code path has to remember it); the rows already there are filled from their files.
import { sql, type Kysely } from 'kysely';
import type { MigrationStepReport } from '../migration-steps.js';
import { isPostgres } from '../search-index.js';

const PG_FUNCTION = `create or replace function chute_file_tag_date() returns trigger language plpgsql as $$
begin
  if new.file_created_at is null then
    select created_at into new.file_created_at from files where id = new.file_id;
  end if;
  return new;
end $$`;

export async function up(db: Kysely<unknown>, report: MigrationStepReport = () => undefined): Promise<void> {
  const columns = (await db.introspection.getTables()).find((t) => t.name === 'file_tags')?.columns ?? [];
  if (!columns.some((c) => c.name === 'file_created_at'))
    await sql`alter table file_tags add column file_created_at bigint`.execute(db);
  report('file_tags: the date of each tagged file');
  await sql`update file_tags set file_created_at = (select created_at from files where files.id = file_tags.file_id)
    where file_created_at is null`.execute(db);
  report('file_tags: index file_tags_tag_created');
  await db.schema
    .createIndex('file_tags_tag_created')
    .ifNotExists()
    .on('file_tags')
    .columns(['tag_id', 'file_created_at', 'file_id'])
    .execute();
  if (isPostgres(db)) {
    await sql.raw(PG_FUNCTION).execute(db);
    await sql`drop trigger if exists file_tags_date on file_tags`.execute(db);
    await sql`create trigger file_tags_date before insert on file_tags
      for each row execute function chute_file_tag_date()`.execute(db);
  } else {
    await sql`drop trigger if exists file_tags_date`.execute(db);
    await sql`create trigger file_tags_date after insert on file_tags when new.file_created_at is null begin
      update file_tags set file_created_at = (select created_at from files where id = new.file_id)
      where file_id = new.file_id and tag_id = new.tag_id;
    end`.execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (isPostgres(db)) {
    await sql`drop trigger if exists file_tags_date on file_tags`.execute(db);
    await sql`drop function if exists chute_file_tag_date()`.execute(db);
  } else {
    await sql`drop trigger if exists file_tags_date`.execute(db);
  }
  await db.schema.dropIndex('file_tags_tag_created').ifExists().execute();
  await sql`alter table file_tags drop column file_created_at`.execute(db);
}
