// The Prometheus endpoint's side of the services: who may scrape (the metricsToken setting as a bearer token), and
// the exposition, whose shared figures (queue depth, storage used, accounts) are read from the database at each
// scrape, so every instance answers the same for them; its request and byte counters are its own process's.
import { createHash, timingSafeEqual } from 'node:crypto';
import { sql } from 'kysely';
import type { AppContext } from '../../context.js';
import { ApiError } from '../../lib/errors.js';
import { instanceUsage } from './usage.js';

const digest = (text: string): Buffer => createHash('sha256').update(text).digest();

/**
 * Whether `authorization` (the request's header) may scrape: /metrics is off (9002, as an unknown route) while
 * metricsToken is null; anything but `Bearer <metricsToken>` -> 2002 (401). The token is compared in constant time
 * (digests of equal length), so the answer's timing tells nothing of it.
 */
export function authorizeScrape(ctx: AppContext, authorization: string | undefined): void {
  const token = ctx.settings.get().metricsToken;
  if (token === null) throw new ApiError(9002, 'no route for GET /metrics');
  const match = /^Bearer +(\S+) *$/i.exec(authorization ?? '');
  const given = match?.[1] ?? '';
  if (!timingSafeEqual(digest(given), digest(token)) || given === '') {
    throw new ApiError(2002, 'send Authorization: Bearer <metricsToken>', {
      headers: { 'www-authenticate': 'Bearer realm="metrics"' },
    });
  }
}

/** GET /metrics for a request whose Authorization header is `authorization`: refused (authorizeScrape), or answered. */
export async function scrapeMetrics(
  ctx: AppContext,
  authorization: string | undefined,
): Promise<{ contentType: string; text: string }> {
  authorizeScrape(ctx, authorization);
  return prometheusExposition(ctx);
}

type Aggregate = number | string | bigint | null;

/** Sets the gauges read from the database, then renders every metric as Prometheus text. */
export async function prometheusExposition(ctx: AppContext): Promise<{ contentType: string; text: string }> {
  const metrics = ctx.metrics;
  const [jobs, usage, users] = await Promise.all([
    ctx.db
      .selectFrom('jobs')
      .select(['kind', 'state', sql<Aggregate>`count(*)`.as('count')])
      .groupBy(['kind', 'state'])
      .execute(),
    instanceUsage(ctx.db),
    ctx.db
      .selectFrom('users')
      .select(sql<Aggregate>`count(*)`.as('count'))
      .executeTakeFirstOrThrow(),
  ]);
  // Kinds and states with no job any more drop out instead of keeping their last count.
  metrics.jobs.reset();
  let queued = 0;
  for (const row of jobs) {
    const count = Number(row.count ?? 0);
    metrics.jobs.labels(row.kind, row.state).set(count);
    if (row.state === 'queued') queued += count;
  }
  metrics.jobQueueDepth.set(queued);
  metrics.storageUsed.set(usage.bytes);
  metrics.storedFiles.set(usage.files);
  metrics.users.set(Number(users.count ?? 0));
  return metrics.exposition();
}
