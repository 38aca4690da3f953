// SQLite: a new file's names reach the trigram table (files_fts) through a queue, file_search_new, indexed many at a
// time (db/schema/search-index.ts indexNewFiles: by the server once a second, and before every search of the files) instead
// of from each insert's trigger, which made FTS5 write a segment per file (issue 14, row 3). The table starts empty:
// every file already there is indexed.
// PostgreSQL's pg_trgm indexes follow the table by themselves: nothing to do.
import type { Kysely } from 'kysely';
import { addSqliteSearchBacklog, dropSqliteSearchBacklog, isPostgres } from '../search-index.js';

export async function up(db: Kysely<unknown>): Promise<void> {
  if (!isPostgres(db)) await addSqliteSearchBacklog(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (!isPostgres(db)) await dropSqliteSearchBacklog(db);
}
