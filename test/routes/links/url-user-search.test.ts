// Substring search of short URLs (GET /api/user/urls?searchQuery=, searchField destination|vanity|code or all three)
// and of usernames (GET /api/users?search=) through the trigram index, as the file search (issue 23): case-insensitive
// for all of Unicode, the same on SQLite (FTS5 trigram from three characters on, a scan below) and PostgreSQL
// (pg_trgm), checked against a reference filter in TypeScript over random text (fast-check), also paged by cursor;
// the index follows edits and deletes, and indexes the rows of a database from before migration 0029; the plans of
// the statements the services run use the trigram indexes on both engines.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import fc from 'fast-check';
import { sql, type Insertable } from 'kysely';
import type { UrlsTable, UsersTable } from '../../../src/db/schema/tables.js';
import { foldCase } from '../../../src/lib/file-list.js';
import { randomString } from '../../../src/lib/security/ids.js';
import { listUrls, urlListStatements, type UrlSearchField } from '../../../src/services/links/short-urls.js';
import { listUsers, userCountStatement, userListStatements } from '../../../src/services/accounts/users.js';
import { createTestUser } from '../../support/content.js';
import { walkByCursor } from '../../support/cursor-walk.js';
import { makeUrl } from '../../support/factory.js';
import { oldUserRow, withDatabaseBefore } from '../../support/old-database.js';
import { planOf } from '../../support/query-plans.js';
import { searchOf, searchPick, textOf } from '../../support/search-text.js';
import { forEachDatabase, useTestServer, type TestServer, type TestUser } from '../../support/server.js';

const URL_FIELDS = ['destination', 'vanity', 'code'] as const;
const COLUMN: Record<UrlSearchField, 'destination' | 'vanity' | 'code'> = {
  destination: 'destination',
  vanity: 'vanity',
  code: 'code',
};
const unique = () => randomString(10, 'abcdefghijklmnopqrstuvwxyz0123456789');
const matchesText = (value: string | null, query: string) =>
  value !== null && foldCase(value).includes(foldCase(query));

function urlRow(userId: string, spec: Partial<Insertable<UrlsTable>>, i: number): Insertable<UrlsTable> {
  return {
    id: `u${unique()}`,
    user_id: userId,
    code: `c${unique()}`,
    vanity: null,
    destination: `https://example.com/${i}`,
    views: 0,
    max_views: null,
    password: null,
    enabled: 1,
    // Few dates: many URLs share theirs.
    created_at: 1_700_000_000_000 + (i % 3),
    updated_at: 1_700_000_000_000,
    ...spec,
  };
}

function userRow(username: string, i: number): Insertable<UsersTable> {
  return {
    id: `v${unique()}`,
    username,
    username_key: null,
    password: null,
    avatar: null,
    role: 'USER',
    view: '{}',
    token_hash: `h${unique()}`,
    token_enc: 'x',
    totp_secret: null,
    created_at: 1_800_000_000_000 + (i % 3),
    updated_at: 1_800_000_000_000,
  };
}

interface Listed {
  ids: string[];
  nextCursor: string | null;
}

async function urlPage(server: TestServer, user: TestUser, params: Record<string, string>): Promise<Listed> {
  const res = await server.json('GET', `/api/user/urls?${new URLSearchParams(params)}`, { auth: user.token });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const rows = (Array.isArray(res.body) ? res.body : res.body.page) as Array<{ id: string }>;
  return { ids: rows.map((r) => r.id), nextCursor: Array.isArray(res.body) ? null : res.body.nextCursor };
}

async function userPage(server: TestServer, params: Record<string, string>): Promise<Listed> {
  const res = await server.json('GET', `/api/users?${new URLSearchParams(params)}`, {
    auth: server.superadmin!.token,
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const rows = (Array.isArray(res.body) ? res.body : res.body.users) as Array<{ id: string }>;
  return { ids: rows.map((r) => r.id), nextCursor: Array.isArray(res.body) ? null : res.body.nextCursor };
}

const byDate = (direction: 1 | -1) => (a: { created_at: number; id: string }, b: { created_at: number; id: string }) =>
  direction * (a.created_at - b.created_at) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

forEachDatabase('short URL and user search', (engine) => {
  const server = useTestServer({ engine });
  let alice: TestUser;

  before(async () => {
    await server().setup();
    alice = await createTestUser(server(), 'alice');
  });

  it('folds the case of accented and Cyrillic letters, and finds CJK and wildcards, on both engines', async () => {
    const ctx = server().ctx;
    const bob = await createTestUser(server(), 'bob-fold');
    const [eclair, privet, photo] = [
      urlRow(alice.id, { destination: 'https://éclair.example/ÜBERSICHT', vanity: 'Crème' }, 0),
      urlRow(alice.id, { destination: 'https://example.com/ПРИВЕТ' }, 1),
      urlRow(alice.id, { destination: 'https://example.com/写真スクショ', vanity: 'holiday%_x' }, 2),
    ];
    await ctx.db
      .insertInto('urls')
      .values([eclair!, privet!, photo!, urlRow(bob.id, { destination: 'https://éclair.example/bob' }, 3)])
      .execute();
    const find = async (searchQuery: string, searchField?: string) =>
      (await urlPage(server(), alice, { searchQuery, ...(searchField ? { searchField } : {}) })).ids.sort();
    assert.deepEqual(await find('ÉCLAIR', 'destination'), [eclair!.id]);
    assert.deepEqual(await find('übersicht', 'destination'), [eclair!.id]);
    assert.deepEqual(await find('é', 'destination'), [eclair!.id]);
    assert.deepEqual(await find('привет', 'destination'), [privet!.id]);
    assert.deepEqual(await find('пр', 'destination'), [privet!.id]);
    assert.deepEqual(await find('スクショ'), [photo!.id]);
    assert.deepEqual(await find('CRÈME', 'vanity'), [eclair!.id]);
    assert.deepEqual(await find('crème', 'destination'), []);
    assert.deepEqual(await find('y%_', 'vanity'), [photo!.id]);
    assert.deepEqual(await find('%'), [photo!.id]);
    assert.deepEqual(await find('"'), []);
    assert.deepEqual(await find(eclair!.code.toUpperCase(), 'code'), [eclair!.id]);

    await ctx.db
      .insertInto('users')
      .values([userRow('Ådne-ÜBER', 0), userRow('ВАСЯ', 1), userRow('写真家', 2)])
      .execute();
    const users = async (search: string) => {
      const ids = (await userPage(server(), { search })).ids;
      const rows = await ctx.db.selectFrom('users').select('username').where('id', 'in', ids).execute();
      return rows.map((r) => r.username).sort();
    };
    assert.deepEqual(await users('ådne-über'), ['Ådne-ÜBER']);
    assert.deepEqual(await users('ÅD'), ['Ådne-ÜBER']);
    assert.deepEqual(await users('вася'), ['ВАСЯ']);
    assert.deepEqual(await users('真家'), ['写真家']);
    assert.deepEqual(await users('BOB-F'), ['bob-fold']);
  });

  it('matches a reference filter over random URLs, in order and by cursor (fast-check)', async () => {
    const ctx = server().ctx;
    const user = await createTestUser(server(), `url-searcher-${engine}`);
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ destination: textOf(1, 12), vanity: fc.option(textOf(1, 6)), code: textOf(1, 6) }), {
          minLength: 1,
          maxLength: 12,
        }),
        fc.option(fc.constantFrom<UrlSearchField>(...URL_FIELDS)),
        searchPick(),
        fc.integer({ min: 1, max: 5 }),
        async (specs, field, pick, perPage) => {
          await ctx.db.deleteFrom('urls').where('user_id', '=', user.id).execute();
          // Codes and vanities are unique: a suffix of their own (a tab, which no search is drawn with) keeps them so.
          const rows = specs.map((spec, i) =>
            urlRow(user.id, { ...spec, code: `${spec.code}\t${i}`, vanity: spec.vanity && `${spec.vanity}\t${i}` }, i),
          );
          await ctx.db.insertInto('urls').values(rows).execute();
          const fields = field ? [COLUMN[field]] : [...URL_FIELDS];
          const values = rows.flatMap((r) => fields.map((f) => r[f] ?? null));
          const query = searchOf(values, pick);
          const expected = rows
            .filter((r) => fields.some((f) => matchesText(r[f] ?? null, query)))
            .sort(byDate(-1))
            .map((r) => r.id);
          const params = { searchQuery: query, ...(field ? { searchField: field } : {}) };
          const what = `search ${JSON.stringify(query)} in ${fields.join(', ')}`;
          assert.deepEqual((await urlPage(server(), user, params)).ids, expected, what);
          const paged = { ...params, perPage: String(perPage) };
          const seen = await walkByCursor(
            () => urlPage(server(), user, { ...paged, page: '1' }),
            (cursor) => urlPage(server(), user, { ...paged, cursor }),
          );
          assert.deepEqual(seen, expected, `${what}, by cursor`);
        },
      ),
      { numRuns: 50 },
    );
  });

  it('matches a reference filter over random usernames, in order and by cursor (fast-check)', async () => {
    const ctx = server().ctx;
    let inserted: string[] = [];
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(textOf(1, 10), { minLength: 1, maxLength: 10 }),
        searchPick(),
        fc.integer({ min: 1, max: 5 }),
        async (names, pick, perpage) => {
          if (inserted.length > 0) await ctx.db.deleteFrom('users').where('id', 'in', inserted).execute();
          const rows = names.map((name, i) => userRow(name, i));
          await ctx.db.insertInto('users').values(rows).execute();
          inserted = rows.map((r) => r.id!);
          const query = searchOf(names, pick);
          const everyone = await ctx.db.selectFrom('users').select(['id', 'username', 'created_at']).execute();
          const expected = everyone
            .filter((u) => matchesText(u.username, query))
            .sort(byDate(1))
            .map((u) => u.id);
          const what = `search ${JSON.stringify(query)}`;
          assert.deepEqual((await userPage(server(), { search: query })).ids, expected, what);
          const seen = await walkByCursor(
            () => userPage(server(), { search: query, perpage: String(perpage), page: '1' }),
            (cursor) => userPage(server(), { search: query, perpage: String(perpage), cursor }),
          );
          assert.deepEqual(seen, expected, `${what}, by cursor`);
        },
      ),
      { numRuns: 50 },
    );
    await ctx.db.deleteFrom('users').where('id', 'in', inserted).execute();
  });

  it('a search matching thousands of URLs pages exactly, read off the main thread on SQLite', async () => {
    // 6,000 matches, more than a search reads on the main connection (MANY_MATCHES, services/lists/pages.ts): its count
    // and its pages run on the slow reader (a worker thread on SQLite, db/sqlite/worker-connections.ts); few dates, many ties.
    const ctx = server().ctx;
    const dave = await createTestUser(server(), `url-many-${engine}`);
    const rows = Array.from({ length: 9000 }, (_, i) =>
      urlRow(dave.id, { destination: `https://${i % 3 === 0 ? 'other' : 'bildschirm'}.example/${i}` }, i),
    );
    for (let i = 0; i < rows.length; i += 500)
      await ctx.db
        .insertInto('urls')
        .values(rows.slice(i, i + 500))
        .execute();
    const expected = rows
      .filter((r) => r.destination.includes('bildschirm'))
      .sort(byDate(-1))
      .map((r) => r.id);
    const reads = () => (ctx.reads as { readsDone?: number }).readsDone ?? 0;
    const search = { searchQuery: 'BILDSCHIRM', searchField: 'destination' };
    const before = reads();
    const first = await server().json('GET', `/api/user/urls?${new URLSearchParams({ ...search, page: '1' })}`, {
      auth: dave.token,
    });
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.equal(first.body.total, expected.length);
    const paged = { ...search, perPage: '500' };
    const seen = await walkByCursor(
      () => urlPage(server(), dave, { ...paged, page: '1' }),
      (cursor) => urlPage(server(), dave, { ...paged, cursor }),
    );
    assert.deepEqual(seen, expected);
    const third = await urlPage(server(), dave, { ...search, perPage: '100', page: '3' });
    assert.deepEqual(third.ids, expected.slice(200, 300));
    const last = await urlPage(server(), dave, { ...search, perPage: '100', page: '60' });
    assert.deepEqual(last.ids, expected.slice(5900));
    assert.deepEqual((await urlPage(server(), dave, search)).ids, expected);
    // Each page by number or cursor: the count and the page on the reader; every match at once: the list.
    const requests = 1 + Math.ceil(expected.length / 500) + 3;
    if (engine === 'sqlite') assert.ok(reads() - before >= 2 * requests - 1, `${reads() - before} reads`);
    // A user search counts on the reader too; a plain page of users reads nothing there.
    const plain = reads();
    await userPage(server(), { page: '1' });
    assert.equal(reads(), plain);
    await userPage(server(), { search: 'alice', page: '1' });
    if (engine === 'sqlite') assert.ok(reads() > plain);
  });

  it('follows new, edited and deleted URLs and users', async () => {
    const carol = await createTestUser(server(), 'carol-follows');
    const url = await makeUrl(server(), carol, { destination: 'https://sunset.example/beach' });
    const find = async (searchQuery: string) => (await urlPage(server(), carol, { searchQuery })).ids;
    assert.deepEqual(await find('SUNSET'), [url.id]);
    await server().json('PATCH', `/api/user/urls/${url.id}`, {
      auth: carol.token,
      body: { destination: 'https://mountain.example/', vanity: 'Bergblick' },
    });
    assert.deepEqual(await find('sunset'), []);
    assert.deepEqual(await find('MOUNTAIN'), [url.id]);
    assert.deepEqual(await find('bergb'), [url.id]);
    assert.equal((await server().json('DELETE', `/api/user/urls/${url.id}`, { auth: carol.token })).status, 200);
    assert.deepEqual(await find('mountain'), []);

    const admin = server().superadmin!;
    const made = await server().json('POST', '/api/users', {
      auth: admin.token,
      body: { username: 'Zebediah', password: 'pw-zebediah' },
    });
    assert.equal(made.status, 200, JSON.stringify(made.body));
    const users = async (search: string) => (await userPage(server(), { search })).ids;
    assert.deepEqual(await users('ZEBED'), [made.body.id]);
    await server().json('PATCH', `/api/users/${made.body.id}`, { auth: admin.token, body: { username: 'Quintus' } });
    assert.deepEqual(await users('zebed'), []);
    assert.deepEqual(await users('quint'), [made.body.id]);
    assert.equal((await server().json('DELETE', `/api/users/${made.body.id}`, { auth: admin.token })).status, 200);
    assert.deepEqual(await users('quint'), []);
    if (engine === 'sqlite') {
      // Nothing is left behind in the indexes either.
      const left = await sql<{ n: number }>`select (select count(*) from url_search where url_id = ${url.id})
        + (select count(*) from user_search where user_id = ${made.body.id}) as n`.execute(server().ctx.db);
      assert.equal(left.rows[0]!.n, 0);
    }
  });
});

forEachDatabase('short URL and user search plans', (engine) => {
  const server = useTestServer({ engine });
  let userId: string;

  before(async () => {
    await server().setup();
    userId = (await createTestUser(server(), 'planner')).id;
    if (engine === 'postgres') {
      // Enough rows that PostgreSQL's costs prefer the trigram index where it should.
      const db = server().ctx.db;
      await sql`insert into urls (id, user_id, code, vanity, destination, views, enabled, created_at, updated_at)
        select 'u' || i, ${userId}, md5(i::text), md5((i * 3)::text), 'https://example.com/' || md5((i * 7)::text),
        0, 1, i, i from generate_series(1, 20000) i`.execute(db);
      await sql`insert into users (id, username, role, view, token_hash, token_enc, created_at, updated_at)
        select 'v' || i, md5((i * 5)::text), 'USER', '{}', 'h' || i, 'x', i, i
        from generate_series(1, 20000) i`.execute(db);
      await sql`vacuum analyze`.execute(db);
    }
  });

  it('searches URLs by three characters or more through the trigram index', async () => {
    const ctx = server().ctx;
    // md5('1'), md5('3') and md5('7'): the code, vanity and destination of URL u1 (on PostgreSQL's rows).
    const queries: Record<UrlSearchField, string> = {
      code: 'c4ca4238a0b923820dcc',
      vanity: 'eccbc87e4b5ce2fe2830',
      destination: '8f14e45fceea167a5a36',
    };
    for (const field of [...URL_FIELDS, undefined]) {
      const searchQuery = queries[field ?? 'destination'];
      // A cursor's position past the newest URL: every URL is after it (the planner then judges by the search).
      const statements = urlListStatements(
        ctx,
        userId,
        { searchQuery, searchField: field },
        { value: 30_000, id: 'm' },
      );
      for (const [what, statement] of Object.entries(statements)) {
        const plan = await planOf(ctx, statement, false);
        const label = `${field ?? 'all'} ${what}: ${plan}`;
        if (engine === 'sqlite') {
          assert.match(plan, /urls_fts VIRTUAL TABLE INDEX \d+:M/, label);
          assert.match(plan, /url_search USING INTEGER PRIMARY KEY/, label);
          assert.match(plan, /sqlite_autoindex_urls_1/, label);
        } else {
          for (const column of field ? [field] : URL_FIELDS)
            assert.match(plan, new RegExp(`Bitmap Index Scan on urls_${column}_trgm`), label);
        }
      }
    }
    // Shorter: a scan of the user's URLs in order (no index can serve it).
    const short = await planOf(ctx, urlListStatements(ctx, userId, { searchQuery: 'c4' }).forward, false);
    assert.doesNotMatch(short, /urls_fts|_trgm/, short);
  });

  it('searches users by three characters or more through the trigram index', async () => {
    const ctx = server().ctx;
    // md5('5'): the username of user v1 (on PostgreSQL's rows).
    const search = 'e4da3b7fbbce2345d777';
    const statements = { ...userListStatements(ctx, { search }), count: userCountStatement(ctx, { search }) };
    for (const [what, statement] of Object.entries(statements)) {
      const plan = await planOf(ctx, statement, false);
      if (engine === 'sqlite') {
        assert.match(plan, /users_fts VIRTUAL TABLE INDEX \d+:M/, `${what}: ${plan}`);
        assert.match(plan, /user_search USING INTEGER PRIMARY KEY/, `${what}: ${plan}`);
        assert.match(plan, /sqlite_autoindex_users_1/, `${what}: ${plan}`);
      } else {
        assert.match(plan, /Bitmap Index Scan on users_username_trgm/, `${what}: ${plan}`);
      }
    }
  });
});

describe('URL and user search on a database from before migration 0029', () => {
  for (const engine of ['sqlite', 'postgres'] as const) {
    it(`indexes the URLs and users already there [${engine}]`, async (t) => {
      if (engine === 'postgres' && !process.env.TEST_DATABASE_URL) return t.skip('TEST_DATABASE_URL is not set');
      await withDatabaseBefore(
        engine,
        '0029',
        async (db) => {
          await db.insertInto('users').values(oldUserRow('u-old', 'Château-Owner')).execute();
          await db
            .insertInto('urls')
            .values(urlRow('u-old', { id: 'url-old', destination: 'https://ancient-château.example/' }, 0))
            .execute();
        },
        async (server) => {
          const urls = await listUrls(server.ctx, 'u-old', { searchQuery: 'CHÂTEAU', page: 1, perPage: 10 });
          assert.deepEqual(
            urls.rows.map((r) => r.id),
            ['url-old'],
          );
          const users = await listUsers(server.ctx, { search: 'château-own', page: 1, perpage: 10, listedBy: 'x' });
          assert.deepEqual(
            users.users.map((u) => u.id),
            ['u-old'],
          );
        },
      );
    });
  }
});
