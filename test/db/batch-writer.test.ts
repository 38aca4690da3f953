// The batch writer's thread (src/db/batch-writer.ts) on a real SQLite file: it starts with the first statement, ends
// after a while without any (its memory is the idle server's), and the next statement starts it again.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { it } from 'node:test';
import SqliteDatabase from 'better-sqlite3';
import { CompiledQuery, type Compilable } from 'kysely';
import { sqliteWorkerWriter } from '../../src/db/batch-writer.js';

/** A statement as the deletions hand them over: compiled SQL. */
const statement = <R>(text: string): Compilable<R> => ({ compile: () => CompiledQuery.raw(text) as CompiledQuery<R> });

it('the batch writer thread starts on demand, ends when idle and starts again', async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'chute-batch-writer-'));
  const file = path.join(dir, 'db.sqlite');
  const setup = new SqliteDatabase(file);
  setup.pragma('journal_mode = WAL');
  setup.exec('create table t (n integer)');
  setup.close();
  let ended = 0;
  const writer = sqliteWorkerWriter(file, { idleMs: 100, onStatementEnd: () => ended++ });
  try {
    assert.equal(writer.running, false, 'no thread before the first statement');
    assert.equal((await writer.execute(statement('insert into t values (1)'))).numAffectedRows, 1);
    assert.equal(ended, 1, 'told of the statement before its caller went on (the fast path drops its copies then)');
    await assert.rejects(writer.execute(statement('insert into no_such_table values (1)')));
    assert.equal(ended, 2, 'a failed statement is told of too');
    assert.equal(writer.running, true);
    await new Promise((resolve) => setTimeout(resolve, 400));
    assert.equal(writer.running, false, 'the idle thread ended');
    const { rows } = await writer.execute(statement<{ n: number }>('select n from t'));
    assert.deepEqual(rows, [{ n: 1 }]);
    assert.equal(writer.threadsStarted, 2);
  } finally {
    await writer.close();
    await rm(dir, { recursive: true, force: true });
  }
});

it("idle() waits for the thread's statement without holding up the event loop, and a write after it finds the lock free", async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'chute-batch-writer-'));
  const file = path.join(dir, 'db.sqlite');
  const main = new SqliteDatabase(file);
  main.pragma('journal_mode = WAL');
  main.pragma('busy_timeout = 0');
  main.exec('create table t (n integer)');
  // The statement's end, as the thread reports it (before its caller hears of it).
  let statementDone = false;
  const writer = sqliteWorkerWriter(file, { onStatementEnd: () => (statementDone = true) });
  try {
    await writer.idle(); // nothing running: at once
    // A statement that holds the write lock for a while (a few million rows made by a recursive query).
    const running = writer.execute(
      statement(
        'insert into t with recursive c(x) as (select 1 union all select x + 1 from c where x < 3000000) select x from c',
      ),
    );
    // Wait until the thread holds the lock: a write on the main connection (busy_timeout 0) is then refused.
    for (let i = 0; i < 500; i++) {
      try {
        main.exec('insert into t values (-1)');
        main.exec('delete from t where n = -1');
      } catch (err) {
        if ((err as { code?: string }).code === 'SQLITE_BUSY') break;
        throw err;
      }
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    assert.equal(statementDone, false, 'the statement was still running (make it longer if this fails)');
    let timerRanWhileWaiting = false;
    setTimeout(() => (timerRanWhileWaiting = !statementDone), 10);
    await writer.idle();
    assert.equal(statementDone, true, 'idle() resolved after the statement ended');
    assert.ok(timerRanWhileWaiting, 'the event loop ran timers while idle() waited');
    main.exec('insert into t values (-2)'); // the lock is free: no SQLITE_BUSY
    await running;
  } finally {
    await writer.close();
    main.close();
    await rm(dir, { recursive: true, force: true });
  }
});
