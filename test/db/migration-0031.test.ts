// Migration 0031 on a database that has files: file_search (SQLite's numbering of the search index) gets each file's
// owner, the triggers keep it in step with new files, changed owners and deletions, and a search's total, counted
// from it, is the owner's matches (also when the owner holds every file). On PostgreSQL the migration changes nothing and the totals are the same.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import type { Db } from '../../src/db/schema/tables.js';
import { listFiles } from '../../src/services/lists/files.js';
import { insertFileRows } from '../support/file-rows.js';
import { oldUserRow, withDatabaseBefore } from '../support/old-database.js';

/** Each file's owner as file_search holds it, next to the file's own (SQLite). */
async function owners(db: Db): Promise<Array<[string, string | null, string | null]>> {
  const rows = await sql<{ id: string; owner: string | null; copy: string | null }>`select files.id as id,
    files.user_id as owner, file_search.user_id as copy from files join file_search on file_search.file_id = files.id
    order by files.id`.execute(db);
  return rows.rows.map((r) => [r.id, r.owner, r.copy]);
}

describe('migration 0031 (the owners in the search index)', () => {
  for (const engine of ['sqlite', 'postgres'] as const) {
    it(`copies the owners already there and follows every change after [${engine}]`, async (t) => {
      if (engine === 'postgres' && !process.env.TEST_DATABASE_URL) return t.skip('TEST_DATABASE_URL is not set');
      await withDatabaseBefore(
        engine,
        '0031',
        async (db) => {
          await db
            .insertInto('users')
            .values([oldUserRow('u-a', 'anna'), oldUserRow('u-b', 'bert')])
            .execute();
          await insertFileRows({ db }, [
            { id: 'a1', user_id: 'u-a', name: 'Bildschirmfoto-1.png' },
            { id: 'a2', user_id: 'u-a', name: 'bildschirmfoto-2.png' },
            { id: 'a3', user_id: 'u-a', name: 'holiday.png' },
            { id: 'b1', user_id: 'u-b', name: 'BILDSCHIRMFOTO.png' },
          ]);
        },
        async (server) => {
          const db = server.ctx.db;
          const total = async (userId: string, searchQuery = 'schirm') => {
            const page = await listFiles(
              server.ctx,
              { id: userId, role: 'USER' },
              { page: 1, perPage: 10, sortBy: 'createdAt', order: 'desc', searchField: 'name', searchQuery },
            );
            assert.equal(page.total, page.rows.length, `${userId} ${searchQuery}`);
            return page.total;
          };
          if (engine === 'sqlite')
            assert.deepEqual(await owners(db), [
              ['a1', 'u-a', 'u-a'],
              ['a2', 'u-a', 'u-a'],
              ['a3', 'u-a', 'u-a'],
              ['b1', 'u-b', 'u-b'],
            ]);
          assert.equal(await total('u-a'), 2);
          assert.equal(await total('u-b'), 1);
          assert.equal(await total('u-a', 'holiday'), 1);
          // A new file, a file whose owner goes (a user deleted without their files), a deleted file.
          await insertFileRows(server.ctx, [{ id: 'a4', user_id: 'u-a', name: 'Bildschirmfoto-4.png' }]);
          assert.equal(await total('u-a'), 3);
          await db.updateTable('files').set({ user_id: null }).where('id', '=', 'a1').execute();
          await db.updateTable('files').set({ user_id: 'u-b' }).where('id', '=', 'a2').execute();
          assert.equal(await total('u-a'), 1);
          assert.equal(await total('u-b'), 2);
          await db.deleteFrom('files').where('id', '=', 'b1').execute();
          assert.equal(await total('u-b'), 1);
          if (engine === 'sqlite') {
            assert.deepEqual(await owners(db), [
              ['a1', null, null],
              ['a2', 'u-b', 'u-b'],
              ['a3', 'u-a', 'u-a'],
              ['a4', 'u-a', 'u-a'],
            ]);
            const left = await sql<{ n: number }>`select count(*) as n from file_search`.execute(db);
            assert.equal(Number(left.rows[0]!.n), 4);
          }
          // u-a alone holds files (the count then reads the trigram table only, SQLite), and again with u-b's.
          await db.deleteFrom('files').where('id', 'in', ['a1', 'a2']).execute();
          assert.equal(await total('u-a'), 1);
          assert.equal(await total('u-a', '.png'), 2);
          assert.equal(await total('u-b', '.png'), 0);
          await insertFileRows(server.ctx, [{ id: 'b2', user_id: 'u-b', name: 'Bildschirmfoto-b.png' }]);
          assert.equal(await total('u-a'), 1);
          assert.equal(await total('u-b'), 1);
          assert.equal(await total('u-a', '.png'), 2);
        },
      );
    });
  }
});
