import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { sql } from 'kysely';
import { NOT_NOW, precompiledByKey } from '../../src/db/precompiled.js';
import { forEachDatabase, useTestServer, type TestUser } from '../support/server.js';
import { uploadOne } from '../support/uploads.js';

forEachDatabase('precompiled queries', (engine) => {
  const server = useTestServer({ engine });
  let user: TestUser;
  before(async () => {
    user = await server().setup('pre', 'pre-password');
  });

  it('are compiled once and run with each key', async () => {
    const byName = precompiledByKey((db, name) =>
      db.selectFrom('files').select(['id', 'size']).where('name', '=', name),
    );
    const a = await uploadOne(server(), user.token, 'aaa');
    const b = await uploadOne(server(), user.token, 'bbbbb');
    const { db } = server().ctx;
    assert.deepEqual(await byName(db, a.name), { id: a.id, size: 3 });
    assert.deepEqual(await byName(db, b.name), { id: b.id, size: 5 });
    assert.equal(await byName(db, 'no-such-name'), undefined);
  });

  it('refuse a query that does not bind its key', async () => {
    const inlined = precompiledByKey((db, name) =>
      db
        .selectFrom('files')
        .select('id')
        .where('name', '=', sql.lit(name) as never),
    );
    await assert.rejects(inlined(server().ctx.db, 'x'), /must bind its key/);
  });

  it('run at once on SQLite outside a transaction, and never inside one (its rows are not committed)', async () => {
    const byName = precompiledByKey((db, name) =>
      db.selectFrom('files').select(['id', 'size']).where('name', '=', name),
    );
    const a = await uploadOne(server(), user.token, 'cc');
    const { db } = server().ctx;
    if (engine === 'sqlite') {
      assert.deepEqual(byName.now(db, a.name), { id: a.id, size: 2 });
      assert.equal(byName.now(db, 'no-such-name'), undefined);
    } else {
      // PostgreSQL answers over the network: never at once.
      assert.equal(byName.now(db, a.name), NOT_NOW);
    }
    await db
      .transaction()
      .execute(async (trx) => {
        await trx.updateTable('files').set({ size: 99 }).where('id', '=', a.id).execute();
        // Inside the open transaction a synchronous read would see size 99 before it is committed.
        assert.equal(byName.now(db, a.name), NOT_NOW);
        throw new Error('rolled back');
      })
      .catch((err: unknown) => {
        if (!(err instanceof Error) || err.message !== 'rolled back') throw err;
      });
    assert.deepEqual(await byName(db, a.name), { id: a.id, size: 2 });
  });

  it('kept answers start watching their tables only outside a transaction (a rollback would drop the triggers)', async () => {
    const { db } = server().ctx;
    if (engine !== 'sqlite') {
      // PostgreSQL answers over the network: nothing runs at once, so nothing is kept.
      const tagByName = precompiledByKey(
        (d, name) => d.selectFrom('tags').select(['id', 'name']).where('name', '=', name),
        {
          cache: { tables: [{ table: 'tags', columns: ['id', 'name'] }], entries: 10 },
        },
      );
      assert.equal(tagByName.now(db, 'pg-tag'), NOT_NOW);
      assert.equal(await tagByName(db, 'pg-tag'), undefined);
      const made = await server().json('POST', '/api/user/tags', { auth: user.token, body: { name: 'pg-tag' } });
      assert.equal(made.status, 200, JSON.stringify(made.body));
      assert.deepEqual(await tagByName(db, 'pg-tag'), { id: made.body.id, name: 'pg-tag' });
      return;
    }
    const watching = async () =>
      (
        await sql<{
          n: number;
        }>`select count(*) as n from sqlite_temp_master where type = 'trigger' and name like 'chute_watch_%_tags_%'`.execute(
          db,
        )
      ).rows[0]!.n;
    const tagByName = precompiledByKey(
      (d, name) => d.selectFrom('tags').select(['id', 'name']).where('name', '=', name),
      { cache: { tables: [{ table: 'tags', columns: ['id', 'name'] }], entries: 10 } },
    );
    assert.equal(await watching(), 0);
    await db
      .transaction()
      .execute(async () => {
        assert.equal(tagByName.now(db, 'none'), NOT_NOW);
        throw new Error('rolled back');
      })
      .catch((err: unknown) => {
        if (!(err instanceof Error) || err.message !== 'rolled back') throw err;
      });
    assert.equal(await watching(), 0, 'no trigger was made inside the transaction');
    assert.equal(tagByName.now(db, 'none'), undefined);
    assert.equal(await watching(), 3, 'insert, update and delete are watched');
    const made = await server().json('POST', '/api/user/tags', { auth: user.token, body: { name: 'kept-tag' } });
    assert.equal(made.status, 200, JSON.stringify(made.body));
    assert.deepEqual(tagByName.now(db, 'kept-tag'), { id: made.body.id, name: 'kept-tag' });
  });
});
