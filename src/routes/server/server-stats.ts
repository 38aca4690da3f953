// Server statistics for admins: the overview's totals (GET /api/server/stats) and what a page of users stores
// (GET /api/server/stats/users?ids=...), for the administration pages of the dashboard.
import { z } from 'zod';
import { requireAdmin } from '../../http/auth.js';
import { guardedRoute } from '../../http/openapi.js';
import type { RouteModule } from '../../http/types.js';
import { serverStats, TOP_TYPES, TOP_USERS, usersUsage } from '../../services/statistics/totals.js';

const tags = ['server'];
const Count = z.number().int();

const ServerStatsSchema = z
  .object({
    users: Count,
    usersByRole: z.object({ USER: Count, ADMIN: Count, SUPERADMIN: Count }),
    files: Count,
    storageUsed: Count.describe('bytes of every stored file'),
    fileViews: Count,
    ownerlessFiles: Count.describe('files kept after their owner was deleted'),
    urls: Count,
    urlViews: Count,
    invites: Count,
    filesByType: z
      .array(z.object({ type: z.string(), files: Count, bytes: Count }))
      .describe(`the ${TOP_TYPES} most common media types, most files first`),
    topUsers: z
      .array(z.object({ id: z.string(), username: z.string(), files: Count, storageUsed: Count }))
      .describe(`the ${TOP_USERS} users storing the most bytes`),
  })
  .meta({ id: 'ServerStats' });

const UserIds = z
  .string()
  .max(6500)
  .transform((value) =>
    value
      .split(',')
      .map((id) => id.trim())
      .filter(Boolean),
  )
  .pipe(z.array(z.string().min(1).max(64)).max(100))
  .describe('comma-separated user ids, at most 100 (a page of GET /api/users)');

export const serverStatsRoutes: RouteModule = (app, ctx) => {
  const adminOnly = guardedRoute(requireAdmin(ctx), tags);

  app.get(
    '/api/server/stats',
    adminOnly({
      summary: 'Server totals: users, files, bytes stored, views, short URLs, invites, files by type, top users',
      response: { 200: ServerStatsSchema },
    }),
    async () => serverStats(ctx),
  );

  app.get(
    '/api/server/stats/users',
    adminOnly({
      summary: 'Files, bytes and short URLs held by each of the given users (zeros for unknown ids)',
      querystring: z.object({ ids: UserIds }),
      response: {
        200: z.object({
          usage: z.array(z.object({ userId: z.string(), files: Count, storageUsed: Count, urls: Count })),
        }),
      },
    }),
    async (request) => ({ usage: await usersUsage(ctx, request.query.ids) }),
  );
};
