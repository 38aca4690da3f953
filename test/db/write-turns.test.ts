// Writers of one SQLite file within the process take turns (src/db/sqlite/write-lock.ts): the main connection's writes
// (a statement outside a transaction, a transaction from BEGIN to its end) and the batch writer thread's statements. A
// writer that finds another writing waits off the event loop; before, the main connection waited in SQLite's busy
// handler, which sleeps on the event loop: a job's claim stalled every request for up to a second while a user's files
// were deleted (bench/heavy.ts).
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { CompiledQuery, sql, type Compilable } from 'kysely';
import { openDatabase, type DatabaseHandle } from '../../src/db/index.js';
import { WriteTurns } from '../../src/db/sqlite/write-lock.js';
import type { Db } from '../../src/db/schema/tables.js';

/** Whether a turn asked for now is given at once (no turn left open before it). */
async function free(turns: WriteTurns): Promise<boolean> {
  const given = turns.take().then((end) => {
    end();
    return true;
  });
  return Promise.race([given, new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 200))]);
}

/** Runs `fn` in a turn of its own. */
async function during(turns: WriteTurns, fn: () => Promise<void>): Promise<void> {
  const end = await turns.take();
  try {
    await fn();
  } finally {
    end();
  }
}

const statement = <R>(text: string): Compilable<R> => ({ compile: () => CompiledQuery.raw(text) as CompiledQuery<R> });

/** A statement that holds the write lock for a while on the batch writer's thread (a few million rows). */
const LONG_INSERT =
  'insert into t (n) with recursive c(x) as (select 1 union all select x + 1 from c where x < 3000000) select -x from c';

describe('WriteTurns', () => {
  it('gives turns in the order they were asked for, one at a time', async () => {
    const turns = new WriteTurns();
    const order: string[] = [];
    const writer = (name: string, ms: number) =>
      during(turns, async () => {
        order.push(`${name} starts`);
        await new Promise((resolve) => setTimeout(resolve, ms));
        order.push(`${name} ends`);
      });
    await Promise.all([writer('a', 30), writer('b', 1), writer('c', 10)]);
    assert.deepEqual(order, ['a starts', 'a ends', 'b starts', 'b ends', 'c starts', 'c ends']);
    assert.ok(await free(turns), 'no turn left open');
  });

  it('a turn ended twice, or after a failure, frees the next one once', async () => {
    const turns = new WriteTurns();
    const end = await turns.take();
    const next = turns.take();
    end();
    end();
    (await next)();
    await assert.rejects(
      during(turns, () => Promise.reject(new Error('boom'))),
      /boom/,
    );
    assert.ok(await free(turns), 'no turn left open');
    (await turns.take())();
  });
});

describe('SQLite writers take turns with the batch writer', () => {
  let dir: string;
  let handle: DatabaseHandle;
  let db: Db;

  const setUp = async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'chute-write-turns-'));
    handle = openDatabase({ sqlitePath: path.join(dir, 'chute.db') });
    db = handle.db;
    await sql`create table t (n integer)`.execute(db);
  };
  const tearDown = async () => {
    await handle.close();
    await rm(dir, { recursive: true, force: true });
  };

  /** Runs `write` while the batch writer's long statement runs; how late a 20 ms timer ran meanwhile, and the order. */
  async function whileBulk(write: () => Promise<unknown>) {
    const batches = handle.batchWriter();
    try {
      let bulkDone = false;
      const bulk = batches.execute(statement(LONG_INSERT)).then(() => (bulkDone = true));
      // Long enough for the thread to hold the write lock (its statement runs for far longer than this).
      await new Promise((resolve) => setTimeout(resolve, 150));
      assert.equal(bulkDone, false, 'the bulk statement was still running (make it longer if this fails)');
      const started = performance.now();
      let timerLate = Infinity;
      setTimeout(() => (timerLate = performance.now() - started - 20), 20);
      let writtenAfterBulk: boolean | undefined;
      await write().then(() => (writtenAfterBulk = bulkDone));
      await bulk;
      const took = performance.now() - started;
      return { timerLate, took, writtenAfterBulk };
    } finally {
      await batches.close();
    }
  }

  it('a statement that writes outside a transaction waits its turn with the event loop free', async () => {
    await setUp();
    try {
      const { timerLate, took, writtenAfterBulk } = await whileBulk(() =>
        db
          .insertInto('t' as never)
          .values({ n: 1 } as never)
          .execute(),
      );
      assert.equal(writtenAfterBulk, true, 'the write came after the bulk statement');
      assert.ok(timerLate < took / 2, `a 20 ms timer ran ${timerLate.toFixed(0)} ms late in ${took.toFixed(0)} ms`);
      // An UPDATE that matches nothing takes the write lock too (a job claim with no job due).
      const second = await whileBulk(() => sql`update t set n = 0 where n = 12345`.execute(db));
      assert.ok(second.timerLate < second.took / 2, `a 20 ms timer ran ${second.timerLate.toFixed(0)} ms late`);
    } finally {
      await tearDown();
    }
  });

  it('a transaction waits its turn with the event loop free, and a batch statement waits for the transaction', async () => {
    await setUp();
    try {
      const { timerLate, took } = await whileBulk(() =>
        db.transaction().execute(async (trx) => {
          await sql`insert into t values (2)`.execute(trx);
        }),
      );
      assert.ok(timerLate < took / 2, `a 20 ms timer ran ${timerLate.toFixed(0)} ms late in ${took.toFixed(0)} ms`);
      // The other way round: a batch statement asked for while a transaction is open runs after its commit (before,
      // it waited in SQLite's busy handler on its own thread; now it does not even start).
      const batches = handle.batchWriter();
      try {
        const order: string[] = [];
        await db.transaction().execute(async (trx) => {
          await sql`insert into t values (3)`.execute(trx);
          const batch = batches.execute(statement('insert into t values (4)')).then(() => order.push('batch'));
          await new Promise((resolve) => setTimeout(resolve, 50));
          order.push('transaction');
          void batch;
        });
        while (order.length < 2) await new Promise((resolve) => setTimeout(resolve, 5));
        assert.deepEqual(order, ['transaction', 'batch']);
        assert.ok(await free(handle.turns!), 'no turn left open');
      } finally {
        await batches.close();
      }
      const rows = await sql<{ n: number }>`select n from t where n >= 0 order by n`.execute(db);
      assert.deepEqual(
        rows.rows.map((r) => r.n),
        [2, 3, 4],
      );
    } finally {
      await tearDown();
    }
  });

  it('a failed transaction or statement gives its turn back', async () => {
    await setUp();
    try {
      await assert.rejects(
        db.transaction().execute(async (trx) => {
          await sql`insert into t values (5)`.execute(trx);
          throw new Error('changed my mind');
        }),
        /changed my mind/,
      );
      await assert.rejects(sql`insert into no_such_table values (1)`.execute(db));
      assert.ok(await free(handle.turns!), 'no turn left open');
      await sql`insert into t values (6)`.execute(db);
      const rows = await sql<{ n: number }>`select n from t order by n`.execute(db);
      assert.deepEqual(
        rows.rows.map((r) => r.n),
        [6],
      );
    } finally {
      await tearDown();
    }
  });
});
