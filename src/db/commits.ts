// How services commit, the same on both engines: ctx.commits (a GroupCommit) and unflushedTransaction. Each engine
// brings its own pipeline behind them (db/sqlite/commits.ts, db/postgres/commits.ts); docs/development.md ("The life
// of a commit") follows one commit through either.
import type { Db } from './schema/tables.js';

/**
 * Durable commits of small write transactions (an upload's record, its pending mark): on SQLite those that concurrent
 * requests ask for at once share one commit and one flush of the log (db/sqlite/commits.ts SqliteGroupCommit); on
 * PostgreSQL each is a plain transaction (db/postgres/commits.ts). Made by the database handle (db/index.ts
 * groupCommit()).
 */
export interface GroupCommit {
  /**
   * Runs `fn` in a transaction that is committed, durably, before the returned promise resolves. `fn` must use only
   * `trx` (never the database handle outside it) and do nothing but database work: on SQLite it shares the
   * transaction with others, one after another, and runs again (its first run rolled back) when another one of its
   * batch fails.
   */
  run<T>(fn: (trx: Db) => Promise<T>): Promise<T>;
  /**
   * Adds `row` through `lane` in a transaction committed, durably, before the returned promise resolves. On SQLite the
   * rows of one lane in one batch are written by one call, as one of the batch's transactions: when it fails, they
   * all fail with its error.
   */
  add<R>(lane: RowLane<R>, row: R): Promise<void>;
  /** Commits made, transactions they held, batches run again after one of them failed (for tests and benchmarks). */
  readonly stats: { commits: number; transactions: number; reruns: number };
}

/**
 * Rows that many callers each add to one table, each needing only to know that its row is committed (the pending
 * marks of uploads): the rows of one batch are written by one call of `write`, in place of a transaction each.
 */
export interface RowLane<R> {
  write(trx: Db, rows: R[]): Promise<unknown>;
}

// Unflushed commits: transactions whose commit nobody waits on to reach the disk. Atomic and isolated like any other,
// seen by every connection and instance at once and kept through a crash of the process (SQLite's log is written
// before the commit returns), but the last of them may be lost, each whole, when the machine (SQLite) or the database
// server (PostgreSQL) goes down before its next flush. The next durable commit makes every earlier one durable too:
// both engines' logs are written in order.
//
// Only for state that such a crash makes worthless anyway: a chunked upload's session between two chunks, whose bytes
// are not flushed either and whose sessions do not survive a restart (the spec's states table). On SQLite this saves a
// flush of the log per commit; on PostgreSQL the wait for its WAL flush (`synchronous_commit = off` for the one
// transaction). A handle that was not opened by db/index.ts commits durably.

/** Said inside the transaction, before its work: its commit is not to be waited on. */
type UnflushedMark = (trx: Db) => void | Promise<void>;

const unflushedMarks = new WeakMap<Db, UnflushedMark>();

/**
 * Says how `db` commits without waiting for the disk (each engine's opening does): `mark` runs first inside the
 * transaction (SQLite: tells the driver not to wait for the log's flush after the commit; PostgreSQL: turns
 * synchronous_commit off for the transaction).
 */
export function allowUnflushedCommits(db: Db, mark: UnflushedMark): void {
  unflushedMarks.set(db, mark);
}

/** Runs `fn` in a transaction whose commit is not waited on to reach the disk (see above). */
export function unflushedTransaction<T>(db: Db, fn: (trx: Db) => Promise<T>): Promise<T> {
  const mark = unflushedMarks.get(db);
  return db.transaction().execute(async (trx) => {
    await mark?.(trx);
    return fn(trx);
  });
}
