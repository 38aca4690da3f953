import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { sql } from 'kysely';
import { NOT_NOW, precompiledByKey, precompiledWrite } from '../../src/db/precompiled.js';
import { findUserByToken } from '../../src/services/accounts/account.js';
import { findQuota } from '../../src/services/accounts/quotas.js';
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
    const kept = tagByName.now(db, 'kept-tag');
    assert.deepEqual(kept, { id: made.body.id, name: 'kept-tag' });
    // While a transaction that has not written these rows is open (an upload's group commit), the kept answer is
    // the committed state and is used; once it writes them, nothing is answered at once until it has ended.
    await db
      .transaction()
      .execute(async (trx) => {
        await trx
          .insertInto('pending_objects')
          .values({ storage_key: 'kept-tag-key', instance_id: 'test', created_at: 1 })
          .execute();
        assert.equal(tagByName.now(db, 'kept-tag'), kept);
        assert.equal(tagByName.now(db, 'other-tag'), NOT_NOW, 'not kept: no read inside a transaction');
        await trx.updateTable('tags').set({ name: 'renamed-tag' }).where('id', '=', made.body.id).execute();
        assert.equal(tagByName.now(db, 'kept-tag'), NOT_NOW);
        throw new Error('rolled back');
      })
      .catch((err: unknown) => {
        if (!(err instanceof Error) || err.message !== 'rolled back') throw err;
      });
    assert.deepEqual(tagByName.now(db, 'kept-tag'), kept);
    assert.notEqual(tagByName.now(db, 'kept-tag'), kept, 'read again after the rollback, then kept again');
  });

  it('the quota read before an upload is kept on SQLite, and a changed quota is read at once', async () => {
    const { ctx } = server();
    const made = await server().json('POST', '/api/users', {
      auth: user.token,
      body: { username: 'pre-quota', password: 'pre-quota-password', role: 'USER' },
    });
    assert.equal(made.status, 200, JSON.stringify(made.body));
    const id = made.body.id as string;
    const set = (quota: unknown) => server().json('PATCH', `/api/users/${id}`, { auth: user.token, body: { quota } });
    assert.equal((await set({ filesQuota: 'BY_FILES', maxFiles: 5 })).status, 200);
    const first = await findQuota(ctx.db, id);
    assert.equal(first?.max_files, 5);
    await uploadOne(server(), user.token, 'other rows');
    const again = await findQuota(ctx.db, id);
    if (engine === 'sqlite') assert.equal(again, first, 'the same kept row, no query');
    else assert.notEqual(again, first, 'PostgreSQL reads it each time');
    assert.equal((await set({ filesQuota: 'BY_FILES', maxFiles: 7 })).status, 200);
    assert.equal((await findQuota(ctx.db, id))?.max_files, 7);
  });

  it("kept answers of one query are not dropped by writes to other tables: an upload keeps the token's user", async () => {
    const { ctx } = server();
    const first = await findUserByToken(ctx, user.token);
    assert.equal(first?.id, user.id);
    // A file row (another table) is written by the upload, and the upload itself looks the token up.
    await uploadOne(server(), user.token, 'kept');
    const again = await findUserByToken(ctx, user.token);
    assert.equal(again?.id, user.id);
    if (engine === 'sqlite') assert.equal(again, first, 'the same kept row, no query');
    else assert.notEqual(again, first, 'PostgreSQL reads it each time');
    // A change of the user's row is seen at once: the old token stops working, the new one works.
    const reset = await server().json('PATCH', '/api/user/token', { auth: user.token });
    assert.equal(reset.status, 200, JSON.stringify(reset.body));
    assert.equal(await findUserByToken(ctx, user.token), undefined);
    assert.equal((await server().json('GET', '/api/user', { auth: user.token })).status, 401);
    const renewed = await findUserByToken(ctx, reset.body.token);
    assert.equal(renewed?.id, user.id);
    assert.notEqual(renewed, first);
    user = { ...user, token: reset.body.token };
    // So is a role change made by an admin (a users row written by another request).
    const other = await server().json('POST', '/api/users', {
      auth: user.token,
      body: { username: 'pre-other', password: 'pre-other-password', role: 'ADMIN' },
    });
    assert.equal(other.status, 200, JSON.stringify(other.body));
    const otherToken = (
      await server().json('GET', '/api/user', { auth: await server().login('pre-other', 'pre-other-password') })
    ).body.token as string;
    assert.equal((await findUserByToken(ctx, otherToken))?.role, 'ADMIN');
    const demoted = await server().json('PATCH', `/api/users/${other.body.id}`, {
      auth: user.token,
      body: { role: 'USER' },
    });
    assert.equal(demoted.status, 200, JSON.stringify(demoted.body));
    assert.equal((await findUserByToken(ctx, otherToken))?.role, 'USER');
  });

  it("writes: compiled once per engine, run with each call's values in a transaction or outside one", async () => {
    const { db } = server().ctx;
    const insertMark = precompiledWrite<{ storage_key: string; instance_id: string; created_at: number }>(
      ['storage_key', 'instance_id', 'created_at'],
      (d, row) =>
        d
          .insertInto('pending_objects')
          .values(row)
          .onConflict((oc) => oc.column('storage_key').doNothing()),
    );
    const one = await insertMark(db, engine, { storage_key: 'pw-1', instance_id: 'pw', created_at: 1 });
    assert.equal(Number(one.numAffectedRows), 1);
    // The same key again: nothing inserted, and the result says so (an upload's name claim reads it).
    const again = await insertMark(db, engine, { storage_key: 'pw-1', instance_id: 'other', created_at: 9 });
    assert.equal(Number(again.numAffectedRows), 0);
    await db.transaction().execute(async (trx) => {
      await insertMark(trx, engine, { storage_key: 'pw-2', instance_id: 'pw', created_at: 2 });
    });
    const rows = await db
      .selectFrom('pending_objects')
      .select(['storage_key', 'instance_id', 'created_at'])
      .where('storage_key', 'like', 'pw-%')
      .orderBy('storage_key')
      .execute();
    assert.deepEqual(
      rows.map((r) => ({ ...r, created_at: Number(r.created_at) })),
      [
        { storage_key: 'pw-1', instance_id: 'pw', created_at: 1 },
        { storage_key: 'pw-2', instance_id: 'pw', created_at: 2 },
      ],
    );
    await db.deleteFrom('pending_objects').where('storage_key', 'like', 'pw-%').execute();
  });

  it('writes: refuse values they do not bind, and a build that inlines a value', async () => {
    const { db } = server().ctx;
    const partial = precompiledWrite<{ storage_key: string; instance_id: string; created_at: number }>(
      ['storage_key', 'instance_id'],
      (d, row) => d.insertInto('pending_objects').values(row),
    );
    await assert.rejects(
      partial(db, engine, { storage_key: 'pw-x', instance_id: 'pw', created_at: 1 }),
      /does not bind: created_at/,
    );
    const inlined = precompiledWrite<{ storage_key: string }>(['storage_key'], (d, row) =>
      d.deleteFrom('pending_objects').where('storage_key', '=', sql.lit(row.storage_key) as never),
    );
    await assert.rejects(inlined(db, engine, { storage_key: 'pw-x' }), /must bind storage_key/);
    const left = await db
      .selectFrom('pending_objects')
      .select('storage_key')
      .where('storage_key', '=', 'pw-x')
      .execute();
    assert.deepEqual(left, []);
  });
});
