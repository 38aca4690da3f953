// Substring search of GET /api/user/files (issue 23): case-insensitive for all of Unicode, the same on SQLite (FTS5
// trigram from three characters on, a scan below) and PostgreSQL (pg_trgm), checked against a reference filter in
// TypeScript over random names with accents, CJK, emoji, LIKE's wildcards, backslashes and quotes; and the index
// follows renames and deletes, also of files that were there before migration 0012 (a database of an older version).
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import fc from 'fast-check';
import { sql } from 'kysely';
import { foldCase } from '../../../src/lib/file-list.js';
import { createTestUser } from '../../support/content.js';
import { insertFileRows } from '../../support/file-rows.js';
import { forEachDatabase, useTestServer, type TestServer, type TestUser } from '../../support/server.js';
import { oldUserRow, withDatabaseBefore } from '../../support/old-database.js';
import { uploadOne } from '../../support/uploads.js';
import { searchOf, searchPick, textOf } from '../../support/search-text.js';

type Field = 'name' | 'originalName' | 'type';
interface Page {
  page: Array<{ id: string }>;
  total: number;
  nextCursor: string | null;
}

async function search(server: TestServer, user: TestUser, field: Field, query: string): Promise<string[]> {
  const params = new URLSearchParams({ searchField: field, searchQuery: query, perpage: '500' });
  const res = await server.json('GET', `/api/user/files?${params}`, { auth: user.token });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.total, res.body.page.length);
  return (res.body.page as Array<{ id: string }>).map((f) => f.id).sort();
}

forEachDatabase('file search', (engine) => {
  const server = useTestServer({ engine });
  let alice: TestUser;
  let bob: TestUser;

  before(async () => {
    await server().setup();
    alice = await createTestUser(server(), 'alice');
    bob = await createTestUser(server(), 'bob');
  });

  it('folds the case of accented, Cyrillic and Greek letters, and finds CJK, on both engines', async () => {
    const rows = await insertFileRows(server().ctx, [
      { user_id: alice.id, name: 'Éclair-1.txt', original_name: 'ÜBERSICHT.png' },
      { user_id: alice.id, name: 'ПРИВЕТ мир.txt', original_name: null },
      { user_id: alice.id, name: '写真スクショ.jpg', original_name: 'holiday%_.txt' },
      { user_id: bob.id, name: 'éclair-of-bob.txt', original_name: 'übersicht.png' },
    ]);
    const [eclair, privet, photo] = rows.map((r) => r.id);
    assert.deepEqual(await search(server(), alice, 'name', 'éclair'), [eclair]);
    assert.deepEqual(await search(server(), alice, 'name', 'ÉCL'), [eclair]);
    assert.deepEqual(await search(server(), alice, 'name', 'é'), [eclair]);
    assert.deepEqual(await search(server(), alice, 'originalName', 'übersicht'), [eclair]);
    assert.deepEqual(await search(server(), alice, 'name', 'привет'), [privet]);
    assert.deepEqual(await search(server(), alice, 'name', 'пр'), [privet]);
    assert.deepEqual(await search(server(), alice, 'name', 'スクショ'), [photo]);
    assert.deepEqual(await search(server(), alice, 'originalName', 'ay%_'), [photo]);
    assert.deepEqual(await search(server(), alice, 'originalName', '%'), [photo]);
    assert.deepEqual(await search(server(), alice, 'originalName', 'y_.'), []);
    assert.deepEqual(await search(server(), alice, 'name', 'tx'), [eclair, privet].sort());
    // Characters no name can hold find nothing, and break nothing; NUL is not text at all (400 / 1000, as in every
    // field of every route: src/http/well-formed-text.ts).
    const nul = new URLSearchParams({ searchField: 'name', searchQuery: 'tx\u0000t' });
    assert.equal((await server().json('GET', `/api/user/files?${nul}`, { auth: alice.token })).body.code, 1000);
    assert.deepEqual(await search(server(), alice, 'name', '"'), []);
    assert.deepEqual(await search(server(), alice, 'name', '"x" OR name'), []);
  });

  it('matches a reference filter over random names (fast-check)', async () => {
    const ctx = server().ctx;
    const user = await createTestUser(server(), `searcher-${engine}`);
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(textOf(1, 10), { minLength: 1, maxLength: 10 }),
        fc.array(fc.option(textOf(1, 8)), { minLength: 10, maxLength: 10 }),
        fc.constantFrom<Field>('name', 'originalName', 'type'),
        searchPick(),
        async (names, originals, field, pick) => {
          await ctx.db.deleteFrom('files').where('user_id', '=', user.id).execute();
          // Types are drawn like original names (a type search matches the owner's types, not a trigram index).
          const rows = await insertFileRows(
            ctx,
            names.map((name, i) => ({
              user_id: user.id,
              name: `${name}`,
              original_name: originals[i] ?? null,
              type: originals[(i + 3) % originals.length] ?? 'x/y',
            })),
          );
          const values = rows.map((r) => (field === 'name' ? r.name : field === 'type' ? r.type : r.original_name));
          const cut = searchOf(values, pick);
          const expected = rows
            .filter((r, i) => {
              const value = values[i];
              return value !== null && value !== undefined && foldCase(value).includes(foldCase(cut));
            })
            .map((r) => r.id)
            .sort();
          assert.deepEqual(await search(server(), user, field, cut), expected, `search ${JSON.stringify(cut)}`);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('a search matching thousands of files pages exactly, read off the main thread on SQLite', async () => {
    // 6,000 matches, more than the listing reads and sorts (5,000 on SQLite): it counts them and walks the order's index for
    // them, both on the slow reader (a worker thread on SQLite, db/sqlite/worker-connections.ts), as is a page number deep in it.
    const dave = await createTestUser(server(), 'dave');
    const rows = await insertFileRows(
      server().ctx,
      Array.from({ length: 9000 }, (_, i) => ({
        user_id: dave.id,
        name: `${i % 3 === 0 ? 'Other' : 'Bildschirmfoto'}-${String(i).padStart(5, '0')}.png`,
        size: (i * 7919) % 1000,
      })),
    );
    const expected = rows
      .filter((r) => r.name.startsWith('Bildschirm'))
      .sort((a, b) => a.size - b.size || (a.id < b.id ? -1 : 1))
      .map((r) => r.id);
    const reads = () => (server().ctx.reads as { readsDone?: number }).readsDone ?? 0;
    // A plain listing's total is stored and its pages are near the start: nothing on the reader.
    const plain = reads();
    assert.equal((await server().json('GET', '/api/user/files?perpage=10', { auth: dave.token })).status, 200);
    assert.equal(reads(), plain);
    const before = reads();
    const base = `/api/user/files?searchField=name&searchQuery=SCHIRMFOTO&sortBy=size&order=asc&perpage=500`;
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res: { status: number; body: Page } = await server().json<Page>(
        'GET',
        `${base}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        {
          auth: dave.token,
        },
      );
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.total, expected.length);
      seen.push(...res.body.page.map((f) => f.id));
      cursor = res.body.nextCursor;
    } while (cursor);
    assert.deepEqual(seen, expected);
    const third = await server().json('GET', `${base.replace('perpage=500', 'perpage=100')}&page=3`, {
      auth: dave.token,
    });
    assert.deepEqual(
      (third.body.page as Array<{ id: string }>).map((f) => f.id),
      expected.slice(200, 300),
    );
    // Each page: the count and the page's positions on the reader (PostgreSQL reads on its pool, with no such count).
    if (engine === 'sqlite') assert.ok(reads() - before >= 2 * (Math.ceil(expected.length / 500) + 1));
  });

  it("searches by type through the owner's types, exactly, with many matches and few, and other filters", async () => {
    const erin = await createTestUser(server(), 'erin');
    const TYPES = ['image/png', 'IMAGE/Jpeg', 'application/pdf', 'Vidéo/MP4'];
    const rows = await insertFileRows(
      server().ctx,
      Array.from({ length: 12_000 }, (_, i) => ({
        user_id: erin.id,
        name: `f-${String(i).padStart(5, '0')}`,
        type: TYPES[i % 4]!,
        size: (i * 7919) % 1000,
        favorite: i % 5 === 0 ? 1 : 0,
      })),
    );
    await insertFileRows(server().ctx, [{ user_id: bob.id, name: 'bob.png', type: 'image/png' }]);
    const bySize = (a: (typeof rows)[number], b: (typeof rows)[number]) => a.size - b.size || (a.id < b.id ? -1 : 1);
    const expect = (query: string, favorite?: boolean) =>
      rows
        .filter(
          (r) => foldCase(r.type).includes(foldCase(query)) && (favorite === undefined || !!r.favorite === favorite),
        )
        .sort(bySize)
        .map((r) => r.id);
    const reads = () => (server().ctx.reads as { readsDone?: number }).readsDone ?? 0;
    const list = async (params: Record<string, string>) => {
      const query = new URLSearchParams({ searchField: 'type', sortBy: 'size', order: 'asc', ...params });
      const res = await server().json<Page>('GET', `/api/user/files?${query}`, { auth: erin.token });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.body;
    };
    const walk = async (params: Record<string, string>) => {
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page: Page = await list({ ...params, perpage: '500', ...(cursor ? { cursor } : {}) });
        seen.push(...page.page.map((f) => f.id));
        cursor = page.nextCursor;
      } while (cursor);
      return seen;
    };
    // 'image': 6,000 matches of two types in different case, walked along the order (on the reader on SQLite);
    // 'VIDÉO' and 'pdf': 3,000, read from files_user_type and sorted; 'ag' is two letters; with a favourite filter the
    // matches are counted.
    for (const [query, favorite] of [
      ['image', undefined],
      ['VIDÉO', undefined],
      ['pdf', undefined],
      ['ag', undefined],
      ['/', undefined],
      ['image', true],
      ['nothing', undefined],
    ] as const) {
      const expected = expect(query, favorite);
      const params = { searchQuery: query, ...(favorite === undefined ? {} : { favorite: String(favorite) }) };
      const before = reads();
      const first = await list({ ...params, perpage: '100' });
      assert.equal(first.total, expected.length, query);
      assert.deepEqual(
        first.page.map((f) => f.id),
        expected.slice(0, 100),
        query,
      );
      if (engine === 'sqlite' && query === 'image' && favorite === undefined) assert.ok(reads() > before);
      const middle = await list({ ...params, perpage: '100', page: '7' });
      assert.deepEqual(
        middle.page.map((f) => f.id),
        expected.slice(600, 700),
        query,
      );
      assert.deepEqual(await walk(params), expected, query);
    }
    // The total of a type search alone is the owner's counters of the matching types (read, not counted): a counter
    // moved by hand shows (and `chute doctor` would report it).
    const counters = server().ctx.db.updateTable('type_counters').where('owner', '=', erin.id);
    await counters
      .set((eb) => ({ files: eb('files', '+', 5) }))
      .where('type', '=', 'application/pdf')
      .execute();
    assert.equal((await list({ searchQuery: 'PDF' })).total, 3005);
    await counters
      .set((eb) => ({ files: eb('files', '-', 5) }))
      .where('type', '=', 'application/pdf')
      .execute();
    assert.equal((await list({ searchQuery: 'PDF' })).total, 3000);
  });

  it('searches by type through the trigram index for an owner of more types than it reads', async () => {
    const fay = await createTestUser(server(), 'fay');
    const rows = await insertFileRows(
      server().ctx,
      Array.from({ length: 1_100 }, (_, i) => ({ user_id: fay.id, name: `t${i}`, type: `x-kind/${i}` })),
    );
    const expected = rows
      .filter((r) => r.type.includes('/10'))
      .map((r) => r.id)
      .sort();
    assert.equal(expected.length, 111);
    const params = new URLSearchParams({ searchField: 'type', searchQuery: 'KIND/10', perpage: '500' });
    const res = await server().json<Page>('GET', `/api/user/files?${params}`, { auth: fay.token });
    assert.equal(res.body.total, expected.length);
    assert.deepEqual(res.body.page.map((f) => f.id).sort(), expected);
  });

  it('pages a broad search exactly whether its matches are spread through the order or gathered at one end', async () => {
    // 6,000 of 12,000 files match: every other one (a page is found among the next rows of the order), or the 6,000
    // oldest (for the newest first, no page among the next rows: read through the index instead). Original names
    // are missing from a third, which the nullable order lists after the others.
    const cases = [
      { who: 'spread', matches: (i: number) => i % 2 === 0 },
      { who: 'gathered', matches: (i: number) => i < 6000 },
    ];
    for (const { who, matches } of cases) {
      const owner = await createTestUser(server(), `window-${who}`);
      const rows = await insertFileRows(
        server().ctx,
        Array.from({ length: 12_000 }, (_, i) => ({
          user_id: owner.id,
          name: `${matches(i) ? 'Bildschirmfoto' : 'Other'}-${who}-${String(i).padStart(5, '0')}.png`,
          original_name: i % 3 === 0 ? null : `${matches(i) ? 'ÉCRAN' : 'photo'} ${i % 500}.png`,
          size: (i * 7919) % 1000,
          created_at: 1_800_000_000_000 + i,
        })),
      );
      const orders = [
        { field: 'name', query: 'schirmFOTO', sortBy: 'createdAt', order: 'desc' },
        { field: 'name', query: 'schirmFOTO', sortBy: 'createdAt', order: 'asc' },
        { field: 'originalName', query: 'écran', sortBy: 'originalName', order: 'desc' },
        { field: 'originalName', query: 'écran', sortBy: 'size', order: 'asc' },
      ] as const;
      for (const { field, query, sortBy, order } of orders) {
        const value = (r: (typeof rows)[number]) => (field === 'name' ? r.name : r.original_name);
        const key = (r: (typeof rows)[number]) =>
          sortBy === 'createdAt' ? r.created_at : sortBy === 'size' ? r.size : r.original_name;
        const sign = order === 'asc' ? 1 : -1;
        const expected = rows
          .filter((r) => value(r) !== null && foldCase(value(r)!).includes(foldCase(query)))
          .sort((a, b) => {
            const [x, y] = [key(a), key(b)];
            if (x === null || y === null) return x === y ? 0 : x === null ? 1 : -1;
            return (x < y ? -sign : x > y ? sign : 0) || (a.id < b.id ? -sign : sign);
          })
          .map((r) => r.id);
        const what = `${who} ${field} by ${sortBy} ${order}`;
        const base = `/api/user/files?searchField=${field}&searchQuery=${encodeURIComponent(query)}&sortBy=${sortBy}&order=${order}`;
        const get = async (extra: string) => {
          const res = await server().json<Page>('GET', `${base}&${extra}`, { auth: owner.token });
          assert.equal(res.status, 200, JSON.stringify(res.body));
          assert.equal(res.body.total, expected.length, what);
          return res.body;
        };
        for (const page of [1, 2, 240]) {
          const got = await get(`perpage=25&page=${page}`);
          assert.deepEqual(
            got.page.map((f) => f.id),
            expected.slice((page - 1) * 25, page * 25),
            `${what} page ${page}`,
          );
        }
        const seen: string[] = [];
        let cursor: string | null = null;
        do {
          const got: Page = await get(
            `perpage=${cursor ? 500 : 30}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
          );
          seen.push(...got.page.map((f) => f.id));
          cursor = got.nextCursor;
        } while (cursor);
        assert.deepEqual(seen, expected, `${what} by cursor`);
      }
    }
  });

  it('follows uploads, renames and deletes', async () => {
    const carol = await createTestUser(server(), 'carol');
    const file = await uploadOne(server(), carol.token, 'x', { name: 'Sunset-Beach.png', type: 'image/png' });
    await server().json('PATCH', `/api/user/files/${file.id}`, {
      auth: carol.token,
      body: { name: 'Morning-Mountains.png', originalName: 'Bergblick.png' },
    });
    assert.deepEqual(await search(server(), carol, 'name', 'mountain'), [file.id]);
    assert.deepEqual(await search(server(), carol, 'originalName', 'BERGBLICK'), [file.id]);
    assert.deepEqual(await search(server(), carol, 'originalName', 'sunset'), []);
    assert.equal((await server().json('DELETE', `/api/user/files/${file.id}`, { auth: carol.token })).status, 200);
    assert.deepEqual(await search(server(), carol, 'name', 'mountain'), []);
    if (engine === 'sqlite') {
      // Nothing is left behind in the index either.
      const left = await sql<{ n: number }>`select count(*) as n from file_search where file_id = ${file.id}`.execute(
        server().ctx.db,
      );
      assert.equal(left.rows[0]!.n, 0);
    }
  });
});

describe('file search on a database from before migration 0012', () => {
  for (const engine of ['sqlite', 'postgres'] as const) {
    it(`indexes the files already there [${engine}]`, async (t) => {
      if (engine === 'postgres' && !process.env.TEST_DATABASE_URL) return t.skip('TEST_DATABASE_URL is not set');
      await withDatabaseBefore(
        engine,
        '0012',
        // The schema as it was before 0012, with a user and a file in it.
        async (db) => {
          await db.insertInto('users').values(oldUserRow('u-old', 'olduser')).execute();
          await insertFileRows({ db }, [{ id: 'f-old', user_id: 'u-old', name: 'Ancient-Château.txt' }]);
        },
        async (server) => {
          const { listFiles } = await import('../../../src/services/lists/files.js');
          const found = await listFiles(
            server.ctx,
            { id: 'u-old', role: 'USER' },
            {
              page: 1,
              perPage: 10,
              sortBy: 'createdAt',
              order: 'desc',
              searchField: 'name',
              searchQuery: 'CHÂTEAU',
            },
          );
          assert.deepEqual(
            found.rows.map((r) => r.id),
            ['f-old'],
          );
        },
      );
    });
  }
});
