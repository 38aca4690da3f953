// The sessions of chunked and tus uploads get the name of what they are: partial_uploads -> upload_sessions (issue 42,
// item 6: "partial" was the code's word for chunked uploads, and the table also holds tus sessions), with its indexes
// (and, on PostgreSQL, its constraints' indexes). A rename: no row is copied, and it is one step on either engine.
import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../search-index.js';

const INDEXES = [
  ['partial_uploads_state_updated', 'upload_sessions_state_updated', '(state, updated_at)'],
  ['partial_uploads_user', 'upload_sessions_user', '(user_id)'],
] as const;
/** PostgreSQL's names for the primary key's and the unique reserved name's indexes. */
const CONSTRAINT_INDEXES = [
  ['partial_uploads_pkey', 'upload_sessions_pkey'],
  ['partial_uploads_reserved_name_key', 'upload_sessions_reserved_name_key'],
] as const;

async function renameTable(db: Kysely<unknown>, from: string, to: string, direction: 0 | 1): Promise<void> {
  await sql`alter table ${sql.table(from)} rename to ${sql.table(to)}`.execute(db);
  for (const names of INDEXES) {
    const [oldName, newName] = direction === 0 ? [names[0], names[1]] : [names[1], names[0]];
    if (isPostgres(db)) {
      await sql`alter index if exists ${sql.id(oldName)} rename to ${sql.id(newName)}`.execute(db);
    } else {
      // SQLite renames no index: the same index again under its new name.
      await sql`drop index if exists ${sql.id(oldName)}`.execute(db);
      await sql`create index if not exists ${sql.id(newName)} on ${sql.table(to)} ${sql.raw(names[2])}`.execute(db);
    }
  }
  if (isPostgres(db)) {
    for (const names of CONSTRAINT_INDEXES) {
      const [oldName, newName] = direction === 0 ? names : [names[1], names[0]];
      await sql`alter index if exists ${sql.id(oldName)} rename to ${sql.id(newName)}`.execute(db);
    }
  }
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await renameTable(db, 'partial_uploads', 'upload_sessions', 0);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await renameTable(db, 'upload_sessions', 'partial_uploads', 1);
}
