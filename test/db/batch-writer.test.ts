// The batch writer's and the slow reader's threads (src/db/sqlite/worker-connections.ts) on a real SQLite file: they
// start with the first statement, end after a while without any (their memory is the idle server's), and the next
// statement starts them again. The reader sees what the main connection committed, folds case as it does, and writes
// nothing.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { it } from 'node:test';
import SqliteDatabase from 'better-sqlite3';
import { CompiledQuery, type Compilable } from 'kysely';
import { SQLITE_CACHE_SIZE, sqliteWorkerReader, sqliteWorkerWriter } from '../../src/db/sqlite/worker-connections.js';
import { foldCase } from '../../src/lib/file-list.js';

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
    const cache = await writer.execute(statement<{ cache_size: number }>('pragma cache_size'));
    assert.deepEqual(
      cache.rows,
      [{ cache_size: SQLITE_CACHE_SIZE }],
      "the thread's connection has the main one's cache",
    );
    assert.equal(writer.threadsStarted, 2);
  } finally {
    await writer.close();
    await rm(dir, { recursive: true, force: true });
  }
});

it("the slow reader's thread reads what another connection committed, folds case as the main one, and writes nothing", async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'chute-slow-reader-'));
  const file = path.join(dir, 'db.sqlite');
  const main = new SqliteDatabase(file);
  main.pragma('journal_mode = WAL');
  main.exec("create table t (name text); insert into t values ('ÉCRAN'), ('plain')");
  const reader = sqliteWorkerReader(file, { idleMs: 100 });
  try {
    // The function of searches too short for the trigram index (db/sqlite/connection.ts), on the thread's own
    // connection.
    const folded = await reader.all(
      statement<{ name: string }>("select name from t where instr(chute_fold(name), 'écr') > 0"),
    );
    assert.deepEqual(folded, [{ name: 'ÉCRAN' }]);
    assert.equal(foldCase('ÉCRAN'), 'écran', 'the same folding as the main thread');
    // A commit of the main connection is seen by the next read (WAL: no restart needed).
    main.exec("insert into t values ('later')");
    assert.deepEqual(await reader.all(statement<{ n: number }>('select count(*) as n from t')), [{ n: 3 }]);
    await assert.rejects(reader.all(statement("insert into t values ('no')")), /readonly|query_only|attempt to write/i);
    assert.deepEqual(main.prepare('select count(*) as n from t').get(), { n: 3 }, 'nothing written');
    await new Promise((resolve) => setTimeout(resolve, 400));
    assert.deepEqual(await reader.all(statement<{ n: number }>('select count(*) as n from t')), [{ n: 3 }]);
    assert.equal(reader.threadsStarted, 2, 'the idle thread ended and the next read started another');
  } finally {
    await reader.close();
    main.close();
    await rm(dir, { recursive: true, force: true });
  }
});
