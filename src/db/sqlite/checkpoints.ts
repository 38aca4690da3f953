// SQLite's checkpoints off the event loop. In WAL mode the commit that takes the log past 1,000 pages copies them back
// into the database file, fsyncing the log before and the file after, inside that COMMIT, on the thread that made it:
// on the server's connection that was the event loop, every ~130 small uploads, several milliseconds each time with
// every request waiting (bench/RESULTS.md, 2026-11-28). The server's connection therefore never checkpoints by itself
// (wal_autocheckpoint = 0); this worker thread, with its own connection to the same file, runs the checkpoint shortly
// after commits were made. It takes a writer's turn first (db/sqlite/write-lock.ts): the writers of this process wait
// for it asynchronously, the event loop goes on, and as no frame is added meanwhile the checkpoint copies the whole
// log, so that the next writer starts the log again from its beginning, as after an automatic checkpoint (without the
// turn, under a steady load of commits, no checkpoint would ever finish the log and it would grow without end). The
// other connections (the batch writer's and the slow reader's threads, the `chute` command) keep SQLite's automatic
// checkpoints, on their own threads.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { WriteTurns } from './write-lock.js';

/**
 * How soon after a commit the log is checkpointed: the log grows by at most this long's commits in between. A page
 * that many commits change (the last leaf of a table or an index, a counter) is copied once per checkpoint however
 * often it went to the log, so a longer delay copies less: side by side, 32 clients of 4 KiB uploads made 6% more
 * uploads/s at 4% less CPU per upload with 1 s instead of 100 ms (six interleaved rounds; on a disk busy finding free
 * inodes, 19% more at 29% less CPU), and 17% more than with 500 ms (bench/RESULTS.md, 2026-11-28). Under such a load
 * the log then reaches a few tens of megabytes.
 */
export const CHECKPOINT_DELAY_MS = 1_000;

/** A thread without a checkpoint for this long ends (its isolate costs ~9 MiB); the next commit starts another. */
const IDLE_MS = 30_000;

export interface Checkpointer {
  /** Says that a commit was made: a checkpoint follows within the delay (CHECKPOINT_DELAY_MS; one at a time). */
  committed(): void;
  /** Checkpoints done (for tests and benchmarks). */
  readonly checkpoints: number;
  /** Told of a checkpoint that failed (the log then grows until one succeeds); default: a line on stderr. */
  onFailure: (err: Error) => void;
  /** Waits for the checkpoint in progress, if any, then ends the thread. */
  close(): Promise<void>;
}

interface Thread {
  worker: Worker;
  /** True once its connection is open; false when it ended before. */
  ready: Promise<boolean>;
}

const workerSource = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.module);
const db = new Database(workerData.path);
db.pragma('busy_timeout = 5000');
// The checkpoint's own fsyncs (the log before copying, the database file after) are what make a later restart of
// the log safe.
db.pragma('synchronous = FULL');
parentPort.postMessage({ ready: true });
parentPort.on('message', () => {
  try {
    const [result] = db.pragma('wal_checkpoint(PASSIVE)');
    parentPort.postMessage({ result });
  } catch (err) {
    parentPort.postMessage({ error: { message: err.message, code: err.code } });
  }
});
`;

/**
 * The checkpoints of the SQLite file at `sqlitePath`, each in a turn of `turns`. The thread starts with the first
 * checkpoint and holds no process open; a checkpoint that failed is reported to onFailure, and the next commit asks
 * for another.
 */
export function startCheckpointer(sqlitePath: string, turns: WriteTurns, delayMs = CHECKPOINT_DELAY_MS): Checkpointer {
  let worker: Thread | undefined;
  let checkpoints = 0;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let closed = false;
  let idleTimer: NodeJS.Timeout | undefined;

  const thread = (): Thread => {
    if (worker) return worker;
    const started = new Worker(workerSource, {
      eval: true,
      workerData: { path: sqlitePath, module: createRequire(import.meta.url).resolve('better-sqlite3') },
    });
    started.unref();
    // Its connection opened: a thread that starts does so before the turn is taken, not while the writers wait.
    const ready = new Promise<boolean>((resolve) => {
      started.once('message', () => resolve(true));
      started.once('exit', () => resolve(false));
    });
    const current: Thread = { worker: started, ready };
    // A thread that ended (or was ended when idle) is forgotten, unless another has taken its place meanwhile.
    started.on('error', (err) => {
      if (worker === current) worker = undefined;
      self.onFailure(err);
    });
    started.on('exit', () => {
      if (worker === current) worker = undefined;
    });
    worker = current;
    return current;
  };

  const checkpoint = (w: Worker): Promise<void> =>
    new Promise<void>((resolve) => {
      const done = (reply: { error?: { message: string } }) => {
        w.off('exit', gone);
        w.unref();
        if (reply.error) self.onFailure(new Error(`checkpoint failed: ${reply.error.message}`));
        else checkpoints++;
        resolve();
      };
      const gone = () => {
        w.off('message', done);
        resolve();
      };
      w.once('message', done);
      w.once('exit', gone);
      w.ref();
      w.postMessage('checkpoint');
    });

  const stopWhenIdle = (): void => {
    clearTimeout(idleTimer);
    idleTimer = setTimeout(() => {
      const w = worker;
      if (w === undefined || running !== undefined || timer !== undefined) return;
      worker = undefined;
      void w.worker.terminate();
    }, IDLE_MS);
    idleTimer.unref();
  };

  const run = (): void => {
    timer = undefined;
    if (closed) return;
    const t = thread();
    running = t.ready
      .then(async (ready) => {
        if (!ready) return;
        const end = await turns.take();
        try {
          await checkpoint(t.worker);
        } finally {
          end();
        }
      })
      .finally(() => {
        running = undefined;
        stopWhenIdle();
      });
  };

  const self: Checkpointer = {
    onFailure: (err) => console.error('checkpointing the database log failed:', err.message),
    committed() {
      if (closed || timer !== undefined) return;
      // One at a time: commits made while one runs get the next.
      timer = setTimeout(() => {
        if (running) void running.then(run);
        else run();
      }, delayMs);
      timer.unref();
    },
    get checkpoints() {
      return checkpoints;
    },
    async close() {
      closed = true;
      clearTimeout(timer);
      clearTimeout(idleTimer);
      timer = undefined;
      await running;
      const w = worker;
      worker = undefined;
      if (w) await w.worker.terminate();
    },
  };
  return self;
}
