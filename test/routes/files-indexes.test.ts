// The file list stays fast at 100,000 files because every sort order of GET /api/user/files reads a page straight
// from an index (migration 0002) instead of sorting all the user's files. SQLite's planner is deterministic without
// statistics, so its plans are checked here; PostgreSQL uses the same indexes (measured in the report).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { startTestServer } from '../support/server.js';

describe('file list indexes [sqlite]', () => {
  it('serve every indexed sort order without a temporary sort', async () => {
    const server = await startTestServer({ engine: 'sqlite' });
    try {
      const orders = ['created_at', 'updated_at', 'size', 'views', 'type'];
      for (const column of orders) {
        for (const direction of ['asc', 'desc']) {
          const plan = await sql<{
            detail: string;
          }>`explain query plan select * from files where user_id = ${'u'} order by ${sql.ref(column)} ${sql.raw(direction)}, id ${sql.raw(direction)} limit 15`.execute(
            server.ctx.db,
          );
          const details = plan.rows.map((r) => r.detail).join(' | ');
          assert.match(details, /USING INDEX files_user_/, `${column} ${direction}: ${details}`);
          assert.doesNotMatch(details, /TEMP B-TREE/, `${column} ${direction}: ${details}`);
        }
      }
      const byName = await sql<{
        detail: string;
      }>`explain query plan select * from files where user_id = ${'u'} order by name asc, id asc limit 15`.execute(
        server.ctx.db,
      );
      assert.match(byName.rows.map((r) => r.detail).join(' '), /USING INDEX files_user_name/);
      const favourites = await sql<{
        detail: string;
      }>`explain query plan select * from files where user_id = ${'u'} and favorite = 1 order by created_at desc, id desc limit 15`.execute(
        server.ctx.db,
      );
      assert.doesNotMatch(favourites.rows.map((r) => r.detail).join(' '), /TEMP B-TREE/);
    } finally {
      await server.close();
    }
  });
});
