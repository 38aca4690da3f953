// The batch writer and the slow reader of SQLite (db/batches-and-slow-reads.ts): worker threads with connections of
// their own to the same file. better-sqlite3 runs each statement, and each commit's fsync, on the thread that calls it:
// a batch of deletes (services/files/deletions.ts) or a broad search on the main thread holds up every request for as
// long as it takes. Here readers on the main connection (a redirect, a download, a listing) go on meanwhile (WAL), and
// a writer there waits only for the one batch in progress. Each statement is its own transaction, as on the main
// connection.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { Compilable, CompiledQuery } from 'kysely';
import { foldCase } from '../../lib/file-list.js';
import type { BatchResult, BatchWriter, SlowReader } from '../batches-and-slow-reads.js';
import type { WriteTurns } from './write-lock.js';

/**
 * The page cache of each SQLite connection (the server's, db/sqlite/connection.ts, and these threads'), in KiB
 * (negative: a size, not a page count): 64 MiB, where SQLite's default is 2 MiB. An upload writes a leaf page of each
 * index of `files` and of the search index at a random place (ids, names and storage keys were random; ids and keys
 * have grown with time since, lib/security/ids.ts, names still are); at a million files those pages no longer fit
 * in 2 MiB, and every upload read them again from the file: uploads into an account of 1,000,000 files ran at 0.82x
 * the rate into an empty one, 0.99x with this cache (bench/RESULTS.md, 2026-11-26 23:30). The cache fills only with
 * pages that are used: a small database keeps a small cache.
 */
export const SQLITE_CACHE_SIZE = -64 * 1024;

// The worker: its own connection with the pragmas of the server's (db/sqlite/connection.ts), one statement per message.
// A reader's connection writes nothing (query_only) and has the functions that searches call (chute_fold, as there).
const workerSource = (reader: boolean) => `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.module);
const db = new Database(workerData.path);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = FULL');
db.pragma('foreign_keys = ON');
db.pragma('busy_timeout = 5000');
db.pragma('cache_size = ${SQLITE_CACHE_SIZE}');
${
  reader
    ? `db.pragma('query_only = ON');
const foldCase = ${foldCase.toString()};
db.function('chute_fold', { deterministic: true }, (text) => (typeof text === 'string' ? foldCase(text) : null));`
    : ''
}
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

interface WorkerState {
  worker: Worker;
  pending: Map<number, { resolve: (reply: Reply) => void; reject: (err: Error) => void }>;
}

/** A worker left without statements this long ends (its thread and connection cost memory); the next one starts it. */
const WORKER_IDLE_MS = 30_000;

interface WorkerOptions {
  idleMs?: number;
  /** Called on the main thread when a statement has ended (committed or failed), before its caller hears of it. */
  onStatementEnd?: () => void;
  /** The turns this thread's statements take with the main connection's writers (db/sqlite/write-lock.ts). */
  turns?: WriteTurns;
}

/**
 * A worker thread with its own connection to the SQLite file at `sqlitePath`, one statement at a time, in the order
 * they are given. The thread starts with the first statement and ends when it has had none for `idleMs` (default
 * WORKER_IDLE_MS).
 */
function sqliteWorker(sqlitePath: string, reader: boolean, options: WorkerOptions) {
  const idleMs = options.idleMs ?? WORKER_IDLE_MS;
  let next = 0;
  let threadsStarted = 0;
  let current: WorkerState | undefined;
  let idleTimer: NodeJS.Timeout | undefined;
  const start = () => {
    const worker = new Worker(workerSource(reader), {
      eval: true,
      workerData: { path: sqlitePath, module: createRequire(import.meta.url).resolve('better-sqlite3') },
    });
    threadsStarted++;
    const state: WorkerState = { worker, pending: new Map() };
    // A thread that failed or ended takes only its own statements with it.
    const failAll = (err: Error) => {
      for (const p of state.pending.values()) p.reject(err);
      state.pending.clear();
      if (current === state) current = undefined;
    };
    worker.on('message', (reply: Reply) => {
      options.onStatementEnd?.();
      state.pending.get(reply.id)?.resolve(reply);
      state.pending.delete(reply.id);
      // Kept alive only while it has statements to answer: an idle thread holds no process open.
      if (state.pending.size === 0) worker.unref();
    });
    worker.on('error', failAll);
    worker.on('exit', () => failAll(new Error(`the ${reader ? 'reader' : 'batch writer'} thread has stopped`)));
    worker.unref();
    return state;
  };

  const stopWhenIdle = () => {
    clearTimeout(idleTimer);
    idleTimer = setTimeout(() => {
      if (current === undefined || current.pending.size > 0) return;
      const { worker } = current;
      current = undefined;
      void worker.terminate();
    }, idleMs);
    idleTimer.unref();
  };

  return {
    get threadsStarted() {
      return threadsStarted;
    },
    get running() {
      return current !== undefined;
    },
    async execute<R>(query: Compilable<R>): Promise<BatchResult<R>> {
      const compiled: CompiledQuery = query.compile();
      const id = next++;
      const endTurn = await options.turns?.take();
      const state = (current ??= start());
      const reply = await new Promise<Reply>((resolve, reject) => {
        state.pending.set(id, { resolve, reject });
        state.worker.ref();
        state.worker.postMessage({ id, sql: compiled.sql, parameters: compiled.parameters });
      }).finally(() => {
        endTurn?.();
        stopWhenIdle();
      });
      if ('error' in reply) throw Object.assign(new Error(reply.error.message), { code: reply.error.code });
      return { rows: reply.rows as R[], numAffectedRows: reply.changes };
    },
    async close() {
      clearTimeout(idleTimer);
      const state = current;
      current = undefined;
      if (state) await state.worker.terminate();
    },
  };
}

/** The statements of long deletions on a worker thread with its own connection to the SQLite file at `sqlitePath`. */
export function sqliteWorkerWriter(
  sqlitePath: string,
  options: WorkerOptions = {},
): BatchWriter & { readonly threadsStarted: number; readonly running: boolean } {
  const worker = sqliteWorker(sqlitePath, false, options);
  return {
    get threadsStarted() {
      return worker.threadsStarted;
    },
    get running() {
      return worker.running;
    },
    // Includes the commit's fsync, which holds up no request here; a writer on the main connection waits this long at
    // most.
    batchTargetMs: 20,
    execute: (query) => worker.execute(query),
    close: () => worker.close(),
  };
}

/** The reads of SlowReader on a worker thread with a query-only connection to the SQLite file at `sqlitePath`. */
export function sqliteWorkerReader(
  sqlitePath: string,
  options: Pick<WorkerOptions, 'idleMs'> = {},
): SlowReader & { readonly threadsStarted: number; readonly readsDone: number } {
  const worker = sqliteWorker(sqlitePath, true, options);
  let readsDone = 0;
  return {
    get threadsStarted() {
      return worker.threadsStarted;
    },
    get readsDone() {
      return readsDone;
    },
    all: async (query) => {
      const { rows } = await worker.execute(query);
      readsDone++;
      return rows;
    },
    close: () => worker.close(),
  };
}
