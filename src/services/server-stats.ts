// Server-wide totals for the administration overview (GET /api/server/stats) and the storage each listed user
// holds (GET /api/server/stats/users). Everything is aggregated by the database: a handful of count/sum queries,
// never a scan in JavaScript, so the answer stays quick with hundreds of thousands of files.
import { sql } from 'kysely';
import type { AppContext } from '../context.js';
import type { Role } from '../db/types.js';
import { flushViews } from './view-counts.js';

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
  const [roles, files, types, top, urls, invites] = await Promise.all([
    ctx.db
      .selectFrom('users')
      .select(['role', sql<Aggregate>`count(*)`.as('count')])
      .groupBy('role')
      .execute(),
    ctx.db
      .selectFrom('files')
      .select([
        sql<Aggregate>`count(*)`.as('count'),
        sql<Aggregate>`sum(size)`.as('bytes'),
        sql<Aggregate>`sum(views)`.as('views'),
        sql<Aggregate>`count(*) - count(user_id)`.as('ownerless'),
      ])
      .executeTakeFirstOrThrow(),
    ctx.db
      .selectFrom('files')
      .select(['type', sql<Aggregate>`count(*)`.as('count'), sql<Aggregate>`sum(size)`.as('bytes')])
      .groupBy('type')
      .orderBy(sql`count(*)`, 'desc')
      .orderBy('type')
      .limit(TOP_TYPES)
      .execute(),
    ctx.db
      .selectFrom('files')
      .innerJoin('users', 'users.id', 'files.user_id')
      .select([
        'users.id as id',
        'users.username as username',
        sql<Aggregate>`count(*)`.as('count'),
        sql<Aggregate>`sum(files.size)`.as('bytes'),
      ])
      .groupBy(['users.id', 'users.username'])
      .orderBy(sql`sum(files.size)`, 'desc')
      .orderBy('users.id')
      .limit(TOP_USERS)
      .execute(),
    ctx.db
      .selectFrom('urls')
      .select([sql<Aggregate>`count(*)`.as('count'), sql<Aggregate>`sum(views)`.as('views')])
      .executeTakeFirstOrThrow(),
    ctx.db
      .selectFrom('invites')
      .select(sql<Aggregate>`count(*)`.as('count'))
      .executeTakeFirstOrThrow(),
  ]);
  const usersByRole: Record<Role, number> = { USER: 0, ADMIN: 0, SUPERADMIN: 0 };
  for (const row of roles) usersByRole[row.role] = num(row.count);
  return {
    users: usersByRole.USER + usersByRole.ADMIN + usersByRole.SUPERADMIN,
    usersByRole,
    files: num(files.count),
    storageUsed: num(files.bytes),
    fileViews: num(files.views),
    ownerlessFiles: num(files.ownerless),
    urls: num(urls.count),
    urlViews: num(urls.views),
    invites: num(invites.count),
    filesByType: types.map((t) => ({ type: t.type, files: num(t.count), bytes: num(t.bytes) })),
    topUsers: top.map((u) => ({ id: u.id, username: u.username, files: num(u.count), storageUsed: num(u.bytes) })),
  };
}

/**
 * Files, bytes and short URLs held by each of `userIds` (a page of the user list), in the order asked; unknown ids
 * answer zeros. Each count reads only the users' own rows through the (user_id, ...) indexes.
 */
export async function usersUsage(ctx: AppContext, userIds: string[]): Promise<UserUsage[]> {
  const ids = [...new Set(userIds)];
  if (ids.length === 0) return [];
  const [files, urls] = await Promise.all([
    ctx.db
      .selectFrom('files')
      .select(['user_id', sql<Aggregate>`count(*)`.as('count'), sql<Aggregate>`sum(size)`.as('bytes')])
      .where('user_id', 'in', ids)
      .groupBy('user_id')
      .execute(),
    ctx.db
      .selectFrom('urls')
      .select(['user_id', sql<Aggregate>`count(*)`.as('count')])
      .where('user_id', 'in', ids)
      .groupBy('user_id')
      .execute(),
  ]);
  const fileRows = new Map(files.map((f) => [f.user_id, f]));
  const urlRows = new Map(urls.map((u) => [u.user_id, u]));
  return ids.map((userId) => ({
    userId,
    files: num(fileRows.get(userId)?.count),
    storageUsed: num(fileRows.get(userId)?.bytes),
    urls: num(urlRows.get(userId)?.count),
  }));
}
