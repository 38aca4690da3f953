// Short URLs: shortening (with the caller's maxUrls quota), the owner's list/edit/delete, and following a short link
// (/go/<code or vanity>): views counted in memory (a conditional UPDATE under a view limit), max views, passwords unlocked by signed tokens.
import { sql, type ExpressionBuilder, type Transaction } from 'kysely';
import type { AppContext } from '../../context.js';
import { NOT_NOW, precompiledByKey } from '../../db/precompiled.js';
import { searchMatch, searchUsesIndex, URL_SEARCH } from '../../db/schema/search-index.js';
import { isUniqueViolation } from '../../db/errors.js';
import type { Database, Db, UrlRow } from '../../db/schema/tables.js';
import { ApiError } from '../../lib/errors.js';
import type { Eventually } from '../../lib/eventually.js';
import { newId, randomString } from '../../lib/security/ids.js';
import { hashPassword, passwordVersion, verifyPassword } from '../../lib/security/passwords.js';
import { urlLink } from '../../lib/text/links.js';
import { isDeepPage, listRunner, MANY_MATCHES, pageOfRows } from '../lists/pages.js';
import { decodeListCursor, encodeListCursor, listKey, type ListPosition } from '../lists/cursors.js';
import { assertUrlQuota } from '../accounts/quotas.js';
import { usageOfOne } from '../statistics/usage.js';
import { queueWebhooks, webhooksWanted } from '../operations/webhooks.js';
import { ownerNotDeleted } from '../accounts/deleted-owners.js';
import { toUrlDto } from './dto.js';

/** How long the token handed out for a right password lets its holder follow the link. */
export const UNLOCK_TOKEN_TTL_MS = 5 * 60_000;
const UNLOCK_PURPOSE = 'url-unlock';
const CODE_ATTEMPTS = 8;

export interface NewUrlInput {
  destination: string;
  vanity?: string | undefined;
  enabled?: boolean | undefined;
  maxViews?: number | undefined;
  password?: string | undefined;
  /** Where the links of the URL's webhook deliveries point (the request's base); without it, none are sent. */
  baseUrl?: string | undefined;
}

export interface UrlPatch {
  destination?: string | undefined;
  vanity?: string | null | undefined;
  enabled?: boolean | undefined;
  maxViews?: number | null | undefined;
  password?: string | null | undefined;
}

/** Only absolute http(s) URLs may be shortened (no javascript:, data:, file: ... redirects). */
export function checkDestination(destination: string): string {
  const trimmed = destination.trim();
  let parsed: URL;
  try {
    parsed = new URL(trimmed);
  } catch {
    throw new ApiError(1000, 'destination must be an absolute http:// or https:// URL');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new ApiError(1000, 'destination must be an http:// or https:// URL');
  }
  // The normalised form: non-ASCII percent-encoded, so that it is always a valid Location header.
  return parsed.href;
}

class CodeCollision extends Error {}

export async function createUrl(ctx: AppContext, userId: string, input: NewUrlInput): Promise<UrlRow> {
  const destination = checkDestination(input.destination);
  const passwordHash = input.password ? await hashPassword(input.password) : null;
  for (let attempt = 0; ; attempt++) {
    try {
      return await ctx.db.transaction().execute(async (trx) => {
        // Locks the user until commit: "count, compare, insert" is atomic, concurrent shortens cannot overshoot.
        await assertUrlQuota(ctx, trx, userId);
        const now = ctx.clock.now();
        const row: UrlRow = {
          id: newId(),
          user_id: userId,
          code: randomString(ctx.settings.get().urlsLength),
          vanity: input.vanity ?? null,
          destination,
          views: 0,
          max_views: input.maxViews ?? null,
          password: passwordHash,
          enabled: input.enabled === false ? 0 : 1,
          created_at: now,
          updated_at: now,
        };
        if (row.vanity !== null) await claimVanity(trx, row.vanity, 'create');
        try {
          await trx.insertInto('urls').values(row).execute();
        } catch (err) {
          // urls.code and urls.vanity are unique too: a race lost on either ends like one lost on url_slugs.
          if (isUniqueViolation(err, 'vanity')) throw new ApiError(VANITY_TAKEN_ON_CREATE, row.vanity ?? undefined);
          if (isUniqueViolation(err)) throw new CodeCollision();
          throw err;
        }
        if (row.vanity !== null) await insertSlug(trx, row.vanity, row.id, 'vanity', VANITY_TAKEN_ON_CREATE);
        try {
          await trx.insertInto('url_slugs').values({ slug: row.code, url_id: row.id, kind: 'code' }).execute();
        } catch (err) {
          if (isUniqueViolation(err)) throw new CodeCollision();
          throw err;
        }
        const base = input.baseUrl;
        if (base !== undefined && webhooksWanted(ctx, 'shorten')) {
          // With the URL's record: a shortened URL always has its deliveries, a refused one none.
          const link = (slug: string) => urlLink(ctx.settings.get(), base, slug);
          const url = toUrlDto(ctx, row, link);
          await queueWebhooks(ctx, trx, base, userId, [{ event: 'shorten', url, links: { url: url.url } }]);
        }
        return row;
      });
    } catch (err) {
      // A random code equal to an existing code or vanity: try another (the transaction was rolled back).
      if (err instanceof CodeCollision && attempt < CODE_ATTEMPTS) continue;
      if (err instanceof CodeCollision) throw new ApiError(9004, 'could not find a free short code; raise urlsLength');
      throw err;
    }
  }
}

/** A taken vanity on create: Zipline's POST /api/user/urls answers 1042 ("vanity already taken"). */
const VANITY_TAKEN_ON_CREATE = 1042;
/** Another URL's vanity on edit: Zipline's PATCH /api/user/urls/:id answers 1041 ("vanity already exists"). */
const VANITY_TAKEN_ON_EDIT = 1041;

/**
 * Refuses a vanity that is already some URL's vanity or random code, a clear error before the insert would fail:
 * on create 1042 either way (Zipline's POST); on edit 1041 for another vanity (Zipline's PATCH) and 1042 for a code.
 */
async function claimVanity(trx: Transaction<Database>, vanity: string, on: 'create' | 'edit'): Promise<void> {
  const taken = await trx.selectFrom('url_slugs').select('kind').where('slug', '=', vanity).executeTakeFirst();
  if (!taken) return;
  throw new ApiError(on === 'edit' && taken.kind === 'vanity' ? VANITY_TAKEN_ON_EDIT : VANITY_TAKEN_ON_CREATE, vanity);
}

async function insertSlug(
  trx: Transaction<Database>,
  slug: string,
  urlId: string,
  kind: 'code' | 'vanity',
  takenCode: 1041 | 1042,
): Promise<void> {
  try {
    await trx.insertInto('url_slugs').values({ slug, url_id: urlId, kind }).execute();
  } catch (err) {
    // Lost a race with another request claiming the same slug.
    if (isUniqueViolation(err)) throw new ApiError(takenCode, slug);
    throw err;
  }
}

export type UrlSearchField = 'destination' | 'vanity' | 'code';

export interface UrlListQuery {
  searchQuery?: string | undefined;
  searchField?: UrlSearchField | undefined;
  page: number;
  /** null: every match at once (Zipline's Url[] answer; as long as the list). */
  perPage: number | null;
  /** A `nextCursor` of an earlier page of the same listing: the page after it (then `page` is not used). */
  cursor?: string | undefined;
}

export interface UrlListPage {
  rows: UrlRow[];
  total: number;
  nextCursor: string | null;
}

/**
 * The caller's URLs, newest first (ties by id), optionally filtered by a case-insensitive substring of one or all
 * fields. Read from urls_user_created_id: a page by number from the nearer end, a cursor's page after its position;
 * the unfiltered total from the stored counters. A search of three characters or more reads the matches from the
 * trigram index (db/schema/search-index.ts) and sorts them; a shorter one scans the caller's URLs. What may read many rows (a
 * search's count, the pages of a search with many matches, a page number deep in the list, all of many URLs at once)
 * runs on ctx.reads, off the main thread on SQLite.
 */
export async function listUrls(ctx: AppContext, userId: string, query: UrlListQuery): Promise<UrlListPage> {
  const listing = urlListing(ctx, userId, query);
  const stored = query.searchQuery ? undefined : (await usageOfOne(ctx.db, userId)).urls;
  if (query.perPage === null) {
    const all = listing.base.selectAll().orderBy('created_at', 'desc').orderBy('id', 'asc');
    const rows = await listRunner(ctx, stored === undefined || stored > MANY_MATCHES)(all);
    return { rows, total: rows.length, nextCursor: null };
  }
  const perPage = query.perPage;
  const after = query.cursor === undefined ? undefined : decodeListCursor(ctx, listing.key, query.cursor, 'number');
  const total = stored ?? Number((await ctx.reads.all(listing.count))[0]!.count);
  const long = (query.searchQuery && total > MANY_MATCHES) || (!after && isDeepPage(query.page, perPage, total));
  const run = listRunner(ctx, Boolean(long));
  const { rows, hasNext } = await pageOfRows(
    { page: query.page, perPage, after },
    total,
    (position, limit) => run(listing.after(position).limit(limit)),
    (direction, offset, limit) => run(listing.page(direction, offset, limit)),
  );
  const last = rows.at(-1);
  const nextCursor =
    hasNext && last ? encodeListCursor(ctx, listing.key, { value: last.created_at, id: last.id }) : null;
  return { rows, total, nextCursor };
}

/**
 * The statements of a listing of URLs: the filtered rows and their count, a page by number in either direction, a
 * cursor's page.
 */
function urlListing(ctx: AppContext, userId: string, query: Pick<UrlListQuery, 'searchQuery' | 'searchField'>) {
  const search = query.searchQuery;
  // SQLite, a search through the trigram index: the owner behind a unary + (which no index serves), so that the
  // planner starts from the matches (then sorts them) instead of checking each of the owner's URLs in turn.
  const owner =
    ctx.engine === 'sqlite' && search && searchUsesIndex(search) ? sql<string>`+urls.user_id` : sql.ref('urls.user_id');
  let base = ctx.db.selectFrom('urls').where((eb) => eb(owner, '=', userId));
  if (search) {
    // Through the trigram index (db/schema/search-index.ts), as the file search: case-insensitive for all of Unicode.
    const fields = query.searchField ? [query.searchField] : URL_SEARCH.columns;
    base = base.where(searchMatch(ctx.engine, URL_SEARCH, fields, search));
  }
  const page = (direction: 'forward' | 'backward', offset: number, limit: number) =>
    base
      .selectAll()
      .orderBy('created_at', direction === 'forward' ? 'desc' : 'asc')
      .orderBy('id', direction === 'forward' ? 'asc' : 'desc')
      .limit(limit)
      .offset(offset);
  // Newest first, ties by id: the rows after (v, i) are older, or as old with a greater id.
  const after = (position: ListPosition) =>
    base
      .selectAll()
      .where('created_at', '<=', Number(position.value))
      .where((eb) => eb.or([eb('created_at', '<', Number(position.value)), eb('id', '>', position.id)]))
      .orderBy('created_at', 'desc')
      .orderBy('id', 'asc');
  const key = listKey(['urls', userId, query.searchQuery ? [query.searchField ?? null, query.searchQuery] : null]);
  const count = base.select((eb) => eb.fn.countAll<number | string>().as('count'));
  return { base, count, page, after, key };
}

/** The statements a listing of URLs runs, compiled (for the tests of their query plans). */
export function urlListStatements(
  ctx: AppContext,
  userId: string,
  search: Pick<UrlListQuery, 'searchQuery' | 'searchField'> = {},
  position: ListPosition = { value: 1, id: 'm' },
) {
  const listing = urlListing(ctx, userId, search);
  return {
    count: listing.count.compile(),
    forward: listing.page('forward', 0, 50).compile(),
    backward: listing.page('backward', 0, 50).compile(),
    after: listing.after(position).limit(50).compile(),
  };
}

/** The caller's URL; another user's is answered exactly like a missing one. */
export function getOwnUrl(ctx: AppContext, userId: string, id: string): Promise<UrlRow> {
  return findOwnUrl(ctx.db, userId, id);
}

async function findOwnUrl(db: Db, userId: string, id: string): Promise<UrlRow> {
  const row = await db
    .selectFrom('urls')
    .selectAll()
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  if (!row) throw new ApiError(9002, 'no such URL');
  return row;
}

export async function updateUrl(ctx: AppContext, userId: string, id: string, patch: UrlPatch): Promise<UrlRow> {
  const destination = patch.destination === undefined ? undefined : checkDestination(patch.destination);
  const password =
    patch.password === undefined
      ? undefined
      : patch.password === null || patch.password === ''
        ? null
        : await hashPassword(patch.password);
  return ctx.db.transaction().execute(async (trx) => {
    const current = await findOwnUrl(trx, userId, id);
    if (patch.vanity !== undefined && patch.vanity !== current.vanity) {
      await trx.deleteFrom('url_slugs').where('url_id', '=', id).where('kind', '=', 'vanity').execute();
      if (patch.vanity !== null) {
        await claimVanity(trx, patch.vanity, 'edit');
        await insertSlug(trx, patch.vanity, id, 'vanity', VANITY_TAKEN_ON_EDIT);
      }
    }
    return trx
      .updateTable('urls')
      .set({
        ...(destination !== undefined && { destination }),
        ...(patch.vanity !== undefined && { vanity: patch.vanity }),
        ...(patch.enabled !== undefined && { enabled: patch.enabled ? 1 : 0 }),
        ...(patch.maxViews !== undefined && { max_views: patch.maxViews }),
        ...(password !== undefined && { password }),
        updated_at: ctx.clock.now(),
      })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
  });
}

export async function deleteUrl(ctx: AppContext, userId: string, id: string): Promise<UrlRow> {
  const row = await ctx.db
    .deleteFrom('urls')
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .returningAll()
    .executeTakeFirst();
  if (!row) throw new ApiError(9002, 'no such URL');
  return row;
}

export type FollowOutcome =
  /** `limited`: the URL has a view limit (a HEAD, which counts no view, must not show where it leads). */
  | { kind: 'redirect'; destination: string; limited?: boolean }
  | { kind: 'password'; urlId: string }
  | { kind: 'missing' };

/**
 * Follows /go/<slug>: one look-up through the slug's primary key, kept in memory on SQLite while the link is unchanged
 * (findRedirect). A view of a URL without a view limit is counted in memory (serving/view-counts.ts: no write on the
 * read path), and the answer is then synchronous when the look-up was (the fast path's, http/serving/fast-path.ts);
 * one with a limit by one conditional UPDATE, exact across instances, and the URL is removed once used up.
 */
export function followShortUrl(ctx: AppContext, slug: string, unlockToken?: string): Eventually<FollowOutcome> {
  const follow = (url: RedirectColumns | undefined): Eventually<FollowOutcome> => {
    if (!url || url.enabled !== 1) return { kind: 'missing' };
    if (url.password !== null && !unlocks(ctx, unlockToken, url)) return { kind: 'password', urlId: url.id };
    // A destination Node would refuse as a Location header (one imported as it was) fails before a view is counted.
    if (!HEADER_VALUE.test(url.destination)) throw new ApiError(9004, 'the destination is not a valid Location header');
    if (url.max_views !== null) return countLimitedFollow(ctx, url);
    ctx.views.add('urls', url.id);
    return { kind: 'redirect', destination: url.destination };
  };
  const now = findRedirect.now(ctx.db, slug);
  return now === NOT_NOW ? findRedirect(ctx.db, slug).then(follow) : follow(now);
}

/** What Node accepts in a header value. */
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

type RedirectColumns = Pick<UrlRow, 'id' | 'destination' | 'enabled' | 'password' | 'max_views'>;

/** A view of a URL with a view limit: counted by a conditional UPDATE; used up -> missing, and the URL goes. */
async function countLimitedFollow(ctx: AppContext, url: RedirectColumns): Promise<FollowOutcome> {
  const counted = await ctx.db
    .updateTable('urls')
    .set((eb) => ({ views: eb('views', '+', 1) }))
    .where('id', '=', url.id)
    .where('enabled', '=', 1)
    .where((eb) => eb.or([eb('max_views', 'is', null), eb('views', '<', eb.ref('max_views'))]))
    .returning(['destination', 'user_id'])
    .executeTakeFirst();
  if (counted) {
    // The owner's view total follows with the next flush of the batched views (no shared row written here).
    ctx.views.written('urls', url.id, counted.user_id);
    return { kind: 'redirect', destination: counted.destination };
  }
  // Used up: the link is removed (only while it still is used up, should its owner have raised the limit meanwhile).
  await ctx.db
    .deleteFrom('urls')
    .where('id', '=', url.id)
    .where('max_views', 'is not', null)
    .where('views', '>=', (eb) => eb.ref('max_views'))
    .execute();
  return { kind: 'missing' };
}

/**
 * What following a short URL needs of it, kept in memory on SQLite while none of it may have changed
 * (db/sqlite/row-watch.ts watches what it reads: these columns of urls, url_slugs and user_deletions; not the view
 * count, which a view-limited link's conditional UPDATE reads itself): most redirects then run no query at all.
 */
const findRedirect = precompiledByKey(
  (db, slug) =>
    urlBySlug(db, slug)
      .clearSelect()
      .select(['urls.id', 'urls.destination', 'urls.enabled', 'urls.password', 'urls.max_views']),
  {
    cache: {
      tables: [
        { table: 'urls', columns: ['id', 'user_id', 'destination', 'enabled', 'password', 'max_views'] },
        { table: 'url_slugs' },
        { table: 'user_deletions' },
      ],
      entries: 10_000,
    },
  },
);

/** What following /go/<slug> would answer, without counting a view: for HEAD requests (link checkers, previews). */
export async function peekShortUrl(ctx: AppContext, slug: string, unlockToken?: string): Promise<FollowOutcome> {
  const url = await findUrlBySlug(ctx.db, slug);
  if (!url || url.enabled !== 1 || (url.max_views !== null && url.views >= url.max_views)) return { kind: 'missing' };
  if (url.password !== null && !unlocks(ctx, unlockToken, url)) return { kind: 'password', urlId: url.id };
  return { kind: 'redirect', destination: url.destination, limited: url.max_views !== null };
}

/** What Zipline's /view/url/<id> shows: a protected URL's password form, or the way to the link itself. */
export type UrlViewOutcome =
  | { kind: 'missing' }
  /** `slug`: the code or vanity that the short link uses. */
  | { kind: 'open'; slug: string }
  | { kind: 'password'; urlId: string; slug: string };

/**
 * A short URL by its id (what Zipline's /go redirects protected URLs to), or by code or vanity as Zipline's password
 * route finds it: missing, disabled or used up -> missing. `unlockToken` (from unlockUrl) opens a protected one.
 */
export async function shortUrlForView(ctx: AppContext, id: string, unlockToken?: string): Promise<UrlViewOutcome> {
  const url =
    (await ctx.db
      .selectFrom('urls')
      .select(['id', 'code', 'vanity', 'enabled', 'password', 'max_views', 'views'])
      .where('id', '=', id)
      .executeTakeFirst()) ??
    (await ctx.db
      .selectFrom('url_slugs')
      .innerJoin('urls', 'urls.id', 'url_slugs.url_id')
      .select(['urls.id', 'urls.code', 'urls.vanity', 'urls.enabled', 'urls.password', 'urls.max_views', 'urls.views'])
      .where('url_slugs.slug', '=', id)
      .executeTakeFirst());
  if (!url || url.enabled !== 1 || (url.max_views !== null && url.views >= url.max_views)) return { kind: 'missing' };
  const slug = url.vanity ?? url.code;
  if (url.password !== null && !unlocks(ctx, unlockToken, url)) return { kind: 'password', urlId: url.id, slug };
  return { kind: 'open', slug };
}

/** What a visitor's posted password form of a short URL comes to. */
export type UrlPasswordFormOutcome =
  | { kind: 'missing' }
  /** The URL has no password: on to its link, /go/<slug>. */
  | { kind: 'open'; slug: string }
  /** No password was typed: the form again. */
  | { kind: 'empty' }
  | { kind: 'unlocked'; slug: string; token: string };

/**
 * The password form of a protected short URL, posted to its link (`slug`: POST /go/<slug>) or to Zipline's address
 * of the form (`viewId`, an id, code or vanity: POST /view/url/<id>): the right password -> a token (unlockUrl's
 * errors for a wrong one, or too many guesses).
 */
export async function submitUrlPasswordForm(
  ctx: AppContext,
  target: { slug: string } | { viewId: string },
  password: string,
  countGuess: (urlId: string) => Promise<void>,
): Promise<UrlPasswordFormOutcome> {
  let slug: string;
  let urlId: string | null;
  if ('slug' in target) {
    const outcome = await peekShortUrl(ctx, target.slug);
    if (outcome.kind === 'missing') return outcome;
    [slug, urlId] = [target.slug, outcome.kind === 'password' ? outcome.urlId : null];
  } else {
    const outcome = await shortUrlForView(ctx, target.viewId);
    if (outcome.kind === 'missing') return outcome;
    [slug, urlId] = [outcome.slug, outcome.kind === 'password' ? outcome.urlId : null];
  }
  if (urlId === null) return { kind: 'open', slug };
  if (password === '') return { kind: 'empty' };
  const { token } = await unlockUrl(ctx, urlId, password, countGuess);
  return { kind: 'unlocked', slug, token };
}

/** The look-up of a redirect: the slug's primary key, then the URL's. */
export function urlBySlug(db: Db, slug: string) {
  return db
    .selectFrom('url_slugs')
    .innerJoin('urls', 'urls.id', 'url_slugs.url_id')
    .select(['urls.id', 'urls.destination', 'urls.enabled', 'urls.password', 'urls.max_views', 'urls.views'])
    .where('url_slugs.slug', '=', slug)
    .where(ownerNotDeleted('urls.user_id'));
}

const findUrlBySlug = precompiledByKey(urlBySlug);

/** Whether `token` (from unlockUrl) unlocks the URL now: made for this URL and its current password. */
function unlocks(ctx: AppContext, token: string | undefined, url: Pick<UrlRow, 'id' | 'password'>): boolean {
  if (!token) return false;
  const claims = ctx.secrets.verify<{ u: string; v?: string }>(UNLOCK_PURPOSE, token, ctx.clock.now());
  return claims?.u === url.id && claims.v === passwordVersion(ctx.secrets, url.password);
}

/** Checks a visitor's password for a protected URL (by id, code or vanity); right -> a token that unlocks the redirect. */
export async function unlockUrl(
  ctx: AppContext,
  id: string,
  password: string,
  /** Counts one guess at this URL's password (throws when there were too many): passwordGuessGuard. */
  countGuess: (urlId: string) => Promise<void>,
): Promise<{ token: string; slug: string; expiresAt: number }> {
  const url = await ctx.db
    .selectFrom('urls')
    .select(['id', 'code', 'vanity', 'password', 'enabled'])
    // By id, or by code or vanity as Zipline finds it.
    .where((eb) =>
      eb.or([eb('id', '=', id), eb('id', 'in', eb.selectFrom('url_slugs').select('url_id').where('slug', '=', id))]),
    )
    .executeTakeFirst();
  if (!url || url.enabled !== 1) {
    await verifyPassword(null, password);
    throw new ApiError(9002, 'no such URL');
  }
  await countGuess(url.id);
  if (!(await verifyPassword(url.password, password))) throw new ApiError(3005);
  const expiresAt = ctx.clock.now() + UNLOCK_TOKEN_TTL_MS;
  const claims = { u: url.id, v: passwordVersion(ctx.secrets, url.password) };
  return { token: ctx.secrets.sign(UNLOCK_PURPOSE, claims, expiresAt), slug: url.vanity ?? url.code, expiresAt };
}

// --- The writes other services ask of this module, the one writer of urls and url_slugs -----------------------------

/** Adds batched views to a short URL (serving/view-counts.ts): its owner, or undefined when it is gone. */
export function addUrlViews(db: Db, id: string, views: number) {
  return db
    .updateTable('urls')
    .set((eb) => ({ views: eb('views', '+', views) }))
    .where('id', '=', id)
    .returning('user_id')
    .executeTakeFirst();
}

/** The ids of at most `size` of the user's short URLs, as a subquery. */
const urlsOfUser = (userId: string, size: number) => (eb: ExpressionBuilder<Database, 'urls'>) =>
  eb.selectFrom('urls').select('id').where('user_id', '=', userId).limit(size);

/** The statement deleting at most `size` of a user's short URLs (a user deleted with their content), to run in batches. */
export function urlsOfUserDeletion(db: Db, userId: string, size: number) {
  return db.deleteFrom('urls').where('id', 'in', urlsOfUser(userId, size));
}

/** The statement taking at most `size` of a user's short URLs from them (a user deleted without their content). */
export function disownUrlsOf(db: Db, userId: string, size: number) {
  return db.updateTable('urls').set({ user_id: null }).where('id', 'in', urlsOfUser(userId, size));
}

/** An imported short URL and its slugs (its code, and its vanity when it has one), in the import's transaction. */
export async function insertImportedUrl(db: Db, row: UrlRow): Promise<void> {
  await db.insertInto('urls').values(row).execute();
  await db
    .insertInto('url_slugs')
    .values([
      { slug: row.code, url_id: row.id, kind: 'code' as const },
      ...(row.vanity ? [{ slug: row.vanity, url_id: row.id, kind: 'vanity' as const }] : []),
    ])
    .execute();
}
