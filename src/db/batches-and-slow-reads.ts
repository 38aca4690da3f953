// Where long work runs, the same for every engine: the batch writer (the statements of long deletions,
// services/files/deletions.ts) and the slow reader (reads that may take long, services/lists/pages.ts), as ctx.batches
// and ctx.reads. On SQLite the server's run on worker threads with connections of their own
// (db/sqlite/worker-connections.ts); PostgreSQL, the `chute` command and short reads use the database's own
// connection (below): its server does the work, or nothing else waits on the process.
import type { Compilable } from 'kysely';
import type { Db } from './schema/tables.js';

export interface BatchResult<R> {
  rows: R[];
  numAffectedRows: number;
}

export interface BatchWriter {
  /** How long one batch statement should take: what a writer on the main connection may wait for it. */
  readonly batchTargetMs: number;
  /** Runs one statement (with or without RETURNING) as its own transaction. */
  execute<R>(query: Compilable<R>): Promise<BatchResult<R>>;
  close(): Promise<void>;
}

/**
 * Reads that may take long (a listing that counts every match of a broad search, a page number deep in a long list):
 * on SQLite, a worker thread's own connection (WAL: it reads what was committed, as the main connection does), so that
 * better-sqlite3 does not hold the event loop, and with it every other request, for as long as they run. PostgreSQL
 * and the CLI read on the database's own connection.
 */
export interface SlowReader {
  all<R>(query: Compilable<R>): Promise<R[]>;
  close(): Promise<void>;
}

/** The statements on the database's own connection (PostgreSQL, and the CLI). */
export function sameConnectionWriter(db: Db): BatchWriter {
  return {
    batchTargetMs: 20,
    async execute<R>(query: Compilable<R>) {
      const result = await db.executeQuery(query.compile());
      return { rows: result.rows as R[], numAffectedRows: Number(result.numAffectedRows ?? 0) };
    },
    close: async () => undefined,
  };
}

export function sameConnectionReader(db: Db): SlowReader {
  return {
    async all<R>(query: Compilable<R>) {
      return (await db.executeQuery(query.compile())).rows as R[];
    },
    close: async () => undefined,
  };
}
