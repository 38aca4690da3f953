// The commit pipeline of the server's SQLite connection, in the order a commit goes through it (docs/development.md,
// "The life of a commit", follows an upload's record through it):
//   1. SqliteGroupCommit (ctx.commits, db/commits.ts): the small transactions that concurrent requests ask for at once
//      run in one transaction and share its commit.
//   2. ImmediateSqliteDriver, Kysely's driver of the connection (db/sqlite/connection.ts makes it): the writer's
//      turn (db/sqlite/write-lock.ts), BEGIN IMMEDIATE, COMMIT with synchronous = NORMAL (the log written, not yet
//      flushed), the connection given back and the checkpointer told (db/sqlite/checkpoints.ts), then the wait for a
//      flush of the log that began after the commit, unless the transaction asked not to (db/commits.ts
//      unflushedTransaction).
//   3. WalSync: the flushes of the log, off the event loop, each shared by every commit made before it began.
// As durable as synchronous = FULL (an upload acknowledged to a client survives a power cut), without an fsync on the
// event loop per commit.
import { fstat, stat } from 'node:fs';
import { promisify } from 'node:util';
import type SqliteDatabase from 'better-sqlite3';
import { CompiledQuery, SqliteDriver, type DatabaseConnection, type SqliteDialectConfig } from 'kysely';
import { FdFile } from '../../lib/bytes/fd-file.js';
import { allowUnflushedCommits, type GroupCommit, type RowLane } from '../commits.js';
import type { Db } from '../schema/tables.js';
import type { Checkpointer } from './checkpoints.js';
import type { WriteTurns } from './write-lock.js';

// 1. Group commit. Every commit of the server's connection waits for a flush of the write-ahead log (WalSync below,
// which shares one flush among the commits made before it began): 32 clients uploading small files at once would still
// write the same pages to the log 32 times, one commit after another. Here a transaction asked for while another batch
// is committing, or while the log is being flushed, waits for it, and all that waited then run in one transaction and
// share its one commit and flush. A lone request when nothing runs commits at once; one that waits for a flush would
// have waited for the next flush anyway.
// Each one's outcome is its own: when one throws, the batch's transaction is rolled back and the others run again
// without it, each inside a savepoint (so a transaction's function may run twice: it must do nothing but database
// work); it gets its error. A failed COMMIT fails them all. Every one is acknowledged only once the commit that holds
// it is on disk (the driver's flush, below): as durable as alone.

/** Most transactions in one commit (a bound on how long one batch holds the database). */
const MAX_BATCH = 64;

interface Waiting {
  fn: (trx: Db) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; err: unknown };

interface WaitingRow {
  lane: RowLane<unknown>;
  row: unknown;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

/** The GroupCommit of SQLite (db/commits.ts says what run() and add() promise). */
export class SqliteGroupCommit implements GroupCommit {
  private readonly waiting: Array<Waiting | WaitingRow> = [];
  private flushing = false;
  readonly stats = { commits: 0, transactions: 0, reruns: 0 };

  constructor(
    private readonly db: Db,
    /** The flushes of the log (db/index.ts groupCommit() gives them): a batch waits for the one running to end. */
    private readonly walSync?: WalSync,
  ) {}

  run<T>(fn: (trx: Db) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.waiting.push({ fn, resolve: resolve as (value: unknown) => void, reject });
      if (!this.flushing) void this.flush();
    });
  }

  add<R>(lane: RowLane<R>, row: R): Promise<void> {
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
        if (this.walSync) await this.walSync.idle();
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
      // Answered once its commit is on disk (the driver's flush, below).
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

// 2. The driver: turns, BEGIN IMMEDIATE, COMMIT, and the wait for the log's flush.

/** What the driver of the server's connection works with (db/sqlite/connection.ts gives it). */
export interface CommitSettings {
  turns: WriteTurns;
  walSync: WalSync;
  checkpointer: Checkpointer;
  statements: { prepare(sql: string): SqliteDatabase.Statement };
  /** The open transaction's commit is not waited on to reach the disk (allowUnflushedSqliteCommits). */
  unflushed: { next: boolean };
  sqlite: SqliteDatabase.Database;
}

/**
 * Transactions begin with BEGIN IMMEDIATE: they take the write lock at once. A plain BEGIN reads first and asks for
 * the lock at its first write; if another connection (the batch writer's thread, the `chute` command) committed in
 * between, SQLite cannot let it write on its older snapshot and fails at once with SQLITE_BUSY, without waiting: a
 * folder deletion next to a bulk delete answered 500 (test/db/sqlite-transactions.test.ts).
 *
 * Every writer first waits for its turn (db/sqlite/write-lock.ts), shared with the batch writer's thread: a transaction
 * from BEGIN to its end, a statement that writes outside one for its own duration. Reads never wait. After its commit,
 * a writer gives its turn and the connection back, tells the checkpointer, then waits for a flush of the log
 * (synchronous = NORMAL, db/sqlite/connection.ts), unless its transaction asked not to (allowUnflushedSqliteCommits).
 */
export class ImmediateSqliteDriver extends SqliteDriver {
  /** Ends the turn of the transaction now open. */
  private endTurn: (() => void) | undefined;
  /** A commit was made since the connection was acquired: its caller waits for a flush of the log. */
  private flushOwed = false;
  /** A commit that nobody waits for was made since the connection was acquired (allowUnflushedSqliteCommits). */
  private unflushedCommit = false;
  private wrapped: DatabaseConnection | undefined;
  private raw: DatabaseConnection | undefined;

  constructor(
    config: SqliteDialectConfig,
    private readonly settings: CommitSettings,
  ) {
    super(config);
  }

  override async acquireConnection(): Promise<DatabaseConnection> {
    const raw = await super.acquireConnection();
    if (this.raw !== raw) {
      this.raw = raw;
      this.wrapped = {
        executeQuery: (query) => this.execute(raw, query),
        streamQuery: (query, chunkSize) => raw.streamQuery(query, chunkSize),
      };
    }
    return this.wrapped!;
  }

  private async execute<R>(raw: DatabaseConnection, query: CompiledQuery) {
    // Inside a transaction the turn is held already; a statement that only reads needs none.
    if (this.endTurn !== undefined || this.settings.statements.prepare(query.sql).readonly) {
      return raw.executeQuery<R>(query);
    }
    const end = await this.settings.turns.take();
    try {
      const result = await raw.executeQuery<R>(query);
      this.flushOwed = true;
      return result;
    } finally {
      end();
    }
  }

  override async beginTransaction(): Promise<void> {
    const end = await this.settings.turns.take();
    try {
      await this.raw!.executeQuery(CompiledQuery.raw('begin immediate'));
    } catch (err) {
      end();
      throw err;
    }
    this.endTurn = end;
  }

  override async commitTransaction(): Promise<void> {
    const unflushed = this.settings.unflushed.next;
    this.settings.unflushed.next = false;
    try {
      await this.raw!.executeQuery(CompiledQuery.raw('commit'));
    } finally {
      // A commit that failed may leave the transaction open (SQLite keeps it for a retry); the rollback ends it.
      if (!this.settings.sqlite.inTransaction) this.releaseTurn();
    }
    if (unflushed) this.unflushedCommit = true;
    else this.flushOwed = true;
  }

  /**
   * Gives the connection back, then waits for the flush of the log that the caller's commit needs: the caller hears of
   * its write only once it is on disk, while other queries use the connection meanwhile.
   */
  override async releaseConnection(): Promise<void> {
    const owed = this.flushOwed;
    const committed = owed || this.unflushedCommit;
    this.flushOwed = false;
    this.unflushedCommit = false;
    await super.releaseConnection();
    if (committed) this.settings.checkpointer.committed();
    if (owed) await this.settings.walSync.sync();
  }

  override async rollbackTransaction(): Promise<void> {
    this.settings.unflushed.next = false;
    try {
      // After a commit that failed and ended the transaction, there is nothing to roll back (and saying so would hide
      // the commit's error).
      if (this.settings.sqlite.inTransaction) await this.raw!.executeQuery(CompiledQuery.raw('rollback'));
    } finally {
      this.releaseTurn();
    }
  }

  private releaseTurn(): void {
    const end = this.endTurn;
    this.endTurn = undefined;
    end?.();
  }
}

/**
 * Lets unflushedTransaction (db/commits.ts) run on `db`, the server's connection: the transaction open on it (only one
 * can be) commits without waiting for the log's flush.
 */
export function allowUnflushedSqliteCommits(db: Db, settings: CommitSettings): void {
  allowUnflushedCommits(db, () => {
    if (!settings.sqlite.inTransaction) throw new Error('an unflushed commit is asked for outside a transaction');
    settings.unflushed.next = true;
  });
}

// 3. Shared flushes of the write-ahead log, off the event loop. With synchronous = FULL every COMMIT fsyncs the log
// inside better-sqlite3, on the event loop: nothing else runs meanwhile, and 32 concurrent commits pay 32 fsyncs one
// after another. The server's connection instead commits with synchronous = NORMAL (the frames are written to the
// log, not yet flushed) and its driver (above) then asks WalSync for an fdatasync of the log file, made by libuv's
// thread pool: while one is running, the commits that follow wait for the next one, which covers them all. A commit is
// acknowledged only after a flush that began after it: as durable as with FULL. (Linux flushes a file's dirty pages
// whichever descriptor wrote them.) A failed flush leaves the log's state unknown: `onFailure` decides (the server
// stops, as PostgreSQL does).

// The log's descriptor is an FdFile (lib/bytes/fd-file.ts: its calls cost the event loop about half a FileHandle's);
// the stats go through the callback functions alike (not measured on their own: one path stat per flush).
const statOf = promisify(stat);
const fstatOf = promisify(fstat);

export class WalSync {
  private handle: FdFile | undefined;
  private inode = -1;
  /** The flush running now, and whether another must follow it (for commits made after it began). */
  private running: Promise<void> | undefined;
  private next: Promise<void> | undefined;
  /** Flushes made (for tests and benchmarks). */
  flushes = 0;
  /** Told of a flush that failed (after its waiters were given the error). */
  onFailure: ((err: unknown) => void) | undefined;

  constructor(private readonly walPath: string) {}

  /** Resolves once everything written to the log before this call is on disk. */
  sync(): Promise<void> {
    if (this.running === undefined) {
      this.running = this.flush()
        .catch((err: unknown) => {
          queueMicrotask(() => this.onFailure?.(err));
          throw err;
        })
        .finally(() => (this.running = undefined));
      return this.running;
    }
    // A flush is running, but it may have begun before the caller's frames were written: the next one covers them.
    this.next ??= this.running
      .catch(() => undefined)
      .then(() => {
        this.next = undefined;
        return this.sync();
      });
    return this.next;
  }

  /**
   * Resolves once no flush is running (at once when none is). A commit made while a flush runs waits for the next
   * one anyway; made after this, it shares that next flush and its pages with every commit that waited with it.
   */
  async idle(): Promise<void> {
    while (this.running !== undefined) await this.running.catch(() => undefined);
  }

  /** One flush of the log (protected: a test holds it back to see what waits for it). */
  protected async flush(): Promise<void> {
    // The log file can be replaced (deleted when the last connection closes, made anew by the next write): the
    // descriptor must name the file at this path now.
    const current = await statOf(this.walPath);
    if (this.handle === undefined || current.ino !== this.inode) {
      await this.handle?.close().catch(() => undefined);
      this.handle = await FdFile.open(this.walPath, 'r');
      this.inode = (await fstatOf(this.handle.fd)).ino;
    }
    await this.handle.datasync();
    this.flushes++;
  }

  async close(): Promise<void> {
    await this.running?.catch(() => undefined);
    await this.next?.catch(() => undefined);
    await this.handle?.close().catch(() => undefined);
    this.handle = undefined;
  }
}
