// Group commit (src/db/group-commit.ts) on the real engines: concurrent transactions share commits on SQLite, each
// keeps its own outcome (one that fails is rolled back alone), and what resolved is stored.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { GroupCommit } from '../../src/db/group-commit.js';
import { forEachDatabase, useTestServer } from '../support/server.js';

forEachDatabase('group commit', (engine) => {
  const server = useTestServer({ engine });

  it('runs concurrent transactions, each with its own outcome, and shares commits on SQLite', async () => {
    const { ctx } = server();
    const commits = new GroupCommit(ctx.db, ctx.engine);
    const now = ctx.clock.now();
    const outcomes = await Promise.allSettled(
      Array.from({ length: 40 }, (_, i) =>
        commits.run(async (trx) => {
          await trx
            .insertInto('pending_objects')
            .values({ storage_key: `group-${i}`, instance_id: 'test', created_at: now })
            .execute();
          // A second statement after an await, as a real transaction has (quota check, name claim ...).
          await new Promise((resolve) => setImmediate(resolve));
          if (i % 10 === 3) throw new Error(`transaction ${i} fails`);
          await trx
            .insertInto('pending_objects')
            .values({ storage_key: `group-${i}-second`, instance_id: 'test', created_at: now })
            .execute();
          return i;
        }),
      ),
    );
    outcomes.forEach((outcome, i) => {
      if (i % 10 === 3) {
        assert.equal(outcome.status, 'rejected');
        assert.match(String((outcome as PromiseRejectedResult).reason), new RegExp(`transaction ${i} fails`));
      } else {
        assert.deepEqual(outcome, { status: 'fulfilled', value: i });
      }
    });
    const stored = await ctx.db
      .selectFrom('pending_objects')
      .select('storage_key')
      .where('storage_key', 'like', 'group-%')
      .execute();
    const expected = Array.from({ length: 40 }, (_, i) => i)
      .filter((i) => i % 10 !== 3)
      .flatMap((i) => [`group-${i}`, `group-${i}-second`]);
    assert.deepEqual(
      stored.map((r) => r.storage_key).sort(),
      expected.sort(),
      'a failed one left nothing, the others all',
    );
    assert.equal(commits.stats.transactions, 40);
    if (engine === 'sqlite') {
      assert.ok(
        commits.stats.commits < commits.stats.transactions / 2,
        `${commits.stats.transactions} transactions shared ${commits.stats.commits} commits`,
      );
    }
    await ctx.db.deleteFrom('pending_objects').where('storage_key', 'like', 'group-%').execute();
  });

  it('commits a lone transaction at once, and uploads go through it', async () => {
    const { ctx } = server();
    const before = { ...ctx.commits.stats };
    const admin = await server().setup();
    const form = new FormData();
    form.append('file', new Blob(['group committed']), 'g.txt');
    const res = await server().fetch('/api/upload', {
      method: 'POST',
      headers: { authorization: admin.token },
      body: form,
    });
    assert.equal(res.status, 200);
    // The pending mark and the record: two transactions of the upload went through the group commit.
    assert.ok(ctx.commits.stats.transactions >= before.transactions + 2);
  });
});
