// The file list stays flat at a million files because every statement of GET /api/user/files reads its page from an
// index (migrations 0002, 0012 and 0024): each sort and order, from the start and after a cursor, the NULLs of nullable
// sorts, and each filter. The plans of the very statements the service runs (listingStatements) are asserted on both
// engines, so that a change that loses an index fails here instead of in a benchmark. SQLite's planner needs no
// statistics; PostgreSQL's is asked with sequential scans and sorts priced out (orders and filters) or, for search
// and tags, with enough rows and fresh statistics that the index is the cheap way.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { sql } from 'kysely';
import { FILE_SORT_FIELDS, type FileSortField } from '../../../src/lib/file-list.js';
import { listingStatements, type FileListQuery } from '../../../src/services/lists/files.js';
import { createTestUser } from '../../support/content.js';
import { makeFolder, makeTag } from '../../support/factory.js';
import { assertReadsInOrder, planOf } from '../../support/query-plans.js';
import { forEachDatabase, useTestServer } from '../../support/server.js';

const SORT_INDEX: Record<FileSortField, string> = {
  id: 'files_user_id',
  createdAt: 'files_user_created_id',
  updatedAt: 'files_user_updated',
  deletesAt: 'files_user_deletes_at',
  name: 'files_user_name_id',
  originalName: 'files_user_original_name',
  size: 'files_user_size',
  type: 'files_user_type',
  views: 'files_user_views',
  favorite: 'files_user_favorite_id',
};

type ListingQuery = Omit<FileListQuery, 'page' | 'perPage'>;
const BASE: ListingQuery = { sortBy: 'createdAt', order: 'desc', searchField: 'name' };

forEachDatabase('file list query plans', (engine) => {
  const server = useTestServer({ engine });
  let userId: string;
  let folderId: string;
  let commonTag: string;
  let rareTag: string;

  before(async () => {
    await server().setup();
    const user = await createTestUser(server(), 'planner');
    userId = user.id;
    folderId = (await makeFolder(server(), user)).id;
    commonTag = (await makeTag(server(), user)).id;
    rareTag = (await makeTag(server(), user)).id;
    if (engine === 'postgres') {
      // Enough rows that PostgreSQL's costs prefer an index where it should.
      const db = server().ctx.db;
      await sql`insert into files (id, name, original_name, type, size, views, favorite, user_id, storage_key,
        created_at, updated_at) select 'g' || i, md5(i::text) || '.png', md5((i * 7)::text), 'image/png', i % 1000,
        i % 5, 0, ${userId}, 'k' || i, i, i from generate_series(1, 30000) i`.execute(db);
      await sql`insert into file_tags (file_id, tag_id) select 'g' || i, ${commonTag} from generate_series(1, 30000) i`.execute(
        db,
      );
      await sql`insert into file_tags (file_id, tag_id) select 'g' || i, ${rareTag} from generate_series(1, 10) i`.execute(
        db,
      );
      await sql`vacuum analyze`.execute(db);
    }
  });

  it('reads every sort and order from its index, from the start, after a cursor and among the NULLs', async () => {
    const ctx = server().ctx;
    for (const sortBy of FILE_SORT_FIELDS) {
      for (const order of ['asc', 'desc'] as const) {
        const statements = listingStatements(ctx, userId, { ...BASE, sortBy, order });
        for (const [i, statement] of [...statements.first, ...statements.after].entries()) {
          assertReadsInOrder(await planOf(ctx, statement, true), SORT_INDEX[sortBy], `${sortBy} ${order} #${i}`);
        }
      }
    }
    const count = await planOf(ctx, listingStatements(ctx, userId, BASE).count, true);
    assert.match(count, engine === 'sqlite' ? /USING COVERING INDEX files_user_/ : /(using|on) files_user_\w+/, count);
  });

  it('serves favourites and folders from their indexes', async () => {
    const ctx = server().ctx;
    const favourites = listingStatements(ctx, userId, { ...BASE, favorite: true });
    assertReadsInOrder(await planOf(ctx, favourites.first[0]!, true), 'files_user_favorite_created', 'favourites');
    assertReadsInOrder(await planOf(ctx, favourites.after[0]!, true), 'files_user_favorite_created', 'favourites');
    assert.match(await planOf(ctx, favourites.count, true), /files_user_favorite_/);
    const folder = listingStatements(ctx, userId, { ...BASE, folderId });
    assertReadsInOrder(await planOf(ctx, folder.first[0]!, true), 'files_folder_created', 'folder');
    assertReadsInOrder(await planOf(ctx, folder.after[0]!, true), 'files_folder_created', 'folder');
    assert.match(await planOf(ctx, folder.count, true), /files_folder_created/);
  });

  it('finds tagged files from the tag side', async () => {
    const ctx = server().ctx;
    // By size: one tag by date has an index of its own (below).
    for (const tagIds of [[rareTag], [rareTag, rareTag, rareTag]]) {
      const statements = listingStatements(ctx, userId, { ...BASE, sortBy: 'size', tagIds });
      const count = await planOf(ctx, statements.count, false);
      assert.match(count, /file_tags_tag_(file|created)/, `count: ${count}`);
      if (engine === 'sqlite') {
        // Few matches: from the tag's files to theirs by primary key, then sorted.
        assert.match(count, /sqlite_autoindex_files_1/, `count: ${count}`);
        const few = await planOf(ctx, statements.fewMatches!, false);
        assert.match(few, /file_tags_tag_(file|created)/, `few: ${few}`);
        assert.match(few, /sqlite_autoindex_files_1/, `few: ${few}`);
        // Many: along the order's index, each file walked looked up in file_tags by its primary key (not the tags'
        // whole list built first).
        const many = await planOf(ctx, statements.first[0]!, false);
        assertReadsInOrder(many, 'files_user_size', 'many tagged');
        assert.match(
          many,
          /SEARCH file_tags (EXISTS )?USING COVERING INDEX sqlite_autoindex_file_tags_1 \(file_id=\?/,
          `many: ${many}`,
        );
        assert.doesNotMatch(many, /LIST SUBQUERY/, `many: ${many}`);
      } else {
        const page = await planOf(ctx, statements.first[0]!, false);
        assert.match(page, /file_tags_tag_(file|created)/, `page: ${page}`);
        // Few matches: the tag's files read once, then their rows looked up by id and sorted, never along the order's
        // index (which PostgreSQL prefers for a rare tag at a million files and then walks for tens of milliseconds).
        const few = await planOf(ctx, statements.fewMatches!, true);
        assert.match(few, /InitPlan .* Index Only Scan using file_tags_tag_(file|created)/, `few: ${few}`);
        assert.match(few, /Index Cond: \(.*id = ANY \(\$\d\)\)/, `few: ${few}`);
        assert.doesNotMatch(few, /files_user_size|Gather/, `few: ${few}`);
      }
    }
  });

  it("counts the files of several tags from the tags' rows alone, each file once", async () => {
    const ctx = server().ctx;
    const statements = listingStatements(ctx, userId, { ...BASE, tagIds: [rareTag, commonTag] });
    const count = await planOf(ctx, statements.count, true);
    assert.match(count, /file_tags_tag_(file|created)/, `count: ${count}`);
    assert.doesNotMatch(count, /sqlite_autoindex_files_1|files_pkey|files_user|Seq Scan on files/, `count: ${count}`);
  });

  it("reads a page by number deep among several tags' files by date from the tags' rows alone", async () => {
    const ctx = server().ctx;
    for (const order of ['asc', 'desc'] as const) {
      const statements = listingStatements(ctx, userId, { ...BASE, order, tagIds: [rareTag, commonTag] });
      assert.ok(statements.tagsByDate, 'several tags by date have a way of their own for deep pages');
      const plan = await planOf(ctx, statements.tagsByDate, true);
      assert.match(plan, /file_tags_tag_created/, `deep page ${order}: ${plan}`);
      // SQLite merges the tags' ranges in order: no list of every match built and sorted.
      if (engine === 'sqlite') assert.doesNotMatch(plan, /TEMP B-TREE/, `deep page ${order} sorts: ${plan}`);
      assert.doesNotMatch(
        plan,
        /files_user|sqlite_autoindex_files_1|files_pkey|(Seq|Index|Index Only|Bitmap Heap) Scan on files\b/,
        `deep page ${order}: ${plan}`,
      );
    }
    // Another order, or a filter besides the tags: none (those walk the order or read the matches).
    assert.equal(
      listingStatements(ctx, userId, { ...BASE, sortBy: 'size', tagIds: [rareTag, commonTag] }).tagsByDate,
      undefined,
    );
    assert.equal(
      listingStatements(ctx, userId, { ...BASE, favorite: true, tagIds: [rareTag, commonTag] }).tagsByDate,
      undefined,
    );
  });

  it("reads one tag's files by date from the tag's own index, from the start and after a cursor", async () => {
    const ctx = server().ctx;
    for (const tag of [rareTag, commonTag]) {
      for (const order of ['asc', 'desc'] as const) {
        const statements = listingStatements(ctx, userId, { ...BASE, order, tagIds: [tag] });
        assert.equal(statements.fewMatches, undefined);
        for (const [i, statement] of [...statements.first, ...statements.after].entries())
          assertReadsInOrder(await planOf(ctx, statement, true), 'file_tags_tag_created', `one tag ${order} #${i}`);
      }
    }
  });

  it('searches three characters or more through the trigram index', async () => {
    const ctx = server().ctx;
    for (const searchField of ['name', 'originalName'] as const) {
      // md5('1') is the name of file g1, md5('7') the original name of g1 (on PostgreSQL's rows).
      const searchQuery = searchField === 'name' ? 'c4ca4238a0b923820dcc' : '8f14e45fceea167a5a36';
      const statements = listingStatements(ctx, userId, { ...BASE, searchField, searchQuery });
      const count = await planOf(ctx, statements.count, false);
      const page = await planOf(ctx, (statements.fewMatches ?? statements.first[0])!, false);
      if (engine === 'sqlite') {
        for (const plan of [count, page]) {
          assert.match(plan, /files_fts VIRTUAL TABLE INDEX \d+:M/, plan);
          assert.match(plan, /file_search USING INTEGER PRIMARY KEY/, plan);
        }
        assert.match(page, /sqlite_autoindex_files_1/, page);
        // The count reads no file's row: the owner is file_search's copy (migration 0031).
        assert.doesNotMatch(count, /\bfiles\b(?!_fts)/, count);
      } else {
        const index = searchField === 'name' ? 'files_name_trgm' : 'files_original_name_trgm';
        assert.match(count, new RegExp(`Bitmap Index Scan on ${index}`), count);
        assert.match(page, new RegExp(`Bitmap Index Scan on ${index}`), page);
      }
    }
  });

  it("searches by type through the owner's types: many matches walk the order, few read files_user_type", async () => {
    const ctx = server().ctx;
    for (const sortBy of ['createdAt', 'size', 'name'] as const) {
      const statements = listingStatements(ctx, userId, {
        ...BASE,
        sortBy,
        searchField: 'type',
        searchQuery: 'image',
        types: ['image/png', 'image/jpeg'],
      });
      // Many matches: the order's index, each file's type checked on its row (no list of every match, no sort).
      assertReadsInOrder(await planOf(ctx, statements.first[0]!, true), SORT_INDEX[sortBy], `type ${sortBy}`);
      assertReadsInOrder(await planOf(ctx, statements.after[0]!, true), SORT_INDEX[sortBy], `type ${sortBy} after`);
      if (engine === 'sqlite') {
        // Few: their ids from one range of files_user_type per type, then sorted; no trigram table either way.
        const few = await planOf(ctx, statements.fewMatches!, false);
        assert.match(few, /COVERING INDEX files_user_type \(user_id=\? AND type=\?\)/, few);
        assert.match(few, /sqlite_autoindex_files_1/, few);
        assert.doesNotMatch(few + (await planOf(ctx, statements.first[0]!, true)), /files_fts/);
      }
    }
  });
});
