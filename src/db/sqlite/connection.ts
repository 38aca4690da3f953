// Opens the server's connection to the SQLite file (what db/index.ts hands out as the DatabaseHandle on SQLite): its
// pragmas and functions, the statement cache, Kysely's dialect with the driver of the commit pipeline
// (db/sqlite/commits.ts), and what runs beside it: the write turns (db/sqlite/write-lock.ts), the checkpoints
// (db/sqlite/checkpoints.ts), the batch writer's and the slow reader's threads (db/sqlite/worker-connections.ts), the
// row watch of the hot path's caches (db/sqlite/row-watch.ts).
import { closeSync, mkdirSync, openSync } from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import {
  Kysely,
  SqliteAdapter,
  SqliteDialect,
  type DialectAdapter,
  type Driver,
  type SqliteDialectConfig,
  type SqliteDatabase as SqliteDialectDatabase,
} from 'kysely';
import { foldCase } from '../../lib/file-list.js';
import { allowSynchronousReads } from '../precompiled.js';
import type { Database } from '../schema/tables.js';
import { startCheckpointer } from './checkpoints.js';
import {
  allowUnflushedSqliteCommits,
  ImmediateSqliteDriver,
  SqliteGroupCommit,
  WalSync,
  type CommitSettings,
} from './commits.js';
import { withSqliteFileLock } from './migration-lock.js';
import { watchRows } from './row-watch.js';
import { SQLITE_CACHE_SIZE, sqliteWorkerReader, sqliteWorkerWriter } from './worker-connections.js';
import { WriteTurns } from './write-lock.js';

export interface SqliteOptions {
  /** How soon after a commit the log is checkpointed (default db/sqlite/checkpoints.ts CHECKPOINT_DELAY_MS). */
  checkpointDelayMs?: number | undefined;
}

/** The server's connection to the SQLite file at `sqlitePath` (made, with its folder, when missing). */
export function openSqlite(sqlitePath: string, options: SqliteOptions = {}) {
  mkdirSync(path.dirname(path.resolve(sqlitePath)), { recursive: true, mode: 0o700 });
  createPrivateFile(sqlitePath);
  const sqlite = new SqliteDatabase(sqlitePath);
  sqlite.pragma('journal_mode = WAL');
  // NORMAL: a commit writes its frames to the log without flushing it; the driver (db/sqlite/commits.ts) then waits,
  // off the event loop, for a flush of the log that began after the commit before the caller goes on. As durable as
  // FULL (an upload acknowledged to a client survives a power cut), without an fsync on the event loop per commit.
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  // The same on the worker threads' connections (db/sqlite/worker-connections.ts says why 64 MiB).
  sqlite.pragma(`cache_size = ${SQLITE_CACHE_SIZE}`);
  // Never a checkpoint inside this connection's commits (on the event loop): db/sqlite/checkpoints.ts runs them on a
  // thread.
  sqlite.pragma('wal_autocheckpoint = 0');

  // Unicode case folding for searches too short for the trigram index (SQLite's own lower() folds ASCII only).
  sqlite.function('chute_fold', { deterministic: true }, (text: unknown) =>
    typeof text === 'string' ? foldCase(text) : null,
  );
  const statements = withStatementCache(sqlite);
  // One writer at a time in this process, waiting its turn off the event loop (db/sqlite/write-lock.ts).
  const turns = new WriteTurns();
  const checkpointer = startCheckpointer(path.resolve(sqlitePath), turns, options.checkpointDelayMs);
  const walSync = new WalSync(`${path.resolve(sqlitePath)}-wal`);
  const commits: CommitSettings = { turns, statements, sqlite, walSync, checkpointer, unflushed: { next: false } };
  const db = new Kysely<Database>({ dialect: new TransactionalDdlSqliteDialect({ database: statements }, commits) });
  allowUnflushedSqliteCommits(db, commits);
  // Outside a transaction, a read cannot see anything uncommitted: it may skip Kysely's lock (db/precompiled.ts).
  // Copies of rows that the hot path keeps (db/precompiled.ts, cached queries) are used while the watch
  // (db/sqlite/row-watch.ts) says they are current.
  const watch = watchRows(sqlite);
  allowSynchronousReads(
    db,
    (text, parameters) =>
      // get(): the first row only (these queries find one row by a key), without building an array of rows.
      sqlite.inTransaction ? undefined : ((statements.prepare(text).get(parameters) as unknown) ?? null),
    watch,
  );
  return {
    db,
    withMigrationLock: <T>(fn: () => Promise<T>): Promise<T> => withSqliteFileLock(`${sqlitePath}.migrate-lock`, fn),
    groupCommit: () => new SqliteGroupCommit(db, walSync),
    // Its statements commit on another connection: the watch hears of each before its caller goes on.
    batchWriter: () => sqliteWorkerWriter(sqlitePath, { turns, onStatementEnd: () => watch.changed() }),
    // Kept for a while between reads: a thread and its connection take tens of milliseconds to start.
    slowReader: () => sqliteWorkerReader(sqlitePath, { idleMs: 5 * 60_000 }),
    turns,
    walSync,
    checkpointer,
    // From now on the connection keeps its temporary data in memory (called once the migrations have run). A statement
    // that fires triggers inside a transaction keeps a statement journal (the pages it changed, to undo it alone); past
    // 64 KiB SQLite spills it to a temp file, opened and written for every such statement. A new file's insert touches
    // ~15 pages (its indexes, the search index, the counters), so each upload's insert wrote one: in memory it costs
    // half (101 -> 48 us per insert, bench/RESULTS.md, 2026-11-28). Not before the migrations: in memory SQLite's
    // sorter never spills either, and building an index over a million files would sort it all in memory. Not on the
    // batch writer's and the slow reader's connections (long deletions, exports, broad searches). Changing the setting
    // drops the connection's temp triggers (db/sqlite/row-watch.ts): it is set before any is made; setting it again to
    // the same value leaves them alone (test/db/checkpointer.test.ts).
    keepTemporaryDataInMemory: () => sqlite.pragma('temp_store = MEMORY'),
    close: async () => {
      await checkpointer.close();
      await walSync.close();
      await db.destroy();
    },
  };
}

/**
 * Makes `file` empty and 0600 when it does not exist (an empty file is an empty SQLite database). SQLite creates a
 * database's -wal, -shm and -journal files with the database file's own mode, so they are private too, whatever the
 * umask of the process (a `chute` command, a test, a server started by hand).
 */
function createPrivateFile(file: string): void {
  closeSync(openSync(file, 'a', 0o600));
}

/**
 * SQLite runs schema changes inside transactions, but Kysely's adapter says it does not, so its migrator would run
 * SQLite's migrations statement by statement: a migration killed half-way (a long index build, the search index of a
 * million files) would leave half of its work behind. Saying so makes the migrator run the pending migrations and
 * their records in one transaction, as on PostgreSQL: a killed run leaves nothing, and the next start runs it again.
 */
class TransactionalDdlSqliteAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }
}

class TransactionalDdlSqliteDialect extends SqliteDialect {
  constructor(
    private readonly config: SqliteDialectConfig,
    private readonly commitSettings: CommitSettings,
  ) {
    super(config);
  }

  override createAdapter(): DialectAdapter {
    return new TransactionalDdlSqliteAdapter();
  }

  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.config, this.commitSettings);
  }
}

/** How many prepared SQLite statements are kept (each distinct SQL text of the application is one). */
const STATEMENT_CACHE_SIZE = 500;

/**
 * The SQLite database as Kysely sees it, with its prepared statements kept by SQL text: Kysely prepares every query
 * anew, which cost a redirect more than the query itself (bench/RESULTS.md). Least recently used statements go first.
 * A statement is reused only after the previous use has returned (better-sqlite3 runs them synchronously; nothing here
 * streams rows with iterate()).
 */
function withStatementCache(
  database: SqliteDatabase.Database,
): Omit<SqliteDialectDatabase, 'prepare'> & { prepare(sql: string): SqliteDatabase.Statement } {
  const statements = new Map<string, ReturnType<SqliteDatabase.Database['prepare']>>();
  return {
    close: () => database.close(),
    prepare(sql) {
      let statement = statements.get(sql);
      if (statement) statements.delete(sql);
      else statement = database.prepare(sql);
      statements.set(sql, statement);
      if (statements.size > STATEMENT_CACHE_SIZE) statements.delete(statements.keys().next().value!);
      return statement;
    },
  };
}
