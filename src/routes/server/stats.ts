// GET /api/stats: the series of statistics snapshots (services/statistics/snapshots.ts), in the shape of Zipline's Metric.
import { z } from 'zod';
import { caller, requireUser } from '../../http/auth.js';
import { guardedRoute } from '../../http/openapi.js';
import type { RouteModule } from '../../http/types.js';
import { METRICS_TOP, statsSeries } from '../../services/statistics/snapshots.js';

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

export const statsRoutes: RouteModule = (app, ctx) => {
  app.get(
    '/api/stats',
    guardedRoute(requireUser(ctx), ['server'])({
      summary: 'The statistics snapshots taken every metricsInterval, newest first',
      description:
        'Snapshots between from (default: 7 days ago) and to (default: now), or every one with all=true. 3001 when ' +
        'metricsEnabled is off; 3000 for non-admins when metricsAdminOnly is on; 1058 when from is after to; 1059 ' +
        "when from is in the future. Only admins see other users' names and figures (filesUsers, urlsUsers).",
      querystring: z.object({
        from: DateText.optional().describe('start of the range (a date)'),
        to: DateText.optional().describe('end of the range (a date)'),
        all: z.enum(['true', 'false']).optional().describe('true: every snapshot, whatever from and to'),
      }),
      response: { 200: z.array(MetricSchema) },
    }),
    async (request) =>
      statsSeries(ctx, caller(request).user, {
        from: request.query.from,
        to: request.query.to,
        all: request.query.all === 'true',
      }),
  );
};
