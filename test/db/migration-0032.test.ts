// Migration 0032 (SQLite): a new file's names reach the trigram table through a queue (file_search_new), indexed many
// at a time by the server's job and before every search, instead of from each insert's trigger. Every file stays
// findable: the files from before the migration, files waiting in the queue (also renamed or deleted while they
// wait), and files indexed from it. PostgreSQL has no queue; the same searches give the same totals there.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { Migrator, sql } from 'kysely';
import { openDatabase } from '../../src/db/index.js';
import { migrations } from '../../src/db/schema/migrate.js';
import { hasNewFiles, INDEX_SLICE, NEW_FILES } from '../../src/db/schema/search-index.js';
import type { Db } from '../../src/db/schema/tables.js';
import { listFiles } from '../../src/services/lists/files.js';
import { fileRowOf, insertFileRows } from '../support/file-rows.js';
import { oldUserRow, withDatabaseBefore } from '../support/old-database.js';
import { startTestServer } from '../support/server.js';

/** A file row as a writer that leaves the indexing to others inserts it (not through insertFileRows). */
const fileRow = (id: string, userId: string, name: string) => fileRowOf({ id, user_id: userId, name });

async function count(db: Db, table: string): Promise<number> {
  const rows = await sql<{ n: number }>`select count(*) as n from ${sql.table(table)}`.execute(db);
  return Number(rows.rows[0]!.n);
}

describe('migration 0032 (new files indexed many at a time)', () => {
  for (const engine of ['sqlite', 'postgres'] as const) {
    it(`finds every file: from before, waiting, renamed or deleted while waiting, indexed [${engine}]`, async (t) => {
      if (engine === 'postgres' && !process.env.TEST_DATABASE_URL) return t.skip('TEST_DATABASE_URL is not set');
      await withDatabaseBefore(
        engine,
        '0032',
        async (db) => {
          await db.insertInto('users').values(oldUserRow('u-a', 'anna')).execute();
          await insertFileRows({ db }, [
            { id: 'a1', user_id: 'u-a', name: 'Bildschirmfoto-1.png' },
            { id: 'a2', user_id: 'u-a', name: 'holiday.png' },
          ]);
        },
        async (server) => {
          const ctx = server.chute.ctx;
          const db = ctx.db;
          const sqlite = engine === 'sqlite';
          const total = async (searchQuery: string) => {
            const page = await listFiles(
              ctx,
              { id: 'u-a', role: 'USER' },
              { page: 1, perPage: 50, sortBy: 'createdAt', order: 'desc', searchField: 'name', searchQuery },
            );
            assert.equal(page.total, page.rows.length, searchQuery);
            return page.total;
          };
          assert.equal(await total('schirm'), 1);
          assert.equal(await total('holiday'), 1);
          assert.equal(await hasNewFiles(db), false);

          // Written by a writer that indexes nothing itself: the search indexes them first.
          await db
            .insertInto('files')
            .values([fileRow('a3', 'u-a', 'Bildschirmfoto-3.png'), fileRow('a4', 'u-a', 'zebra.png')])
            .execute();
          assert.equal(await hasNewFiles(db), sqlite);
          assert.equal(await total('schirm'), 2);
          assert.equal(await hasNewFiles(db), false);

          // Renamed and deleted while waiting; then indexed by the server's job.
          await db
            .insertInto('files')
            .values([fileRow('a5', 'u-a', 'waiting.png'), fileRow('a6', 'u-a', 'doomed.png')])
            .execute();
          await db.updateTable('files').set({ name: 'renamed-while-waiting.png' }).where('id', '=', 'a5').execute();
          await db.deleteFrom('files').where('id', '=', 'a6').execute();
          if (sqlite) {
            assert.equal(await count(db, NEW_FILES), 1);
            await server.chute.jobs.runNow('index-new-files');
            assert.equal(await hasNewFiles(db), false);
          }
          assert.equal(await total('waiting'), 1);
          assert.equal(await total('renamed'), 1);
          assert.equal(await total('doomed'), 0);

          // Renamed and deleted once indexed.
          await db.updateTable('files').set({ name: 'Bildschirmfoto-5.png' }).where('id', '=', 'a5').execute();
          await db.deleteFrom('files').where('id', '=', 'a4').execute();
          assert.equal(await total('waiting'), 0);
          assert.equal(await total('schirm'), 3);
          assert.equal(await total('zebra'), 0);
          if (sqlite) {
            // Every file is in the trigram table once, and nothing else is.
            assert.equal(await count(db, 'file_search'), 4);
            const indexed = await sql<{ n: number }>`select count(*) as n from files_fts
              where files_fts match '{name} : "png"'`.execute(db);
            assert.equal(Number(indexed.rows[0]!.n), 4);
          }
        },
      );
    });
  }

  it('indexes a long queue in slices, each its own transaction [sqlite]', async () => {
    const server = await startTestServer({ engine: 'sqlite' });
    try {
      const ctx = server.chute.ctx;
      await ctx.db.insertInto('users').values(oldUserRow('u-a', 'anna')).execute();
      const n = 2 * INDEX_SLICE + 500;
      const rows = Array.from({ length: n }, (_, i) => fileRow(`f${i}`, 'u-a', `slice-${i}.png`));
      for (let i = 0; i < n; i += 500)
        await ctx.db
          .insertInto('files')
          .values(rows.slice(i, i + 500))
          .execute();
      assert.equal(await count(ctx.db, NEW_FILES), n);
      const commits = ctx.commits.stats.commits;
      await server.chute.jobs.runNow('index-new-files');
      assert.equal(ctx.commits.stats.commits - commits, 3);
      assert.equal(await hasNewFiles(ctx.db), false);
      const page = await listFiles(
        ctx,
        { id: 'u-a', role: 'USER' },
        { page: 1, perPage: 10, sortBy: 'createdAt', order: 'desc', searchField: 'name', searchQuery: 'slice-' },
      );
      assert.equal(page.total, n);
    } finally {
      await server.close();
    }
  });

  it('down: indexes what waits and puts back the triggers that index each file [sqlite]', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'chute-0032-down-'));
    const database = openDatabase({ sqlitePath: path.join(dataDir, 'chute.db') });
    try {
      const migrator = new Migrator({ db: database.db, provider: { getMigrations: async () => migrations } });
      assert.equal((await migrator.migrateToLatest()).error, undefined);
      const db = database.db;
      await db.insertInto('users').values(oldUserRow('u-a', 'anna')).execute();
      await db
        .insertInto('files')
        .values(fileRow('w1', 'u-a', 'waiting.png'))
        .execute();
      assert.equal(await count(db, NEW_FILES), 1);
      assert.equal((await migrator.migrateTo('0031_search_owners')).error, undefined);
      await db
        .insertInto('files')
        .values(fileRow('w2', 'u-a', 'after-down.png'))
        .execute();
      const tables = await sql<{ name: string }>`select name from sqlite_master where name = ${NEW_FILES}`.execute(db);
      assert.equal(tables.rows.length, 0);
      const found = await sql<{ n: number }>`select count(*) as n from files_fts
        where files_fts match '{name} : "png"'`.execute(db);
      assert.equal(Number(found.rows[0]!.n), 2);
    } finally {
      await database.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
