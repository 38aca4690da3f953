// GET /api/user/files with Zipline's query values: sortBy=id, searchField=tags|id and filter=dashboard|none|all, with
// page numbers as Zipline's dashboard sends them and with Chute's cursors. (The query plans of sortBy=id are asserted
// with every other order in test/routes/files/files-indexes.test.ts.)
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { makeTag, makeUser, NO_RATE_LIMIT } from '../support/factory.js';
import { forEachDatabase, useTestServer, type TestUser } from '../support/server.js';
import { uploadOne } from '../support/uploads.js';

interface Listed {
  id: string;
  name: string;
  type: string;
}

forEachDatabase('compat: Zipline file-list queries', (engine) => {
  const server = useTestServer({ engine, env: NO_RATE_LIMIT });
  let ann: TestUser;
  const ids: string[] = [];
  const byName = new Map<string, string>();
  before(async () => {
    await server().setup();
    ann = await makeUser(server(), { username: 'ann' });
    const files: Array<[string, string]> = [
      ['a.png', 'image/png'],
      ['b.txt', 'text/plain'],
      ['c.zip', 'application/zip'],
      ['d.mp4', 'video/mp4'],
      ['e.bin', 'application/octet-stream'],
      ['f.mp3', 'audio/mpeg'],
      ['g.pdf', 'application/pdf'],
    ];
    for (const [name, type] of files) {
      const file = await uploadOne(server(), ann.token, `bytes of ${name}`, { name, type });
      ids.push(file.id);
      byName.set(name, file.id);
    }
  });

  const list = async (query: string) => {
    const res = await server().json('GET', `/api/user/files?${query}`, { auth: ann.token });
    assert.equal(res.status, 200, `${query}: ${JSON.stringify(res.body)}`);
    return res.body as { page: Listed[]; total: number; pages: number; nextCursor: string | null; search?: unknown };
  };

  it('sortBy=id orders by the id, both ways, by page number and by cursor', async () => {
    const sorted = [...ids].sort();
    for (const order of ['asc', 'desc'] as const) {
      const expected = order === 'asc' ? sorted : [...sorted].reverse();
      const byPages: string[] = [];
      for (let page = 1; page <= 3; page++) {
        byPages.push(...(await list(`page=${page}&perpage=3&sortBy=id&order=${order}`)).page.map((f) => f.id));
      }
      assert.deepEqual(byPages, expected);
      const byCursor: string[] = [];
      let cursor: string | null = null;
      do {
        const query: string = `perpage=2&sortBy=id&order=${order}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
        const body = await list(query);
        byCursor.push(...body.page.map((f) => f.id));
        cursor = body.nextCursor;
      } while (cursor);
      assert.deepEqual(byCursor, expected);
    }
  });

  it('searchField=id finds a file by (a part of) its id', async () => {
    const id = byName.get('c.zip')!;
    for (const part of [id, id.slice(3, 12), id.slice(0, 2).toUpperCase()]) {
      const body = await list(`page=1&searchField=id&searchQuery=${part}`);
      assert.ok(
        body.page.some((f) => f.id === id),
        part,
      );
      assert.ok(
        body.page.every((f) => f.id.includes(part.toLowerCase())),
        part,
      );
      assert.deepEqual(body.search, { field: 'id', query: part });
    }
  });

  it('searchField=tags lists the files carrying every tag of the comma-separated ids (1032 for a foreign tag)', async () => {
    const red = await makeTag(server(), ann, { name: 'red', color: '#ff0000' });
    const blue = await makeTag(server(), ann, { name: 'blue', color: '#0000ff' });
    const tag = async (name: string, tagIds: string[]) => {
      const res = await server().json('PATCH', `/api/user/files/${byName.get(name)}`, {
        auth: ann.token,
        body: { tags: tagIds },
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
    };
    await tag('a.png', [red.id, blue.id]);
    await tag('b.txt', [red.id]);
    await tag('c.zip', [blue.id]);
    const both = await list(`page=1&searchField=tags&searchQuery=${red.id},${blue.id}`);
    assert.deepEqual(
      both.page.map((f) => f.id),
      [byName.get('a.png')],
    );
    assert.deepEqual(both.search, { field: 'tags', query: [red.id, blue.id] });
    const redOnly = await list(`page=1&searchField=tags&searchQuery=${red.id}`);
    assert.deepEqual(new Set(redOnly.page.map((f) => f.id)), new Set([byName.get('a.png'), byName.get('b.txt')]));
    assert.equal(redOnly.total, 2);

    const bob = await makeUser(server(), { username: 'bob' });
    const foreign = await makeTag(server(), bob, { name: 'bobs' });
    const refused = await server().json('GET', `/api/user/files?page=1&searchField=tags&searchQuery=${foreign.id}`, {
      auth: ann.token,
    });
    assert.equal(refused.status, 400);
    assert.equal(refused.body.code, 1032);
  });

  it('filter=dashboard lists images, videos, audio and text; filter=all ignores favorite; none changes nothing', async () => {
    const dashboard = await list('page=1&perpage=50&filter=dashboard');
    assert.deepEqual(
      new Set(dashboard.page.map((f) => f.type)),
      new Set(['image/png', 'text/plain', 'video/mp4', 'audio/mpeg']),
    );
    assert.equal(dashboard.total, 4);
    const fav = await server().json('PATCH', `/api/user/files/${byName.get('g.pdf')}`, {
      auth: ann.token,
      body: { favorite: true },
    });
    assert.equal(fav.status, 200);
    assert.equal((await list('page=1&favorite=true')).total, 1);
    assert.equal((await list('page=1&favorite=true&filter=all')).total, ids.length);
    assert.equal((await list('page=1&filter=none')).total, ids.length);
    assert.equal((await list('page=1&favorite=true&filter=dashboard')).total, 0);
  });
});
