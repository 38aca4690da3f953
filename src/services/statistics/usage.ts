// What an owner holds, read from the stored counters (db/schema/usage-counters.ts) instead of counted: one row per owner, so
// statistics, quota checks and listing totals cost the same at ten files and at a million.
import type { Db } from '../../db/schema/tables.js';
import {
  counterDrift,
  fillCounters,
  INSTANCE,
  type CounterDrift,
  type UsageCounters,
} from '../../db/schema/usage-counters.js';

export { INSTANCE, OWNERLESS } from '../../db/schema/usage-counters.js';

const ZERO: UsageCounters = { files: 0, bytes: 0, fileViews: 0, favorites: 0, urls: 0, urlViews: 0 };

function fromRow(row: {
  files: number;
  bytes: number;
  file_views: number;
  favorites: number;
  urls: number;
  url_views: number;
}): UsageCounters {
  return {
    files: Number(row.files),
    bytes: Number(row.bytes),
    fileViews: Number(row.file_views),
    favorites: Number(row.favorites),
    urls: Number(row.urls),
    urlViews: Number(row.url_views),
  };
}

/** The counters of several owners (user ids, OWNERLESS or INSTANCE), by owner; owners with nothing answer zeros. */
export async function usageOf(db: Db, owners: string[]): Promise<Map<string, UsageCounters>> {
  const unique = [...new Set(owners)];
  const rows =
    unique.length === 0 ? [] : await db.selectFrom('usage_counters').selectAll().where('owner', 'in', unique).execute();
  const found = new Map(rows.map((row) => [row.owner, fromRow(row)]));
  return new Map(unique.map((owner) => [owner, found.get(owner) ?? { ...ZERO }]));
}

/** The counters of one owner. */
export async function usageOfOne(db: Db, owner: string): Promise<UsageCounters> {
  return (await usageOf(db, [owner])).get(owner)!;
}

/** The owner's files and bytes by media type, most files first (then by type), at most `limit` types. */
export async function typeCounts(
  db: Db,
  owner: string,
  limit?: number,
): Promise<Array<{ type: string; files: number; bytes: number }>> {
  let query = db
    .selectFrom('type_counters')
    .select(['type', 'files', 'bytes'])
    .where('owner', '=', owner)
    .where('files', '>', 0)
    .orderBy('files', 'desc')
    .orderBy('type');
  if (limit !== undefined) query = query.limit(limit);
  const rows = await query.execute();
  return rows.map((r) => ({ type: r.type, files: Number(r.files), bytes: Number(r.bytes) }));
}

/** The users storing the most bytes (ties by id), with their counters; read through the counters' bytes index. */
export async function topUsersByBytes(
  db: Db,
  limit: number,
): Promise<Array<{ id: string; username: string; files: number; bytes: number }>> {
  const rows = await db
    .selectFrom('usage_counters')
    .innerJoin('users', 'users.id', 'usage_counters.owner')
    .select(['users.id as id', 'users.username as username', 'usage_counters.files', 'usage_counters.bytes'])
    .where('usage_counters.files', '>', 0)
    .orderBy('usage_counters.bytes', 'desc')
    .orderBy('usage_counters.owner')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ id: r.id, username: r.username, files: Number(r.files), bytes: Number(r.bytes) }));
}

export const instanceUsage = (db: Db): Promise<UsageCounters> => usageOfOne(db, INSTANCE);

/**
 * Recounts every counter from the tables, in one transaction (on PostgreSQL, writes to files and URLs wait for it).
 * For a counter that drifted (counterDrift says which), e.g. after a crash lost an interval of view totals, or after
 * rows were changed by hand.
 */
export async function rebuildUsageCounters(db: Db): Promise<void> {
  await db.transaction().execute((trx) => fillCounters(trx));
}

/** The counters that differ from a fresh count (empty when all hold). */
export const usageCounterDrift = (db: Db): Promise<CounterDrift[]> => counterDrift(db);
