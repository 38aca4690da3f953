// Group commit: the small write transactions of concurrent uploads share durable commits. On SQLite every commit of
// the server's connection waits for a flush of the write-ahead log (made off the event loop by db/sqlite/log-flush.ts, which
// shares one flush among the commits made before it began): 32 clients uploading small files at once would still
// write the same pages to the log 32 times, one commit after another. Here a transaction asked for while another batch
// is committing, or while the log is being flushed, waits for it, and all that waited then run in one transaction and
// share its one commit and flush. A lone request when nothing runs commits at once; one that waits for a flush would
// have waited for the next flush anyway.
// Each one's outcome is its own: when one throws, the batch's transaction is rolled back and the others run again
// without it, each inside a savepoint (so a transaction's function may run twice: it must do nothing but database
// work); it gets its error. A failed COMMIT fails them all. Every one is acknowledged only once the commit that holds
// it is on disk (the driver's flush, db/index.ts): as durable as alone.
//
// PostgreSQL commits concurrent transactions on their own connections, and its WAL writer already flushes the commits
// that arrive together with one write: there, run() is a plain transaction.
import { CompiledQuery } from 'kysely';
import type { Engine } from '../index.js';
import type { Db } from '../schema/tables.js';
import type { WalSync } from './log-flush.js';

/** Most transactions in one commit (a bound on how long one batch holds the database). */
const MAX_BATCH = 64;

interface Waiting {
  fn: (trx: Db) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

export interface GroupCommitOptions {
  /** The flushes of SQLite's log (SQLite only): a batch waits for the one running before it commits. */
  walSync?: WalSync;
}

type Outcome = { ok: true; value: unknown } | { ok: false; err: unknown };

/**
 * Rows that many callers each add to one table, each needing only to know that its row is committed (the pending
 * marks of uploads): the rows of one batch are written by one call of `write`, in place of a transaction each.
 */
export interface RowLane<R> {
  write(trx: Db, rows: R[]): Promise<unknown>;
}

interface WaitingRow {
  lane: RowLane<unknown>;
  row: unknown;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

export class GroupCommit {
  private readonly waiting: Array<Waiting | WaitingRow> = [];
  private flushing = false;
  /** Commits made, transactions they held, batches run again after one of them failed (for tests and benchmarks). */
  readonly stats = { commits: 0, transactions: 0, reruns: 0 };

  constructor(
    private readonly db: Db,
    private readonly engine: Engine,
    private readonly options: GroupCommitOptions = {},
  ) {}

  /**
   * Runs `fn` in a transaction that is committed, durably, before the returned promise resolves. `fn` must use only
   * `trx` (never the database handle outside it) and do nothing but database work: on SQLite it shares the
   * transaction with others, one after another, and runs again (its first run rolled back) when another one of its
   * batch fails.
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

  /**
   * Adds `row` through `lane` in a transaction committed, durably, before the returned promise resolves. On SQLite the
   * rows of one lane in one batch are written by one call, as one of the batch's transactions: when it fails, they
   * all fail with its error.
   */
  add<R>(lane: RowLane<R>, row: R): Promise<void> {
    if (this.engine !== 'sqlite') return this.run((trx) => lane.write(trx, [row])).then(() => undefined);
    return new Promise<void>((resolve, reject) => {
      this.waiting.push({ lane: lane as RowLane<unknown>, row, resolve: resolve as (value: unknown) => void, reject });
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
        const batch = coalesceRows(this.waiting.splice(0, MAX_BATCH));
        const outcomes = batch.length === 1 ? await this.runAlone(batch[0]!) : await this.runTogether(batch);
        if (outcomes === undefined) continue;
        this.stats.commits++;
        this.stats.transactions += batch.length;
        settle(batch, outcomes);
      }
    } finally {
      this.flushing = false;
    }
  }

  /** Runs one transaction; its outcome, or undefined when it was answered already (its commit failed). */
  private async runAlone(item: Waiting): Promise<Outcome[] | undefined> {
    try {
      return [{ ok: true, value: await this.db.transaction().execute(item.fn) }];
    } catch (err) {
      return [{ ok: false, err }];
    }
  }

  /**
   * Runs a batch in one transaction. First without savepoints (each costs two more statements through Kysely per
   * transaction, and SQLite's full-text index writes out what it holds at each one): when all succeed,
   * that is the commit. When one throws, the transaction is rolled back and the batch runs again without it, each of
   * the others inside a savepoint of its own, so that a later failure is rolled back alone. Its outcome, or undefined
   * when the batch was answered already (its commit failed).
   */
  private async runTogether(batch: Waiting[]): Promise<Outcome[] | undefined> {
    const values: unknown[] = [];
    let failure: { index: number; err: unknown } | undefined;
    try {
      await this.db.transaction().execute(async (trx) => {
        for (const [index, item] of batch.entries()) {
          try {
            values.push(await item.fn(trx));
          } catch (err) {
            failure = { index, err };
            throw err;
          }
        }
      });
    } catch (err) {
      if (failure === undefined) return this.failAll(batch, err);
      this.stats.reruns++;
      const { index } = failure;
      const others = await this.runInSavepoints(batch.filter((_, i) => i !== index));
      if (others === undefined) {
        batch[index]!.reject(failure.err);
        return undefined;
      }
      return [...others.slice(0, index), { ok: false, err: failure.err }, ...others.slice(index)];
    }
    return values.map((value) => ({ ok: true, value }));
  }

  /** Runs a batch in one transaction, each inside a savepoint: one that throws is rolled back alone. */
  private async runInSavepoints(batch: Waiting[]): Promise<Outcome[] | undefined> {
    const outcomes: Outcome[] = [];
    try {
      // Answered once its commit is on disk (the driver's flush on SQLite, db/index.ts).
      await this.db.transaction().execute(async (trx) => {
        for (const [i, item] of batch.entries()) {
          const savepoint = savepointStatements(i);
          await trx.executeQuery(savepoint.begin);
          try {
            const value = await item.fn(trx);
            await trx.executeQuery(savepoint.release);
            outcomes.push({ ok: true, value });
          } catch (err) {
            await trx.executeQuery(savepoint.rollback);
            await trx.executeQuery(savepoint.release);
            outcomes.push({ ok: false, err });
          }
        }
      });
    } catch (err) {
      return this.failAll(batch, err);
    }
    return outcomes;
  }

  /** The commit (or the transaction itself) failed: nothing of the batch is stored, and each gets the error. */
  private failAll(batch: Waiting[], err: unknown): undefined {
    for (const item of batch) item.reject(err);
    return undefined;
  }
}

/** The batch with the rows of each lane made into one transaction that writes them all and answers each of them. */
function coalesceRows(items: Array<Waiting | WaitingRow>): Waiting[] {
  const batch: Waiting[] = [];
  const lanes = new Map<RowLane<unknown>, WaitingRow[]>();
  for (const item of items) {
    if ('fn' in item) {
      batch.push(item);
      continue;
    }
    let rows = lanes.get(item.lane);
    if (rows === undefined) {
      rows = [];
      lanes.set(item.lane, rows);
      const group = rows;
      const lane = item.lane;
      // In the place of the lane's first row: the batch keeps the order in which transactions were asked for.
      batch.push({
        fn: (trx) =>
          lane.write(
            trx,
            group.map((r) => r.row),
          ),
        resolve: () => group.forEach((r) => r.resolve(undefined)),
        reject: (err) => group.forEach((r) => r.reject(err)),
      });
    }
    rows.push(item);
  }
  return batch;
}

interface SavepointStatements {
  begin: CompiledQuery;
  release: CompiledQuery;
  rollback: CompiledQuery;
}

/** The statements of the i-th savepoint of a batch, made once (not built and compiled again for every transaction). */
const savepoints: SavepointStatements[] = [];
function savepointStatements(i: number): SavepointStatements {
  return (savepoints[i] ??= {
    begin: CompiledQuery.raw(`savepoint group_${i}`),
    release: CompiledQuery.raw(`release group_${i}`),
    rollback: CompiledQuery.raw(`rollback to group_${i}`),
  });
}

function settle(batch: Waiting[], outcomes: Outcome[]): void {
  batch.forEach((item, i) => {
    const outcome = outcomes[i]!;
    if (outcome.ok) item.resolve(outcome.value);
    else item.reject(outcome.err);
  });
}
