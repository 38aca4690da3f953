// Statistics, all in one place (services/statistics/): the snapshots' series for signed-in users (GET /api/stats, in
// the shape of Zipline's Metric), the server's totals and a page of users' usage for admins (GET /api/server/stats,
// /api/server/stats/users), and Prometheus's scrape (GET /metrics), off until the metricsToken setting holds the
// bearer token every scrape must send.
import { z } from 'zod';
import { caller } from '../../http/auth.js';
import type { RouteModule } from '../../http/types.js';
import { toIso } from '../../lib/clock.js';
import { scrapeMetrics } from '../../services/statistics/prometheus.js';
import { EARLY_SNAPSHOTS, METRICS_TOP, statsSeries } from '../../services/statistics/snapshots.js';
import { serverStats, TOP_TYPES, TOP_USERS, usersUsage } from '../../services/statistics/totals.js';

const tags = ['server'];
const Count = z.number().int();

const DateText = z
  .string()
  .max(100)
  .refine((v) => !Number.isNaN(Date.parse(v)), 'must be a date, such as 2025-01-31 or 2025-01-31T12:00:00Z')
  .transform((v) => Date.parse(v));

const MetricSchema = z
  .object({
    id: z.string(),
    createdAt: z.string().describe('when the snapshot was taken (ISO 8601)'),
    updatedAt: z.string().describe('the same as createdAt (snapshots never change)'),
    data: z.object({
      users: Count,
      files: Count,
      fileViews: Count,
      urls: Count,
      urlViews: Count,
      storage: Count.describe('bytes of every stored file'),
      filesUsers: z
        .array(z.object({ username: z.string(), sum: Count, storage: Count, views: Count }))
        .describe(`the ${METRICS_TOP} users with the most files (sum), their bytes and views; empty for non-admins`),
      urlsUsers: z
        .array(z.object({ username: z.string(), sum: Count, views: Count }))
        .describe(`the ${METRICS_TOP} users with the most short URLs (sum) and their views; empty for non-admins`),
      types: z
        .array(z.object({ type: z.string(), sum: Count }))
        .describe(`files by media type, the ${METRICS_TOP} most common`),
    }),
  })
  .meta({ id: 'Metric' });

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
    snapshots: z
      .object({
        enabled: z.boolean().describe('the setting metricsEnabled'),
        intervalMs: Count.describe('the setting metricsInterval in milliseconds'),
        nextAt: z
          .string()
          .nullable()
          .describe("the next interval's snapshot is taken within a minute after this time (ISO 8601); null: off"),
        early: z
          .boolean()
          .describe(`fewer than ${EARLY_SNAPSHOTS} snapshots so far: a change of the totals gets one within a minute`),
      })
      .describe('when the statistics snapshots (GET /api/stats) come'),
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

/** Under /api, for a signed-in user (services/statistics/snapshots.ts decides what each caller sees). */
export const statsSeriesRoutes: RouteModule = (app, ctx) => {
  app.get(
    '/stats',
    {
      schema: {
        tags,
        summary: 'The statistics snapshots taken every metricsInterval, newest first',
        description:
          'Snapshots between from (default: 7 days ago) and to (default: now), or every one with all=true. 3001 ' +
          'when metricsEnabled is off; 3000 for non-admins when metricsAdminOnly is on; 1058 when from is after to; ' +
          "1059 when from is in the future. Only admins see other users' names and figures (filesUsers, urlsUsers).",
        querystring: z.object({
          from: DateText.optional().describe('start of the range (a date)'),
          to: DateText.optional().describe('end of the range (a date)'),
          all: z.enum(['true', 'false']).optional().describe('true: every snapshot, whatever from and to'),
        }),
        response: { 200: z.array(MetricSchema) },
      },
    },
    async (request) =>
      statsSeries(ctx, caller(request).user, {
        from: request.query.from,
        to: request.query.to,
        all: request.query.all === 'true',
      }),
  );
};

/** Under /api/server, for admins. */
export const serverStatsRoutes: RouteModule = (app, ctx) => {
  app.get(
    '/stats',
    {
      schema: {
        tags,
        summary: 'Server totals: users, files, bytes stored, views, short URLs, invites, files by type, top users',
        response: { 200: ServerStatsSchema },
      },
    },
    async () => {
      const stats = await serverStats(ctx);
      const nextAt = stats.snapshots.nextAt;
      return { ...stats, snapshots: { ...stats.snapshots, nextAt: nextAt === null ? null : toIso(nextAt) } };
    },
  );

  app.get(
    '/stats/users',
    {
      schema: {
        tags,
        summary: 'Files, bytes and short URLs held by each of the given users (zeros for unknown ids)',
        querystring: z.object({ ids: UserIds }),
        response: {
          200: z.object({
            usage: z.array(z.object({ userId: z.string(), files: Count, storageUsed: Count, urls: Count })),
          }),
        },
      },
    },
    async (request) => ({ usage: await usersUsage(ctx, request.query.ids) }),
  );
};

/**
 * For anyone with the metricsToken (checked by the service, not the group: Prometheus sends no Chute credentials).
 * Not part of the API document: Prometheus reads its own text format.
 */
export const metricsRoutes: RouteModule = (app, ctx) => {
  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    const { contentType, text } = await scrapeMetrics(ctx, request.headers.authorization);
    return reply.header('cache-control', 'no-store').type(contentType).send(text);
  });
};
