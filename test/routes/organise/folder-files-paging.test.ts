// A folder's files a page at a time (issue 23): GET /api/user/folders/:id (the owner's view) and the public
// GET /api/folders/:id with its Zipline address /api/server/folder/:id answer one page, newest first, and `nextCursor`;
// following it gives the whole ordered list for any page size, also with many files sharing a date (fast-check); with
// files added and deleted between pages none is seen twice or skipped among those there throughout; a malformed,
// another folder's or another user's cursor is 400/1000 and tells nothing. (The plans: test/routes/lists-indexes.)
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import fc from 'fast-check';
import type { FileRow } from '../../../src/db/schema/tables.js';
import { assertError } from '../../support/api-errors.js';
import { createTestUser } from '../../support/content.js';
import { assertNoneRepeatedOrSkipped, walkByCursor, type CursorPage } from '../../support/cursor-walk.js';
import { makeFolder } from '../../support/factory.js';
import { insertFileRows, type FileRowSpec } from '../../support/file-rows.js';
import { forEachDatabase, useTestServer, type TestServer, type TestUser } from '../../support/server.js';

type View = 'owner' | 'public' | 'zipline';

const PATHS: Record<View, (id: string) => string> = {
  owner: (id) => `/api/user/folders/${id}`,
  public: (id) => `/api/folders/${id}`,
  zipline: (id) => `/api/server/folder/${id}`,
};

/** Newest first, ties by id (greatest first); visitors see neither private nor expired files. */
function referenceOrder(rows: FileRow[], view: View, now: number): string[] {
  return rows
    .filter((r) => view === 'owner' || (r.private === 0 && (r.deletes_at === null || r.deletes_at > now)))
    .sort((a, b) => b.created_at - a.created_at || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
    .map((r) => r.id);
}

async function folderPage(
  server: TestServer,
  user: TestUser,
  view: View,
  folderId: string,
  params: Record<string, string>,
): Promise<CursorPage & { body: Record<string, unknown> }> {
  const res = await server.json('GET', `${PATHS[view](folderId)}?${new URLSearchParams(params)}`, {
    auth: view === 'owner' ? user.token : undefined,
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return { ids: res.body.files.map((f: { id: string }) => f.id), nextCursor: res.body.nextCursor, body: res.body };
}

/** Dates drawn from few values, so that many files share one; some private, some expired. */
const fileSpec = (user: TestUser, folderId: string) =>
  fc
    .record({
      created_at: fc.integer({ min: 1, max: 4 }),
      private: fc.constantFrom<0 | 1>(0, 0, 0, 1),
      deletes_at: fc.constantFrom(null, null, null, 1, 4_000_000_000_000),
    })
    .map((spec): FileRowSpec => ({ ...spec, user_id: user.id, folder_id: folderId }));

forEachDatabase('folder files paging', (engine) => {
  const server = useTestServer({ engine });
  let alice: TestUser;
  let bob: TestUser;

  before(async () => {
    await server().setup();
    alice = await createTestUser(server(), 'alice');
    bob = await createTestUser(server(), 'bob');
  });

  it('gives the whole ordered list by cursor, for the owner and for visitors, at any page size', async () => {
    const ctx = server().ctx;
    const folder = await makeFolder(server(), alice, { public: true });
    const other = await makeFolder(server(), alice, { public: true });
    let inserted: FileRow[] = [];
    await fc.assert(
      fc.asyncProperty(
        fc.array(fileSpec(alice, folder.id), { maxLength: 30 }),
        fc.constantFrom<View>('owner', 'public', 'zipline'),
        fc.integer({ min: 1, max: 9 }),
        async (specs, view, perpage) => {
          await ctx.db.deleteFrom('files').where('folder_id', 'in', [folder.id, other.id]).execute();
          inserted = await insertFileRows(ctx, specs);
          // Files of another folder never show.
          await insertFileRows(ctx, [{ user_id: alice.id, folder_id: other.id, created_at: 2 }]);
          const expected = referenceOrder(inserted, view, ctx.clock.now());
          const params = { perpage: String(perpage) };
          const first = await folderPage(server(), alice, view, folder.id, params);
          if (view === 'owner') assert.equal(first.body.fileCount, specs.length);
          const seen = await walkByCursor(
            async () => first,
            (cursor) => folderPage(server(), alice, view, folder.id, { ...params, cursor }),
          );
          assert.deepEqual(seen, expected);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('never repeats or skips a file that stays while others are added and deleted between pages', async () => {
    const ctx = server().ctx;
    const folder = await makeFolder(server(), alice, { public: true });
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<View>('owner', 'public'),
        fc.integer({ min: 1, max: 5 }),
        fc.array(fileSpec(alice, folder.id), { minLength: 3, maxLength: 20 }),
        fc.infiniteStream(
          fc.record({
            add: fc.array(fileSpec(alice, folder.id), { maxLength: 3 }),
            remove: fc.array(fc.nat(), { maxLength: 2 }),
          }),
        ),
        async (view, perpage, initial, changes) => {
          await ctx.db.deleteFrom('files').where('folder_id', '=', folder.id).execute();
          const present = await insertFileRows(ctx, initial);
          const visible = new Set(referenceOrder(present, view, ctx.clock.now()));
          const live = present.map((r) => r.id);
          const removed = new Set<string>();
          const churn = changes[Symbol.iterator]();
          const params = { perpage: String(perpage) };
          const seen = await walkByCursor(
            () => folderPage(server(), alice, view, folder.id, params),
            (cursor) => folderPage(server(), alice, view, folder.id, { ...params, cursor }),
            async () => {
              const change = churn.next().value as { add: FileRowSpec[]; remove: number[] };
              for (const pick of change.remove) {
                if (live.length === 0) break;
                const [id] = live.splice(pick % live.length, 1);
                await ctx.db.deleteFrom('files').where('id', '=', id!).execute();
                removed.add(id!);
              }
              live.push(...(await insertFileRows(ctx, change.add)).map((r) => r.id));
            },
          );
          assertNoneRepeatedOrSkipped(
            seen,
            present.map((r) => r.id).filter((id) => visible.has(id) && !removed.has(id)),
          );
        },
      ),
      { numRuns: 20 },
    );
  });

  it("answers a malformed, another folder's or another user's cursor with 400/1000, telling nothing", async () => {
    const ctx = server().ctx;
    const folder = await makeFolder(server(), alice, { public: true });
    const second = await makeFolder(server(), alice, { public: true });
    const bobs = await makeFolder(server(), bob, { public: true });
    for (const f of [folder, second, bobs]) {
      const owner = f === bobs ? bob : alice;
      await insertFileRows(
        ctx,
        Array.from({ length: 3 }, () => ({ user_id: owner.id, folder_id: f.id })),
      );
    }
    const get = (view: View, user: TestUser, id: string, query: string) =>
      server().json('GET', `${PATHS[view](id)}?${query}`, { auth: view === 'owner' ? user.token : undefined });
    const ownCursor = (await folderPage(server(), alice, 'owner', folder.id, { perpage: '1' })).nextCursor!;
    const publicCursor = (await folderPage(server(), alice, 'public', folder.id, { perpage: '1' })).nextCursor!;
    assert.equal(typeof ownCursor, 'string');
    for (const view of ['owner', 'public', 'zipline'] as const) {
      const garbage = await get(view, alice, folder.id, 'cursor=not-a-cursor');
      assertError(garbage, 400, 1000);
      assert.deepEqual(garbage.body.issues, [{ path: 'querystring.cursor', message: 'not a cursor of this listing' }]);
      assertError(await get(view, alice, folder.id, 'cursor='), 400, 1000);
      assertError(await get(view, alice, folder.id, 'perpage=0'), 400, 1000);
      assertError(await get(view, alice, folder.id, 'perpage=501'), 400, 1000);
      // Another folder's cursor, and the other audience's cursor of the same folder.
      const cursor = view === 'owner' ? ownCursor : publicCursor;
      const foreign = await get(view, alice, second.id, `cursor=${encodeURIComponent(cursor)}`);
      assert.deepEqual(foreign.body, garbage.body);
      const otherAudience = view === 'owner' ? publicCursor : ownCursor;
      assert.deepEqual(
        (await get(view, alice, folder.id, `cursor=${encodeURIComponent(otherAudience)}`)).body,
        garbage.body,
      );
    }
    // Bob with Alice's cursor on his own folder: the very answer of a garbage cursor.
    const bobsAnswer = await get('owner', bob, bobs.id, `cursor=${encodeURIComponent(ownCursor)}`);
    assertError(bobsAnswer, 400, 1000);
    assert.deepEqual(bobsAnswer.body, (await get('owner', bob, bobs.id, 'cursor=x')).body);
    // Bob asking for Alice's folder with her cursor: the folder is not his (4001), as without a cursor.
    assertError(await get('owner', bob, folder.id, `cursor=${encodeURIComponent(ownCursor)}`), 404, 4001);
  });
});
