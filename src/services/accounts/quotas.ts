// Per-user quotas: reading and validating what an admin sets (the spec's Quota shape), and the checks the upload and
// short-URL services run inside the transaction that records new content, so that concurrent requests cannot
// together go over a limit.
import { lockUser } from '../../db/locks.js';
import { NOT_NOW, precompiledByKey } from '../../db/precompiled.js';
import type { AppContext } from '../../context.js';
import type { Db, FilesQuotaKind, QuotaRow } from '../../db/schema/tables.js';
import { ApiError } from '../../lib/errors.js';
import { newId } from '../../lib/security/ids.js';
import { formatByteSize, parseByteSize } from '../../lib/text/sizes.js';
import { usageOfOne } from '../statistics/usage.js';
import type { QuotaInput } from '../../schemas/user.js';

/** A validated quota, as stored. A files limit is only in force when its maximum is not null. */
export interface QuotaLimits {
  filesQuota: FilesQuotaKind;
  maxBytes: number | null;
  maxFiles: number | null;
  maxUrls: number | null;
}

/**
 * Validates a quota written by an admin: BY_BYTES without maxBytes -> 1056, BY_FILES without maxFiles -> 1057, a
 * maxBytes that is not a size -> 1000. NONE limits no files; it is stored as BY_BYTES with no maxBytes (the spec's
 * filesQuota has no "none"), and NONE without maxUrls means no quota at all (null).
 */
export function resolveQuotaInput(input: QuotaInput | null): QuotaLimits | null {
  if (input === null) return null;
  const maxUrls = input.maxUrls ?? null;
  switch (input.filesQuota) {
    case 'BY_BYTES': {
      if (input.maxBytes === undefined || input.maxBytes === null || input.maxBytes === '') throw new ApiError(1056);
      const maxBytes = parseByteSize(input.maxBytes);
      if (maxBytes === null) {
        const message = 'must be a byte size such as 1073741824, 500mb or 10gb';
        throw new ApiError(1000, `quota.maxBytes ${message}`, {
          extra: { issues: [{ path: 'body.quota.maxBytes', message }] },
        });
      }
      return { filesQuota: 'BY_BYTES', maxBytes, maxFiles: null, maxUrls };
    }
    case 'BY_FILES':
      if (input.maxFiles === undefined || input.maxFiles === null) throw new ApiError(1057);
      return { filesQuota: 'BY_FILES', maxBytes: null, maxFiles: input.maxFiles, maxUrls };
    case 'NONE':
      return maxUrls === null ? null : { filesQuota: 'BY_BYTES', maxBytes: null, maxFiles: null, maxUrls };
  }
}

/**
 * A user's quota row. On SQLite it is kept in memory while no quota may have changed (db/sqlite/row-watch.ts; inside a
 * transaction the query runs as before): every upload reads it before its bytes arrive. The rows answered are shared:
 * nothing may change them.
 */
const quotaOfUser = precompiledByKey(
  (db, userId) => db.selectFrom('quotas').selectAll().where('user_id', '=', userId),
  {
    cache: { tables: [{ table: 'quotas' }], entries: 1_000 },
  },
);

export async function findQuota(db: Db, userId: string): Promise<QuotaRow | undefined> {
  const now = quotaOfUser.now(db, userId);
  return now === NOT_NOW ? quotaOfUser(db, userId) : now;
}

/** Replaces the user's quota (null removes it). Run it in the caller's transaction when it belongs to a larger change. */
export async function setUserQuota(
  ctx: Pick<AppContext, 'clock'>,
  db: Db,
  userId: string,
  limits: QuotaLimits | null,
): Promise<void> {
  if (limits === null) {
    await db.deleteFrom('quotas').where('user_id', '=', userId).execute();
    return;
  }
  const now = ctx.clock.now();
  const values = {
    files_quota: limits.filesQuota,
    max_bytes: limits.maxBytes,
    max_files: limits.maxFiles,
    max_urls: limits.maxUrls,
    updated_at: now,
  };
  await db
    .insertInto('quotas')
    .values({ id: newId(), user_id: userId, created_at: now, ...values })
    .onConflict((oc) => oc.column('user_id').doUpdateSet(values))
    .execute();
}

export interface QuotaUsage {
  /** Bytes of the user's stored files. */
  bytes: number;
  files: number;
  urls: number;
}

/** What the user holds, from the stored counters (kept in the same transaction as every change of files and URLs). */
export async function quotaUsage(db: Db, userId: string): Promise<QuotaUsage> {
  const usage = await usageOfOne(db, userId);
  return { bytes: usage.bytes, files: usage.files, urls: usage.urls };
}

export interface FileQuotaRoom {
  /** Bytes the user may still store, or null when bytes are not limited. */
  bytes: number | null;
  /** Files the user may still store, or null when files are not limited. */
  files: number | null;
}

/** What the user may still upload, for a check before streaming (e.g. to cut an upload off at the quota). */
export async function fileQuotaRoom(db: Db, userId: string): Promise<FileQuotaRoom> {
  const quota = await findQuota(db, userId);
  if (!quota) return { bytes: null, files: null };
  const usage = await usageOfOne(db, userId);
  return {
    bytes:
      quota.files_quota === 'BY_BYTES' && quota.max_bytes !== null
        ? Math.max(0, Number(quota.max_bytes) - usage.bytes)
        : null,
    files:
      quota.files_quota === 'BY_FILES' && quota.max_files !== null ? Math.max(0, quota.max_files - usage.files) : null,
  };
}

/**
 * Refuses (5002) storing `incoming` more bytes/files when that would exceed the user's file quota. Call it inside
 * the transaction that inserts the file rows, before inserting them: the check and the insert are then atomic.
 */
export async function assertFileQuota(
  ctx: Pick<AppContext, 'engine'>,
  trx: Db,
  userId: string,
  incoming: { bytes: number; files: number },
): Promise<void> {
  await lockUser(trx, ctx.engine, userId);
  const room = await fileQuotaRoom(trx, userId);
  if (room.bytes !== null && incoming.bytes > room.bytes) {
    throw new ApiError(5002, `${formatByteSize(room.bytes)} left of the byte quota`);
  }
  if (room.files !== null && incoming.files > room.files) {
    throw new ApiError(5002, `${room.files} file(s) left of the file quota`);
  }
}

/** Refuses (3012) creating `incoming` more short URLs beyond maxUrls. Call it inside the transaction that inserts them. */
export async function assertUrlQuota(
  ctx: Pick<AppContext, 'engine'>,
  trx: Db,
  userId: string,
  incoming = 1,
): Promise<void> {
  await lockUser(trx, ctx.engine, userId);
  const quota = await findQuota(trx, userId);
  if (!quota || quota.max_urls === null) return;
  const { urls } = await usageOfOne(trx, userId);
  if (urls + incoming > quota.max_urls) throw new ApiError(3012, `the quota allows ${quota.max_urls} short URL(s)`);
}

/** An imported quota, in the import's transaction. */
export async function insertImportedQuota(db: Db, row: QuotaRow): Promise<void> {
  await db.insertInto('quotas').values(row).execute();
}
