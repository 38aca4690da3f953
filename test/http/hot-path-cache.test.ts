// The redirects and small public files that the fast path answers from memory on SQLite (db/sqlite/row-watch.ts, the cached
// look-ups in services/links/short-urls.ts and file-serving.ts, the headers computed once per record): every change of what a redirect depends on is followed by the very next request, whichever way
// it is made (the API, a user's deletion, a transaction rolled back; another connection to the database file within
// OTHER_CONNECTIONS_SEEN_WITHIN_MS), and a copy is really used while nothing changed.
import assert from 'node:assert/strict';
import path from 'node:path';
import { before, it } from 'node:test';
import { setTimeout } from 'node:timers/promises';
import SqliteDatabase from 'better-sqlite3';
import { sql } from 'kysely';
import { OTHER_CONNECTIONS_SEEN_WITHIN_MS } from '../../src/db/sqlite/row-watch.js';
import { makeUser } from '../support/factory.js';
import { uploadOne } from '../support/uploads.js';
import { forEachDatabase, useTestServer, type TestUser } from '../support/server.js';

forEachDatabase('redirects and files kept in memory', (engine) => {
  const server = useTestServer({ engine });
  let admin: TestUser;
  before(async () => {
    admin = await server().setup('cache-admin', 'cache-admin-password');
  });

  const follow = async (slug: string) => {
    const res = await server().fetch(`/go/${slug}`, { redirect: 'manual' });
    await res.arrayBuffer();
    return { status: res.status, location: res.headers.get('location') };
  };
  const shorten = async (auth: string, destination: string, extra: Record<string, unknown> = {}) => {
    const res = await server().json('POST', '/api/user/urls', { auth, body: { destination, ...extra } });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body as { id: string; code: string };
  };

  it('follows every change through the API at the next request', async () => {
    const { id, code } = await shorten(admin.token, 'https://example.com/one');
    assert.deepEqual(await follow(code), { status: 302, location: 'https://example.com/one' });
    const edit = async (body: Record<string, unknown>) =>
      assert.equal((await server().json('PATCH', `/api/user/urls/${id}`, { auth: admin.token, body })).status, 200);

    await edit({ destination: 'https://example.com/two' });
    assert.equal((await follow(code)).location, 'https://example.com/two');
    await edit({ enabled: false });
    assert.equal((await follow(code)).status, 404);
    await edit({ enabled: true });
    assert.equal((await follow(code)).location, 'https://example.com/two');
    await edit({ password: 'secret-password' });
    assert.notEqual((await follow(code)).location, 'https://example.com/two', 'a password now guards it');
    await edit({ password: null, vanity: 'cached-vanity' });
    assert.equal((await follow('cached-vanity')).location, 'https://example.com/two');
    await edit({ vanity: null });
    assert.equal((await follow('cached-vanity')).status, 404);
    await edit({ maxViews: 1 });
    assert.equal((await follow(code)).location, 'https://example.com/two');
    assert.equal((await follow(code)).status, 404, 'its one view is used');
    const other = await shorten(admin.token, 'https://example.com/deleted');
    assert.equal((await follow(other.code)).status, 302);
    assert.equal((await server().json('DELETE', `/api/user/urls/${other.id}`, { auth: admin.token })).status, 200);
    assert.equal((await follow(other.code)).status, 404);
  });

  it('serves a small public file as its record says now, after every change through the API', async () => {
    const file = await uploadOne(server(), admin.token, 'cached bytes');
    const raw = async (name: string) => {
      const res = await server().fetch(`/raw/${name}`);
      const body = Buffer.from(await res.arrayBuffer()).toString('utf8');
      return { status: res.status, body, headers: res.headers };
    };
    // Twice: the second comes from memory (bytes, record, headers).
    for (let i = 0; i < 2; i++) assert.equal((await raw(file.name)).body, 'cached bytes');
    const edit = async (body: Record<string, unknown>) => {
      const res = await server().json('PATCH', `/api/user/files/${file.id}`, { auth: admin.token, body });
      assert.equal(res.status, 200, JSON.stringify(res.body));
    };
    await edit({ originalName: 'shown-name.txt' });
    const named = await raw(file.name);
    assert.match(named.headers.get('content-disposition') ?? '', /shown-name\.txt/);
    await edit({ name: 'renamed-cached.txt' });
    assert.equal((await raw(file.name)).status, 404);
    assert.equal((await raw('renamed-cached.txt')).body, 'cached bytes');
    await edit({ password: 'file-password' });
    assert.notEqual((await raw('renamed-cached.txt')).status, 200);
    await edit({ password: null, private: true });
    assert.notEqual((await raw('renamed-cached.txt')).status, 200);
    await edit({ private: false, type: 'application/octet-stream' });
    const typed = await raw('renamed-cached.txt');
    assert.equal(typed.headers.get('content-type'), 'application/octet-stream');
    assert.equal((await server().json('DELETE', `/api/user/files/${file.id}`, { auth: admin.token })).status, 200);
    assert.equal((await raw('renamed-cached.txt')).status, 404);
  });

  it("follows a deletion made by the deletions' batch writer (its own connection on SQLite) at the next request", async () => {
    const file = await uploadOne(server(), admin.token, 'batch-deleted bytes');
    for (let i = 0; i < 2; i++) assert.equal((await server().fetch(`/raw/${file.name}`)).status, 200);
    const { ctx } = server();
    const deleted = await ctx.batches.execute(ctx.db.deleteFrom('files').where('id', '=', file.id));
    assert.equal(deleted.numAffectedRows, 1);
    // No pause: the writer's thread says so before its caller goes on.
    const res = await server().fetch(`/raw/${file.name}`);
    await res.arrayBuffer();
    assert.equal(res.status, 404);
  });

  it("follows the deletion of the owner's account", async () => {
    const owner = await makeUser(server());
    const { code } = await shorten(owner.token, 'https://example.com/owned');
    assert.equal((await follow(code)).status, 302);
    const res = await server().json('DELETE', `/api/users/${owner.id}`, { auth: admin.token, body: { delete: true } });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal((await follow(code)).status, 404);
  });

  it('follows a change committed by another connection to the database, and not one rolled back', async () => {
    const { id, code } = await shorten(admin.token, 'https://example.com/before');
    assert.equal((await follow(code)).location, 'https://example.com/before');
    const { db } = server().ctx;
    if (engine === 'sqlite') {
      const other = new SqliteDatabase(path.join(server().dataDir, 'chute.db'));
      try {
        other.pragma('busy_timeout = 5000');
        other.prepare('update urls set destination = ? where id = ?').run('https://example.com/after', id);
      } finally {
        other.close();
      }
      // Seen within OTHER_CONNECTIONS_SEEN_WITHIN_MS of the commit.
      await setTimeout(2 * OTHER_CONNECTIONS_SEEN_WITHIN_MS);
    } else {
      // PostgreSQL: another connection of the pool; the next redirect reads the database.
      await sql`update urls set destination = ${'https://example.com/after'} where id = ${id}`.execute(db);
    }
    assert.equal((await follow(code)).location, 'https://example.com/after');
    await db
      .transaction()
      .execute(async (trx) => {
        await trx
          .updateTable('urls')
          .set({ destination: 'https://example.com/rolled-back' })
          .where('id', '=', id)
          .execute();
        throw new Error('rolled back');
      })
      .catch((err: unknown) => {
        if (!(err instanceof Error) || err.message !== 'rolled back') throw err;
      });
    assert.equal((await follow(code)).location, 'https://example.com/after');
  });

  it('answers from its copy on SQLite while nothing it depends on changed; reads every time on PostgreSQL', async () => {
    const { id, code } = await shorten(admin.token, 'https://example.com/kept');
    assert.equal((await follow(code)).location, 'https://example.com/kept');
    const { db } = server().ctx;
    if (engine !== 'sqlite') {
      // No copy: a change that no trigger or notice announces is followed at once.
      await sql`update urls set destination = ${'https://example.com/unseen'} where id = ${id}`.execute(db);
      assert.equal((await follow(code)).location, 'https://example.com/unseen');
      return;
    }
    // The triggers of this connection count what Chute writes; a write with them out of the way (as no code of Chute
    // does) shows that the answer came from the copy.
    const { rows: watching } = await sql<{ name: string; sql: string }>`
      select name, sql from sqlite_temp_master where type = 'trigger' and name like 'chute_watch_%_urls_update'`.execute(
      db,
    );
    assert.equal(watching.length, 1, 'one trigger watches the updates of urls');
    const trigger = watching[0]!;
    await sql`drop trigger ${sql.raw(`temp.${trigger.name}`)}`.execute(db);
    try {
      await db.updateTable('urls').set({ destination: 'https://example.com/unseen' }).where('id', '=', id).execute();
      assert.equal((await follow(code)).location, 'https://example.com/kept', 'the copy answered');
    } finally {
      // sqlite_temp_master keeps the statement without its TEMP.
      await sql.raw(trigger.sql.replace(/^create trigger/i, 'create temp trigger')).execute(db);
    }
    const { rows: again } = await sql<{ name: string }>`
      select name from sqlite_temp_master where type = 'trigger' and name = ${trigger.name}`.execute(db);
    assert.equal(again.length, 1, 'the trigger is back, on this connection alone');
    await db.updateTable('urls').set({ destination: 'https://example.com/seen' }).where('id', '=', id).execute();
    assert.equal((await follow(code)).location, 'https://example.com/seen');
  });
});
