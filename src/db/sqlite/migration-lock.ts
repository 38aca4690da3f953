// The lock that keeps processes on this machine from migrating one SQLite database at once (the server's starts, `chute
// migrate`): Kysely's migrator locks on PostgreSQL by itself, but on SQLite its lock only covers one connection.
import { closeSync, openSync } from 'node:fs';
import SqliteDatabase from 'better-sqlite3';

/**
 * An exclusive transaction on a small side database is a lock every process on this machine respects. It is polled
 * (never a blocking busy-wait) so that waiting does not stall the event loop of the process holding it.
 */
export async function withSqliteFileLock<T>(lockPath: string, fn: () => Promise<T>): Promise<T> {
  // 0600 like the database beside it (SQLite would make it with the umask's mode).
  closeSync(openSync(lockPath, 'a', 0o600));
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
