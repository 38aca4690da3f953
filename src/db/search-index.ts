// The substring-search index of file names, original names and types (GET /api/user/files?searchQuery=). SQLite:
// an FTS5 table with the trigram tokenizer, kept in step with `files` by triggers. PostgreSQL: pg_trgm GIN indexes,
// which follow the table by themselves; when the extension cannot be created, searches scan (and a log line says so).
import { PostgresAdapter, sql, type QueryExecutorProvider } from 'kysely';

/** A database or a transaction, of any schema (migrations see none). */
type Executor = QueryExecutorProvider;

/** The columns of `files` that can be searched, as FTS5 columns and pg_trgm indexes. */
export const SEARCHABLE_COLUMNS = ['name', 'original_name', 'type'] as const;

/** A search this short (in Unicode characters) cannot use a trigram index: it scans. */
export const TRIGRAM_MIN_LENGTH = 3;

export const isPostgres = (db: Executor): boolean => db.getExecutor().adapter instanceof PostgresAdapter;

const trigramIndexName = (column: string) => `files_${column}_trgm`;

/** How a long fill says how far it is (a migration's MigrationStepReport). */
export type FillReport = (message: string, count?: { done: number; total: number }) => void;

/** Files indexed per statement when the SQLite search index is filled. */
const FILL_SLICE = 100_000;

/**
 * SQLite: `file_search` gives every file a stable integer (the FTS5 rowid; the rowid of `files` itself may change on
 * VACUUM), `files_fts` holds the trigrams only (contentless, rows deletable). Fills both from the existing files.
 */
export async function createSqliteSearchIndex(db: Executor, report: FillReport = () => undefined): Promise<void> {
  // Whatever an earlier run left (a database migrated outside a transaction by an earlier version) starts over.
  await dropSqliteSearchIndex(db);
  await sql`create table file_search (seq integer primary key, file_id text not null unique)`.execute(db);
  await sql`create virtual table files_fts using fts5(${sql.raw(SEARCHABLE_COLUMNS.join(', '))}, content='',
    contentless_delete=1, tokenize='trigram case_sensitive 0')`.execute(db);
  // Each existing file's number is its rowid now, so the trigrams are read from `files` in rowid slices, without a
  // look-up per file; files added later are numbered after them.
  await sql`insert into file_search (seq, file_id) select rowid, id from files`.execute(db);
  const total = Number((await sql<{ n: number }>`select count(*) as n from file_search`.execute(db)).rows[0]!.n);
  report('search index: trigrams of the files', { done: 0, total });
  // In slices of FILL_SLICE files in rowid order, each followed by a progress report (a million files take tens of
  // seconds).
  let done = 0;
  for (let after = 0; done < total;) {
    const end = await sql<{ rowid: number }>`select rowid from files where rowid > ${after} order by rowid
      limit 1 offset ${FILL_SLICE - 1}`.execute(db);
    const upTo = end.rows[0]?.rowid ?? Number.MAX_SAFE_INTEGER;
    const inserted = await sql`insert into files_fts (rowid, name, original_name, type)
      select rowid, name, original_name, type from files where rowid > ${after} and rowid <= ${upTo}`.execute(db);
    done += Number(inserted.numAffectedRows ?? 0);
    report('search index: trigrams of the files', { done, total });
    if (end.rows.length === 0) break;
    after = upTo;
  }
  const seqOf = (row: 'new' | 'old') => `(select seq from file_search where file_id = ${row}.id)`;
  await sql`create trigger files_search_insert after insert on files begin
    insert into file_search (file_id) values (new.id);
    insert into files_fts (rowid, name, original_name, type)
      values (${sql.raw(seqOf('new'))}, new.name, new.original_name, new.type);
  end`.execute(db);
  await sql`create trigger files_search_update after update of name, original_name, type on files begin
    delete from files_fts where rowid = ${sql.raw(seqOf('old'))};
    insert into files_fts (rowid, name, original_name, type)
      values (${sql.raw(seqOf('new'))}, new.name, new.original_name, new.type);
  end`.execute(db);
  await sql`create trigger files_search_delete after delete on files begin
    delete from files_fts where rowid = ${sql.raw(seqOf('old'))};
    delete from file_search where file_id = old.id;
  end`.execute(db);
}

export async function dropSqliteSearchIndex(db: Executor): Promise<void> {
  for (const trigger of ['files_search_insert', 'files_search_update', 'files_search_delete'])
    await sql`drop trigger if exists ${sql.id(trigger)}`.execute(db);
  await sql`drop table if exists files_fts`.execute(db);
  await sql`drop table if exists file_search`.execute(db);
}

/** Whether the pg_trgm indexes of every searchable column exist. */
export async function hasTrigramIndexes(db: Executor): Promise<boolean> {
  const found = await sql<{ indexname: string }>`select indexname from pg_indexes
    where schemaname = current_schema() and tablename = 'files'
    and indexname in (${sql.join(SEARCHABLE_COLUMNS.map(trigramIndexName))})`.execute(db);
  return found.rows.length === SEARCHABLE_COLUMNS.length;
}

/**
 * PostgreSQL: creates pg_trgm (if this role may) and a GIN index per searchable column. Runs inside a savepoint
 * when `db` is a transaction, so that a refused CREATE EXTENSION does not abort the migration around it. Returns
 * why it could not, or null.
 */
export async function createTrigramIndexes(
  db: Executor,
  inTransaction: boolean,
  report: FillReport = () => undefined,
): Promise<string | null> {
  if (inTransaction) await sql`savepoint chute_trigram`.execute(db);
  try {
    await sql`create extension if not exists pg_trgm`.execute(db);
    for (const [i, column] of SEARCHABLE_COLUMNS.entries()) {
      report(`search index: trigram index of ${column}`, { done: i, total: SEARCHABLE_COLUMNS.length });
      await sql`create index if not exists ${sql.id(trigramIndexName(column))} on files
        using gin (${sql.id(column)} gin_trgm_ops)`.execute(db);
    }
    if (inTransaction) await sql`release savepoint chute_trigram`.execute(db);
    return null;
  } catch (err) {
    if (inTransaction) await sql`rollback to savepoint chute_trigram`.execute(db);
    return err instanceof Error ? err.message : String(err);
  }
}

export async function dropTrigramIndexes(db: Executor): Promise<void> {
  for (const column of SEARCHABLE_COLUMNS)
    await sql`drop index if exists ${sql.id(trigramIndexName(column))}`.execute(db);
}

/**
 * At start-up on PostgreSQL: the trigram indexes are there, or are made now (pg_trgm installed since the migration),
 * or a warning says that searches scan and what to do. Returns whether searches use the index.
 */
export async function checkTrigramSearch(
  db: Executor,
  log: { warn(details: object, message: string): void },
): Promise<boolean> {
  if (await hasTrigramIndexes(db)) return true;
  const failure = await createTrigramIndexes(db, false);
  if (failure === null) return true;
  log.warn(
    { reason: failure },
    'substring search of files scans every file of the user: the PostgreSQL extension pg_trgm could not be created ' +
      '(install postgresql-contrib, or have a superuser run CREATE EXTENSION pg_trgm in this database, then restart)',
  );
  return false;
}
