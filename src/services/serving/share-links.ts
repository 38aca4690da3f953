// Share links of a file (/s/<id>): each with its own random id, optional password, view limit and expiry, made,
// listed and revoked by whoever manages the file. A link opens the file whether it is private or not; its own
// password replaces the file's (the owner chose who gets the link), and its views are counted by one conditional
// UPDATE, so concurrent downloads cannot pass the limit. A revoked, expired or used-up link answers like a missing
// file (4000).
import type { AppContext } from '../../context.js';
import type { FileShareRow, UserRow } from '../../db/schema/tables.js';
import { toIso } from '../../lib/clock.js';
import { ApiError } from '../../lib/errors.js';
import { MAX_EXPIRY_MS, parseDuration } from '../../lib/text/durations.js';
import { randomString } from '../../lib/security/ids.js';
import { hashPassword, passwordVersion, verifyPassword } from '../../lib/security/passwords.js';
import { findManagedFile } from '../files/manage.js';
import { planBytes, type BytesPlan, type BytesRequest } from './bytes-plan.js';
import { countBytesView, findServedFileById, openFileBytes, type ServedFile } from './files.js';

/** Length of a share id: 22 alphanumerics, about 131 random bits. */
const SHARE_ID_LENGTH = 22;
/** How long a token handed out for a link's right password opens it. */
export const SHARE_ACCESS_TOKEN_TTL_MS = 30 * 60_000;
const ACCESS_PURPOSE = 'share-access';

type Caller = Pick<UserRow, 'id' | 'role'>;

export interface ShareDto {
  id: string;
  fileId: string;
  passwordProtected: boolean;
  maxViews: number | null;
  views: number;
  expiresAt: string | null;
  createdAt: string;
}

export interface NewShare {
  password?: string | null | undefined;
  maxViews?: number | null | undefined;
  /** An ISO date-time or a duration from now (7d, 12h); absent or null: the link does not expire. */
  expiresAt?: string | null | undefined;
}

function toShareDto(row: FileShareRow): ShareDto {
  return {
    id: row.id,
    fileId: row.file_id,
    passwordProtected: row.password !== null,
    maxViews: row.max_views,
    views: row.views,
    expiresAt: row.expires_at === null ? null : toIso(row.expires_at),
    createdAt: toIso(row.created_at),
  };
}

function badExpiry(message: string): ApiError {
  return new ApiError(1000, `expiresAt ${message}`, { extra: { issues: [{ path: 'body.expiresAt', message }] } });
}

function expiryOf(ctx: AppContext, expiresAt: string | null | undefined): number | null {
  if (expiresAt === undefined || expiresAt === null || expiresAt === 'never') return null;
  const duration = parseDuration(expiresAt);
  const at =
    duration !== null
      ? ctx.clock.now() + duration
      : /^\d{4}-\d\d-\d\d/.test(expiresAt)
        ? Date.parse(expiresAt)
        : Number.NaN;
  if (Number.isNaN(at)) throw badExpiry('must be an ISO date-time, a duration such as 7d, or "never"');
  if (at <= ctx.clock.now()) throw badExpiry('must be in the future');
  if (at > MAX_EXPIRY_MS) throw badExpiry('is too far in the future');
  return at;
}

/** POST /api/user/files/:id/shares: a new link to a file the caller manages (4000 otherwise). */
export async function createShare(
  ctx: AppContext,
  caller: Caller,
  fileIdOrName: string,
  input: NewShare,
): Promise<ShareDto> {
  const file = await findManagedFile(ctx, caller, fileIdOrName);
  const expiresAt = expiryOf(ctx, input.expiresAt);
  const password = input.password ? await hashPassword(input.password) : null;
  const row: FileShareRow = {
    id: randomString(SHARE_ID_LENGTH),
    file_id: file.id,
    password,
    max_views: input.maxViews ?? null,
    views: 0,
    expires_at: expiresAt,
    created_at: ctx.clock.now(),
  };
  await ctx.db.insertInto('file_shares').values(row).execute();
  return toShareDto(row);
}

/** GET /api/user/files/:id/shares: the file's links, newest first. */
export async function listShares(ctx: AppContext, caller: Caller, fileIdOrName: string): Promise<ShareDto[]> {
  const file = await findManagedFile(ctx, caller, fileIdOrName);
  const rows = await ctx.db
    .selectFrom('file_shares')
    .selectAll()
    .where('file_id', '=', file.id)
    .orderBy('created_at', 'desc')
    .orderBy('id')
    .execute();
  return rows.map(toShareDto);
}

/** DELETE /api/user/files/:id/shares/:shareId: the link stops working at once; unknown -> 4000. */
export async function revokeShare(
  ctx: AppContext,
  caller: Caller,
  fileIdOrName: string,
  shareId: string,
): Promise<ShareDto> {
  const file = await findManagedFile(ctx, caller, fileIdOrName);
  const row = await ctx.db
    .deleteFrom('file_shares')
    .where('id', '=', shareId)
    .where('file_id', '=', file.id)
    .returningAll()
    .executeTakeFirst();
  if (!row) throw new ApiError(4000, 'no such share link');
  return toShareDto(row);
}

export interface OpenShare {
  share: FileShareRow;
  file: ServedFile;
}

/** The link and its file, while the link works: revoked, expired, used up, or its file gone -> 4000. */
export async function findShare(ctx: AppContext, shareId: string): Promise<OpenShare> {
  const share = await ctx.db.selectFrom('file_shares').selectAll().where('id', '=', shareId).executeTakeFirst();
  if (!share) throw new ApiError(4000);
  if (share.expires_at !== null && share.expires_at <= ctx.clock.now()) {
    await ctx.db.deleteFrom('file_shares').where('id', '=', share.id).execute();
    throw new ApiError(4000);
  }
  if (share.max_views !== null && share.views >= share.max_views) throw new ApiError(4000);
  return { share, file: await findServedFileById(ctx, share.file_id) };
}

/** Whether `token` opens this link (links without a password are open): no token -> 3004, a bad one -> 3018. */
export function assertShareUnlocked(
  ctx: AppContext,
  share: Pick<FileShareRow, 'id' | 'password'>,
  token: string | undefined,
): void {
  if (share.password === null) return;
  if (token === undefined || token === '') throw new ApiError(3004);
  const claims = ctx.secrets.verify<{ s: string; v: string }>(ACCESS_PURPOSE, token, ctx.clock.now());
  if (!claims || claims.s !== share.id || claims.v !== passwordVersion(ctx.secrets, share.password)) {
    throw new ApiError(3018);
  }
}

export function isShareUnlocked(
  ctx: AppContext,
  share: Pick<FileShareRow, 'id' | 'password'>,
  token: string | undefined,
): boolean {
  try {
    assertShareUnlocked(ctx, share, token);
    return true;
  } catch {
    return false;
  }
}

/**
 * The link's password form: the right password -> a token for ?token= (30 minutes, and only while the password
 * stays the same); wrong -> 3005. `countGuess` counts the guess first (rate limit per link and address).
 */
export async function unlockShare(
  ctx: AppContext,
  share: Pick<FileShareRow, 'id' | 'password'>,
  password: string,
  countGuess: (shareId: string) => Promise<void>,
): Promise<string> {
  if (share.password === null) throw new ApiError(3005, 'this link has no password');
  await countGuess(share.id);
  if (!(await verifyPassword(share.password, password))) throw new ApiError(3005);
  const claims = { s: share.id, v: passwordVersion(ctx.secrets, share.password) };
  return ctx.secrets.sign(ACCESS_PURPOSE, claims, ctx.clock.now() + SHARE_ACCESS_TOKEN_TTL_MS);
}

/**
 * Counts one view of the link: with a view limit by a conditional UPDATE (none left -> 4000, so of two racing for
 * the last view one gets it), without one likewise, as a plain count. The file's own views (and view limit) are
 * the caller's to count as well (countBytesView), so a file's limit holds through every link.
 */
export async function countShareView(ctx: AppContext, share: Pick<FileShareRow, 'id' | 'file_id'>): Promise<void> {
  const counted = await ctx.db
    .updateTable('file_shares')
    .set((eb) => ({ views: eb('views', '+', 1) }))
    .where('id', '=', share.id)
    .where((eb) => eb.or([eb('max_views', 'is', null), eb('views', '<', eb.ref('max_views'))]))
    .executeTakeFirst();
  if (Number(counted.numUpdatedRows) !== 1) throw new ApiError(4000);
}

/**
 * The answer to a request for the bytes of a share link's file, once the link is unlocked (3004, 3018). Never in a
 * shared cache: every request must reach the link's checks. A GET from the start (any GET of a view-limited link)
 * counts a view of the link, and then one of the file, so that the file's own limit holds through every link.
 */
export function shareBytesPlan(
  ctx: AppContext,
  { share, file }: OpenShare,
  request: BytesRequest,
  token: string | undefined,
): BytesPlan {
  assertShareUnlocked(ctx, share, token);
  return planBytes(file, request, {
    cacheControl: 'private, no-store',
    open: (span) => openFileBytes(ctx, file, span),
    opened: async (span) => {
      // As for files: a ranged continuation is the same view going on, unless the link has a view limit.
      if (span === undefined || span.start === 0 || share.max_views !== null) await countShareView(ctx, share);
      return countBytesView(ctx, file, span);
    },
  });
}
