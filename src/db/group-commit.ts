// Group commit: the small write transactions of concurrent uploads share one durable commit. On SQLite every COMMIT
// waits for an fsync of the write-ahead log (synchronous = FULL), and better-sqlite3 makes that wait on the event
// loop: 32 clients uploading small files at once would pay 32 fsyncs one after another. Here a transaction asked for
// while another batch is committing waits for it, and all that waited then run in one transaction, each inside a
// savepoint of its own, and share its one commit. Nothing is delayed to form a batch: a lone request commits at once.
// Each one's outcome is its own: one that throws is rolled back to its savepoint (the others go on) and gets its error;
// a failed COMMIT fails them all. Every one is acknowledged only after the commit that holds it: as durable as alone.
//
// PostgreSQL commits concurrent transactions on their own connections, and its WAL writer already flushes the commits
// that arrive together with one write: there, run() is a plain transaction.
import { sql } from 'kysely';
import type { Engine } from './index.js';
import type { Db } from './types.js';

/** Most transactions in one commit (a bound on how long one batch holds the database). */
const MAX_BATCH = 64;

interface Waiting {
  fn: (trx: Db) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

export class GroupCommit {
  private readonly waiting: Waiting[] = [];
  private flushing = false;
  /** Commits made and transactions they held (for tests and benchmarks). */
  readonly stats = { commits: 0, transactions: 0 };

  constructor(
    private readonly db: Db,
    private readonly engine: Engine,
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
        const batch = this.waiting.splice(0, MAX_BATCH);
        if (batch.length === 1) await this.runAlone(batch[0]!);
        else await this.runTogether(batch);
      }
    } finally {
      this.flushing = false;
    }
  }

  private async runAlone(item: Waiting): Promise<void> {
    this.stats.commits++;
    this.stats.transactions++;
    try {
      item.resolve(await this.db.transaction().execute(item.fn));
    } catch (err) {
      item.reject(err);
    }
  }

  private async runTogether(batch: Waiting[]): Promise<void> {
    const outcomes: Array<{ ok: true; value: unknown } | { ok: false; err: unknown }> = [];
    try {
      await this.db.transaction().execute(async (trx) => {
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
      return;
    }
    this.stats.commits++;
    this.stats.transactions += batch.length;
    batch.forEach((item, i) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) item.resolve(outcome.value);
      else item.reject(outcome.err);
    });
  }
}
