// Migration 0030 on a database that has tagged files: each row of file_tags gets its file's date, the rows added after
// it get theirs from the trigger, and a tag's files come back in date order (newest and oldest first, by page number
// and after a cursor) from the tag's own index.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { listFiles } from '../../src/services/lists/files.js';
import { insertFileRows } from '../support/file-rows.js';
import { oldUserRow, withDatabaseBefore } from '../support/old-database.js';

describe('migration 0030 (the dates of tagged files)', () => {
  for (const engine of ['sqlite', 'postgres'] as const) {
    it(`dates the rows already there and the ones added after [${engine}]`, async (t) => {
      if (engine === 'postgres' && !process.env.TEST_DATABASE_URL) return t.skip('TEST_DATABASE_URL is not set');
      const dates = { a: 3000, b: 1000, c: 2000, d: 2000, e: 4000 };
      await withDatabaseBefore(
        engine,
        '0030',
        async (db) => {
          await db.insertInto('users').values(oldUserRow('u-old', 'tagger')).execute();
          await insertFileRows({ db }, [
            ...Object.entries(dates).map(([id, created_at]) => ({ id, user_id: 'u-old', created_at })),
          ]);
          const tag = { user_id: 'u-old', color: '#000000', created_at: 1, updated_at: 1 };
          await db
            .insertInto('tags')
            .values([
              { ...tag, id: 't-old', name: 'old' },
              { ...tag, id: 't-new', name: 'new' },
            ])
            .execute();
          await db
            .insertInto('file_tags')
            .values(['a', 'b', 'c', 'd'].map((file_id) => ({ file_id, tag_id: 't-old' })))
            .execute();
        },
        async (server) => {
          const db = server.ctx.db;
          // Added after the migration: the trigger dates them.
          await db
            .insertInto('file_tags')
            .values(['e', 'b'].map((file_id) => ({ file_id, tag_id: 't-new' })))
            .execute();
          const rows = await db.selectFrom('file_tags').selectAll().orderBy('tag_id').orderBy('file_id').execute();
          assert.deepEqual(
            rows.map((r) => [r.tag_id, r.file_id, Number(r.file_created_at)]),
            [
              ['t-new', 'b', 1000],
              ['t-new', 'e', 4000],
              ['t-old', 'a', 3000],
              ['t-old', 'b', 1000],
              ['t-old', 'c', 2000],
              ['t-old', 'd', 2000],
            ],
          );
          const caller = { id: 'u-old', role: 'USER' as const };
          const base = { page: 1, perPage: 2, sortBy: 'createdAt' as const, searchField: 'name' as const };
          const walk = async (order: 'asc' | 'desc', tagId: string) => {
            const ids: string[] = [];
            let cursor: string | undefined;
            do {
              const page = await listFiles(server.ctx, caller, { ...base, order, tagIds: [tagId], cursor });
              ids.push(...page.rows.map((r) => r.id));
              cursor = page.nextCursor ?? undefined;
            } while (cursor);
            return ids;
          };
          assert.deepEqual(await walk('desc', 't-old'), ['a', 'd', 'c', 'b']);
          assert.deepEqual(await walk('asc', 't-old'), ['b', 'c', 'd', 'a']);
          assert.deepEqual(await walk('desc', 't-new'), ['e', 'b']);
          const last = await listFiles(server.ctx, caller, { ...base, page: 2, order: 'desc', tagIds: ['t-old'] });
          assert.deepEqual(
            last.rows.map((r) => r.id),
            ['c', 'b'],
          );
          assert.equal(last.total, 4);
          // Another user's tag lists nothing, even though its files are there.
          const other = await listFiles(
            server.ctx,
            { id: 'u-other', role: 'USER' },
            { ...base, order: 'desc', tagIds: ['t-old'] },
          );
          assert.deepEqual(other.rows, []);
        },
      );
    });
  }
});
