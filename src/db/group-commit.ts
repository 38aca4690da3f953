// Group commit: the small write transactions of concurrent uploads share durable commits. On SQLite with
// synchronous = FULL every COMMIT waits for an fsync of the write-ahead log, and better-sqlite3 makes that wait on the
// event loop: 32 clients uploading small files at once would pay 32 fsyncs one after another, and nothing else would
// run meanwhile. Here:
// - a transaction asked for while another batch is committing, or while the log is being flushed, waits for it, and
//   all that waited then run in one transaction, each inside a savepoint of its own, and share its one commit. A lone
//   request when nothing runs commits at once; one that waits for a flush would have waited for the next flush anyway;
// - with a WalSync (db/wal-sync.ts), the commit itself does not flush the log (synchronous = NORMAL for that commit
//   alone): the log is flushed by libuv's thread pool afterwards, one flush for every commit made before it began, and
//   the event loop goes on with the next batch meanwhile.
// Each one's outcome is its own: one that throws is rolled back to its savepoint (the others go on) and gets its error;
// a failed COMMIT fails them all. Every one is acknowledged only once the commit that holds it is on disk: as durable
// as alone. A failed flush leaves the log's state unknown: onSyncFailure decides (the server stops, as PostgreSQL does).
//
// PostgreSQL commits concurrent transactions on their own connections, and its WAL writer already flushes the commits
// that arrive together with one write: there, run() is a plain transaction.
import { sql } from 'kysely';
import type { Engine } from './index.js';
import type { Db } from './types.js';
import type { WalSync } from './wal-sync.js';

/** Most transactions in one commit (a bound on how long one batch holds the database). */
const MAX_BATCH = 64;

interface Waiting {
  fn: (trx: Db) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

export interface GroupCommitOptions {
  /** Flushes SQLite's log after commits made without flushing it (SQLite only). */
  walSync?: WalSync;
  /** Called when a flush of the log failed (the commits it covered were answered with the error). */
  onSyncFailure?: (err: unknown) => void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; err: unknown };

export class GroupCommit {
  private readonly waiting: Waiting[] = [];
  private flushing = false;
  /** Commits made and transactions they held (for tests and benchmarks). */
  readonly stats = { commits: 0, transactions: 0 };

  constructor(
    private readonly db: Db,
    private readonly engine: Engine,
    private readonly options: GroupCommitOptions = {},
  ) {}

  /**
   * Runs `fn` in a transaction that is committed, durably, before the returned promise resolves. `fn` must use only
   * `trx` (never the database handle outside it) and do nothing but database work: on SQLite it shares the
   * transaction with others, one after another.
   */
  run<T>(fn: (trx: Db) => Promise<T>): Promise<T> {
    if (this.engine !== 'sqlite') {
      this.stats.commits++;
      this.stats.transactions++;
      return this.db.transaction().execute(fn);
    }
    return new Promise<T>((resolve, reject) => {
      this.waiting.push({ fn, resolve: resolve as (value: unknown) => void, reject });
      if (!this.flushing) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    try {
      while (this.waiting.length > 0) {
        // While the log is being flushed, a commit would only wait for the next flush: the transactions that arrive
        // meanwhile wait here instead and then share one commit, so that the pages they all touch (the tables' and
        // indexes' last pages, counters, the search index) are written to the log once, not once each.
        if (this.options.walSync) await this.options.walSync.idle();
        const batch = this.waiting.splice(0, MAX_BATCH);
        const outcomes = batch.length === 1 ? await this.runAlone(batch[0]!) : await this.runTogether(batch);
        if (outcomes === undefined) continue;
        this.stats.commits++;
        this.stats.transactions += batch.length;
        // Answered once the commit is on disk; meanwhile the next batch may commit (the next flush covers it).
        void this.durable().then(
          () => settle(batch, outcomes),
          (err: unknown) => {
            for (const item of batch) item.reject(err);
            this.options.onSyncFailure?.(err);
          },
        );
      }
    } finally {
      this.flushing = false;
    }
  }

  /** Resolves once the commits made so far are on disk. */
  private durable(): Promise<void> {
    return this.options.walSync ? this.options.walSync.sync() : Promise.resolve();
  }

  /**
   * A transaction whose COMMIT, when a WalSync flushes the log afterwards, does not flush it itself. The connection is
   * held throughout, so that no other transaction commits under the lower setting.
   */
  private transaction<T>(fn: (trx: Db) => Promise<T>): Promise<T> {
    if (!this.options.walSync) return this.db.transaction().execute(fn);
    return this.db.connection().execute(async (connection) => {
      await sql`pragma synchronous = NORMAL`.execute(connection);
      try {
        return await connection.transaction().execute(fn);
      } finally {
        await sql`pragma synchronous = FULL`.execute(connection);
      }
    });
  }

  /** Runs one transaction; its outcome, or undefined when it was answered already (its commit failed). */
  private async runAlone(item: Waiting): Promise<Outcome[] | undefined> {
    try {
      return [{ ok: true, value: await this.transaction(item.fn) }];
    } catch (err) {
      return [{ ok: false, err }];
    }
  }

  private async runTogether(batch: Waiting[]): Promise<Outcome[] | undefined> {
    const outcomes: Outcome[] = [];
    try {
      await this.transaction(async (trx) => {
        for (const [i, item] of batch.entries()) {
          const savepoint = sql.raw(`group_${i}`);
          await sql`savepoint ${savepoint}`.execute(trx);
          try {
            const value = await item.fn(trx);
            await sql`release ${savepoint}`.execute(trx);
            outcomes.push({ ok: true, value });
          } catch (err) {
            await sql`rollback to ${savepoint}`.execute(trx);
            await sql`release ${savepoint}`.execute(trx);
            outcomes.push({ ok: false, err });
          }
        }
      });
    } catch (err) {
      // The commit (or the transaction itself) failed: nothing of the batch is stored.
      for (const item of batch) item.reject(err);
      return undefined;
    }
    return outcomes;
  }
}

function settle(batch: Waiting[], outcomes: Outcome[]): void {
  batch.forEach((item, i) => {
    const outcome = outcomes[i]!;
    if (outcome.ok) item.resolve(outcome.value);
    else item.reject(outcome.err);
  });
}
