// Opens the database: embedded SQLite inside DATA_DIR by default (db/sqlite/connection.ts), PostgreSQL when
// DATABASE_URL says so (db/postgres/pool.ts). Both engines answer the same Kysely queries and hand out the same
// handle; what differs is kept in db/sqlite/, db/postgres/ and db/errors.ts.
import { sql } from 'kysely';
import type { BatchWriter, SlowReader } from './batches-and-slow-reads.js';
import type { GroupCommit } from './commits.js';
import { openPostgres } from './postgres/pool.js';
import type { Db } from './schema/tables.js';
import type { Checkpointer } from './sqlite/checkpoints.js';
import type { WalSync } from './sqlite/commits.js';
import { openSqlite } from './sqlite/connection.js';
import type { WriteTurns } from './sqlite/write-lock.js';

export type Engine = 'sqlite' | 'postgres';

export interface DatabaseHandle {
  db: Db;
  engine: Engine;
  /**
   * Runs fn while holding a lock that other processes opening the same database also take: Kysely's migrator locks
   * on PostgreSQL by itself, but on SQLite its lock only covers one connection (db/sqlite/migration-lock.ts).
   */
  withMigrationLock<T>(fn: () => Promise<T>): Promise<T>;
  /**
   * A new group commit on this database (ctx.commits, db/commits.ts): on SQLite concurrent transactions share commits
   * and flushes of the log (db/sqlite/commits.ts), on PostgreSQL each is a plain transaction (db/postgres/commits.ts).
   */
  groupCommit(): GroupCommit;
  /** Where the statements of long deletions run (ctx.batches, db/batches-and-slow-reads.ts). */
  batchWriter(): BatchWriter;
  /** Where reads that may take long run (ctx.reads, db/batches-and-slow-reads.ts). */
  slowReader(): SlowReader;
  /** SQLite: flushes of its write-ahead log off the event loop, for every commit (db/sqlite/commits.ts). */
  walSync?: WalSync;
  /** SQLite: the turns of this process's writers, on its connection and its threads' (db/sqlite/write-lock.ts). */
  turns?: WriteTurns;
  /** SQLite: the checkpoints of the log, on a thread of their own (db/sqlite/checkpoints.ts). */
  checkpointer?: Checkpointer;
  /**
   * SQLite: from now on this connection keeps its temporary data in memory; call it once the migrations have run
   * (db/sqlite/connection.ts says why, and why not before).
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

export function openDatabase(options: OpenDatabaseOptions): DatabaseHandle {
  if (options.databaseUrl) {
    const { databaseUrl, poolSize, connectTimeoutMs } = options;
    return { engine: 'postgres', ...openPostgres({ databaseUrl, poolSize, connectTimeoutMs }) };
  }
  return { engine: 'sqlite', ...openSqlite(options.sqlitePath, { checkpointDelayMs: options.checkpointDelayMs }) };
}

/** A query that proves the database answers. */
export async function pingDatabase(db: Db): Promise<void> {
  await sql`select 1`.execute(db);
}
