// Cursor paging of GET /api/users (issue 23): following `nextCursor` gives the whole list, oldest first (ties by id),
// for any page size, role filter and search, also with many users sharing a date (fast-check); page numbers give the
// same list; with users added and deleted between pages none is seen twice or skipped among those there throughout;
// a malformed cursor, one of another listing or another admin's, is 400/1000 and tells nothing. The answer without
// page or cursor stays Zipline's array. (The plans: test/routes/lists-indexes and url-user-search.)
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import fc from 'fast-check';
import type { Role } from '../../../src/db/schema/tables.js';
import { foldCase } from '../../../src/lib/file-list.js';
import { randomString } from '../../../src/lib/security/ids.js';
import { assertError } from '../../support/api-errors.js';
import { assertNoneRepeatedOrSkipped, walkByCursor, type CursorPage } from '../../support/cursor-walk.js';
import { makeUser } from '../../support/factory.js';
import { forEachDatabase, useTestServer, type TestServer, type TestUser } from '../../support/server.js';

async function usersPage(server: TestServer, admin: TestUser, params: Record<string, string>): Promise<CursorPage> {
  const res = await server.json('GET', `/api/users?${new URLSearchParams(params)}`, { auth: admin.token });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return { ids: res.body.users.map((u: { id: string }) => u.id), nextCursor: res.body.nextCursor };
}

/** Users straight into the database, on three dates only (the id breaks the ties), some ADMINs; returns their ids. */
async function insertUsers(server: TestServer, roles: Role[]): Promise<string[]> {
  const rows = roles.map((role, i) => {
    const id = `w${randomString(12, 'abcdefghijklmnopqrstuvwxyz0123456789')}`;
    return {
      id,
      username: `Paged-${id}`,
      username_key: null,
      password: null,
      avatar: null,
      role,
      view: '{}',
      token_hash: `h${id}`,
      token_enc: 'x',
      totp_secret: null,
      created_at: 1_700_000_000_000 + (i % 3),
      updated_at: 1_700_000_000_000,
    };
  });
  if (rows.length > 0) await server.ctx.db.insertInto('users').values(rows).execute();
  return rows.map((r) => r.id);
}

interface Everyone {
  id: string;
  username: string;
  role: Role;
  created_at: number;
}

/** Every user, oldest first (ties by id), as GET /api/users promises. */
async function everyone(server: TestServer): Promise<Everyone[]> {
  const rows = await server.ctx.db.selectFrom('users').select(['id', 'username', 'role', 'created_at']).execute();
  return rows.sort((a, b) => a.created_at - b.created_at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

forEachDatabase('user list cursors', (engine) => {
  const server = useTestServer({ engine });
  let admin: TestUser;

  before(async () => {
    admin = await server().setup();
  });

  it('gives the whole ordered list by cursor and by page number, for any size, role and search', async () => {
    let inserted: string[] = [];
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom<Role>('USER', 'USER', 'ADMIN'), { maxLength: 20 }),
        fc.integer({ min: 1, max: 7 }),
        fc.constantFrom(undefined, 'USER' as const, 'ADMIN' as const),
        fc.constantFrom(undefined, 'paged', 'PA', 'ged-w'),
        async (roles, perpage, role, search) => {
          if (inserted.length > 0) await server().ctx.db.deleteFrom('users').where('id', 'in', inserted).execute();
          inserted = await insertUsers(server(), roles);
          const expected = (await everyone(server()))
            .filter(
              (u) =>
                (role === undefined || u.role === role) && (!search || foldCase(u.username).includes(foldCase(search))),
            )
            .map((u) => u.id);
          const params: Record<string, string> = {
            perpage: String(perpage),
            ...(role ? { role } : {}),
            ...(search ? { search } : {}),
          };
          const seen = await walkByCursor(
            () => usersPage(server(), admin, { ...params, page: '1' }),
            (cursor) => usersPage(server(), admin, { ...params, cursor }),
          );
          assert.deepEqual(seen, expected, 'by cursor');
          const byNumber: string[] = [];
          const pages = Math.ceil(expected.length / perpage);
          for (let page = 1; page <= pages; page++) {
            const answer = await usersPage(server(), admin, { ...params, page: String(page) });
            assert.equal(answer.nextCursor === null, page === pages, `nextCursor of page ${page}`);
            byNumber.push(...answer.ids);
          }
          assert.deepEqual(byNumber, expected, 'by page number');
          // Without page or cursor: Zipline's array of them all.
          const all = await server().json('GET', `/api/users?${new URLSearchParams({ ...params, perpage: '1' })}`, {
            auth: admin.token,
          });
          assert.deepEqual(
            (all.body as Array<{ id: string }>).map((u) => u.id),
            expected,
          );
        },
      ),
      { numRuns: 25 },
    );
    // The last run may have inserted none (PostgreSQL refuses an empty `in ()`).
    if (inserted.length > 0) await server().ctx.db.deleteFrom('users').where('id', 'in', inserted).execute();
  });

  it('never repeats or skips a user who stays while others are added and deleted between pages', async () => {
    const ctx = server().ctx;
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 5 }),
        fc.array(fc.constant<Role>('USER'), { minLength: 3, maxLength: 15 }),
        fc.infiniteStream(fc.record({ add: fc.nat({ max: 3 }), remove: fc.array(fc.nat(), { maxLength: 2 }) })),
        async (perpage, initial, changes) => {
          const present = await insertUsers(server(), initial);
          const live = [...present];
          const removed = new Set<string>();
          const added: string[] = [];
          const churn = changes[Symbol.iterator]();
          const seen = await walkByCursor(
            () => usersPage(server(), admin, { perpage: String(perpage), page: '1' }),
            (cursor) => usersPage(server(), admin, { perpage: String(perpage), cursor }),
            async () => {
              const change = churn.next().value as { add: number; remove: number[] };
              for (const pick of change.remove) {
                if (live.length === 0) break;
                const [id] = live.splice(pick % live.length, 1);
                await ctx.db.deleteFrom('users').where('id', '=', id!).execute();
                removed.add(id!);
              }
              const fresh = await insertUsers(
                server(),
                Array.from({ length: change.add }, () => 'USER' as const),
              );
              live.push(...fresh);
              added.push(...fresh);
            },
          );
          assertNoneRepeatedOrSkipped(
            seen,
            present.filter((id) => !removed.has(id)),
          );
          await ctx.db
            .deleteFrom('users')
            .where('id', 'in', [...present, ...added])
            .execute();
        },
      ),
      { numRuns: 20 },
    );
  });

  it("answers a malformed cursor, another listing's or another admin's with 400/1000, telling nothing", async () => {
    const other = await makeUser(server(), { role: 'ADMIN' });
    await makeUser(server());
    await makeUser(server());
    const get = (user: TestUser, query: string) => server().json('GET', `/api/users?${query}`, { auth: user.token });
    const garbage = await get(admin, 'cursor=not-a-cursor');
    assertError(garbage, 400, 1000);
    assert.deepEqual(garbage.body.issues, [{ path: 'querystring.cursor', message: 'not a cursor of this listing' }]);
    assertError(await get(admin, 'cursor='), 400, 1000);
    const cursor = (await usersPage(server(), admin, { perpage: '1', page: '1' })).nextCursor!;
    assert.equal(typeof cursor, 'string');
    // Opaque: the last user's id is not readable from it.
    const first = (await usersPage(server(), admin, { perpage: '1', page: '1' })).ids[0]!;
    assert.ok(!Buffer.from(cursor, 'base64url').toString('latin1').includes(first), 'the cursor shows what it marks');
    // The same listing with another page size is fine; with another filter it is not.
    assert.equal((await get(admin, `perpage=3&cursor=${encodeURIComponent(cursor)}`)).status, 200);
    for (const filter of ['role=USER', 'search=abc', 'noincl=true'])
      assert.deepEqual((await get(admin, `${filter}&cursor=${encodeURIComponent(cursor)}`)).body, garbage.body);
    // Another admin's cursor: the very answer a garbage cursor gets.
    assert.deepEqual((await get(other, `cursor=${encodeURIComponent(cursor)}`)).body, garbage.body);
  });
});
