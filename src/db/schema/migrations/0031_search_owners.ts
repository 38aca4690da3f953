// SQLite: the search index's numbering table (file_search) also holds each file's owner, kept in step by triggers
// (a new file, a file whose owner changes), so that a search's total counts the owner's matches from the trigram
// table and file_search alone instead of reading every matching file's row (issue 23, items 1 and 3). PostgreSQL
// counts through pg_trgm and the files' rows as before: nothing to do.
import type { Kysely } from 'kysely';
import type { MigrationStepReport } from '../migration-steps.js';
import { addSqliteSearchOwner, dropSqliteSearchOwner, isPostgres } from '../search-index.js';

export async function up(db: Kysely<unknown>, report: MigrationStepReport = () => undefined): Promise<void> {
  if (!isPostgres(db)) await addSqliteSearchOwner(db, report);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (!isPostgres(db)) await dropSqliteSearchOwner(db);
}
