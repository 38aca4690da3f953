// Substring search of short URLs (destination, vanity, code) and of usernames through a trigram index, as files'
// search (issue 23): SQLite's FTS5 trigram tables with the triggers that keep them in step, filled from the rows
// already there; PostgreSQL's pg_trgm GIN indexes (without the extension, searches scan: server.ts says so).
import type { Kysely } from 'kysely';
import type { MigrationStepReport } from '../migration-steps.js';
import {
  createSqliteSearchIndex,
  createTrigramIndexes,
  dropSqliteSearchIndex,
  dropTrigramIndexes,
  isPostgres,
  URL_SEARCH,
  USER_SEARCH,
} from '../search-index.js';

const INDEXES = [URL_SEARCH, USER_SEARCH];

export async function up(db: Kysely<unknown>, report: MigrationStepReport = () => undefined): Promise<void> {
  if (isPostgres(db)) await createTrigramIndexes(db, true, report, INDEXES);
  else for (const index of INDEXES) await createSqliteSearchIndex(db, report, index);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (isPostgres(db)) await dropTrigramIndexes(db, INDEXES);
  else for (const index of INDEXES) await dropSqliteSearchIndex(db, index);
}
