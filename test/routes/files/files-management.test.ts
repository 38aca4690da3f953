// The file management API over HTTP: list (pages, sorting, search, favourites, tags), one file (read, edit,
// delete), bulk edits and deletes (1027 staged with a trigger that skips the delete), recent files, statistics, and
// who may touch whose files.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { sql } from 'kysely';
import { newId } from '../../../src/lib/security/ids.js';
import { createTestUser, insertTestFolder } from '../../support/content.js';
import { uniqueName } from '../../support/factory.js';
import { forEachDatabase, useTestServer, type TestServer, type TestUser } from '../../support/server.js';
import { storedFiles } from '../../support/stored.js';
import { upload, uploadOne } from '../../support/uploads.js';

async function insertTag(server: TestServer, userId: string, name: string, fileIds: string[]): Promise<string> {
  const id = newId();
  const now = Date.now();
  await server.ctx.db
    .insertInto('tags')
    .values({ id, user_id: userId, name, color: '#123456', created_at: now, updated_at: now })
    .execute();
  for (const fileId of fileIds)
    await server.ctx.db.insertInto('file_tags').values({ file_id: fileId, tag_id: id }).execute();
  return id;
}

/** The five files of a library, oldest first: name, content, type. */
const LIBRARY: Array<[string, string, string]> = [
  ['Alpha.txt', 'a', 'text/plain'],
  ['beta.png', 'bbbbbb', 'image/png'],
  ['gamma.png', 'cc', 'image/png'],
  ['delta.mp4', 'dddd', 'video/mp4'],
  ['epsilon.txt', 'eeeee', 'text/plain'],
];

/** A user of its own with the LIBRARY uploaded; served names are unique on a server, so each library's carry a prefix. */
interface Library {
  alice: TestUser;
  /** File ids by LIBRARY name. */
  ids: Record<string, string>;
  /** The served name of a LIBRARY name (or of any name given in this library). */
  served: (name: string) => string;
  /** A served name of this library without its prefix, to compare with LIBRARY names. */
  local: (served: string) => string;
}

async function makeLibrary(server: TestServer): Promise<Library> {
  const prefix = `${uniqueName('lib')}-`;
  const alice = await createTestUser(server, uniqueName('alice'));
  const ids: Record<string, string> = {};
  for (const [name, content, type] of LIBRARY) {
    const res = await upload(server, alice.token, [{ name: `${prefix}${name}`, content, type }], {
      'x-service-format': 'name',
      'x-service-original-name': 'true',
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    ids[name] = res.body.files[0].id;
  }
  const local = (served: string) => {
    assert.ok(served.startsWith(prefix), `${served} is a file of this library`);
    return served.slice(prefix.length);
  };
  return { alice, ids, served: (name) => `${prefix}${name}`, local };
}

forEachDatabase('file management', (engine) => {
  const server = useTestServer({ engine });
  let admin: TestUser;
  let bob: TestUser;
  before(async () => {
    admin = await server().setup();
    bob = await createTestUser(server(), 'bob');
  });

  it("lists the caller's files page by page, newest first", async () => {
    const { alice, served, local } = await makeLibrary(server());
    await uploadOne(server(), bob.token, 'bob file', { name: 'bob.txt' });
    const first = await server().json('GET', '/api/user/files?perpage=2', { auth: alice.token });
    assert.equal(first.status, 200);
    assert.equal(first.body.total, 5);
    assert.equal(first.body.pages, 3);
    assert.deepEqual(
      first.body.page.map((f: { name: string }) => local(f.name)),
      ['epsilon.txt', 'delta.mp4'],
    );
    const third = await server().json('GET', '/api/user/files?perpage=2&page=3', { auth: alice.token });
    assert.deepEqual(
      third.body.page.map((f: { name: string }) => local(f.name)),
      ['Alpha.txt'],
    );
    const file = first.body.page[0];
    assert.deepEqual(Object.keys(file).sort(), [
      'createdAt',
      'deletesAt',
      'favorite',
      'folderId',
      'id',
      'maxViews',
      'name',
      'originalName',
      'password',
      'private',
      'size',
      'tags',
      'thumbnail',
      'type',
      'updatedAt',
      'url',
      'userId',
      'views',
    ]);
    assert.equal(file.url, `${server().url}/u/${served('epsilon.txt')}`);
    assert.equal(file.userId, alice.id);
  });

  it('sorts by name, size, type and views in either order', async () => {
    const { alice, served, local } = await makeLibrary(server());
    const names = async (query: string) =>
      (await server().json('GET', `/api/user/files?${query}`, { auth: alice.token })).body.page.map(
        (f: { name: string }) => local(f.name),
      );
    assert.deepEqual(await names('sortBy=size&order=desc'), [
      'beta.png',
      'epsilon.txt',
      'delta.mp4',
      'gamma.png',
      'Alpha.txt',
    ]);
    assert.deepEqual(await names('sortBy=size&order=asc'), [
      'Alpha.txt',
      'gamma.png',
      'delta.mp4',
      'epsilon.txt',
      'beta.png',
    ]);
    assert.deepEqual(await names('sortBy=name&order=asc'), [
      'Alpha.txt',
      'beta.png',
      'delta.mp4',
      'epsilon.txt',
      'gamma.png',
    ]);
    assert.deepEqual((await names('sortBy=type&order=asc')).slice(0, 2).sort(), ['beta.png', 'gamma.png']);
    await (await server().fetch(`/raw/${served('delta.mp4')}`)).arrayBuffer();
    await (await server().fetch(`/raw/${served('delta.mp4')}`)).arrayBuffer();
    await (await server().fetch(`/raw/${served('Alpha.txt')}`)).arrayBuffer();
    assert.deepEqual((await names('sortBy=views&order=desc')).slice(0, 2), ['delta.mp4', 'Alpha.txt']);
    const bad = await server().json('GET', '/api/user/files?sortBy=password', { auth: alice.token });
    assert.equal(bad.body.code, 1000);
  });

  it('searches name, original name and type case-insensitively, with LIKE characters taken literally', async () => {
    const { alice, local } = await makeLibrary(server());
    const search = async (query: string) =>
      (await server().json('GET', `/api/user/files?${query}`, { auth: alice.token })).body;
    const byName = await search('searchQuery=PNG');
    assert.deepEqual(byName.page.map((f: { name: string }) => local(f.name)).sort(), ['beta.png', 'gamma.png']);
    assert.deepEqual(byName.search, { field: 'name', query: 'PNG' });
    assert.equal(byName.total, 2);
    assert.equal(local((await search('searchField=type&searchQuery=video')).page[0].name), 'delta.mp4');
    assert.equal(local((await search('searchField=originalName&searchQuery=alpha')).page[0].name), 'Alpha.txt');
    assert.equal((await search('searchQuery=%25')).total, 0);
    assert.equal((await search('searchQuery=_')).total, 0);
  });

  it('filters favourites and tags', async () => {
    const { alice, ids, local } = await makeLibrary(server());
    const fav = await server().json('PATCH', `/api/user/files/${ids['beta.png']}`, {
      auth: alice.token,
      body: { favorite: true },
    });
    assert.equal(fav.status, 200);
    assert.equal(fav.body.favorite, true);
    const favourites = await server().json('GET', '/api/user/files?favorite=true', { auth: alice.token });
    assert.deepEqual(
      favourites.body.page.map((f: { name: string }) => local(f.name)),
      ['beta.png'],
    );
    const others = await server().json('GET', '/api/user/files?favorite=false', { auth: alice.token });
    assert.equal(others.body.total, 4);
    const work = await insertTag(server(), alice.id, 'work', [ids['Alpha.txt']!, ids['delta.mp4']!]);
    const fun = await insertTag(server(), alice.id, 'fun', [ids['delta.mp4']!, ids['gamma.png']!]);
    const tagged = await server().json('GET', `/api/user/files?tags=${work}`, { auth: alice.token });
    assert.deepEqual(tagged.body.page.map((f: { name: string }) => local(f.name)).sort(), ['Alpha.txt', 'delta.mp4']);
    const either = await server().json('GET', `/api/user/files?tags=${work},${fun}&sortBy=name&order=asc`, {
      auth: alice.token,
    });
    assert.deepEqual(
      either.body.page.map((f: { name: string }) => local(f.name)),
      ['Alpha.txt', 'delta.mp4', 'gamma.png'],
    );
    assert.equal(either.body.total, 3);
    const delta = either.body.page[1];
    assert.deepEqual(
      delta.tags.map((t: { name: string }) => t.name),
      ['fun', 'work'],
    );
  });

  it("reads one file by id or name; another user's -> 4000; admins see everyone's", async () => {
    const { alice, ids, served } = await makeLibrary(server());
    const byId = await server().json('GET', `/api/user/files/${ids['beta.png']}`, { auth: alice.token });
    assert.equal(byId.status, 200);
    assert.equal(byId.body.name, served('beta.png'));
    const byName = await server().json('GET', `/api/user/files/${served('beta.png')}`, { auth: alice.token });
    assert.equal(byName.body.id, ids['beta.png']);
    for (const method of ['GET', 'PATCH', 'DELETE'] as const) {
      const res = await server().json(method, `/api/user/files/${ids['beta.png']}`, {
        auth: bob.token,
        ...(method === 'PATCH' ? { body: { favorite: false } } : {}),
      });
      assert.equal(res.status, 404, method);
      assert.equal(res.body.code, 4000);
    }
    assert.equal((await server().json('GET', '/api/user/files/nosuchfile', { auth: alice.token })).body.code, 4000);
    const asAdmin = await server().json('GET', `/api/user/files/${ids['beta.png']}`, { auth: admin.token });
    assert.equal(asAdmin.status, 200);
    const listed = await server().json('GET', `/api/user/files?id=${alice.id}`, { auth: admin.token });
    assert.equal(listed.body.total, 5);
    const forbidden = await server().json('GET', `/api/user/files?id=${alice.id}`, { auth: bob.token });
    assert.equal(forbidden.status, 403);
    assert.equal(forbidden.body.code, 3000);
  });

  it('renames (1014 when taken, 1007/1009 when invalid) and serves under the new name', async () => {
    const { alice, ids, served } = await makeLibrary(server());
    const renamed = await server().json('PATCH', `/api/user/files/${ids['epsilon.txt']}`, {
      auth: alice.token,
      body: { name: served('renamed.txt') },
    });
    assert.equal(renamed.status, 200);
    assert.equal(renamed.body.name, served('renamed.txt'));
    assert.equal(await (await server().fetch(`/raw/${served('renamed.txt')}`)).text(), 'eeeee');
    assert.equal((await server().fetch(`/raw/${served('epsilon.txt')}`)).status, 404);
    const taken = await server().json('PATCH', `/api/user/files/${ids['epsilon.txt']}`, {
      auth: alice.token,
      body: { name: served('beta.png') },
    });
    assert.equal(taken.status, 400);
    assert.equal(taken.body.code, 1014);
    for (const [name, code] of [
      ['a/b.txt', 1007],
      ['..', 1009],
      ['a\u0000b', 1000], // NUL is refused for every field and route (src/http/well-formed-text.ts)
    ] as const) {
      const res = await server().json('PATCH', `/api/user/files/${ids['epsilon.txt']}`, {
        auth: alice.token,
        body: { name },
      });
      assert.equal(res.body.code, code, name);
    }
  });

  it('edits originalName (1008), password, maxViews and type (1065)', async () => {
    const { alice, ids, served } = await makeLibrary(server());
    const id = ids['gamma.png'];
    const edited = await server().json('PATCH', `/api/user/files/${id}`, {
      auth: alice.token,
      body: { originalName: 'Holiday.png', password: 'pw', maxViews: 5, type: 'image/webp' },
    });
    assert.equal(edited.status, 200);
    assert.equal(edited.body.originalName, 'Holiday.png');
    assert.equal(edited.body.password, true);
    assert.equal(edited.body.maxViews, 5);
    assert.equal(edited.body.type, 'image/webp');
    assert.equal((await server().json('GET', `/raw/${served('gamma.png')}`)).body.code, 3004);
    const cleared = await server().json('PATCH', `/api/user/files/${id}`, {
      auth: alice.token,
      body: { password: null, maxViews: null },
    });
    assert.equal(cleared.body.password, false);
    assert.equal(cleared.body.maxViews, null);
    const answer = await server().fetch(`/raw/${served('gamma.png')}`);
    assert.equal(answer.headers.get('content-type'), 'image/webp');
    assert.match(answer.headers.get('content-disposition') ?? '', /filename="Holiday.png"/);
    await answer.arrayBuffer();
    const badOriginal = await server().json('PATCH', `/api/user/files/${id}`, {
      auth: alice.token,
      body: { originalName: '../x' },
    });
    assert.equal(badOriginal.body.code, 1008);
    const badType = await server().json('PATCH', `/api/user/files/${id}`, {
      auth: alice.token,
      body: { type: 'not a type' },
    });
    assert.equal(badType.body.code, 1065);
    const adminEdit = await server().json('PATCH', `/api/user/files/${id}`, {
      auth: admin.token,
      body: { favorite: true },
    });
    assert.equal(adminEdit.status, 200);
  });

  it('bulk PATCH: favourite, move to a folder; 1020, 1026, 1028, 3006, 3011, 3014', async () => {
    const { alice, ids } = await makeLibrary(server());
    const files = [ids['Alpha.txt']!, ids['delta.mp4']!];
    const fav = await server().json('PATCH', '/api/user/files/transaction', {
      auth: alice.token,
      body: { files, favorite: true },
    });
    assert.equal(fav.status, 200);
    assert.deepEqual(fav.body, { count: 2 });
    const again = await server().json('PATCH', '/api/user/files/transaction', {
      auth: alice.token,
      body: { files, favorite: true },
    });
    assert.equal(again.status, 400);
    assert.equal(again.body.code, 1028);
    const folder = await insertTestFolder(server(), alice.id, 'Holidays');
    const moved = await server().json('PATCH', '/api/user/files/transaction', {
      auth: alice.token,
      body: { files, folder },
    });
    assert.deepEqual(moved.body, { count: 2, name: 'Holidays' });
    const inFolder = await server().json('GET', `/api/user/files?folder=${folder}`, { auth: alice.token });
    assert.equal(inFolder.body.total, 2);
    const out = await server().json('PATCH', '/api/user/files/transaction', {
      auth: alice.token,
      body: { files, folder: null },
    });
    assert.equal(out.body.count, 2);
    const noAction = await server().json('PATCH', '/api/user/files/transaction', {
      auth: alice.token,
      body: { files },
    });
    assert.equal(noAction.body.code, 1020);
    const none = await server().json('PATCH', '/api/user/files/transaction', {
      auth: alice.token,
      body: { files: ['nope1', 'nope2'], favorite: true },
    });
    assert.equal(none.body.code, 1026);
    const bobsFile = await uploadOne(server(), bob.token, 'b2', { name: 'b2.txt' });
    const mixed = await server().json('PATCH', '/api/user/files/transaction', {
      auth: alice.token,
      body: { files: [files[0], bobsFile.id], favorite: false },
    });
    assert.equal(mixed.status, 403);
    assert.equal(mixed.body.code, 3014);
    const missingFolder = await server().json('PATCH', '/api/user/files/transaction', {
      auth: alice.token,
      body: { files, folder: 'nosuchfolder' },
    });
    assert.equal(missingFolder.body.code, 3006);
    const bobsFolder = await insertTestFolder(server(), bob.id, 'Bob');
    const foreignFolder = await server().json('PATCH', '/api/user/files/transaction', {
      auth: alice.token,
      body: { files, folder: bobsFolder },
    });
    assert.equal(foreignFolder.body.code, 3011);
    const empty = await server().json('PATCH', '/api/user/files/transaction', {
      auth: alice.token,
      body: { files: [], favorite: true },
    });
    assert.equal(empty.body.code, 1000);
  });

  it('recent files and statistics', async () => {
    const { alice, ids, served, local } = await makeLibrary(server());
    // What the other tests do to a library: a rename, four favourites, a type changed, three views.
    const edit = async (id: string | undefined, body: Record<string, unknown>) =>
      assert.equal((await server().json('PATCH', `/api/user/files/${id}`, { auth: alice.token, body })).status, 200);
    await edit(ids['epsilon.txt'], { name: served('renamed.txt') });
    for (const name of ['beta.png', 'gamma.png', 'Alpha.txt', 'delta.mp4']) await edit(ids[name], { favorite: true });
    await edit(ids['gamma.png'], { type: 'image/webp' });
    for (const name of ['delta.mp4', 'delta.mp4', 'Alpha.txt']) {
      await (await server().fetch(`/raw/${served(name)}`)).arrayBuffer();
    }
    const recent = await server().json('GET', '/api/user/recent?take=2', { auth: alice.token });
    assert.equal(recent.status, 200);
    assert.deepEqual(
      recent.body.map((f: { name: string }) => local(f.name)),
      ['renamed.txt', 'delta.mp4'],
    );
    const stats = await server().json('GET', '/api/user/stats', { auth: alice.token });
    assert.equal(stats.status, 200);
    assert.equal(stats.body.filesUploaded, 5);
    assert.equal(stats.body.storageUsed, 1 + 6 + 2 + 4 + 5);
    assert.equal(stats.body.avgStorageUsed, 18 / 5);
    assert.equal(stats.body.favoriteFiles, 4);
    assert.ok(stats.body.views >= 3);
    assert.deepEqual(stats.body.sortTypeCount, { 'text/plain': 2, 'image/png': 1, 'image/webp': 1, 'video/mp4': 1 });
    assert.equal(stats.body.urlsCreated, 0);
  });

  it("DELETE one file removes the record and its bytes; another user's -> 4000", async () => {
    const { alice, ids, served } = await makeLibrary(server());
    const before = (await storedFiles(server())).length;
    const foreign = await server().json('DELETE', `/api/user/files/${ids['epsilon.txt']}`, { auth: bob.token });
    assert.equal(foreign.body.code, 4000);
    const res = await server().json('DELETE', `/api/user/files/${ids['epsilon.txt']}`, {
      auth: alice.token,
    });
    assert.equal(res.status, 200);
    assert.equal(res.body.name, served('epsilon.txt'));
    assert.equal((await storedFiles(server())).length, before - 1);
    assert.equal((await server().fetch(`/raw/${served('epsilon.txt')}`)).status, 404);
    const again = await server().json('DELETE', `/api/user/files/${ids['epsilon.txt']}`, { auth: alice.token });
    assert.equal(again.body.code, 4000);
  });

  it('bulk DELETE removes records and bytes; 1026 and 3013', async () => {
    const { alice, ids } = await makeLibrary(server());
    const before = (await storedFiles(server())).length;
    const bobsFile = await uploadOne(server(), bob.token, 'b3', { name: 'b3.txt' });
    const foreign = await server().json('DELETE', '/api/user/files/transaction', {
      auth: alice.token,
      body: { files: [ids['Alpha.txt'], bobsFile.id] },
    });
    assert.equal(foreign.status, 403);
    assert.equal(foreign.body.code, 3013);
    const none = await server().json('DELETE', '/api/user/files/transaction', {
      auth: alice.token,
      body: { files: ['nothing'] },
    });
    assert.equal(none.body.code, 1026);
    const res = await server().json('DELETE', '/api/user/files/transaction', {
      auth: alice.token,
      body: { files: [ids['Alpha.txt'], ids['delta.mp4']] },
    });
    assert.deepEqual(res.body, { count: 2 });
    assert.equal((await storedFiles(server())).length, before + 1 - 2);
    const byAdmin = await server().json('DELETE', '/api/user/files/transaction', {
      auth: admin.token,
      body: { files: [bobsFile.id] },
    });
    assert.deepEqual(byAdmin.body, { count: 1 });
    assert.equal((await server().json('GET', '/api/user/files', { auth: alice.token })).body.total, LIBRARY.length - 2);
  });

  it('bulk DELETE of files found but not deleted -> 1027, and they keep their bytes', async () => {
    const alice = await createTestUser(server(), uniqueName('alice'));
    const file = await uploadOne(server(), alice.token, 'kept bytes', { name: 'kept.txt' });
    // A real trigger that skips every delete of a file record: the files are found, the DELETE removes none of them.
    const db = server().ctx.db;
    if (engine === 'sqlite') {
      await sql`CREATE TRIGGER keep_files BEFORE DELETE ON files BEGIN SELECT RAISE(IGNORE); END`.execute(db);
    } else {
      await sql`CREATE FUNCTION keep_files() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$`.execute(
        db,
      );
      await sql`CREATE TRIGGER keep_files BEFORE DELETE ON files FOR EACH ROW EXECUTE FUNCTION keep_files()`.execute(
        db,
      );
    }
    try {
      const res = await server().json('DELETE', '/api/user/files/transaction', {
        auth: alice.token,
        body: { files: [file.id] },
      });
      assert.equal(res.status, 400);
      assert.equal(res.body.code, 1027);
    } finally {
      await sql`DROP TRIGGER keep_files${engine === 'postgres' ? sql` ON files` : sql``}`.execute(db);
      if (engine === 'postgres') await sql`DROP FUNCTION keep_files()`.execute(db);
    }
    const raw = await server().fetch(`/raw/${file.name}`);
    assert.equal(raw.status, 200);
    assert.equal(await raw.text(), 'kept bytes', 'a record the DELETE left keeps its bytes');
    assert.deepEqual(
      (await server().json('DELETE', '/api/user/files/transaction', { auth: alice.token, body: { files: [file.id] } }))
        .body,
      { count: 1 },
    );
  });
});
