// Server-wide totals for the administration overview (GET /api/server/stats) and the storage each listed user
// holds (GET /api/server/stats/users). Everything is aggregated by the database: a handful of count/sum queries,
// never a scan in JavaScript; the totals come from the stored counters (services/statistics/usage.ts), so the answer costs the
// same at ten files and at a million.
import { sql } from 'kysely';
import type { AppContext } from '../../context.js';
import type { Role } from '../../db/schema/tables.js';
import { INSTANCE, OWNERLESS, topUsersByBytes, typeCounts, usageOf } from './usage.js';
import { flushViews } from '../serving/view-counts.js';
import { snapshotSchedule, type SnapshotSchedule } from './snapshots.js';

/** How many of the most common file types, and of the users storing the most, the overview lists. */
export const TOP_TYPES = 12;
export const TOP_USERS = 5;

export interface ServerStats {
  users: number;
  usersByRole: Record<Role, number>;
  files: number;
  /** Bytes of every stored file. */
  storageUsed: number;
  fileViews: number;
  /** Files whose owner was deleted without their content. */
  ownerlessFiles: number;
  urls: number;
  urlViews: number;
  invites: number;
  /** The most common media types, most files first. */
  filesByType: Array<{ type: string; files: number; bytes: number }>;
  /** The users storing the most bytes. */
  topUsers: Array<{ id: string; username: string; files: number; storageUsed: number }>;
  /** When the statistics snapshots come (the overview's charts say it). */
  snapshots: SnapshotSchedule;
}

export interface UserUsage {
  userId: string;
  files: number;
  storageUsed: number;
  urls: number;
}

// PostgreSQL answers count/sum over bigint as int8/numeric text; SQLite as numbers.
type Aggregate = number | string | null;
const num = (value: Aggregate | bigint | undefined): number => Number(value ?? 0);

export async function serverStats(ctx: AppContext): Promise<ServerStats> {
  // Totals of views include the ones this instance still holds in memory.
  await flushViews(ctx);
  const [roles, usage, types, top, invites, snapshots] = await Promise.all([
    ctx.db
      .selectFrom('users')
      .select(['role', sql<Aggregate>`count(*)`.as('count')])
      .groupBy('role')
      .execute(),
    usageOf(ctx.db, [INSTANCE, OWNERLESS]),
    typeCounts(ctx.db, INSTANCE, TOP_TYPES),
    topUsersByBytes(ctx.db, TOP_USERS),
    ctx.db
      .selectFrom('invites')
      .select(sql<Aggregate>`count(*)`.as('count'))
      .executeTakeFirstOrThrow(),
    snapshotSchedule(ctx),
  ]);
  const usersByRole: Record<Role, number> = { USER: 0, ADMIN: 0, SUPERADMIN: 0 };
  for (const row of roles) usersByRole[row.role] = num(row.count);
  const instance = usage.get(INSTANCE)!;
  return {
    users: usersByRole.USER + usersByRole.ADMIN + usersByRole.SUPERADMIN,
    usersByRole,
    files: instance.files,
    storageUsed: instance.bytes,
    fileViews: instance.fileViews,
    ownerlessFiles: usage.get(OWNERLESS)!.files,
    urls: instance.urls,
    urlViews: instance.urlViews,
    invites: num(invites.count),
    filesByType: types,
    topUsers: top.map((u) => ({ id: u.id, username: u.username, files: u.files, storageUsed: u.bytes })),
    snapshots,
  };
}

/**
 * Files, bytes and short URLs held by each of `userIds` (a page of the user list), in the order asked; unknown ids
 * answer zeros. Read from the stored counters.
 */
export async function usersUsage(ctx: AppContext, userIds: string[]): Promise<UserUsage[]> {
  const ids = [...new Set(userIds)];
  const usage = await usageOf(ctx.db, ids);
  return ids.map((userId) => {
    const u = usage.get(userId)!;
    return { userId, files: u.files, storageUsed: u.bytes, urls: u.urls };
  });
}
