// The background job queue for admins (GET /api/server/jobs, retry, delete) and the thumbnail task
// (POST /api/server/thumbnails).
import { z } from 'zod';
import type { RouteModule } from '../../http/types.js';
import { toIso } from '../../lib/clock.js';
import type { JobRow } from '../../db/schema/tables.js';
import { deleteJob, jobOverview, retryJob } from '../../services/operations/jobs.js';
import { queueMissingThumbnails } from '../../services/media/thumbnails.js';

const tags = ['server'];
const JobStateSchema = z.enum(['queued', 'running', 'done', 'failed']);

const JobSchema = z
  .object({
    id: z.string(),
    kind: z.string().describe('what the job does, e.g. thumbnail'),
    payload: z.unknown().describe('what it works on, e.g. {fileId}'),
    state: JobStateSchema,
    attempts: z.number().int(),
    maxAttempts: z.number().int(),
    lastError: z.string().nullable(),
    runAfter: z.string().describe('not run before this time (ISO 8601)'),
    leaseOwner: z.string().nullable().describe('the instance running it'),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'Job' });

function toJobDto(job: JobRow): z.infer<typeof JobSchema> {
  let payload: unknown;
  try {
    payload = JSON.parse(job.payload);
  } catch {
    payload = job.payload;
  }
  return {
    id: job.id,
    kind: job.kind,
    payload,
    state: job.state,
    attempts: job.attempts,
    maxAttempts: job.max_attempts,
    lastError: job.last_error,
    runAfter: toIso(job.run_after),
    leaseOwner: job.lease_owner,
    createdAt: toIso(job.created_at),
    updatedAt: toIso(job.updated_at),
  };
}

const jobParams = z.object({ id: z.string().min(1).max(64) });

/** Under /api/server, for admins. */
export const serverJobsRoutes: RouteModule = (app, ctx) => {
  app.get(
    '/jobs',
    {
      schema: {
        tags,
        summary: 'The background job queue: how many jobs of each kind are in each state, and the failed ones',
        response: {
          200: z.object({
            counts: z.array(z.object({ kind: z.string(), state: JobStateSchema, count: z.number().int() })),
            failed: z.array(JobSchema).describe('the 100 most recently failed jobs, with their last error'),
          }),
        },
      },
    },
    async () => {
      const overview = await jobOverview(ctx.db);
      return { counts: overview.counts, failed: overview.failed.map(toJobDto) };
    },
  );

  app.post(
    '/jobs/:id/retry',
    {
      schema: {
        tags,
        summary: 'Queue a failed (or done) job again with fresh attempts (a queued or running one -> 400/9000)',
        params: jobParams,
        response: { 200: JobSchema },
      },
    },
    async (request) => toJobDto(await retryJob(ctx.db, request.params.id, ctx.clock.now())),
  );

  app.delete(
    '/jobs/:id',
    {
      schema: {
        tags,
        summary: 'Delete a job that is not running (a running one -> 400/9000; none -> 404/9002)',
        params: jobParams,
        response: { 200: z.object({ deleted: z.literal(true) }) },
      },
    },
    async (request) => {
      await deleteJob(ctx.db, request.params.id);
      return { deleted: true as const };
    },
  );

  app.post(
    '/thumbnails',
    {
      schema: {
        tags,
        summary: 'Queue thumbnail jobs for the images and videos that have none (rerun: for all of them)',
        description:
          'Answers at once; the jobs run in the background. 4011 while the setting thumbnailsEnabled is off.',
        body: z.object({ rerun: z.boolean().optional() }).nullish(),
        response: { 200: z.object({ status: z.string(), queued: z.number().int() }) },
      },
    },
    async (request) => {
      const queued = await queueMissingThumbnails(ctx, request.body?.rerun === true);
      return { status: queued === 0 ? 'nothing to do' : `queued ${queued} thumbnail job(s)`, queued };
    },
  );
};
