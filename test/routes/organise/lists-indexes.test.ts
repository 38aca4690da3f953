// The other lists at scale (issue 23, item 5): short URLs, users, folders, tags, recent files, a public folder's
// page and a folder's zip each read their rows in order from an index (migration 0028 and the file indexes), folders'
// and tags' file counts are stored columns (db/schema/list-counters.ts), asserted
// on the plans of the statements the services run, on both engines. And the answers do not change with the way a page
// is read: page numbers (from either end) and cursors give the same list as the whole answer, also when many rows
// share a date; a foreign cursor is a 400/1000.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { newId } from '../../../src/lib/security/ids.js';
import { recentFilesQuery } from '../../../src/services/files/manage.js';
import { folderZipStatement } from '../../../src/services/serving/zips.js';
import { folderFilesStatements, folderListStatements } from '../../../src/services/organise/folders.js';
import { tagListStatement } from '../../../src/services/organise/tags.js';
import { urlListStatements } from '../../../src/services/links/short-urls.js';
import { userListStatements } from '../../../src/services/accounts/users.js';
import { assertError } from '../../support/api-errors.js';
import { createTestUser } from '../../support/content.js';
import { makeFolder, makeUser } from '../../support/factory.js';
import { insertFileRows } from '../../support/file-rows.js';
import { assertReadsInOrder, planOf } from '../../support/query-plans.js';
import { forEachDatabase, useTestServer, type TestUser } from '../../support/server.js';

forEachDatabase('list query plans and paging', (engine) => {
  const server = useTestServer({ engine });
  let user: TestUser;

  before(async () => {
    await server().setup();
    user = await createTestUser(server(), 'lister');
  });

  it('reads short URLs, users, folders, tags and recent files in order from their indexes', async () => {
    const ctx = server().ctx;
    const urls = urlListStatements(ctx, user.id);
    for (const [what, statement] of Object.entries(urls))
      assertReadsInOrder(await planOf(ctx, statement, true), 'urls_user_created_id', `urls ${what}`);
    for (const filters of [{}, { role: 'USER' as const }, { excludeId: user.id }]) {
      const users = userListStatements(ctx, filters);
      for (const [what, statement] of Object.entries(users))
        assertReadsInOrder(await planOf(ctx, statement, true), 'users_created_id', `users ${what}`);
    }
    const folders = folderListStatements(ctx, user.id);
    assertReadsInOrder(await planOf(ctx, folders.all, true), 'folders_user_name_id', 'all folders');
    assertReadsInOrder(await planOf(ctx, folders.allBackward, true), 'folders_user_name_id', 'all folders, backwards');
    assertReadsInOrder(await planOf(ctx, folders.allAfter, true), 'folders_user_name_id', 'all folders, cursor');
    assertReadsInOrder(await planOf(ctx, folders.children, true), 'folders_user_parent_name', 'children');
    assertReadsInOrder(await planOf(ctx, folders.childrenAfter, true), 'folders_user_parent_name', 'children, cursor');
    const folderCount = await planOf(ctx, folders.count, true);
    assert.match(folderCount, engine === 'sqlite' ? /COVERING INDEX folders_user_/ : /folders_user_/, folderCount);
    // The top level (parent_id is null): PostgreSQL, with no rows to judge by, may as well filter the user's folders
    // read by name; either way in order.
    const top = await planOf(ctx, folders.top, true);
    assertReadsInOrder(top, engine === 'sqlite' ? 'folders_user_parent_name' : 'folders_user_\\w+', 'top folders');
    // Each folder's file count is stored (db/schema/list-counters.ts); its children are counted from an index.
    const counts = await planOf(ctx, folders.all, true);
    assert.doesNotMatch(counts, /\bfiles\b/, counts);
    assert.match(counts, /folders_parent\b/, counts);
    const tags = await planOf(ctx, tagListStatement(ctx, user.id), true);
    assertReadsInOrder(tags, engine === 'sqlite' ? 'sqlite_autoindex_tags_2' : 'tags_user_name', 'tags');
    assert.doesNotMatch(tags, /file_tags/, tags);
    const recent = await planOf(ctx, recentFilesQuery(ctx, user, 3).compile(), true);
    assertReadsInOrder(recent, 'files_user_created_id', 'recent files');
  });

  it("reads a folder's pages of files (owner's and public) and its zip batches from the folder's index", async () => {
    const ctx = server().ctx;
    for (const audience of ['owner', 'public'] as const) {
      for (const [what, statement] of Object.entries(folderFilesStatements(ctx, 'm', audience)))
        assertReadsInOrder(await planOf(ctx, statement, true), 'files_folder_created', `${audience} page ${what}`);
    }
    for (const audience of ['owner', 'public'] as const) {
      const plan = await planOf(ctx, folderZipStatement(ctx, 'm', audience), true);
      assertReadsInOrder(plan, 'files_folder_created', `zip ${audience}`);
    }
  });

  it('pages short URLs by number and by cursor exactly as the whole list, with many sharing a date', async () => {
    const ctx = server().ctx;
    const owner = await createTestUser(server(), 'url-pager');
    const rows = Array.from({ length: 23 }, (_, i) => ({
      id: newId(),
      user_id: owner.id,
      code: `c${i}x${newId().slice(0, 6)}`,
      vanity: null,
      destination: `https://example.com/${i}`,
      views: 0,
      max_views: null,
      password: null,
      enabled: 1,
      // Three dates only: most URLs share theirs with others.
      created_at: 1_700_000_000_000 + (i % 3),
      updated_at: 1_700_000_000_000,
    }));
    await ctx.db.insertInto('urls').values(rows).execute();
    const list = (query: string) => server().json('GET', `/api/user/urls?${query}`, { auth: owner.token });
    const whole = (await list('')).body as Array<{ id: string }>;
    const expected = [...rows]
      .sort((a, b) => b.created_at - a.created_at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .map((r) => r.id);
    assert.deepEqual(
      whole.map((u) => u.id),
      expected,
    );
    for (const perPage of [1, 4, 5, 23, 50]) {
      const byNumber: string[] = [];
      const pages = Math.ceil(rows.length / perPage);
      for (let page = 1; page <= pages + 1; page++) {
        const res = await list(`page=${page}&perPage=${perPage}`);
        assert.equal(res.status, 200);
        assert.equal(res.body.total, rows.length);
        assert.equal(res.body.pages, pages);
        assert.equal(res.body.nextCursor === null, page >= pages, `page ${page} of ${pages}: ${res.body.nextCursor}`);
        byNumber.push(...res.body.page.map((u: { id: string }) => u.id));
      }
      assert.deepEqual(byNumber, expected, `by number, ${perPage} per page`);
      const byCursor: string[] = [];
      let res = await list(`page=1&perPage=${perPage}`);
      for (;;) {
        byCursor.push(...res.body.page.map((u: { id: string }) => u.id));
        if (res.body.nextCursor === null) break;
        res = await list(`perPage=${perPage}&cursor=${encodeURIComponent(res.body.nextCursor)}`);
        assert.equal(res.status, 200);
      }
      assert.deepEqual(byCursor, expected, `by cursor, ${perPage} per page`);
    }
    // A search: counted, paged the same way.
    const searched = await list(`page=1&perPage=2&searchQuery=${encodeURIComponent('example.com/1')}`);
    assert.equal(searched.body.total, rows.filter((r) => r.destination.includes('example.com/1')).length);
    // Another user's cursor, or a search's cursor on the whole list: 1000, like any bad parameter.
    const cursor = (await list('page=1&perPage=2')).body.nextCursor as string;
    assertError(
      await server().json('GET', `/api/user/urls?cursor=${encodeURIComponent(cursor)}`, { auth: user.token }),
      400,
      1000,
    );
    assertError(await list(`cursor=${encodeURIComponent(searched.body.nextCursor)}`), 400, 1000);
    assertError(await list('cursor=nonsense'), 400, 1000);
  });

  it('pages folders by number and by cursor exactly as the whole list', async () => {
    const owner = await createTestUser(server(), 'folder-pager');
    const parent = await makeFolder(server(), owner, { name: 'parent' });
    // Names that repeat: the id breaks the ties.
    for (let i = 0; i < 11; i++) await makeFolder(server(), owner, { name: `f${i % 4}`, parentId: parent.id });
    for (let i = 0; i < 5; i++) await makeFolder(server(), owner, { name: `g${i % 2}` });
    const list = (query: string) => server().json('GET', `/api/user/folders?${query}`, { auth: owner.token });
    for (const scope of ['', `parentId=${parent.id}&`, 'parentId=root&']) {
      const whole = ((await list(scope)).body as Array<{ id: string }>).map((f) => f.id);
      for (const perpage of [1, 3, 4, 50]) {
        const pages = Math.ceil(whole.length / perpage);
        const byNumber: string[] = [];
        for (let page = 1; page <= pages + 1; page++) {
          const res = await list(`${scope}page=${page}&perpage=${perpage}`);
          assert.equal(res.body.total, whole.length);
          assert.equal(res.body.pages, pages);
          byNumber.push(...res.body.page.map((f: { id: string }) => f.id));
        }
        assert.deepEqual(byNumber, whole, `${scope} by number, ${perpage} per page`);
        const byCursor: string[] = [];
        let res = await list(`${scope}page=1&perpage=${perpage}`);
        for (;;) {
          byCursor.push(...res.body.page.map((f: { id: string }) => f.id));
          if (res.body.nextCursor === null) break;
          res = await list(`${scope}perpage=${perpage}&cursor=${encodeURIComponent(res.body.nextCursor)}`);
        }
        assert.deepEqual(byCursor, whole, `${scope} by cursor, ${perpage} per page`);
      }
    }
    const cursor = (await list('page=1&perpage=1')).body.nextCursor as string;
    assertError(await list(`parentId=root&cursor=${encodeURIComponent(cursor)}`), 400, 1000);
  });

  it('pages users by number from either end exactly as the whole list', async () => {
    const admin = server().superadmin!;
    for (let i = 0; i < 6; i++) await makeUser(server());
    const list = (query: string) => server().json('GET', `/api/users?${query}`, { auth: admin.token });
    const whole = ((await list('')).body as Array<{ id: string }>).map((u) => u.id);
    assert.ok(whole.length >= 8);
    for (const perpage of [1, 3, 5]) {
      const seen: string[] = [];
      for (let page = 1; page <= Math.ceil(whole.length / perpage) + 1; page++) {
        const res = await list(`page=${page}&perpage=${perpage}`);
        assert.equal(res.body.total, whole.length);
        seen.push(...res.body.users.map((u: { id: string }) => u.id));
      }
      assert.deepEqual(seen, whole, `${perpage} per page`);
    }
  });

  it("shows a public folder's files a page at a time, newest first, each once", async () => {
    const ctx = server().ctx;
    const folder = await makeFolder(server(), user, { public: true });
    // 250 files on three dates (ties by id), one private (never shown).
    const rows = await insertFileRows(
      ctx,
      Array.from({ length: 250 }, (_, i) => ({
        user_id: user.id,
        folder_id: folder.id,
        created_at: 1_700_000_000_000 + (i % 3),
        private: i === 17 ? 1 : 0,
      })),
    );
    const expected = rows
      .filter((r) => r.private === 0)
      .sort((a, b) => b.created_at - a.created_at || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
      .map((r) => r.name);
    // The JSON answer, a page at a time (the same statement as the page's).
    const listed: string[] = [];
    let json = await server().json('GET', `/api/folders/${folder.id}`);
    assert.equal(json.body.files.length, 100);
    for (;;) {
      listed.push(...json.body.files.map((f: { name: string }) => f.name));
      if (json.body.nextCursor === null) break;
      json = await server().json('GET', `/api/folders/${folder.id}?cursor=${encodeURIComponent(json.body.nextCursor)}`);
    }
    assert.deepEqual(listed, expected);
    const shown: string[] = [];
    let path = `/folder/${folder.id}`;
    for (let pages = 0; pages < 10; pages++) {
      const res = await fetch(`${server().url}${path}`);
      assert.equal(res.status, 200);
      const page = await res.text();
      shown.push(...[...page.matchAll(/href="\/view\/([^"]+)"/g)].map((m) => decodeURIComponent(m[1]!)));
      const older = /href="([^"]+\?after=[^"]+)">Older files/.exec(page);
      if (!older) break;
      path = older[1]!.replaceAll('&amp;', '&');
    }
    assert.deepEqual(shown, expected);
    const foreign = await fetch(`${server().url}/folder/${folder.id}?after=nonsense`);
    assert.equal(foreign.status, 400);
  });
});
