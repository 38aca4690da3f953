// The substring-search indexes: file names, original names and types (GET /api/user/files?searchQuery=), short URLs'
// destinations, vanities and codes (GET /api/user/urls?searchQuery=) and usernames (GET /api/users?search=). SQLite:
// an FTS5 table with the trigram tokenizer per searched table, kept in step by triggers. PostgreSQL: pg_trgm GIN
// indexes, which follow their tables by themselves; when the extension cannot be created, searches scan (and a log
// line says so). searchMatch is the one way a query matches them, case-insensitive for all of Unicode on both engines.
import {
  CompiledQuery,
  PostgresAdapter,
  sql,
  type Compilable,
  type Expression,
  type Kysely,
  type QueryExecutorProvider,
  type SqlBool,
} from 'kysely';
import type { Database } from './tables.js';
import { foldCase } from '../../lib/file-list.js';
import { INSTANCE } from './usage-counters.js';

/** A database or a transaction, of any schema (migrations see none). */
type Executor = QueryExecutorProvider;

/** A table whose columns are searched by substring, and the names of its index. */
export interface SearchIndex {
  table: 'files' | 'urls' | 'users';
  /** The searched columns: FTS5 columns on SQLite, a pg_trgm index each on PostgreSQL. */
  columns: readonly string[];
  /** SQLite: the table that numbers the rows (`seq`, the FTS5 rowid) by their id (`key`). */
  numbers: string;
  key: string;
  /** SQLite: the FTS5 table of the trigrams. */
  fts: string;
}

/** The columns of `files` that can be searched, as FTS5 columns and pg_trgm indexes. */
export const SEARCHABLE_COLUMNS = ['name', 'original_name', 'type'] as const;

export const FILE_SEARCH: SearchIndex = {
  table: 'files',
  columns: SEARCHABLE_COLUMNS,
  numbers: 'file_search',
  key: 'file_id',
  fts: 'files_fts',
};
export const URL_SEARCH: SearchIndex = {
  table: 'urls',
  columns: ['destination', 'vanity', 'code'],
  numbers: 'url_search',
  key: 'url_id',
  fts: 'urls_fts',
};
export const USER_SEARCH: SearchIndex = {
  table: 'users',
  columns: ['username'],
  numbers: 'user_search',
  key: 'user_id',
  fts: 'users_fts',
};
const SEARCH_INDEXES = [FILE_SEARCH, URL_SEARCH, USER_SEARCH];

/** A search this short (in Unicode characters) cannot use a trigram index: it scans. */
export const TRIGRAM_MIN_LENGTH = 3;

export const isPostgres = (db: Executor): boolean => db.getExecutor().adapter instanceof PostgresAdapter;

const trigramIndexName = (index: SearchIndex, column: string) => `${index.table}_${column}_trgm`;
/** SQLite's triggers of an index: files_search_insert ... (the names migration 0012 gave the files' ones). */
const triggerNames = (index: SearchIndex) =>
  ['insert', 'update', 'delete'].map((event) => `${index.table}_search_${event}`) as [string, string, string];

/** How a long fill says how far it is (a migration's MigrationStepReport). */
export type FillReport = (message: string, count?: { done: number; total: number }) => void;

/** Rows indexed per statement when the SQLite search index is filled. */
const FILL_SLICE = 100_000;

/**
 * SQLite: the numbering table gives every row a stable integer (the FTS5 rowid; the rowid of the table itself may
 * change on VACUUM), the FTS5 table holds the trigrams only (contentless, rows deletable). Fills both from the rows
 * already there; triggers keep them in step with every later write, in its transaction.
 */
export async function createSqliteSearchIndex(
  db: Executor,
  report: FillReport = () => undefined,
  index: SearchIndex = FILE_SEARCH,
): Promise<void> {
  // Whatever an earlier run left (a database migrated outside a transaction by an earlier version) starts over.
  await dropSqliteSearchIndex(db, index);
  const { table, numbers, key, fts } = index;
  const columns = index.columns.join(', ');
  await sql`create table ${sql.id(numbers)} (seq integer primary key, ${sql.id(key)} text not null unique)`.execute(db);
  await sql`create virtual table ${sql.id(fts)} using fts5(${sql.raw(columns)}, content='',
    contentless_delete=1, tokenize='trigram case_sensitive 0')`.execute(db);
  // Each existing row's number is its rowid now, so the trigrams are read from the table in rowid slices, without a
  // look-up per row; rows added later are numbered after them.
  await sql`insert into ${sql.id(numbers)} (seq, ${sql.id(key)}) select rowid, id from ${sql.id(table)}`.execute(db);
  const total = Number((await sql<{ n: number }>`select count(*) as n from ${sql.id(numbers)}`.execute(db)).rows[0]!.n);
  const step = `search index: trigrams of the ${table}`;
  report(step, { done: 0, total });
  // In slices of FILL_SLICE rows in rowid order, each followed by a progress report (a million files take tens of
  // seconds).
  let done = 0;
  for (let after = 0; done < total;) {
    const end = await sql<{ rowid: number }>`select rowid from ${sql.id(table)} where rowid > ${after} order by rowid
      limit 1 offset ${FILL_SLICE - 1}`.execute(db);
    const upTo = end.rows[0]?.rowid ?? Number.MAX_SAFE_INTEGER;
    const inserted = await sql`insert into ${sql.id(fts)} (rowid, ${sql.raw(columns)})
      select rowid, ${sql.raw(columns)} from ${sql.id(table)} where rowid > ${after} and rowid <= ${upTo}`.execute(db);
    done += Number(inserted.numAffectedRows ?? 0);
    report(step, { done, total });
    if (end.rows.length === 0) break;
    after = upTo;
  }
  await createInsertTrigger(db, index, false);
  await createChangeTriggers(db, index);
}

/** SQLite: the triggers that follow a changed or deleted row into the trigram table, at once (as made by 0012/0029). */
async function createChangeTriggers(db: Executor, index: SearchIndex): Promise<void> {
  const { table, numbers, key, fts } = index;
  const columns = index.columns.join(', ');
  const seqOf = (row: 'new' | 'old') => `(select seq from ${numbers} where ${key} = ${row}.id)`;
  const values = index.columns.map((c) => `new.${c}`).join(', ');
  const [, onUpdate, onDelete] = triggerNames(index);
  await sql
    .raw(
      `create trigger ${onUpdate} after update of ${columns} on ${table} begin
    delete from ${fts} where rowid = ${seqOf('old')};
    insert into ${fts} (rowid, ${columns}) values (${seqOf('new')}, ${values});
  end`,
    )
    .execute(db);
  await sql
    .raw(
      `create trigger ${onDelete} after delete on ${table} begin
    delete from ${fts} where rowid = ${seqOf('old')};
    delete from ${numbers} where ${key} = old.id;
  end`,
    )
    .execute(db);
}

/** SQLite: the trigger that numbers and indexes each new row (with its owner, once migration 0031 added it). */
async function createInsertTrigger(db: Executor, index: SearchIndex, withOwner: boolean): Promise<void> {
  const { table, numbers, key, fts } = index;
  const [onInsert] = triggerNames(index);
  const columns = index.columns.join(', ');
  const values = index.columns.map((c) => `new.${c}`).join(', ');
  const numbered = withOwner
    ? `insert into ${numbers} (${key}, user_id) values (new.id, new.user_id);`
    : `insert into ${numbers} (${key}) values (new.id);`;
  await sql`drop trigger if exists ${sql.id(onInsert)}`.execute(db);
  await sql
    .raw(
      `create trigger ${onInsert} after insert on ${table} begin
    ${numbered}
    insert into ${fts} (rowid, ${columns}) values ((select seq from ${numbers} where ${key} = new.id), ${values});
  end`,
    )
    .execute(db);
}

/** SQLite: the trigger that keeps file_search's copy of each file's owner (migration 0031). */
const OWNER_TRIGGER = 'files_search_owner';

/**
 * SQLite (migration 0031): file_search also holds each file's owner, kept in step by triggers, so that counting a
 * user's matches of a search reads the trigram table and file_search only, not every matching file's row (666,666
 * matches of a million files: 660 -> 250 ms). Fills the owners of the files already there. Safe to run again.
 */
export async function addSqliteSearchOwner(db: Executor, report: FillReport = () => undefined): Promise<void> {
  const columns = await sql<{ name: string }>`select name from pragma_table_info('file_search')`.execute(db);
  if (!columns.rows.some((c) => c.name === 'user_id'))
    await sql`alter table file_search add column user_id text`.execute(db);
  report('search index: the owner of each file');
  await sql`update file_search set user_id = (select user_id from files where files.id = file_search.file_id)
    where user_id is null`.execute(db);
  await createInsertTrigger(db, FILE_SEARCH, true);
  await sql`drop trigger if exists ${sql.id(OWNER_TRIGGER)}`.execute(db);
  await sql`create trigger ${sql.id(OWNER_TRIGGER)} after update of user_id on files begin
    update file_search set user_id = new.user_id where file_id = new.id;
  end`.execute(db);
}

/**
 * SQLite (migration 0032): the files whose names are not in the trigram table yet, by their number in file_search. A
 * new file's trigger puts it here instead of into files_fts: FTS5 writes out what it holds at the end of every
 * statement that runs a trigger (a statement savepoint) and at every commit, so indexing each new file from its
 * insert's trigger wrote a new segment of the trigram index per file, inside the upload's commit. indexNewFiles()
 * indexes the queue, up to INDEX_SLICE files per statement: the server about once a second (services/lists/files.ts
 * indexWaitingFiles), and a search of the files first of all, so that a search finds every committed file.
 */
export const NEW_FILES = 'file_search_new';

/** SQLite: the number of a file in file_search when its names are already in the trigram table (else null). */
const indexedSeq = (row: 'new' | 'old') =>
  `(select s.seq from file_search s where s.file_id = ${row}.id and s.seq not in (select seq from ${NEW_FILES}))`;

/**
 * SQLite (migration 0032): new files wait in file_search_new for indexNewFiles(); a renamed or deleted file that still
 * waits there is not in the trigram table (it gets its current names when indexed, or leaves the queue).
 */
export async function addSqliteSearchBacklog(db: Executor): Promise<void> {
  await sql`create table if not exists ${sql.id(NEW_FILES)} (seq integer primary key)`.execute(db);
  const columns = FILE_SEARCH.columns.join(', ');
  const values = FILE_SEARCH.columns.map((c) => `new.${c}`).join(', ');
  const [onInsert, onUpdate, onDelete] = triggerNames(FILE_SEARCH);
  for (const trigger of [onInsert, onUpdate, onDelete])
    await sql`drop trigger if exists ${sql.id(trigger)}`.execute(db);
  await sql
    .raw(
      `create trigger ${onInsert} after insert on files begin
    insert into file_search (file_id, user_id) values (new.id, new.user_id);
    insert into ${NEW_FILES} (seq) values ((select seq from file_search where file_id = new.id));
  end`,
    )
    .execute(db);
  await sql
    .raw(
      `create trigger ${onUpdate} after update of ${columns} on files begin
    delete from files_fts where rowid = ${indexedSeq('old')};
    insert into files_fts (rowid, ${columns}) select ${indexedSeq('new')}, ${values} where ${indexedSeq('new')} is not null;
  end`,
    )
    .execute(db);
  await sql
    .raw(
      `create trigger ${onDelete} after delete on files begin
    delete from files_fts where rowid = ${indexedSeq('old')};
    delete from ${NEW_FILES} where seq = (select seq from file_search where file_id = old.id);
    delete from file_search where file_id = old.id;
  end`,
    )
    .execute(db);
}

/** SQLite: undoes addSqliteSearchBacklog (indexing what still waits first). */
export async function dropSqliteSearchBacklog(db: Executor): Promise<void> {
  await indexNewFiles(db);
  const [, onUpdate, onDelete] = triggerNames(FILE_SEARCH);
  for (const trigger of [onUpdate, onDelete]) await sql`drop trigger if exists ${sql.id(trigger)}`.execute(db);
  await createChangeTriggers(db, FILE_SEARCH);
  await createInsertTrigger(db, FILE_SEARCH, true);
  await sql`drop table if exists ${sql.id(NEW_FILES)}`.execute(db);
}

/** Most files indexed by one statement (about 4 ms of the event loop each on a small machine). */
export const INDEX_SLICE = 1_000;

// The queue in number order (each file's number is file_search's integer key, so FTS5 gets rowids in ascending order),
// each number joined to its file by key: cross joins fix that order of the loops.
const LAST_OF_SLICE = `select max(seq) as upto from (select seq from ${NEW_FILES} order by seq limit ?)`;
const INDEX_SLICE_OF_NEW_FILES = `insert into files_fts (rowid, ${FILE_SEARCH.columns.join(', ')})
  select n.seq, ${FILE_SEARCH.columns.map((c) => `f.${c}`).join(', ')} from ${NEW_FILES} n
  cross join file_search s on s.seq = n.seq cross join files f on f.id = s.file_id where n.seq <= ? order by n.seq`;
const CLEAR_SLICE = `delete from ${NEW_FILES} where seq <= ?`;
const ANY_NEW_FILE = CompiledQuery.raw(`select exists (select 1 from ${NEW_FILES}) as waiting`);

/**
 * SQLite: puts the names of the first `limit` files waiting in file_search_new into the trigram table, in the caller's
 * transaction (or as statements of their own; nothing on PostgreSQL); returns whether any waited. Bulk writers (the
 * import, per slice) call it themselves.
 */
export async function indexNewFiles(db: Executor, limit = Number.MAX_SAFE_INTEGER): Promise<boolean> {
  if (isPostgres(db)) return false;
  const executor = db.getExecutor();
  const last = await executor.executeQuery<{ upto: number | null }>(CompiledQuery.raw(LAST_OF_SLICE, [limit]));
  const upto = last.rows[0]?.upto ?? null;
  if (upto === null) return false;
  await executor.executeQuery(CompiledQuery.raw(INDEX_SLICE_OF_NEW_FILES, [upto]));
  await executor.executeQuery(CompiledQuery.raw(CLEAR_SLICE, [upto]));
  return true;
}

/** SQLite: whether files wait to be indexed (a writer that did not call indexNewFiles: a search indexes them first). */
export async function hasNewFiles(db: Executor): Promise<boolean> {
  if (isPostgres(db)) return false;
  const found = await db.getExecutor().executeQuery<{ waiting: number }>(ANY_NEW_FILE);
  return Number(found.rows[0]?.waiting ?? 0) === 1;
}

/** SQLite: undoes addSqliteSearchOwner. */
export async function dropSqliteSearchOwner(db: Executor): Promise<void> {
  await sql`drop trigger if exists ${sql.id(OWNER_TRIGGER)}`.execute(db);
  await createInsertTrigger(db, FILE_SEARCH, false);
  await sql`alter table file_search drop column user_id`.execute(db);
}

export async function dropSqliteSearchIndex(db: Executor, index: SearchIndex = FILE_SEARCH): Promise<void> {
  const triggers = [...triggerNames(index), ...(index === FILE_SEARCH ? [OWNER_TRIGGER] : [])];
  for (const trigger of triggers) await sql`drop trigger if exists ${sql.id(trigger)}`.execute(db);
  await sql`drop table if exists ${sql.id(index.fts)}`.execute(db);
  await sql`drop table if exists ${sql.id(index.numbers)}`.execute(db);
}

/** Whether the pg_trgm indexes of every searchable column (of `indexes`: all by default) exist. */
export async function hasTrigramIndexes(db: Executor, indexes: SearchIndex[] = SEARCH_INDEXES): Promise<boolean> {
  const names = indexes.flatMap((index) => index.columns.map((column) => trigramIndexName(index, column)));
  const found = await sql<{ indexname: string }>`select indexname from pg_indexes
    where schemaname = current_schema() and indexname in (${sql.join(names)})`.execute(db);
  return found.rows.length === names.length;
}

/**
 * PostgreSQL: creates pg_trgm (if this role may) and a GIN index per searchable column of `indexes`. Runs inside a
 * savepoint when `db` is a transaction, so that a refused CREATE EXTENSION does not abort the migration around it.
 * Returns why it could not, or null.
 */
export async function createTrigramIndexes(
  db: Executor,
  inTransaction: boolean,
  report: FillReport = () => undefined,
  indexes: SearchIndex[] = [FILE_SEARCH],
): Promise<string | null> {
  if (inTransaction) await sql`savepoint chute_trigram`.execute(db);
  try {
    await sql`create extension if not exists pg_trgm`.execute(db);
    for (const index of indexes) {
      for (const [i, column] of index.columns.entries()) {
        report(`search index: trigram index of ${index.table}.${column}`, { done: i, total: index.columns.length });
        await sql`create index if not exists ${sql.id(trigramIndexName(index, column))} on ${sql.id(index.table)}
          using gin (${sql.id(column)} gin_trgm_ops)`.execute(db);
      }
    }
    if (inTransaction) await sql`release savepoint chute_trigram`.execute(db);
    return null;
  } catch (err) {
    if (inTransaction) await sql`rollback to savepoint chute_trigram`.execute(db);
    return err instanceof Error ? err.message : String(err);
  }
}

export async function dropTrigramIndexes(db: Executor, indexes: SearchIndex[] = [FILE_SEARCH]): Promise<void> {
  for (const index of indexes) {
    for (const column of index.columns)
      await sql`drop index if exists ${sql.id(trigramIndexName(index, column))}`.execute(db);
  }
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
  const failure = await createTrigramIndexes(db, false, undefined, SEARCH_INDEXES);
  if (failure === null) return true;
  log.warn(
    { reason: failure },
    'substring search of files scans every file of the user (and searches of short URLs and users every one of ' +
      'them): the PostgreSQL extension pg_trgm could not be created (install postgresql-contrib, or have a ' +
      'superuser run CREATE EXTENSION pg_trgm in this database, then restart)',
  );
  return false;
}

/** Whether searchMatch reads `query` from the trigram index (else it scans, or finds nothing at all). */
export const searchUsesIndex = (query: string): boolean =>
  [...query].length >= TRIGRAM_MIN_LENGTH && !query.includes('\u0000');

/**
 * Case-insensitive substring match of `query` in any of `columns` of the index's table (lib/file-list.ts foldCase:
 * all of Unicode, the same on both engines; `%`, `_` and `\` are plain characters). PostgreSQL: ILIKE, which the
 * pg_trgm GIN indexes serve from three characters on. SQLite: the FTS5 trigram table from three characters on (unless
 * `scan`: a column without trigrams), a scan through chute_fold (db/sqlite/connection.ts) below that.
 */
export function searchMatch(
  engine: 'sqlite' | 'postgres',
  index: SearchIndex,
  columns: readonly string[],
  query: string,
  options: { scan?: boolean } = {},
): Expression<SqlBool> {
  const ref = (column: string) => sql.ref(`${index.table}.${column}`);
  const any = (conditions: Array<Expression<SqlBool>>) => sql<SqlBool>`(${sql.join(conditions, sql` or `)})`;
  // No stored text holds a control character; NUL would not even reach PostgreSQL as text.
  if (query.includes('\u0000')) return sql<SqlBool>`1 = 0`;
  if (engine === 'postgres') {
    const pattern = `%${query.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    return any(columns.map((column) => sql<SqlBool>`${ref(column)} ilike ${pattern} escape '\\'`));
  }
  if (!searchUsesIndex(query) || options.scan) {
    const folded = foldCase(query);
    return any(columns.map((column) => sql<SqlBool>`instr(chute_fold(${ref(column)}), ${folded}) > 0`));
  }
  const numbers = sql.id(index.numbers);
  const fts = sql.id(index.fts);
  return sql<SqlBool>`${ref('id')} in (select ${numbers}.${sql.id(index.key)} from ${fts}
    join ${numbers} on ${numbers}.seq = ${fts}.rowid where ${fts} match ${ftsPhrase(columns, query)})`;
}

/** SQLite: one quoted FTS5 phrase in the columns: its trigrams, in a row, are the substring (quotes inside doubled). */
const ftsPhrase = (columns: readonly string[], query: string) =>
  `{${columns.join(' ')}} : "${query.replace(/"/g, '""')}"`;

/**
 * SQLite, a query searchMatch reads from the trigram table (searchUsesIndex): how many of `ownerId`'s files match it in
 * `columns`, counted from files_fts and file_search's copy of each file's owner (migration 0031), without reading the
 * files' rows. The same number as counting the owner's files that searchMatch matches. When the owner holds every file
 * of the instance (their stored count is the instance's: a one-user instance), the matches are counted in the trigram
 * table alone, without looking up each one's owner (666,666 matches of a million: about half the time). One
 * statement: the counters and the matches are read in one snapshot.
 */
export function countOwnedMatches(
  db: Kysely<Database>,
  columns: readonly string[],
  query: string,
  ownerId: string,
): Compilable<{ count: number | string }> {
  const untyped = db as unknown as Kysely<SearchTables>;
  const phrase = sql<SqlBool>`files_fts match ${ftsPhrase(columns, query)}`;
  const owned = untyped
    .selectFrom('files_fts')
    .innerJoin('file_search', 'file_search.seq', 'files_fts.rowid')
    .where(phrase)
    .where('file_search.user_id', '=', ownerId)
    .select(sql<number>`count(*)`.as('n'));
  const all = untyped
    .selectFrom('files_fts')
    .where(phrase)
    .select(sql<number>`count(*)`.as('n'));
  const filesOf = (owner: string) =>
    untyped.selectFrom('usage_counters').select('usage_counters.files').where('usage_counters.owner', '=', owner);
  return untyped.selectNoFrom(
    sql<number | string>`case when (${filesOf(ownerId)}) = (${filesOf(INSTANCE)}) then (${all}) else (${owned}) end`.as(
      'count',
    ),
  );
}

/** SQLite's tables of the files' search index, as countOwnedMatches reads them, and the owners' counters. */
interface SearchTables {
  files_fts: { rowid: number };
  file_search: { seq: number; file_id: string; user_id: string | null };
  usage_counters: { owner: string; files: number };
}
