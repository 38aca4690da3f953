// Whether rows of some tables may have changed, cheaply enough to ask on every request, so that an in-memory copy of a
// row (db/precompiled.ts, cached queries) is used only while it is current. SQLite only: temp triggers on the tables of
// each watch (they exist on this connection alone) count the writes of this connection at once, per watch (a write to
// another watch's tables does not count), including those of transactions that roll back later (a needless refresh,
// never a stale answer), and PRAGMA data_version tells when any other connection (the batch writer's thread, another
// process such as the `chute` command) committed anything. That pragma costs about 4 us (as much as the look-up it
// would save), so it is read at most once a millisecond: a commit by another process is seen within 1 ms. The batch
// writer's thread (db/sqlite/worker-connections.ts) says so itself through changed() as each of its statements ends,
// before the request that waits for it answers: what a bulk delete removed is gone from the next request.
import { performance } from 'node:perf_hooks';
import type SqliteDatabase from 'better-sqlite3';

/** Longest time for which a commit of another connection may go unseen. */
export const OTHER_CONNECTIONS_SEEN_WITHIN_MS = 1;

export interface WatchedTable {
  table: string;
  /** Updates of only these columns count (default: every update); inserts and deletes always count. */
  columns?: readonly string[];
}

export interface RowWatch {
  /**
   * Watches these tables (their triggers are made now: call it once the migrations have made them) and answers the
   * generation of their rows. Undefined, and nothing done, while a transaction is open on the connection (a rollback
   * would take the triggers away unseen).
   */
  watch(tables: readonly WatchedTable[]): WatchedRows | undefined;
  /** Says that rows may have changed through another connection just now (seen by every watch's next generation()). */
  changed(): void;
}

export interface WatchedRows {
  /**
   * A number that differs from any earlier answer whenever a row of these tables may have changed since, including
   * by a transaction still open on this connection (its writes count at once). An answer copied outside any
   * transaction is therefore still the committed state while the number stays the same, also while a transaction
   * that has not touched these tables is open; the copying itself must happen outside transactions (db/precompiled.ts
   * reads only then). Writes to tables that another watch() named do not move it: an upload (a files row) does not
   * empty the kept short URLs or users.
   */
  generation(): number;
}

const NAME = /^[a-z_]+$/;

/**
 * A watch on `sqlite`, of the tables given to watch(). A table dropped and made again would lose its triggers: nothing
 * does that while the server runs (migrations run before the first request).
 */
export function watchRows(sqlite: SqliteDatabase.Database): RowWatch {
  /** Writes seen by each watch's triggers, by the watch's number. */
  const writes: number[] = [];
  sqlite.function('chute_rows_written', { deterministic: false }, (watch: unknown) => {
    writes[watch as number]! += 1;
    return null;
  });
  let dataVersion: SqliteDatabase.Statement | undefined;
  let seenVersion: unknown;
  /** Moves when another connection may have committed anything: every watch's generation moves with it. */
  let elsewhere = 0;
  let checkedAt = -Infinity;
  return {
    watch(tables) {
      if (sqlite.inTransaction) return undefined;
      const id = writes.length;
      for (const { table, columns } of tables) {
        for (const name of [table, ...(columns ?? [])])
          if (!NAME.test(name)) throw new Error(`not a plain name: ${name}`);
        const update = columns ? `update of ${columns.join(', ')}` : 'update';
        for (const [what, event] of [
          ['insert', 'insert'],
          ['update', update],
          ['delete', 'delete'],
        ] as const) {
          sqlite.exec(
            `create temp trigger chute_watch_${id}_${table}_${what} after ${event} on main.${table} ` +
              `begin select chute_rows_written(${id}); end`,
          );
        }
      }
      writes.push(0);
      // Whatever was copied before may predate the new triggers: the first answer differs from any (they start at 0).
      let own = 1;
      let seenWrites = 0;
      let seenElsewhere = elsewhere;
      return {
        generation() {
          dataVersion ??= sqlite.prepare('pragma data_version').pluck();
          const now = performance.now();
          if (now - checkedAt >= OTHER_CONNECTIONS_SEEN_WITHIN_MS) {
            checkedAt = now;
            const version = dataVersion.get();
            if (version !== seenVersion) {
              seenVersion = version;
              elsewhere++;
            }
          }
          if (writes[id] !== seenWrites || elsewhere !== seenElsewhere) {
            seenWrites = writes[id]!;
            seenElsewhere = elsewhere;
            own++;
          }
          return own;
        },
      };
    },
    changed() {
      elsewhere++;
    },
  };
}
