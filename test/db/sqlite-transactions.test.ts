// SQLite only (PostgreSQL has no such failure: its transactions do not hold a snapshot that another commit makes
// unwritable): a transaction of the server's connection holds the write lock from its start, so that another
// connection's commit between its first read and its first write (the batch writer's thread deleting in bulk, the
// `chute` command) makes it wait instead of failing with SQLITE_BUSY. Found as a 500 of DELETE /api/user/folders/:id
// next to a bulk delete (test/services/list-counters.test.ts, several clients at once).
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { it } from 'node:test';
import SqliteDatabase from 'better-sqlite3';
import { sql } from 'kysely';
import { openDatabase } from '../../src/db/index.js';

it("a transaction's write after another connection's commit does not fail with SQLITE_BUSY", async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'chute-sqlite-trx-'));
  const file = path.join(dir, 'chute.db');
  const handle = openDatabase({ sqlitePath: file });
  await sql`create table t (n integer)`.execute(handle.db);
  await sql`insert into t values (0)`.execute(handle.db);
  // Another connection, as the batch writer's thread has one; it does not wait for locks (busy_timeout 0).
  const other = new SqliteDatabase(file);
  other.pragma('busy_timeout = 0');
  try {
    let otherWrite: string | null = null;
    await handle.db.transaction().execute(async (trx) => {
      const before = await sql<{ c: number }>`select count(*) as c from t`.execute(trx);
      assert.equal(before.rows[0]!.c, 1);
      // With a plain BEGIN this commit succeeds and the insert below fails with SQLITE_BUSY (snapshot too old).
      try {
        other.exec('insert into t values (1)');
        otherWrite = 'committed';
      } catch (err) {
        otherWrite = (err as { code?: string }).code ?? String(err);
      }
      await sql`insert into t values (2)`.execute(trx);
    });
    assert.equal(otherWrite, 'SQLITE_BUSY', "the other connection waits for the transaction's lock");
    other.exec('insert into t values (1)');
    const rows = await sql<{ n: number }>`select n from t order by n`.execute(handle.db);
    assert.deepEqual(
      rows.rows.map((r) => r.n),
      [0, 1, 2],
    );
  } finally {
    other.close();
    await handle.close();
    await rm(dir, { recursive: true, force: true });
  }
});
