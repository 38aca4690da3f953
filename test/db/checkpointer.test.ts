// SQLite's checkpoints off the event loop (src/db/sqlite/checkpoints.ts): the server's connection never checkpoints
// inside a commit, a thread of its own does, so the log is still copied back and started again (it does not grow with
// every commit), and nothing committed is lost across a restart. SQLite only: PostgreSQL checkpoints in its own server.
import assert from 'node:assert/strict';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { openDatabase } from '../../src/db/index.js';
import { migrateToLatest } from '../../src/db/schema/migrate.js';
import { useTestServer } from '../support/server.js';

const PAGE = 4096;

async function withDatabaseFile(fn: (file: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'chute-checkpoints-'));
  try {
    await fn(path.join(dir, 'chute.db'));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

it('SQLite: the log is checkpointed on a thread of its own, started again and kept small, and nothing is lost', async () => {
  await withDatabaseFile(async (file) => {
    // A tenth of the server's delay: 3,000 commits then span several checkpoints on any machine.
    const database = openDatabase({ sqlitePath: file, checkpointDelayMs: 100 });
    const { db } = database;
    try {
      const { rows } = await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(db);
      assert.equal(rows[0]?.wal_autocheckpoint, 0, 'no checkpoint inside a commit of the main connection');
      await sql`create table t (id integer primary key, body blob not null)`.execute(db);
      // 3,000 commits of a page each: 12 MB through the log, three times what SQLite's automatic checkpoint allows.
      const commits = 3_000;
      for (let i = 0; i < commits; i++) {
        await sql`insert into t (id, body) values (${i}, zeroblob(${PAGE}))`.execute(db);
      }
      const deadline = Date.now() + 10_000;
      while (database.checkpointer!.checkpoints === 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      assert.ok(database.checkpointer!.checkpoints > 0, 'the checkpointer ran');
      const wal = (await stat(`${file}-wal`)).size;
      assert.ok(wal < (commits * PAGE) / 2, `the log was started again (${wal} bytes after ${commits} commits)`);
      // The pages reached the database file itself (only a checkpoint copies them there).
      assert.ok((await stat(file)).size > (commits * PAGE) / 2, 'the database file holds the copied pages');
    } finally {
      await database.close();
    }
    const again = openDatabase({ sqlitePath: file });
    try {
      const { rows } = await sql<{
        n: number;
        bytes: number;
      }>`select count(*) as n, sum(length(body)) as bytes from t`.execute(again.db);
      assert.deepEqual(rows[0], { n: 3_000, bytes: 3_000 * PAGE });
    } finally {
      await again.close();
    }
  });
});

it('SQLite: temporary data stays in files until asked (the migrations sort into them), then in memory, once', async () => {
  await withDatabaseFile(async (file) => {
    const database = openDatabase({ sqlitePath: file });
    const tempStore = async () =>
      (await sql<{ temp_store: number }>`pragma temp_store`.execute(database.db)).rows[0]?.temp_store;
    try {
      await migrateToLatest(database.db);
      assert.equal(await tempStore(), 0, 'the default (files) while the migrations run');
      database.keepTemporaryDataInMemory!();
      assert.equal(await tempStore(), 2);
      await sql`create temp table kept (x integer)`.execute(database.db);
      // Asked again (the same value), the temp objects stay: a change of the setting would drop them (the watches'
      // triggers).
      await sql`insert into kept (x) values (1)`.execute(database.db);
      database.keepTemporaryDataInMemory!();
      const { rows } = await sql<{ n: number }>`select count(*) as n from temp.kept`.execute(database.db);
      assert.equal(rows[0]?.n, 1);
    } finally {
      await database.close();
    }
  });
});

describe('the server on SQLite', () => {
  const server = useTestServer({ engine: 'sqlite' });
  it("keeps its connection's temporary data in memory once it has started (a statement journal file per upload otherwise)", async () => {
    const { rows } = await sql<{ temp_store: number }>`pragma temp_store`.execute(server().ctx.db);
    assert.equal(rows[0]?.temp_store, 2);
  });
});
