// Where the statements of long deletions run (services/deletions.ts). better-sqlite3 runs each statement, and each
// commit's fsync, on the thread that calls it: a batch of deletes on the main thread holds up every request for as long
// as it takes. On SQLite these statements therefore run on a worker thread with its own connection to the same file:
// readers on the main connection (a redirect, a download, a listing) go on meanwhile (WAL), and a writer there waits
// only for the one batch in progress. Each statement is its own transaction, as on the main connection. PostgreSQL
// runs them on its pool as any other query (its server does the work; nothing blocks this process).
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { Compilable, CompiledQuery } from 'kysely';
import type { Db } from './types.js';

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

// The worker: its own connection with the pragmas of db/index.ts, one statement per message.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.module);
const db = new Database(workerData.path);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = FULL');
db.pragma('foreign_keys = ON');
db.pragma('busy_timeout = 5000');
const statements = new Map();
parentPort.on('message', ({ id, sql, parameters }) => {
  try {
    let statement = statements.get(sql);
    if (!statement) statements.set(sql, (statement = db.prepare(sql)));
    if (statement.reader) {
      const rows = statement.all(...parameters);
      parentPort.postMessage({ id, rows, changes: rows.length });
    } else {
      parentPort.postMessage({ id, rows: [], changes: statement.run(...parameters).changes });
    }
  } catch (err) {
    parentPort.postMessage({ id, error: { message: err.message, code: err.code } });
  }
});
`;

type Reply =
  { id: number; rows: unknown[]; changes: number } | { id: number; error: { message: string; code?: string } };

/** The statements on a worker thread with its own connection to the SQLite file at `sqlitePath`. */
export function sqliteWorkerWriter(sqlitePath: string): BatchWriter {
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { path: sqlitePath, module: createRequire(import.meta.url).resolve('better-sqlite3') },
  });
  const pending = new Map<number, { resolve: (reply: Reply) => void; reject: (err: Error) => void }>();
  let next = 0;
  let failure: Error | undefined;
  worker.on('message', (reply: Reply) => {
    pending.get(reply.id)?.resolve(reply);
    pending.delete(reply.id);
  });
  const failAll = (err: Error) => {
    failure = err;
    for (const p of pending.values()) p.reject(err);
    pending.clear();
  };
  worker.on('error', failAll);
  worker.on('exit', () => failAll(new Error('the batch writer thread has stopped')));
  worker.unref();
  return {
    // Includes the commit's fsync, which holds up no request here; a writer on the main connection waits this long at
    // most.
    batchTargetMs: 20,
    async execute<R>(query: Compilable<R>) {
      if (failure) throw failure;
      const compiled: CompiledQuery = query.compile();
      const id = next++;
      const reply = await new Promise<Reply>((resolve, reject) => {
        pending.set(id, { resolve, reject });
        worker.postMessage({ id, sql: compiled.sql, parameters: compiled.parameters });
      });
      if ('error' in reply) throw Object.assign(new Error(reply.error.message), { code: reply.error.code });
      return { rows: reply.rows as R[], numAffectedRows: reply.changes };
    },
    async close() {
      await worker.terminate();
    },
  };
}
