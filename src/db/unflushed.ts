// Transactions whose commit nobody waits on to reach the disk. Atomic and isolated like any other, seen by every
// connection and instance at once and kept through a crash of the process (SQLite's log is written before the commit
// returns), but the last of them may be lost, each whole, when the machine (SQLite) or the database server
// (PostgreSQL) goes down before its next flush. The next durable commit makes every earlier one durable too: both
// engines' logs are written in order.
//
// Only for state that such a crash makes worthless anyway: a chunked upload's session between two chunks, whose bytes
// are not flushed either and whose sessions do not survive a restart (the spec's states table). On SQLite this saves a
// flush of the log per commit; on PostgreSQL the wait for its WAL flush (`synchronous_commit = off` for the one
// transaction). A handle that was not opened by db/index.ts commits durably.
import { sql } from 'kysely';
import type { Db } from './schema/tables.js';

type Marker = { engine: 'sqlite'; mark: () => void } | { engine: 'postgres' };

const markers = new WeakMap<Db, Marker>();

/**
 * Says how `db` commits without waiting for the disk (db/index.ts): on SQLite `mark` is called inside the transaction
 * and tells the driver not to wait for the log's flush after its commit.
 */
export function allowUnflushedCommits(db: Db, marker: Marker): void {
  markers.set(db, marker);
}

/** Runs `fn` in a transaction whose commit is not waited on to reach the disk (see above). */
export function unflushedTransaction<T>(db: Db, fn: (trx: Db) => Promise<T>): Promise<T> {
  const marker = markers.get(db);
  return db.transaction().execute(async (trx) => {
    if (marker?.engine === 'sqlite') marker.mark();
    else if (marker?.engine === 'postgres') await sql`set local synchronous_commit = off`.execute(trx);
    return fn(trx);
  });
}
