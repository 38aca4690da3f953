// Cursor paging of GET /api/user/files (issue 23): following `nextCursor` gives the whole ordered list for every
// sort, order, page size and filter, with many files sharing a sort value and NULLs (fast-check); page numbers give
// the same list; with files uploaded and deleted between requests no file is seen twice and none that stayed is
// skipped; a malformed, tampered or foreign cursor is 400/1000 like any bad query parameter, and tells nothing.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import fc from 'fast-check';
import type { FileRow } from '../../../src/db/schema/tables.js';
import { FILE_SORT_FIELDS, foldCase, type FileSortField } from '../../../src/lib/file-list.js';
import { assertError } from '../../support/api-errors.js';
import { createTestUser } from '../../support/content.js';
import { makeFolder, makeTag } from '../../support/factory.js';
import { insertFileRows, type FileRowSpec } from '../../support/file-rows.js';
import { forEachDatabase, useTestServer, type TestServer, type TestUser } from '../../support/server.js';

const COLUMNS = {
  id: 'id',
  createdAt: 'created_at',
  updatedAt: 'updated_at',
  deletesAt: 'deletes_at',
  name: 'name',
  originalName: 'original_name',
  size: 'size',
  type: 'type',
  views: 'views',
  favorite: 'favorite',
} as const satisfies Record<FileSortField, keyof FileRow>;

const FILTERS = ['none', 'favorite', 'notFavorite', 'folder', 'oneTag', 'threeTags', 'search', 'shortSearch'] as const;
type Filter = (typeof FILTERS)[number];

interface Fixture {
  user: TestUser;
  folderId: string;
  tagIds: string[];
  rows: FileRow[];
  tagged: Map<string, Set<string>>;
}

/** The order the API promises: the column (NULLs last either way), then the id, both in the asked direction. */
function referenceOrder(rows: FileRow[], sortBy: FileSortField, order: 'asc' | 'desc'): string[] {
  const column = COLUMNS[sortBy];
  const sign = order === 'asc' ? 1 : -1;
  const compare = (a: string | number, b: string | number) => (a < b ? -1 : a > b ? 1 : 0);
  return [...rows]
    .sort((a, b) => {
      const av = a[column];
      const bv = b[column];
      if (av === null && bv !== null) return 1;
      if (bv === null && av !== null) return -1;
      const byValue = av === null || bv === null ? 0 : compare(av, bv);
      return sign * (byValue !== 0 ? byValue : compare(a.id, b.id));
    })
    .map((r) => r.id);
}

function filterParams(fixture: Fixture, filter: Filter): Record<string, string> {
  switch (filter) {
    case 'none':
      return {};
    case 'favorite':
      return { favorite: 'true' };
    case 'notFavorite':
      return { favorite: 'false' };
    case 'folder':
      return { folder: fixture.folderId };
    case 'oneTag':
      return { tags: fixture.tagIds[0]! };
    case 'threeTags':
      return { tags: fixture.tagIds.join(',') };
    case 'search':
      return { searchField: 'name', searchQuery: 'CAT' };
    case 'shortSearch':
      return { searchField: 'originalName', searchQuery: 'Og' };
  }
}

function matches(fixture: Fixture, filter: Filter, row: FileRow): boolean {
  const tags = fixture.tagged.get(row.id) ?? new Set();
  switch (filter) {
    case 'none':
      return true;
    case 'favorite':
      return row.favorite === 1;
    case 'notFavorite':
      return row.favorite === 0;
    case 'folder':
      return row.folder_id === fixture.folderId;
    case 'oneTag':
      return tags.has(fixture.tagIds[0]!);
    case 'threeTags':
      return fixture.tagIds.some((t) => tags.has(t));
    case 'search':
      return foldCase(row.name).includes('cat');
    case 'shortSearch':
      return row.original_name !== null && foldCase(row.original_name).includes('og');
  }
}

interface ListAnswer {
  page: Array<{ id: string }>;
  total: number;
  pages: number;
  nextCursor: string | null;
}

async function list(server: TestServer, user: TestUser, params: Record<string, string>): Promise<ListAnswer> {
  const res = await server.json<ListAnswer>('GET', `/api/user/files?${new URLSearchParams(params)}`, {
    auth: user.token,
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
}

/** Every page by cursor from the first; returns the ids in the order seen. */
async function walkByCursor(
  server: TestServer,
  user: TestUser,
  params: Record<string, string>,
  between: () => Promise<void> = async () => undefined,
): Promise<string[]> {
  const seen: string[] = [];
  let answer = await list(server, user, params);
  for (let guard = 0; ; guard++) {
    assert.ok(guard < 500, 'the cursor walk does not end');
    seen.push(...answer.page.map((f) => f.id));
    if (answer.nextCursor === null) return seen;
    await between();
    answer = await list(server, user, { ...params, cursor: answer.nextCursor });
  }
}

/** Values drawn from few choices, so that many files share a sort value (and some have none). */
const rowSpec = (user: TestUser, folderId: string) =>
  fc
    .record({
      name: fc.constantFrom('cat', 'Catalog', 'dog', 'zebra', 'a', 'B', 'scat', 'x'),
      original_name: fc.constantFrom(null, 'dog.png', 'Doge.jpg', 'cat.gif', 'b'),
      type: fc.constantFrom('image/png', 'text/plain', 'video/mp4'),
      size: fc.integer({ min: 1, max: 3 }),
      views: fc.integer({ min: 0, max: 2 }),
      favorite: fc.constantFrom<0 | 1>(0, 1),
      deletes_at: fc.constantFrom(null, 1_900_000_000_000, 1_900_000_000_001),
      created_at: fc.integer({ min: 1, max: 4 }),
      updated_at: fc.integer({ min: 1, max: 3 }),
      inFolder: fc.boolean(),
    })
    .map(({ inFolder, ...spec }): FileRowSpec => ({
      ...spec,
      user_id: user.id,
      folder_id: inFolder ? folderId : null,
    }));

/** Unique served names from the drawn ones. */
const withUniqueNames = (specs: FileRowSpec[]) =>
  specs.map((spec, i) => ({ ...spec, name: `${spec.name}-${i}-${Math.random().toString(36).slice(2, 8)}` }));

forEachDatabase('file list cursors', (engine) => {
  const server = useTestServer({ engine });
  let fixture: Fixture;
  let bob: TestUser;

  before(async () => {
    await server().setup();
    const user = await createTestUser(server(), 'alice');
    bob = await createTestUser(server(), 'bob');
    const folder = await makeFolder(server(), user);
    const tags = [await makeTag(server(), user), await makeTag(server(), user), await makeTag(server(), user)];
    const specs = withUniqueNames(fc.sample(rowSpec(user, folder.id), { numRuns: 40, seed: 23 }));
    const rows = await insertFileRows(server().ctx, specs);
    const tagged = new Map<string, Set<string>>();
    const links = rows.flatMap((row, i) =>
      tags.filter((_, t) => (i + t) % 4 === 0).map((tag) => ({ file_id: row.id, tag_id: tag.id })),
    );
    await server().ctx.db.insertInto('file_tags').values(links).execute();
    for (const link of links) tagged.set(link.file_id, (tagged.get(link.file_id) ?? new Set()).add(link.tag_id));
    fixture = { user, folderId: folder.id, tagIds: tags.map((t) => t.id), rows, tagged };
    // Bob's files: never part of Alice's listings.
    await insertFileRows(
      server().ctx,
      withUniqueNames(fc.sample(rowSpec(bob, folder.id), { numRuns: 5, seed: 1 })).map((s) => ({
        ...s,
        folder_id: null,
      })),
    );
  });

  /** The listing, by cursor and by page number, is the reference order of the matching files. */
  const assertWholeList = async (sortBy: FileSortField, order: 'asc' | 'desc', perPage: number, filter: Filter) => {
    const expected = referenceOrder(
      fixture.rows.filter((r) => matches(fixture, filter, r)),
      sortBy,
      order,
    );
    const params = { sortBy, order, perpage: String(perPage), ...filterParams(fixture, filter) };
    assert.deepEqual(await walkByCursor(server(), fixture.user, params), expected, 'by cursor');

    const first = await list(server(), fixture.user, params);
    assert.equal(first.total, expected.length);
    assert.equal(first.pages, Math.ceil(expected.length / perPage));
    const byNumber: string[] = [];
    for (let page = 1; page <= first.pages; page++) {
      const answer = await list(server(), fixture.user, { ...params, page: String(page) });
      byNumber.push(...answer.page.map((f) => f.id));
      assert.equal(answer.nextCursor === null, page === first.pages, `nextCursor of page ${page}`);
      if (answer.nextCursor !== null) {
        // A page number's cursor leads to the next page number.
        const next = await list(server(), fixture.user, { ...params, cursor: answer.nextCursor });
        assert.deepEqual(
          next.page.map((f) => f.id),
          expected.slice(page * perPage, (page + 1) * perPage),
        );
      }
    }
    assert.deepEqual(byNumber, expected, 'by page number');
  };

  it('gives the whole ordered list by cursor and by page number, for every sort, order, size and filter', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...FILE_SORT_FIELDS),
        fc.constantFrom('asc' as const, 'desc' as const),
        fc.integer({ min: 1, max: 9 }),
        fc.constantFrom(...FILTERS),
        assertWholeList,
      ),
      { numRuns: 25 },
    );
  });

  it("gives one tag's files by date whole (read from the tag's own index, file_tags_tag_created)", async () => {
    for (const order of ['asc', 'desc'] as const)
      for (const perPage of [1, 2, 3, 7]) await assertWholeList('createdAt', order, perPage, 'oneTag');
  });

  it('never repeats or skips a file that stays while others are uploaded and deleted between pages', async () => {
    const ctx = server().ctx;
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...FILE_SORT_FIELDS),
        fc.constantFrom('asc' as const, 'desc' as const),
        fc.integer({ min: 1, max: 6 }),
        fc.array(rowSpec(fixture.user, fixture.folderId), { minLength: 5, maxLength: 25 }),
        fc.infiniteStream(
          fc.record({
            add: fc.array(rowSpec(fixture.user, fixture.folderId), { maxLength: 3 }),
            remove: fc.array(fc.nat(), { maxLength: 2 }),
          }),
        ),
        async (sortBy, order, perPage, initial, changes) => {
          run += 1;
          const user = await createTestUser(server(), `churn-${run}`);
          const own = (specs: FileRowSpec[]) =>
            withUniqueNames(specs.map((s) => ({ ...s, user_id: user.id, folder_id: null })));
          const present = await insertFileRows(ctx, own(initial));
          const removed = new Set<string>();
          const live = present.map((r) => r.id);
          const churn = changes[Symbol.iterator]();
          const seen = await walkByCursor(server(), user, { sortBy, order, perpage: String(perPage) }, async () => {
            const change = churn.next().value as { add: FileRowSpec[]; remove: number[] };
            for (const pick of change.remove) {
              if (live.length === 0) break;
              const [id] = live.splice(pick % live.length, 1);
              await ctx.db.deleteFrom('files').where('id', '=', id!).execute();
              removed.add(id!);
            }
            live.push(...(await insertFileRows(ctx, own(change.add))).map((r) => r.id));
          });
          assert.equal(new Set(seen).size, seen.length, `a file was seen twice: ${JSON.stringify(seen)}`);
          const stayed = present.map((r) => r.id).filter((id) => !removed.has(id));
          const missed = stayed.filter((id) => !seen.includes(id));
          assert.deepEqual(missed, [], 'files there throughout were skipped');
        },
      ),
      { numRuns: 20 },
    );
  });

  it('answers a malformed, tampered or foreign cursor with 400/1000, the same as any bad query parameter', async () => {
    const alice = fixture.user;
    const get = (user: TestUser, query: string) =>
      server().json('GET', `/api/user/files?${query}`, { auth: user.token });
    assertError(await get(alice, 'perpage=abc'), 400, 1000);

    const garbage = await get(alice, 'cursor=not-a-cursor');
    assertError(garbage, 400, 1000);
    assert.deepEqual(garbage.body.issues ?? null, [
      { path: 'querystring.cursor', message: 'not a cursor of this listing' },
    ]);
    assertError(await get(alice, 'cursor='), 400, 1000);
    assertError(await get(alice, `cursor=${'A'.repeat(3000)}`), 400, 1000);

    const own = await list(server(), alice, { perpage: '2', sortBy: 'name', order: 'asc' });
    const cursor = own.nextCursor!;
    const lastName = fixture.rows.find((r) => r.id === own.page[1]!.id)!.name;
    // Opaque: the last file's name and id are not readable from it.
    const decoded = Buffer.from(cursor, 'base64url').toString('latin1');
    assert.ok(!decoded.includes(lastName) && !decoded.includes(own.page[1]!.id), 'the cursor shows what it marks');

    const tampered = `${cursor.slice(0, 20)}${cursor[20] === 'A' ? 'B' : 'A'}${cursor.slice(21)}`;
    assertError(await get(alice, `cursor=${tampered}&sortBy=name&order=asc`), 400, 1000);
    // Another order or filter of the same user.
    assertError(await get(alice, `cursor=${cursor}&sortBy=name&order=desc`), 400, 1000);
    assertError(await get(alice, `cursor=${cursor}&sortBy=size&order=asc`), 400, 1000);
    assertError(await get(alice, `cursor=${cursor}&sortBy=name&order=asc&favorite=true`), 400, 1000);
    // The same listing with another page size is fine.
    assert.equal((await get(alice, `cursor=${cursor}&sortBy=name&order=asc&perpage=7`)).status, 200);

    // Another user's cursor: the very answer a garbage cursor gets, nothing of Alice's files.
    const foreign = await get(bob, `cursor=${cursor}&sortBy=name&order=asc`);
    assertError(foreign, 400, 1000);
    assert.deepEqual(foreign.body, garbage.body);
  });
});
