// Transactions whose commit is not waited on to reach the disk (src/db/commits.ts unflushedTransaction), on the real
// engines: atomic and seen at once like any other, without a flush of SQLite's log per commit, and with PostgreSQL's
// synchronous_commit off for that transaction alone.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { sql } from 'kysely';
import { unflushedTransaction } from '../../src/db/commits.js';
import { forEachDatabase, useTestServer } from '../support/server.js';
import { holdFlushes } from '../support/wal.js';

forEachDatabase('unflushed transactions', (engine) => {
  const server = useTestServer({ engine });

  const mark = (key: string) => ({ storage_key: key, instance_id: 'test', created_at: Date.now() });
  // The keys of one test (the database is the file's).
  const keys = async (prefix: string) =>
    (
      await server()
        .ctx.db.selectFrom('pending_objects')
        .select('storage_key')
        .where('storage_key', 'like', `${prefix}%`)
        .orderBy('storage_key')
        .execute()
    ).map((r) => r.storage_key);

  it('commits what it did, atomically: a transaction that throws leaves nothing', async () => {
    const { ctx } = server();
    await unflushedTransaction(ctx.db, (trx) => trx.insertInto('pending_objects').values(mark('a-kept')).execute());
    await assert.rejects(
      unflushedTransaction(ctx.db, async (trx) => {
        await trx.insertInto('pending_objects').values(mark('a-rolled-back')).execute();
        throw new Error('fails after its first statement');
      }),
      /fails after its first statement/,
    );
    assert.deepEqual(await keys('a-'), ['a-kept']);
  });

  it('on SQLite, does not wait for a flush of the log; a durable commit after it (and after a failed one) still does', async (t) => {
    if (engine !== 'sqlite') return t.skip('SQLite only');
    const { ctx } = server();
    const held = holdFlushes(server().chute.database.walSync!);
    let durableAnswered = false;
    try {
      // While no flush of the log can end, unflushed commits are answered all the same.
      for (let i = 0; i < 5; i++) {
        await unflushedTransaction(ctx.db, (trx) =>
          trx
            .insertInto('pending_objects')
            .values(mark(`b-${i}`))
            .execute(),
        );
      }
      // A failed unflushed transaction does not leave its mark on the next transaction, which waits for the flush.
      await assert.rejects(
        unflushedTransaction(ctx.db, async () => {
          throw new Error('nothing done');
        }),
      );
      const durable = ctx.db
        .transaction()
        .execute((trx) => trx.insertInto('pending_objects').values(mark('b-durable')).execute())
        .then(() => (durableAnswered = true));
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal(durableAnswered, false, 'a durable commit waits for the flush of the log');
      held.release();
      await durable;
    } finally {
      held.release();
    }
    assert.equal((await keys('b-')).length, 6);
  });

  it('on PostgreSQL, turns synchronous_commit off for its own transaction only', async (t) => {
    if (engine !== 'postgres') return t.skip('PostgreSQL only');
    const { ctx } = server();
    const inside = await unflushedTransaction(ctx.db, async (trx) => {
      await trx.insertInto('pending_objects').values(mark('c-async')).execute();
      return (await sql<{ synchronous_commit: string }>`show synchronous_commit`.execute(trx)).rows[0]!
        .synchronous_commit;
    });
    assert.equal(inside, 'off');
    const after = await ctx.db
      .transaction()
      .execute(
        async (trx) =>
          (await sql<{ synchronous_commit: string }>`show synchronous_commit`.execute(trx)).rows[0]!.synchronous_commit,
      );
    assert.equal(after, 'on');
    assert.deepEqual(await keys('c-'), ['c-async']);
  });
});
