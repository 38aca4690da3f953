// The batch writer's thread (src/db/batch-writer.ts) on a real SQLite file: it starts with the first statement, ends
// after a while without any (its memory is the idle server's), and the next statement starts it again.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { it } from 'node:test';
import SqliteDatabase from 'better-sqlite3';
import { CompiledQuery, type Compilable } from 'kysely';
import { SQLITE_CACHE_SIZE, sqliteWorkerWriter } from '../../src/db/batch-writer.js';

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
