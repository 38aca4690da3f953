// Opens the database: embedded SQLite inside DATA_DIR by default, PostgreSQL when DATABASE_URL says so.
// Both engines answer the same Kysely queries; differences are kept here and in db/errors.ts.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import {
  CompiledQuery,
  Kysely,
  PostgresDialect,
  SqliteAdapter,
  SqliteDialect,
  SqliteDriver,
  sql,
  type DatabaseConnection,
  type DialectAdapter,
  type Driver,
  type SqliteDialectConfig,
  type SqliteDatabase as SqliteDialectDatabase,
} from 'kysely';
import pg from 'pg';
import { foldCase } from '../lib/file-list.js';
import { allowSynchronousReads } from './precompiled.js';
import { watchRows } from './sqlite/row-watch.js';
import type { Database, Db } from './schema/tables.js';
import {
  SQLITE_CACHE_SIZE,
  sameConnectionReader,
  sameConnectionWriter,
  sqliteWorkerReader,
  sqliteWorkerWriter,
  type BatchWriter,
  type SlowReader,
} from './sqlite/worker-connections.js';
import { startCheckpointer, type Checkpointer } from './sqlite/checkpoints.js';
import { allowUnflushedCommits } from './unflushed.js';
import { WalSync } from './sqlite/log-flush.js';
import { WriteTurns } from './sqlite/write-lock.js';

export type Engine = 'sqlite' | 'postgres';

export interface DatabaseHandle {
  db: Db;
  engine: Engine;
  /**
   * Runs fn while holding a lock that other processes opening the same database also take: Kysely's migrator locks
   * on PostgreSQL by itself, but on SQLite its lock only covers one connection.
   */
  withMigrationLock<T>(fn: () => Promise<T>): Promise<T>;
  /** Where the statements of long deletions run: a worker thread's own connection on SQLite (db/sqlite/worker-connections.ts). */
  batchWriter(): BatchWriter;
  /** Where reads that may take long run: a worker thread's own connection on SQLite (db/sqlite/worker-connections.ts). */
  slowReader(): SlowReader;
  /** SQLite: flushes of its write-ahead log off the event loop, for group commit (db/sqlite/log-flush.ts). */
  walSync?: WalSync;
  /** SQLite: the turns of this process's writers, on its connection and the batch writer's (db/sqlite/write-lock.ts). */
  turns?: WriteTurns;
  /** SQLite: the checkpoints of the log, on a thread of their own (db/sqlite/checkpoints.ts). */
  checkpointer?: Checkpointer;
  /**
   * SQLite: from now on this connection keeps its temporary data in memory; call it once the migrations have run. A
   * statement that fires triggers inside a transaction keeps a statement journal (the pages it changed, to undo it
   * alone); past 64 KiB SQLite spills it to a temp file, opened and written for every such statement. A new file's
   * insert touches ~15 pages (its indexes, the search index, the counters), so each upload's insert wrote one: in
   * memory it costs half (101 -> 48 us per insert, bench/RESULTS.md, 2026-11-28). Not before the migrations: in memory
   * SQLite's sorter never spills either, and building an index over a million files would sort it all in memory. Not
   * on the batch writer's and the slow reader's connections (long deletions, exports, broad searches). Changing the
   * setting drops the connection's temp triggers (db/sqlite/row-watch.ts): it is set before any is made.
   */
  keepTemporaryDataInMemory?(): void;
  close(): Promise<void>;
}

export interface OpenDatabaseOptions {
  /** postgres:// URL; when absent, SQLite at sqlitePath. */
  databaseUrl?: string | undefined;
  sqlitePath: string;
  /** Largest number of pooled PostgreSQL connections. */
  poolSize?: number;
  /** How long a PostgreSQL connection attempt may take (default: no bound but the network's). */
  connectTimeoutMs?: number;
  /** SQLite: how soon after a commit the log is checkpointed (default db/sqlite/checkpoints.ts CHECKPOINT_DELAY_MS). */
  checkpointDelayMs?: number;
}

// int8 (bigint) and numeric counts come back as numbers: every bigint we store (sizes, epoch ms) is far below 2^53.
const pgTypes = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === 20 /* int8 */) return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format as 'text');
  },
};

export function openDatabase(options: OpenDatabaseOptions): DatabaseHandle {
  if (options.databaseUrl) {
    const pool = new pg.Pool({
      connectionString: options.databaseUrl,
      max: options.poolSize ?? 10,
      ...(options.connectTimeoutMs !== undefined ? { connectionTimeoutMillis: options.connectTimeoutMs } : {}),
      types: pgTypes as pg.CustomTypesConfig,
    });
    // An idle connection that fails (database restart, network, DROP DATABASE in tests) is dropped by the pool and
    // replaced on the next query; without a listener its 'error' event would crash the process.
    pool.on('error', () => undefined);
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    allowUnflushedCommits(db, { engine: 'postgres' });
    return {
      db,
      engine: 'postgres',
      withMigrationLock: (fn) => fn(),
      batchWriter: () => sameConnectionWriter(db),
      slowReader: () => sameConnectionReader(db),
      close: () => db.destroy(),
    };
  }

  mkdirSync(path.dirname(path.resolve(options.sqlitePath)), { recursive: true });
  const sqlite = new SqliteDatabase(options.sqlitePath);
  sqlite.pragma('journal_mode = WAL');
  // NORMAL: a commit writes its frames to the log without flushing it; the driver below then waits, off the event
  // loop, for a flush of the log that began after the commit (db/sqlite/log-flush.ts) before the caller goes on. As durable as
  // FULL (an upload acknowledged to a client survives a power cut), without an fsync on the event loop per commit.
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma(`cache_size = ${SQLITE_CACHE_SIZE}`);
  // Never a checkpoint inside this connection's commits (on the event loop): db/sqlite/checkpoints.ts runs them on a thread.
  sqlite.pragma('wal_autocheckpoint = 0');

  // Unicode case folding for searches too short for the trigram index (SQLite's own lower() folds ASCII only).
  sqlite.function('chute_fold', { deterministic: true }, (text: unknown) =>
    typeof text === 'string' ? foldCase(text) : null,
  );
  const statements = withStatementCache(sqlite);
  // One writer at a time in this process, waiting its turn off the event loop (db/sqlite/write-lock.ts).
  const turns = new WriteTurns();
  const checkpointer = startCheckpointer(path.resolve(options.sqlitePath), turns, options.checkpointDelayMs);
  const walSync = new WalSync(`${path.resolve(options.sqlitePath)}-wal`);
  const unflushed = { next: false };
  const db = new Kysely<Database>({
    dialect: new TransactionalDdlSqliteDialect(
      { database: statements },
      { turns, statements, sqlite, walSync, checkpointer, unflushed },
    ),
  });
  // The transaction open on the connection (only one can be) commits without waiting for the log's flush.
  allowUnflushedCommits(db, {
    engine: 'sqlite',
    mark: () => {
      if (!sqlite.inTransaction) throw new Error('an unflushed commit is asked for outside a transaction');
      unflushed.next = true;
    },
  });
  // Outside a transaction, a read cannot see anything uncommitted: it may skip Kysely's lock (db/precompiled.ts).
  // Copies of rows that the hot path keeps (db/precompiled.ts, cached queries) are used while this says they are current.
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
    engine: 'sqlite',
    withMigrationLock: (fn) => withSqliteFileLock(`${options.sqlitePath}.migrate-lock`, fn),
    // Its statements commit on another connection: the watch hears of each before its caller goes on.
    batchWriter: () => sqliteWorkerWriter(options.sqlitePath, { turns, onStatementEnd: () => watch.changed() }),
    // Kept for a while between reads: a thread and its connection take tens of milliseconds to start.
    slowReader: () => sqliteWorkerReader(options.sqlitePath, { idleMs: 5 * 60_000 }),
    turns,
    walSync,
    checkpointer,
    // Setting it again to the same value leaves the temp objects alone (test/db/checkpointer.test.ts).
    keepTemporaryDataInMemory: () => sqlite.pragma('temp_store = MEMORY'),
    close: async () => {
      await checkpointer.close();
      await walSync.close();
      await db.destroy();
    },
  };
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

interface TurnSettings {
  turns: WriteTurns;
  walSync: WalSync;
  checkpointer: Checkpointer;
  statements: { prepare(sql: string): SqliteDatabase.Statement };
  /** The open transaction's commit is not waited on to reach the disk (db/unflushed.ts). */
  unflushed: { next: boolean };
  sqlite: SqliteDatabase.Database;
}

/**
 * Transactions begin with BEGIN IMMEDIATE: they take the write lock at once. A plain BEGIN reads first and asks for
 * the lock at its first write; if another connection (the batch writer's thread, the `chute` command) committed in
 * between, SQLite cannot let it write on its older snapshot and fails at once with SQLITE_BUSY, without waiting: a
 * folder deletion next to a bulk delete answered 500 (test/db/sqlite-transactions.test.ts).
 *
 * Every writer first waits for its turn (db/sqlite/write-lock.ts), shared with the batch writer's thread: a transaction from
 * BEGIN to its end, a statement that writes outside one for its own duration. Reads never wait. After its commit, a
 * writer gives its turn and the connection back, then waits for a flush of the log (synchronous = NORMAL, see
 * openDatabase), unless its transaction asked not to (db/unflushed.ts).
 */
class ImmediateSqliteDriver extends SqliteDriver {
  /** Ends the turn of the transaction now open. */
  private endTurn: (() => void) | undefined;
  /** A commit was made since the connection was acquired: its caller waits for a flush of the log. */
  private flushOwed = false;
  /** A commit that nobody waits for was made since the connection was acquired (db/unflushed.ts). */
  private unflushedCommit = false;
  private wrapped: DatabaseConnection | undefined;
  private raw: DatabaseConnection | undefined;

  constructor(
    config: SqliteDialectConfig,
    private readonly settings: TurnSettings,
  ) {
    super(config);
  }

  override async acquireConnection(): Promise<DatabaseConnection> {
    const raw = await super.acquireConnection();
    if (this.raw !== raw) {
      this.raw = raw;
      this.wrapped = {
        executeQuery: (query) => this.execute(raw, query),
        streamQuery: (query, chunkSize) => raw.streamQuery(query, chunkSize),
      };
    }
    return this.wrapped!;
  }

  private async execute<R>(raw: DatabaseConnection, query: CompiledQuery) {
    // Inside a transaction the turn is held already; a statement that only reads needs none.
    if (this.endTurn !== undefined || this.settings.statements.prepare(query.sql).readonly) {
      return raw.executeQuery<R>(query);
    }
    const end = await this.settings.turns.take();
    try {
      const result = await raw.executeQuery<R>(query);
      this.flushOwed = true;
      return result;
    } finally {
      end();
    }
  }

  override async beginTransaction(): Promise<void> {
    const end = await this.settings.turns.take();
    try {
      await this.raw!.executeQuery(CompiledQuery.raw('begin immediate'));
    } catch (err) {
      end();
      throw err;
    }
    this.endTurn = end;
  }

  override async commitTransaction(): Promise<void> {
    const unflushed = this.settings.unflushed.next;
    this.settings.unflushed.next = false;
    try {
      await this.raw!.executeQuery(CompiledQuery.raw('commit'));
    } finally {
      // A commit that failed may leave the transaction open (SQLite keeps it for a retry); the rollback ends it.
      if (!this.settings.sqlite.inTransaction) this.releaseTurn();
    }
    if (unflushed) this.unflushedCommit = true;
    else this.flushOwed = true;
  }

  /**
   * Gives the connection back, then waits for the flush of the log that the caller's commit needs: the caller hears of
   * its write only once it is on disk, while other queries use the connection meanwhile.
   */
  override async releaseConnection(): Promise<void> {
    const owed = this.flushOwed;
    const committed = owed || this.unflushedCommit;
    this.flushOwed = false;
    this.unflushedCommit = false;
    await super.releaseConnection();
    if (committed) this.settings.checkpointer.committed();
    if (owed) await this.settings.walSync.sync();
  }

  override async rollbackTransaction(): Promise<void> {
    this.settings.unflushed.next = false;
    try {
      // After a commit that failed and ended the transaction, there is nothing to roll back (and saying so would hide
      // the commit's error).
      if (this.settings.sqlite.inTransaction) await this.raw!.executeQuery(CompiledQuery.raw('rollback'));
    } finally {
      this.releaseTurn();
    }
  }

  private releaseTurn(): void {
    const end = this.endTurn;
    this.endTurn = undefined;
    end?.();
  }
}

class TransactionalDdlSqliteDialect extends SqliteDialect {
  constructor(
    private readonly config: SqliteDialectConfig,
    private readonly turnSettings: TurnSettings,
  ) {
    super(config);
  }

  override createAdapter(): DialectAdapter {
    return new TransactionalDdlSqliteAdapter();
  }

  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.config, this.turnSettings);
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

/**
 * An exclusive transaction on a small side database is a lock every process on this machine respects. It is polled
 * (never a blocking busy-wait) so that waiting does not stall the event loop of the process holding it.
 */
async function withSqliteFileLock<T>(lockPath: string, fn: () => Promise<T>): Promise<T> {
  const lock = new SqliteDatabase(lockPath);
  lock.pragma('busy_timeout = 0');
  try {
    const deadline = Date.now() + 120_000;
    for (;;) {
      try {
        lock.exec('BEGIN EXCLUSIVE');
        break;
      } catch (err) {
        if ((err as { code?: string }).code !== 'SQLITE_BUSY' || Date.now() > deadline) throw err;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    }
    try {
      return await fn();
    } finally {
      lock.exec('COMMIT');
    }
  } finally {
    lock.close();
  }
}

/** A query that proves the database answers. */
export async function pingDatabase(db: Db): Promise<void> {
  await sql`select 1`.execute(db);
}
