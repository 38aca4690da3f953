// Links without the file's extension (issue 43, item 5: Zipline's later option): /u/abc serves the file abc.png when no
// file is named abc. A file handed such a link keeps its stored name (abc.png) and notes the link's name
// (abc) in files.extensionless_name; a chunked or tus upload reserves it in its session beside the name it reserves,
// as the answer of its last chunk hands the link out before the file is recorded. Both are unique where set (partial
// indexes: the column is null for every other file), so a short name always means one file, and serving finds it
// by one index look-up after a miss on the name. New nullable columns: nothing is rewritten.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table files add column extensionless_name text`.execute(db);
  await db.schema
    .createIndex('files_extensionless_name')
    .unique()
    .on('files')
    .column('extensionless_name')
    .where(sql.ref('extensionless_name'), 'is not', null)
    .execute();
  await sql`alter table upload_sessions add column reserved_extensionless_name text`.execute(db);
  await db.schema
    .createIndex('upload_sessions_reserved_extensionless_name')
    .unique()
    .on('upload_sessions')
    .column('reserved_extensionless_name')
    .where(sql.ref('reserved_extensionless_name'), 'is not', null)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('upload_sessions_reserved_extensionless_name').ifExists().execute();
  await sql`alter table upload_sessions drop column reserved_extensionless_name`.execute(db);
  await db.schema.dropIndex('files_extensionless_name').ifExists().execute();
  await sql`alter table files drop column extensionless_name`.execute(db);
}
