// PostgreSQL's side of db/commits.ts. Concurrent transactions commit on pooled connections of their own, and the
// server's WAL writer already flushes the commits that arrive together with one write: a group commit here is a plain
// transaction per run. An unflushed commit turns synchronous_commit off for its one transaction.
import { sql } from 'kysely';
import { allowUnflushedCommits, type GroupCommit } from '../commits.js';
import type { Db } from '../schema/tables.js';

/** The GroupCommit of PostgreSQL: each run() a transaction of its own on a connection of the pool. */
export function plainTransactions(db: Db): GroupCommit {
  const stats = { commits: 0, transactions: 0, reruns: 0 };
  const run = <T>(fn: (trx: Db) => Promise<T>): Promise<T> => {
    stats.commits++;
    stats.transactions++;
    return db.transaction().execute(fn);
  };
  return {
    stats,
    run,
    add: (lane, row) => run((trx) => lane.write(trx, [row])).then(() => undefined),
  };
}

/** Lets unflushedTransaction (db/commits.ts) run on `db`: the commit returns before PostgreSQL flushes its WAL. */
export function allowUnflushedPostgresCommits(db: Db): void {
  allowUnflushedCommits(db, async (trx) => {
    await sql`set local synchronous_commit = off`.execute(trx);
  });
}
