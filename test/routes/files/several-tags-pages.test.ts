// Several tags at once, page by number: a page deep inside the list is read from the tags' rows by date
// (file_tags_tag_created, each file once) instead of walking the owner's files (services/lists/files.ts,
// walksPastMatches). Every page by number, in both orders, must be the matching files in order, each once, with the
// exact total; files carrying two of the tags and files sharing a date included.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { createTestUser } from '../../support/content.js';
import { makeTag } from '../../support/factory.js';
import { insertFileRows } from '../../support/file-rows.js';
import { forEachDatabase, useTestServer, type TestUser } from '../../support/server.js';

forEachDatabase('several tags, every page by number', (engine) => {
  const server = useTestServer({ engine });
  let owner: TestUser;
  let tags: string[];
  let expected: Array<{ id: string; created_at: number }>;

  before(async () => {
    await server().setup();
    owner = await createTestUser(server(), 'tagger');
    tags = [(await makeTag(server(), owner)).id, (await makeTag(server(), owner)).id];
    // 30,000 files, one in 5 tagged with the first tag, one in 7 with the second (one in 35 with both): 9,429
    // matches, more than either engine reads whole and sorts (FEW_MATCHES), spread thinly enough that a page more
    // than 9,429² / 30,000 = 2,964 matches from both ends is read from the tags' rows (walksPastMatches). Every third
    // file shares its date with the one before.
    const rows = await insertFileRows(
      server().ctx,
      Array.from({ length: 30_000 }, (_, n) => ({
        user_id: owner.id,
        created_at: 1_700_000_000_000 + n - (n % 3 === 1 ? 1 : 0),
      })),
    );
    const links = rows.flatMap((row, n) => [
      ...(n % 5 === 0 ? [{ file_id: row.id, tag_id: tags[0]! }] : []),
      ...(n % 7 === 0 ? [{ file_id: row.id, tag_id: tags[1]! }] : []),
    ]);
    for (let i = 0; i < links.length; i += 500)
      await server()
        .ctx.db.insertInto('file_tags')
        .values(links.slice(i, i + 500))
        .execute();
    expected = rows
      .filter((_, n) => n % 5 === 0 || n % 7 === 0)
      .map((r) => ({ id: r.id, created_at: r.created_at }))
      .sort((a, b) => a.created_at - b.created_at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  });

  it('answers each page of files with any of the tags in order, each file once, in both orders', async () => {
    const perPage = 500;
    for (const order of ['asc', 'desc'] as const) {
      const want = order === 'asc' ? expected : [...expected].reverse();
      const pages = Math.ceil(want.length / perPage);
      const seen: string[] = [];
      for (let page = 1; page <= pages; page++) {
        const res = await server().json(
          'GET',
          `/api/user/files?tags=${tags.join(',')}&order=${order}&perpage=${perPage}&page=${page}`,
          { auth: owner.token },
        );
        assert.equal(res.status, 200);
        assert.equal(res.body.total, want.length);
        assert.equal(res.body.pages, pages);
        seen.push(...res.body.page.map((f: { id: string }) => f.id));
      }
      assert.deepEqual(
        seen,
        want.map((f) => f.id),
        `${order}: every page by number`,
      );
    }
  });
});
