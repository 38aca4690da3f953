// GET /api/user/files at a million files: every page is read from an index. A listing is an order (one sort column
// and the id as tie-breaker) over the owner's files, cut by filters; `nextCursor` marks the last file of a page, and
// the next page starts right after it (keyset: the same cost at any depth, no file skipped or repeated when others
// come and go). Page numbers (Zipline's clients) skip entries of the same index, from whichever end is nearer.
// Substring search goes through the trigram index of db/schema/search-index.ts when the query is long enough.
import {
  sql,
  type Compilable,
  type Expression,
  type ExpressionBuilder,
  type SelectQueryBuilder,
  type SqlBool,
} from 'kysely';
import type { AppContext } from '../../context.js';
import {
  countOwnedMatches,
  FILE_SEARCH,
  searchMatch,
  searchUsesIndex,
  hasNewFiles,
  indexNewFiles,
  INDEX_SLICE,
  TRIGRAM_MIN_LENGTH,
} from '../../db/schema/search-index.js';
import type { Database, FileRow, UserRow } from '../../db/schema/tables.js';
import { ApiError } from '../../lib/errors.js';
import {
  foldCase,
  type FileListFilter,
  type FileListSearchField,
  type FileSearchField,
  type FileSortField,
} from '../../lib/file-list.js';
import { isAdmin, managesFilesOf } from '../files/manage.js';
import { decodeListCursor, encodeListCursor, listKey } from './cursors.js';
import { isDeepPage, listRunner, type RunList } from './pages.js';
import { typeCounts, usageOfOne } from '../statistics/usage.js';
import { flushViews } from '../serving/view-counts.js';
import { userNotDeleted } from '../accounts/deleted-owners.js';

type Caller = Pick<UserRow, 'id' | 'role'>;
type FilesQuery = SelectQueryBuilder<Database, 'files', object>;

const SORT_COLUMNS = {
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
/** Sorts whose files without a value come after all the others, in either direction. */
const NULLABLE_SORT = new Set<FileSortField>(['deletesAt', 'originalName']);
const TEXT_SORT = new Set<FileSortField>(['id', 'name', 'originalName', 'type']);
/**
 * Up to this many matches of a search or tags (SQLite) or of tags (PostgreSQL), the matches are read and sorted; with
 * more, walking the order's index finds a page's worth of them soon enough. PostgreSQL's limit is lower: each match
 * costs it a read of the file's row (10,000 matches of 1,000,000 files: ~100 ms sorted, ~3 ms walked; 1,000: ~5 ms
 * sorted, ~80 ms walked, where its planner walks). For searches PostgreSQL decides from its statistics.
 */
const FEW_MATCHES = { sqlite: 5000, postgres: 2000 } as const;

export interface FileListQuery {
  page: number;
  perPage: number;
  /** A `nextCursor` of an earlier answer of the same listing: the page after it (then `page` is not used). */
  cursor?: string | undefined;
  sortBy: FileSortField;
  order: 'asc' | 'desc';
  /** A column (substring), `tags` (comma-separated tag ids: files with all of them) or `id` (substring of the id). */
  searchField: FileListSearchField;
  searchQuery?: string | undefined;
  favorite?: boolean | undefined;
  /** Zipline's filter: `dashboard` (images, videos, audio, text only), `all` (favorite is ignored), `none`. */
  filter?: FileListFilter | undefined;
  /** Files carrying any of these tags. */
  tagIds?: string[] | undefined;
  folderId?: string | undefined;
  /** Whose files (admins only; another user's id from a USER -> 3000). */
  userId?: string | undefined;
}

/**
 * A listing's filters and order (no page). `types`: for a `searchField=type` search, the owner's media types that it
 * matches (typeMatches), which then narrow the files instead of the trigram index.
 */
type ListQuery = Omit<FileListQuery, 'page' | 'perPage'> & { types?: readonly string[] | undefined };

export interface FileListPage {
  rows: FileRow[];
  total: number;
  nextCursor: string | null;
}

/**
 * A stretch of the order read through one index: the whole order, or for a nullable sort the files with a value,
 * then (`nulls`) those without, by id.
 */
interface Segment {
  nulls: boolean;
  direction: 'asc' | 'desc';
}

/** Where a page ends: the segment, the sort value and the id of its last file. */
interface Position {
  segment: number;
  value: string | number | null;
  id: string;
}

interface Listing {
  column: (typeof SORT_COLUMNS)[FileSortField];
  /** Whether the sort values are text (else numbers). */
  textual: boolean;
  segments: Segment[];
  filtered: FilesQuery;
  /**
   * With tags, or on SQLite a search: the same filters written so that the planner starts from the matching files
   * and sorts them. Cheaper than walking the order when the matches are few. SQLite: the owner's columns behind a
   * unary + (which no index serves), also how the matches are counted. PostgreSQL: the matches in a subquery with
   * `offset 0`, which the planner plans on its own (a fence), so that it cannot walk the order's index instead.
   */
  fromMatches: FilesQuery | undefined;
  /**
   * Several of the owner's tags by date and nothing else: `take` files after `skip` of a segment, read from the tags'
   * rows in file_tags by date (file_tags_tag_created, one range per tag merged in order, each file once). For a page
   * number whose walk along the order would pass more files than the tags hold (walksPastMatches).
   */
  tagsByDate?: ((segment: Segment, skip: number, take: number) => Compilable<SegmentRow>) | undefined;
  /** Set: segments are read from the start by this (tagsByDate) instead of from `filtered`. */
  readSegment?: ((segment: Segment, skip: number, take: number) => Compilable<SegmentRow>) | undefined;
  /** The statement that counts the matches. */
  count: Compilable<{ count: number | string }>;
  /** Binds a cursor to this listing: the owner, the order and the filters (not the page size). */
  key: string;
  /**
   * Runs a statement of the listing: on the main connection, or for what may read many entries (counting every match,
   * walking an order for matches of a broad filter, a page number deep in the list) on ctx.reads, which on SQLite is a
   * worker thread, so that such a listing holds up no other request while it reads.
   */
  read: RunList;
  /**
   * SQLite, a trigram search that alone narrows the owner's files: what a page is first looked for among, the next
   * rows of the order itself (readWindow), once the matches are known to be many (`rowsPerMatch` set).
   */
  window?: SearchWindow | undefined;
}

/** A search's page found among the next rows of the order (readWindow). */
interface SearchWindow {
  /** The owner's files, without the search. */
  files: FilesQuery;
  column: string;
  /** The search, folded (foldCase). */
  folded: string;
  /** The owner's files per match: how many rows of the order hold one match, on average. Unset: not tried. */
  rowsPerMatch?: number;
}

/** How often the server indexes the names of new files (SQLite; a search indexes them first in any case). */
export const SEARCH_INDEX_INTERVAL_MS = 1_000;

/**
 * SQLite: indexes the names of the files waiting for it (db/schema/search-index.ts NEW_FILES) in a transaction of their own,
 * when any wait, INDEX_SLICE at a time. The server runs it about once a second, and before every search of the files.
 */
export async function indexWaitingFiles(ctx: Pick<AppContext, 'db' | 'commits'>): Promise<void> {
  // In slices, each its own transaction, so that a long queue (a writer that left many) never holds the event loop.
  while (await hasNewFiles(ctx.db)) await ctx.commits.run((trx) => indexNewFiles(trx, INDEX_SLICE));
}

/** One page of the caller's (or, for admins, a user's) files, the number of matches and the cursor of the next page. */
export async function listFiles(ctx: AppContext, caller: Caller, query: FileListQuery): Promise<FileListPage> {
  // Ordered by views: the ones this instance holds in memory are written first, so the order is exact.
  if (query.sortBy === 'views') await flushViews(ctx);
  // SQLite: the names of the latest files are indexed first (db/schema/search-index.ts), so that every file is found.
  if (query.searchQuery) await indexWaitingFiles(ctx);
  const ownerId = query.userId ?? caller.id;
  // An admin asking for an unknown user: 4009, as Zipline (a non-admin learns nothing: 3000 below).
  if (ownerId !== caller.id && isAdmin(caller)) {
    const owner = await ctx.db
      .selectFrom('users')
      .select('id')
      .where('id', '=', ownerId)
      .where(userNotDeleted('users.id'))
      .executeTakeFirst();
    if (!owner) throw new ApiError(4009, ownerId);
  }
  if (!(await managesFilesOf(ctx, caller, [ownerId]))) throw new ApiError(3000);
  if (query.filter === 'all') query = { ...query, favorite: undefined };
  await assertSearchTags(ctx, ownerId, query);
  const types = await typeMatches(ctx, ownerId, query);
  const listing = fileListing(ctx, ownerId, { ...query, types: types?.types });
  const after = query.cursor === undefined ? undefined : decodeCursor(ctx, listing, query.cursor);
  const stored = narrowedOnlyBySearch(query) && types ? types.files : await storedTotal(ctx, ownerId, query);
  const skip = (query.page - 1) * query.perPage;
  /** The page: after the cursor, or `skip` files in. */
  const readPage = async (total: number) => {
    if (after) {
      const read = await readFrom(listing, after, query.perPage + 1);
      return { positions: read.slice(0, query.perPage), hasNext: read.length > query.perPage };
    }
    const positions = await readAt(listing, skip, query.perPage, total);
    return { positions, hasNext: skip + positions.length < total && positions.length === query.perPage };
  };
  let total: number;
  let page: { positions: Position[]; hasNext: boolean };
  if (stored === undefined && ctx.engine === 'postgres' && !listing.fromMatches && (after || skip === 0)) {
    // PostgreSQL, a counted listing whose page does not depend on the count (the first page or the one after a
    // cursor, read the same way whatever the count): both at once, on two connections of the pool.
    // (readAt reads forwards from the start while the total it is given is at least a page.)
    const [counted, read] = await Promise.all([countMatches(ctx, listing), readPage(Number.POSITIVE_INFINITY)]);
    total = counted;
    page = after ? read : { ...read, hasNext: read.positions.length < total && read.hasNext };
  } else {
    total = stored ?? (await countMatches(ctx, listing));
    const few = total <= FEW_MATCHES[ctx.engine];
    if (listing.fromMatches && few) listing.filtered = listing.fromMatches;
    const deep = !after && isDeepPage(query.page, query.perPage, total);
    if (!after && !few && listing.tagsByDate && (await walksPastMatches(ctx, ownerId, skip, query.perPage, total))) {
      listing.readSegment = listing.tagsByDate;
      listing.read = listRunner(ctx, true);
    }
    // Many matches are found by walking the order's index: on the slow reader, unless the total is stored (then the
    // filter is an index's own). Files of a type may all sit at the far end of the order.
    if (((stored === undefined || types) && !few) || deep) listing.read = listRunner(ctx, true);
    if (listing.window && !few)
      listing.window.rowsPerMatch = (await usageOfOne(ctx.db, ownerId)).files / Math.max(1, total);
    page = await readPage(total);
  }
  const { positions, hasNext } = page;
  const rows = await rowsInOrder(ctx, positions);
  const last = positions.at(-1);
  return { rows, total, nextCursor: hasNext && last ? encodeCursor(ctx, listing, last) : null };
}

/**
 * The number of files of a listing that only the owner (and perhaps favourites), one of the owner's folders or one of
 * the owner's tags narrows, read from the stored counters (services/statistics/usage.ts, db/schema/list-counters.ts) instead of counted;
 * undefined for other filters.
 */
async function storedTotal(ctx: AppContext, ownerId: string, query: FileListQuery): Promise<number | undefined> {
  if (query.searchQuery || query.filter === 'dashboard') return undefined;
  if ((query.tagIds?.length ?? 0) > 0) {
    // The files of one of the owner's tags: its stored count, as for a folder (a tag is put only on its owner's files).
    const tagId = soleTag(query);
    if (tagId === undefined) return undefined;
    const tag = await ctx.db
      .selectFrom('tags')
      .select('file_count')
      .where('id', '=', tagId)
      .where('user_id', '=', ownerId)
      .executeTakeFirst();
    return tag?.file_count;
  }
  if (query.folderId !== undefined) {
    // A folder's files, all of them: its stored count (db/schema/list-counters.ts). A folder holds only its owner's files
    // (every way into a folder checks both owners), so this is the owner's files in it. Counting them instead read
    // every one's row (the folder's index does not hold the owner): 64 ms for 20,000 files.
    if (query.favorite !== undefined) return undefined;
    const folder = await ctx.db
      .selectFrom('folders')
      .select('file_count')
      .where('id', '=', query.folderId)
      .where('user_id', '=', ownerId)
      .executeTakeFirst();
    return folder?.file_count;
  }
  const usage = await usageOfOne(ctx.db, ownerId);
  if (query.favorite === undefined) return usage.files;
  return query.favorite ? usage.favorites : usage.files - usage.favorites;
}

/** An owner with more media types than this is searched by type through the trigram index (typeMatches). */
const MAX_MATCHED_TYPES = 1000;

/**
 * A `searchField=type` search: which of the owner's media types it matches and how many files they hold, from the
 * stored counters per type (db/schema/usage-counters.ts), matched here as searchMatch matches (foldCase, a substring). An
 * owner has a handful of types, so the search then narrows the files by `type in (...)` instead of the trigram index:
 * its total is a sum of counters, its page a walk of the order that reads no list of every match (at 1,000,000 files
 * `image`, half of them, took 280 ms). Undefined for other searches, and for an owner of more types than
 * MAX_MATCHED_TYPES.
 */
async function typeMatches(
  ctx: AppContext,
  ownerId: string,
  query: FileListQuery,
): Promise<{ types: string[]; files: number } | undefined> {
  if (query.searchField !== 'type' || !query.searchQuery) return undefined;
  const counted = await typeCounts(ctx.db, ownerId, MAX_MATCHED_TYPES + 1);
  if (counted.length > MAX_MATCHED_TYPES) return undefined;
  // No stored text holds NUL (searchMatch finds nothing for it either).
  const folded = query.searchQuery.includes('\u0000') ? undefined : foldCase(query.searchQuery);
  const found = folded === undefined ? [] : counted.filter((t) => foldCase(t.type).includes(folded));
  return { types: found.map((t) => t.type), files: found.reduce((sum, t) => sum + t.files, 0) };
}

/**
 * Whether reading page `skip / perPage` by number along the order's index, from its nearer end, passes more of the
 * owner's files than the listing's `total` matches (spread evenly: the owner's files per match, times the matches
 * skipped). Then reading every match and sorting them is the cheaper way (three tags on 111,000 of 1,000,000 files,
 * the middle page: ~500,000 files walked, each looked up in file_tags, against 111,000 of the tags' rows).
 */
async function walksPastMatches(
  ctx: AppContext,
  ownerId: string,
  skip: number,
  perPage: number,
  total: number,
): Promise<boolean> {
  const skipped = Math.min(skip, Math.max(0, total - skip - perPage));
  if (skipped === 0) return false;
  const files = (await usageOfOne(ctx.db, ownerId)).files;
  return (skipped * files) / Math.max(1, total) > total;
}

/** Whether a search is all that narrows a listing (no favourite, folder, tags or dashboard filter). */
const narrowedOnlyBySearch = (query: ListQuery): boolean =>
  (query.tagIds?.length ?? 0) === 0 &&
  query.favorite === undefined &&
  query.folderId === undefined &&
  query.filter !== 'dashboard';

/** Counts every match (on the slow reader: a broad filter has many). */
async function countMatches(ctx: AppContext, listing: Listing): Promise<number> {
  const [row] = await ctx.reads.all(listing.count);
  return Number(row!.count);
}

/** The order, the filters and the cursor key of a listing. */
function fileListing(ctx: AppContext, ownerId: string, query: ListQuery): Listing {
  const column = SORT_COLUMNS[query.sortBy];
  const segments: Segment[] = NULLABLE_SORT.has(query.sortBy)
    ? [
        { nulls: false, direction: query.order },
        { nulls: true, direction: query.order },
      ]
    : [{ nulls: false, direction: query.order }];
  // One tag by date: already in order from the tag's own index, read as it is (no other way is needed).
  const byTag = byTagDate(ctx, ownerId, query);
  // A search by type through the owner's types (typeMatches): walked along the order's index with the type checked
  // on each file's row (SQLite: behind a unary +, else its planner takes files_user_type and sorts every match).
  // (typeMatches gives `types` to type searches only.)
  const byTypes = query.types !== undefined;
  const filtered =
    byTag ??
    ctx.db
      .selectFrom('files')
      .where((eb) =>
        listFilters(
          ctx,
          eb,
          ownerId,
          query,
          byTypes && ctx.engine === 'sqlite' ? TYPE : NONE,
          ctx.engine === 'sqlite' ? 'exists' : 'in',
        ),
      );
  const textSearch = query.searchField !== 'tags' && query.searchField !== 'id' && !byTypes;
  const tagged = (query.searchField === 'tags' && searchTagIds(query).length > 0) || (query.tagIds?.length ?? 0) > 0;
  const searched = textSearch && query.searchQuery && [...query.searchQuery].length >= TRIGRAM_MIN_LENGTH;
  let fromMatches: FilesQuery | undefined;
  if (!byTag && ctx.engine === 'sqlite' && (tagged || searched || byTypes)) {
    fromMatches = ctx.db.selectFrom('files').where((eb) => listFilters(ctx, eb, ownerId, query, ALL));
  } else if (!byTag && ctx.engine === 'postgres' && tagged) {
    const matches = ctx.db
      .selectFrom('files')
      .selectAll()
      .where((eb) => listFilters(ctx, eb, ownerId, query, NONE, 'array'))
      .offset(0);
    // Named `files` like the table, so that every statement built on it reads the same.
    fromMatches = ctx.db.selectFrom(matches.as('files')) as unknown as FilesQuery;
  }
  // SQLite counts from the matches too, and a folder's files from the folder's index. (The owner's narrowest index,
  // files_user_id, would look the same to a planner without statistics; a folder holds fewer files than its owner.)
  const counted =
    ctx.engine === 'postgres'
      ? filtered
      : (fromMatches ??
        (query.folderId !== undefined
          ? ctx.db.selectFrom('files').where((eb) => listFilters(ctx, eb, ownerId, query, OWNER))
          : filtered));
  const tagIds = [...new Set(query.tagIds ?? [])];
  const onlyTags =
    tagIds.length > 1 &&
    !query.searchQuery &&
    query.favorite === undefined &&
    query.folderId === undefined &&
    query.filter !== 'dashboard';
  // A search and nothing else narrowing it, on SQLite: counted from the trigram table and file_search's copy of each
  // file's owner (migration 0031), without reading the matching files' rows (666,666 of 1,000,000: 660 -> 250 ms).
  // Files carrying any of several of the owner's tags, and nothing else narrowing them: counted from the tags' rows
  // alone (file_tags_tag_file and file_tags_tag_created hold tag and file), each file once, without reading the files
  // (a tag is only ever put on its owner's files). Counting through the files looked each one up: 111,000 matches of
  // 1,000,000 files, 350 ms.
  const onlySearch =
    ctx.engine === 'sqlite' && textSearch && searchUsesIndex(query.searchQuery ?? '') && narrowedOnlyBySearch(query);
  const count = onlySearch
    ? countOwnedMatches(ctx.db, [SORT_COLUMNS[query.searchField as FileSearchField]], query.searchQuery!, ownerId)
    : onlyTags
      ? ctx.db
          .selectFrom('file_tags')
          .select((eb) => eb.fn.count<number | string>('file_tags.file_id').distinct().as('count'))
          .where('file_tags.tag_id', 'in', (eb) =>
            eb.selectFrom('tags').select('tags.id').where('tags.user_id', '=', ownerId).where('tags.id', 'in', tagIds),
          )
      : counted.select((eb) => eb.fn.countAll<number | string>().as('count'));
  const tagsByDate = onlyTags && query.sortBy === 'createdAt' ? tagsByDateRows(ctx, ownerId, tagIds) : undefined;
  const key = listKey([
    ownerId,
    query.sortBy,
    query.order,
    query.searchQuery ? [query.searchField, query.searchQuery] : null,
    query.favorite ?? null,
    query.filter === 'dashboard',
    [...tagIds].sort(),
    query.folderId ?? null,
  ]);
  return {
    column,
    textual: TEXT_SORT.has(query.sortBy),
    segments,
    filtered,
    fromMatches,
    tagsByDate,
    count,
    key,
    read: listRunner(ctx, false),
    window: onlySearch
      ? {
          files: ctx.db.selectFrom('files').where('files.user_id', '=', ownerId),
          column: SORT_COLUMNS[query.searchField as FileSearchField],
          folded: foldCase(query.searchQuery!),
        }
      : undefined,
  };
}

/**
 * The files of one of the owner's tags by upload date, and nothing else narrowing them: read from the tag's rows in
 * file_tags through file_tags_tag_created (tag, date, file), which hold each file's date (migration 0030), instead of
 * walking the owner's files or sorting the tag's. Named `files` with the columns the listing reads (id, created_at),
 * so that every statement built on it reads the same. A tag of someone else's lists nothing (its files are not the
 * owner's: a tag is only ever put on its owner's files).
 */
function byTagDate(ctx: AppContext, ownerId: string, query: ListQuery): FilesQuery | undefined {
  const tagId = query.sortBy === 'createdAt' ? soleTag(query) : undefined;
  if (tagId === undefined) return undefined;
  const tagged = ctx.db
    .selectFrom('file_tags')
    .select(['file_tags.file_id as id', 'file_tags.file_created_at as created_at'])
    .where('file_tags.tag_id', '=', tagId)
    .where((eb) =>
      eb.exists(
        eb.selectFrom('tags').select('tags.id').where('tags.id', '=', tagId).where('tags.user_id', '=', ownerId),
      ),
    );
  return ctx.db.selectFrom(tagged.as('files')) as unknown as FilesQuery;
}

/**
 * The files of several of the owner's tags by upload date, a segment's `take` after `skip`: each tag's rows of
 * file_tags_tag_created (tag, date, file) in order, merged by a UNION that also drops a file's second row (SQLite
 * merges the ranges in order, with no sort of its own). Reads the tags' rows up to the page, never a file's row; a
 * tag of someone else's adds nothing (a tag is only ever put on its owner's files).
 */
function tagsByDateRows(ctx: AppContext, ownerId: string, tagIds: string[]) {
  return (segment: Segment, skip: number, take: number): Compilable<SegmentRow> => {
    const arm = (tagId: string) =>
      ctx.db
        .selectFrom('file_tags')
        .select(['file_tags.file_id as id', sql<string | number | null>`file_tags.file_created_at`.as('sort_value')])
        .where('file_tags.tag_id', '=', tagId)
        .where((eb) =>
          eb.exists(
            eb.selectFrom('tags').select('tags.id').where('tags.id', '=', tagId).where('tags.user_id', '=', ownerId),
          ),
        );
    const [first, ...rest] = tagIds.map(arm);
    return rest
      .reduce((union, next) => union.union(next), first!)
      .orderBy('sort_value', segment.direction)
      .orderBy('id', segment.direction)
      .limit(take)
      .offset(skip);
  };
}

/** The tag of a listing that one tag (`tags=<id>`) and nothing else narrows (no search, favourite, folder or filter). */
function soleTag(query: ListQuery): string | undefined {
  const tagIds = [...new Set(query.tagIds ?? [])];
  const alone =
    tagIds.length === 1 &&
    !query.searchQuery &&
    query.favorite === undefined &&
    query.folderId === undefined &&
    query.filter !== 'dashboard';
  return alone ? tagIds[0] : undefined;
}

type FilterColumn = 'user_id' | 'favorite' | 'folder_id' | 'type';
const NONE: ReadonlySet<FilterColumn> = new Set();
const TYPE: ReadonlySet<FilterColumn> = new Set(['type']);
const ALL: ReadonlySet<FilterColumn> = new Set(['user_id', 'favorite', 'folder_id']);
const OWNER: ReadonlySet<FilterColumn> = new Set(['user_id']);

/**
 * The filters of a listing; the `unindexed` columns are written behind a unary + (SQLite then uses no index of
 * theirs). How files are checked against tags (`tagsAs`): `in`, the tags' files as a list (a planner may start from
 * it); `exists` (SQLite, walking an order's index for many matches): a look-up of each file walked by the primary key
 * of file_tags, where the list would first be built whole (100,000 files of three tags of a million: ~30 ms per page);
 * `array` (PostgreSQL, few matches): each tag's files as an array, which its planner reads once and then looks the
 * files up by primary key, estimating few rows; with `in (subquery)` it plans a join that it may hand to parallel
 * workers, which cost 30 ms on a two-core machine for 1,000 matches (6 ms without).
 */
function listFilters(
  ctx: AppContext,
  eb: ExpressionBuilder<Database, 'files'>,
  ownerId: string,
  query: ListQuery,
  unindexed: ReadonlySet<FilterColumn>,
  tagsAs: 'in' | 'exists' | 'array' = 'in',
): Expression<SqlBool> {
  const column = (name: FilterColumn) =>
    unindexed.has(name) ? sql`+${sql.ref(`files.${name}`)}` : sql.ref(`files.${name}`);
  const taggedWith = (tagIds: string[]): Expression<SqlBool> => {
    const files = eb.selectFrom('file_tags').select('file_tags.file_id').where('tag_id', 'in', tagIds);
    if (tagsAs === 'exists') return eb.exists(files.whereRef('file_tags.file_id', '=', 'files.id'));
    return tagsAs === 'array' ? sql<SqlBool>`files.id = any(array(${files}))` : eb('files.id', 'in', files);
  };
  const conditions: Array<Expression<SqlBool>> = [eb(column('user_id'), '=', ownerId)];
  if (query.favorite !== undefined) conditions.push(eb(column('favorite'), '=', query.favorite ? 1 : 0));
  if (query.folderId !== undefined) conditions.push(eb(column('folder_id'), '=', query.folderId));
  if (query.searchQuery && query.searchField === 'tags') {
    // Zipline's tag search: files carrying every one of the tags, each looked up from the tag side.
    for (const tagId of searchTagIds(query)) conditions.push(taggedWith([tagId]));
  } else if (query.searchQuery && query.types !== undefined) {
    const types = [...query.types];
    // Read from the matches (the owner unindexed): their ids from files_user_type, one range per type (else SQLite
    // walks the order's index, which needs no sort). Otherwise checked on each file's row, or (PostgreSQL) as its
    // planner finds best.
    const ofTypes = unindexed.has('user_id')
      ? eb(
          'files.id',
          'in',
          eb
            .selectFrom('files as typed')
            .select('typed.id')
            .where('typed.user_id', '=', ownerId)
            .where('typed.type', 'in', types),
        )
      : eb(column('type'), 'in', types);
    conditions.push(types.length === 0 ? sql<SqlBool>`1 = 0` : ofTypes);
  } else if (query.searchQuery && query.searchField !== 'tags') {
    conditions.push(searchCondition(ctx, query.searchField, query.searchQuery));
  }
  if (query.filter === 'dashboard') {
    // What Zipline's dashboard gallery shows: files a browser can display.
    conditions.push(
      eb.or(['image/', 'video/', 'audio/', 'text/'].map((prefix) => eb('files.type', 'like', `${prefix}%`))),
    );
  }
  if (query.tagIds && query.tagIds.length > 0) {
    // From the tag side (file_tags_tag_file): the files of these tags, not a look-up per file of the owner.
    conditions.push(taggedWith(query.tagIds));
  }
  return eb.and(conditions);
}

/** Case-insensitive (all of Unicode) substring match of one column, through its trigram index (db/schema/search-index.ts). */
function searchCondition(ctx: AppContext, field: FileSearchField | 'id', query: string): Expression<SqlBool> {
  // Ids have no trigram index (they are not words anyone types in part); they are lower case already.
  return searchMatch(ctx.engine, FILE_SEARCH, [SORT_COLUMNS[field]], query, { scan: field === 'id' });
}

/** The tag ids of a `searchField=tags` search (its searchQuery, comma-separated), without repeats. */
function searchTagIds(query: Pick<FileListQuery, 'searchField' | 'searchQuery'>): string[] {
  if (query.searchField !== 'tags' || !query.searchQuery) return [];
  return [
    ...new Set(
      query.searchQuery
        .split(',')
        .map((t) => t.trim())
        .filter(Boolean),
    ),
  ];
}

/** A `searchField=tags` search names only tags of the listed user: 1032 otherwise, as Zipline. */
async function assertSearchTags(ctx: AppContext, ownerId: string, query: FileListQuery): Promise<void> {
  const tagIds = searchTagIds(query);
  if (tagIds.length === 0) return;
  const found = await ctx.db
    .selectFrom('tags')
    .select('id')
    .where('user_id', '=', ownerId)
    .where('id', 'in', tagIds)
    .execute();
  if (found.length !== tagIds.length) {
    const known = new Set(found.map((t) => t.id));
    throw new ApiError(1032, tagIds.filter((id) => !known.has(id)).join(', '));
  }
}

/** The ids (and sort values) of one segment, after a position in it or from its start, in the segment's order. */
function segmentQuery(listing: Listing, segment: Segment, after: Position | undefined) {
  const ref = sql.ref(`files.${listing.column}`);
  const comparison = sql.raw(segment.direction === 'asc' ? '>' : '<');
  let q = listing.filtered.select(['files.id', sql<string | number | null>`${ref}`.as('sort_value')]);
  if (segment.nulls) {
    q = q.where(sql<SqlBool>`${ref} is null`);
    if (after) q = q.where('files.id', segment.direction === 'asc' ? '>' : '<', after.id);
    // All NULL: ordering by the column too lets PostgreSQL read the order from the same index.
    return q.orderBy(ref, segment.direction).orderBy('files.id', segment.direction);
  }
  if (listing.segments.length > 1) q = q.where(sql<SqlBool>`${ref} is not null`);
  if (listing.column === 'id') {
    // Ordered by the id itself: it is its own tie-breaker.
    if (after) q = q.where('files.id', segment.direction === 'asc' ? '>' : '<', after.id);
    return q.orderBy('files.id', segment.direction);
  }
  if (after) q = q.where(sql<SqlBool>`(${ref}, files.id) ${comparison} (${after.value}, ${after.id})`);
  return q.orderBy(ref, segment.direction).orderBy('files.id', segment.direction);
}

const flipped = (segment: Segment): Segment => ({
  ...segment,
  direction: segment.direction === 'asc' ? 'desc' : 'asc',
});

/** Reads no more rows of the order than this to find a search's page among them (readWindow). */
const MAX_WINDOW = 20_000;

type SegmentRow = { id: string; sort_value: string | number | null };

/**
 * Up to `take` matches of a segment after `skip` ones, from its start or after a position; with `held`, how many
 * matches the whole segment holds when that came out on the way (the window reached the segment's end).
 */
async function segmentRows(
  listing: Listing,
  segment: Segment,
  after: Position | undefined,
  skip: number,
  take: number,
): Promise<{ rows: SegmentRow[]; held?: number }> {
  const rowsPerMatch = listing.window?.rowsPerMatch;
  const windowed =
    rowsPerMatch !== undefined &&
    (await readWindow(listing, { ...listing.window!, rowsPerMatch }, segment, after, skip + take));
  if (windowed) {
    const rows = windowed.matches.slice(skip, skip + take);
    return windowed.ended ? { rows, held: windowed.matches.length } : { rows };
  }
  if (listing.readSegment && !after) return { rows: await listing.read(listing.readSegment(segment, skip, take)) };
  return { rows: await listing.read(segmentQuery(listing, segment, after).limit(take).offset(skip)) };
}

/**
 * A broad search's matches looked for among the next rows of the order itself, each matched here (foldCase, as
 * searchMatch matches): where the matches are many of the owner's files, a page's worth sits within a few times its
 * size (bildschirm, two files in three of a million: ~40 rows for a page of 24), where the index's list of every
 * match costs a look-up per match to build (~400 ms). Reads at most a few times as many rows as the matches' share
 * predicts (at most MAX_WINDOW); undefined when those held fewer than `need` matches (the matches cluster elsewhere:
 * the caller then reads through the index) or when the share predicts too many rows to try.
 */
async function readWindow(
  listing: Listing,
  window: Required<SearchWindow>,
  segment: Segment,
  after: Position | undefined,
  need: number,
): Promise<{ matches: SegmentRow[]; ended: boolean } | undefined> {
  const expected = need * window.rowsPerMatch;
  if (expected * 4 > MAX_WINDOW) return undefined;
  const limit = Math.max(200, Math.ceil(expected * 8));
  const rows = await listing.read(
    segmentQuery({ ...listing, filtered: window.files }, segment, after)
      .select(sql<string | null>`${sql.ref(`files.${window.column}`)}`.as('searched'))
      .limit(Math.min(limit, MAX_WINDOW)),
  );
  const matches = rows.filter((r) => r.searched !== null && foldCase(r.searched).includes(window.folded));
  const ended = rows.length < Math.min(limit, MAX_WINDOW);
  if (matches.length < need && !ended) return undefined;
  return { matches: matches.map((r) => ({ id: r.id, sort_value: r.sort_value })), ended };
}

/** Up to `take` positions after `after` (a cursor), across the segments that follow. */
async function readFrom(listing: Listing, after: Position, take: number): Promise<Position[]> {
  const positions: Position[] = [];
  for (let s = after.segment; s < listing.segments.length && positions.length < take; s++) {
    const { rows } = await segmentRows(
      listing,
      listing.segments[s]!,
      s === after.segment ? after : undefined,
      0,
      take - positions.length,
    );
    for (const r of rows) positions.push({ segment: s, value: r.sort_value, id: r.id });
  }
  return positions;
}

/**
 * The positions `skip` to `skip + take` of the order (page numbers). Past the middle, read backwards from the end,
 * so that the last pages cost what the first ones do.
 */
async function readAt(listing: Listing, skip: number, take: number, total: number): Promise<Position[]> {
  const fromEnd = total - skip - take;
  if (fromEnd >= skip || skip >= total) return readSkipping(listing, listing.segments, skip, take, false);
  const backwards = await readSkipping(
    listing,
    [...listing.segments].reverse().map(flipped),
    Math.max(0, fromEnd),
    Math.min(take, total - skip),
    true,
  );
  return backwards.reverse();
}

async function readSkipping(
  listing: Listing,
  segments: Segment[],
  skip: number,
  take: number,
  reversed: boolean,
): Promise<Position[]> {
  const positions: Position[] = [];
  for (let i = 0; i < segments.length && positions.length < take; i++) {
    const segment = segments[i]!;
    const { rows, held } = await segmentRows(listing, segment, undefined, skip, take - positions.length);
    const index = reversed ? segments.length - 1 - i : i;
    for (const r of rows) positions.push({ segment: index, value: r.sort_value, id: r.id });
    if (rows.length > 0 || skip === 0 || i === segments.length - 1) {
      skip = 0;
      continue;
    }
    // The whole segment was skipped: how many it held decides where the next one starts.
    if (held !== undefined) {
      skip = Math.max(0, skip - held);
      continue;
    }
    const [counted] = await listing.read(
      listing.filtered
        .where(
          sql<SqlBool>`${sql.ref(`files.${listing.column}`)} ${sql.raw(segment.nulls ? 'is null' : 'is not null')}`,
        )
        .select((eb) => eb.fn.countAll<number | string>().as('count')),
    );
    skip = Math.max(0, skip - Number(counted!.count));
  }
  return positions;
}

/** The rows of these positions, in their order (a look-up by primary key each). */
async function rowsInOrder(ctx: AppContext, positions: Position[]): Promise<FileRow[]> {
  if (positions.length === 0) return [];
  const rows = await ctx.db
    .selectFrom('files')
    .selectAll()
    .where(
      'id',
      'in',
      positions.map((p) => p.id),
    )
    .execute();
  const byId = new Map(rows.map((r) => [r.id, r]));
  // A file deleted between the two reads is left out of the page.
  return positions.flatMap((p) => byId.get(p.id) ?? []);
}

function encodeCursor(ctx: AppContext, listing: Listing, position: Position): string {
  return encodeListCursor(ctx, listing.key, { segment: position.segment, value: position.value, id: position.id });
}

/** The position a cursor stands for: one of this listing's, in one of its segments, with a value of its kind. */
function decodeCursor(ctx: AppContext, listing: Listing, cursor: string): Position {
  const { segment, value, id } = decodeListCursor(ctx, listing.key, cursor, ({ segment, value }) => {
    const of = segment === undefined ? undefined : listing.segments[segment];
    return of !== undefined && (of.nulls ? value === null : typeof value === (listing.textual ? 'string' : 'number'));
  });
  return { segment: segment!, value, id };
}

/**
 * The statements a listing runs, compiled: the count, each segment from its start, and each segment after a
 * position (a cursor). For the tests that check their query plans.
 */
export function listingStatements(ctx: AppContext, ownerId: string, query: ListQuery) {
  const listing = fileListing(ctx, ownerId, query);
  const position = (segment: number): Position => ({
    segment,
    value: listing.segments[segment]!.nulls ? null : listing.textual ? 'm' : 1,
    id: 'm',
  });
  return {
    count: listing.count.compile(),
    tagsByDate: listing.tagsByDate?.(listing.segments[0]!, 16, 16).compile(),
    fewMatches:
      listing.fromMatches &&
      segmentQuery({ ...listing, filtered: listing.fromMatches }, listing.segments[0]!, undefined)
        .limit(16)
        .compile(),
    first: listing.segments.map((segment) => segmentQuery(listing, segment, undefined).limit(16).compile()),
    after: listing.segments.map((segment, i) => segmentQuery(listing, segment, position(i)).limit(16).compile()),
  };
}
